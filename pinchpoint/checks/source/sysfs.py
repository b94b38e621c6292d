"""Reading sysfs attributes through a `Source`, turning failures into recorded problems.

A missing attribute is normal (drivers differ) and returns None silently; a file that exists but
cannot be read (permission, I/O error, dangling link) is recorded as a problem once per kind, so
a host with 1,000 unreadable files yields a short, readable list.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.base import ReadOnce
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.text import host_text

MAX_PROBLEMS_PER_KIND = 10
# A sysfs attribute holds at most one page (4 KiB on x86, 64 KiB on some arm64 and POWER
# kernels); anything longer in a snapshot is no attribute, and is cut here with a visible mark.
MAX_ATTRIBUTE_BYTES = 64 * 1024
TRUNCATED = "…[truncated]"
MAX_REASON_CHARS = 300  # a problem's reason or subject in the report


def clip(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """`text`, cut to `limit` characters with a visible mark when longer."""
    return text if len(text) <= limit else text[:limit] + TRUNCATED


class ProblemLog:
    """Problems met while collecting, capped per (part, kind) with a count of the rest."""

    def __init__(self) -> None:
        self._problems: list[CollectionProblem] = []
        self._counts: Counter[tuple[str, ProblemKind]] = Counter()

    def add(self, part: str, subject: str, kind: ProblemKind, reason: str) -> None:
        key = (part, kind)
        self._counts[key] += 1
        if self._counts[key] <= MAX_PROBLEMS_PER_KIND:
            self._problems.append(
                CollectionProblem(part=part, subject=clip(subject), kind=kind, reason=clip(reason))
            )

    def absorb(self, other: ProblemLog) -> None:
        """Take over the problems another log recorded (a child process's), keeping the caps."""
        for problem in other._problems:
            self.add(problem.part, problem.subject, problem.kind, problem.reason)
        for key, count in other._counts.items():
            recorded = min(count, MAX_PROBLEMS_PER_KIND)
            self._counts[key] += count - recorded

    def problems(self) -> list[CollectionProblem]:
        """Every recorded problem, plus one line per kind that was cut short."""
        result = list(self._problems)
        for (part, kind), count in sorted(self._counts.items()):
            if count > MAX_PROBLEMS_PER_KIND:
                result.append(
                    CollectionProblem(
                        part=part,
                        subject="…",
                        kind=kind,
                        reason=f"{count - MAX_PROBLEMS_PER_KIND} more problems of this kind",
                    )
                )
        return result


@contextmanager
def read_once(source: Source) -> Iterator[ReadOnce]:
    """Inside the block (one inventory), each attribute `SysfsReader`s read is read from the
    host once and remembered until the block ends; nested blocks share the outer one's."""
    if source.read_once is not None:
        yield source.read_once
        return
    source.read_once = ReadOnce()
    try:
        yield source.read_once
    finally:
        source.read_once = None


def block_beside(source: Source) -> bool:
    """Whether the block devices' attributes are read by another process in this run."""
    return source.read_once is not None and source.read_once.block_beside


def left_to_block(source: Source) -> dict[str, str]:
    """Where the SAS walk left a block device's attributes to the other process: the block
    device's directory as the SAS walk found it, by name (empty outside a run)."""
    return source.read_once.left_to_block if source.read_once is not None else {}


def queue_depth_left(source: Source) -> dict[str, str]:
    """The SCSI device directories whose queue depth the SAS walk left to the other process,
    by the name of their block device (empty outside a run)."""
    return source.read_once.queue_depth_left if source.read_once is not None else {}


def _bare(err: SourceError) -> SourceError:
    """The same error without traceback, cause or context: safe to keep in a cache."""
    return SourceError(err.path, err.kind, err.reason)


class SysfsReader:
    """Attribute reads for one collector (`part`), recording what could not be read."""

    def __init__(self, source: Source, part: str, log: ProblemLog) -> None:
        self.source = source
        self.part = part
        self.log = log

    def _note(self, err: SourceError) -> None:
        if err.kind is not ProblemKind.MISSING:
            self.log.add(self.part, err.path, err.kind, err.reason)

    def text(self, path: str) -> str | None:
        """The attribute stripped of surrounding white space; None when absent or unreadable.
        One longer than `MAX_ATTRIBUTE_BYTES` is cut there, ends in `TRUNCATED` and is
        recorded as a problem (a 100 MB attribute is read as 64 KiB, not 100 MB)."""
        # each attribute read once per run (`read_once`), in this one frame: 87,000 of them
        run = self.source.read_once
        found = None if run is None else run.attributes.get(path)
        if found is None:
            try:
                found = self.source.read_bytes(path, MAX_ATTRIBUTE_BYTES)
            except SourceError as err:
                # kept without its traceback, whose frames would hold the cache: a cycle
                # that kept each sweep's inventory alive until a full collection
                found = _bare(err)
            if run is not None:
                run.attributes[path] = found
        if type(found) is bytes:
            if len(found) <= MAX_ATTRIBUTE_BYTES:
                return host_text(found).strip()
            self.log.add(
                self.part,
                path,
                ProblemKind.GARBLED,
                f"longer than the {MAX_ATTRIBUTE_BYTES:,} bytes an attribute may hold: "
                "cut there, marked truncated",
            )
            kept = host_text(found[:MAX_ATTRIBUTE_BYTES]).strip()
            return kept + TRUNCATED
        assert isinstance(found, SourceError)
        if found.kind is ProblemKind.MISSING and self.source.is_link(path):
            self.log.add(self.part, path, ProblemKind.UNREADABLE, "dangling symlink")
        else:
            self._note(found)
        return None

    def value(self, path: str) -> str | None:
        """Like `text`, but an empty attribute is None too."""
        found = self.text(path)
        return found or None

    def integer(self, path: str) -> int | None:
        """A decimal or 0x-hex attribute as an int; None when absent or not a number."""
        found = self.text(path)
        if not found:
            return None
        try:
            return int(found, 0)
        except ValueError:
            try:
                return int(found)
            except ValueError:
                self.log.add(
                    self.part,
                    path,
                    ProblemKind.GARBLED,
                    f"expected a number, found {clip(found, 60)!r}",
                )
                return None

    def entries(self, path: str) -> list[str]:
        """Directory entries; an absent directory is empty, an unreadable one is recorded."""
        try:
            return self.source.list_dir(path)
        except SourceError as err:
            self._note(err)
            return []

    def directory(self, entry: str, nowhere: str) -> str | None:
        """The directory a class or bus entry leads to; None, with `nowhere` recorded as the
        reason, when it leads to no directory (a dangling link in a partial capture)."""
        if self.source.is_link(entry):
            # Class and bus links point straight into the device tree: one readlink, not a
            # realpath walk of twenty components (2,000 block devices: 0.45 s -> 0.1 s).
            try:
                target = self.source.read_link(entry)
            except SourceError:
                target = ""
            if target and not target.startswith("/"):
                path = posixpath.normpath(posixpath.join(posixpath.dirname(entry), target))
                if path.startswith("/sys/") and self.source.is_dir(path):
                    return path
        try:
            path = self.source.resolve(entry)
        except SourceError as err:
            self.log.add(self.part, entry, err.kind, f"not collected: {err.reason}")
            return None
        if self.source.is_dir(path):
            return path
        self.log.add(
            self.part, entry, ProblemKind.UNREADABLE, f"not collected: {nowhere.format(path=path)}"
        )
        return None

    def link_name(self, path: str) -> str | None:
        """The last component of a symlink's target (e.g. the port a phy belongs to)."""
        try:
            return self.source.read_link(path).rstrip("/").rsplit("/", 1)[-1]
        except SourceError as err:
            self._note(err)
            return None
