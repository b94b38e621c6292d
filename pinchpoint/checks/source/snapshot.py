"""A snapshot captured earlier: a directory (or a tarball unpacked to a temporary one) holding
files at their host paths and command outputs under `commands/` (docs/snapshot-format.md)."""

from __future__ import annotations

import errno
import json
import os
import posixpath
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pinchpoint.checks.source.base import (
    MAX_FILE_BYTES,
    READ_CHUNK,
    Source,
    SourceError,
    _error_from_os,
    too_large,
)
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.scratch import Scratch
from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.snapshot import SNAPSHOT_FORMAT, Manifest

_OPEN_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


MAX_LINK_HOPS = 40  # the kernel's limit on links followed in one lookup
_UNSEEN = "\x00unseen"  # no real path holds a NUL


class _LinkLoopError(Exception):
    """More links followed in one lookup than the kernel follows."""


def _inside(path: str, walk: Callable[[], str | None]) -> str:
    """The real path `walk` finds for host path `path`; `SourceError` for a path that is not a
    host path, leads outside the snapshot (None) or through a loop of symlinks."""
    if not path.startswith("/") or "\x00" in path:
        raise SourceError(path, ProblemKind.MISSING, "not a host path")
    try:
        real = walk()
    except _LinkLoopError:
        loop = "a loop of symlinks: not followed"
        raise SourceError(path, ProblemKind.UNREADABLE, loop) from None
    if real is None:
        raise _outside(path)
    return real


def _outside(path: str) -> SourceError:
    return SourceError(path, ProblemKind.UNREADABLE, "symlink points outside the snapshot")


class SnapshotSource(Source):
    """A captured snapshot directory: files at their host paths, command outputs under commands/.

    Nothing outside the snapshot directory is ever read, listed or tested: every path is
    resolved against the root (directories once, then from a cache) and one that leads out of it
    is refused as unreadable; files are opened with O_NOFOLLOW | O_NONBLOCK (a FIFO never
    blocks), and only regular files are read (`fstat`), at most `MAX_FILE_BYTES` of one."""

    kind = SourceKind.SNAPSHOT
    short_read_is_end = True  # regular files: one read() where the file fits, half the calls

    def __init__(
        self,
        root: str | Path,
        location: str | None = None,
        open_problems: list[CollectionProblem] | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        self.location = location or str(root)
        self.open_problems = open_problems or []
        self._dirs: dict[str, str | None] = {}  # host directory -> real one (None: outside)
        self._links: dict[str, str | None] = {}  # real path met -> where it leads

    def _step(self, real: str, name: str, hops: int, remember: bool = True) -> str | None:
        """The real path of `name` in real directory `real`, a link followed as the kernel
        follows it but never out of the snapshot (None then); links of directories met are
        remembered, so each is read once per snapshot, not once per file below it."""
        if name in ("", "."):
            return real
        if name == "..":
            return None if real == self.root else posixpath.dirname(real)
        candidate = f"{real}/{name}"
        found = self._links.get(candidate, _UNSEEN)
        if found is not _UNSEEN:
            return found
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link (EINVAL), or absent: a path as it stands
            resolved: str | None = candidate
        else:
            if hops >= MAX_LINK_HOPS:
                raise _LinkLoopError
            if target.startswith("/"):
                resolved = None  # the absolute path would be this machine's, not the host's
            else:
                resolved = self._walk(real, target.split("/"), hops + 1)
        if remember:
            self._links[candidate] = resolved
        return resolved

    def _walk(self, real: str | None, parts: list[str], hops: int = 0) -> str | None:
        for part in parts:
            if real is None:
                return None
            real = self._step(real, part, hops)
        return real

    def _real_dir(self, directory: str) -> str | None:
        """The real path of host directory `directory` with every link followed; None when it
        leads out of the snapshot."""
        found = self._dirs.get(directory, _UNSEEN)
        if found is not _UNSEEN:
            return found
        parent, _, name = directory.rstrip("/").rpartition("/")
        if not name:
            real: str | None = self.root
        else:
            real = self._walk(self._real_dir(parent or "/"), [name])
        self._dirs[directory] = real
        return real

    def _real(self, path: str) -> str:
        """The real path of host path `path` inside the snapshot, every link followed (a
        dangling one as it points); raises `SourceError` for a path leading outside."""
        directory, _, leaf = (path.rstrip("/") or "/").rpartition("/")

        def walk() -> str | None:
            base = self._real_dir(directory or "/")
            return None if base is None else self._step(base, leaf, 0, remember=False)

        return _inside(path, walk)

    def _real_directory(self, path: str) -> str:
        """`_real` of a directory about to be listed or tested: the walk remembered, as for a
        directory read below (each directory's components read once, not once per listing)."""
        return _inside(path, lambda: self._real_dir(path.rstrip("/") or "/"))

    def _unresolved(self, path: str) -> str:
        """Like `_real`, but a link at the end of `path` is left as it is."""
        directory, leaf = posixpath.split(path.rstrip("/"))
        try:
            base = self._real_dir(directory or "/")
        except _LinkLoopError:
            base = None
        if base is None:
            raise _outside(path)
        return f"{base}/{leaf}" if leaf else base

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        # The directory resolved (cached), the file opened without following a link at the
        # end: a regular file costs no readlink; a link there is resolved, then opened the same.
        # One frame for what fits one read (87,000 sysfs attributes of a 1,920-path host).
        directory, _, leaf = path.rpartition("/")
        base = self._dirs.get(directory or "/", _UNSEEN) if path[:1] == "/" else None
        if base is _UNSEEN:
            try:
                base = self._real_dir(directory or "/")
            except _LinkLoopError:
                base = None
        fd = -1
        if base is not None and leaf not in ("", ".", ".."):
            try:
                fd = os.open(f"{base}/{leaf}", _OPEN_FLAGS)
            except OSError as err:
                if err.errno != errno.ELOOP:
                    raise _error_from_os(path, err) from None
        if fd < 0:
            try:
                fd = os.open(self._real(path), _OPEN_FLAGS)
            except OSError as err:
                if err.errno == errno.ELOOP:  # a loop of links (realpath stops in it)
                    raise SourceError(
                        path, ProblemKind.UNREADABLE, "a loop of symlinks: not followed"
                    ) from None
                raise _error_from_os(path, err) from None
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode):
                what = next((w for test, w in _KINDS if test(found.st_mode)), "not a file")
                raise SourceError(
                    path, ProblemKind.UNREADABLE, f"{what}, not a regular file: not read"
                )
            if limit is None:
                if found.st_size > MAX_FILE_BYTES:
                    raise too_large(path, found.st_size)
                cap = MAX_FILE_BYTES
            else:
                cap = limit + 1
            try:
                chunk = os.read(fd, READ_CHUNK if cap > READ_CHUNK else cap)
            except OSError as err:
                raise _error_from_os(path, err) from None
            if len(chunk) < READ_CHUNK or len(chunk) >= cap:  # a short read ends a file
                return chunk
            return self._read_rest(path, fd, chunk, cap, limit)
        finally:
            os.close(fd)

    def read_link(self, path: str) -> str:
        try:
            return os.readlink(self._unresolved(path))
        except OSError as err:
            raise _error_from_os(path, err) from None

    def is_link(self, path: str) -> bool:
        try:
            return os.path.islink(self._unresolved(path))
        except SourceError:
            return False

    def is_dir(self, path: str) -> bool:
        try:
            return os.path.isdir(self._real_directory(path))
        except SourceError:
            return False

    def exists(self, path: str) -> bool:
        try:
            return os.path.exists(self._real(path))
        except SourceError:
            return False

    def resolve(self, path: str) -> str:
        return self._real(path)[len(self.root) :] or "/"

    def run(self, command: Command) -> CommandResult:
        try:
            text = self.read_text(f"/commands/{command.key}")
        except SourceError as err:
            if err.kind is ProblemKind.MISSING:
                return CommandResult(command, CommandStatus.NOT_COLLECTED)
            return CommandResult(command, CommandStatus.FAILED, detail=err.reason)
        return CommandResult(command, CommandStatus.OK, stdout=text, returncode=0)

    def manifest(self) -> Manifest | None:
        try:
            raw: Any = json.loads(self.read_text("/manifest.json"))
        except (SourceError, ValueError):
            return None
        if not isinstance(raw, dict) or raw.get("format") != SNAPSHOT_FORMAT:
            return None
        try:
            return Manifest.model_validate(raw)
        except ValueError:
            return None


def is_archive(path: str | Path) -> bool:
    name = str(path)
    return name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2"))


class NotASnapshotError(ValueError):
    """A directory or archive that holds nothing pinchpoint recognises as a snapshot."""


# What a snapshot directory may hold that pinchpoint reads (docs/snapshot-format.md).
RECOGNISED = ("manifest.json", "sys", "proc", "commands")


def recognise(root: Path, location: str) -> None:
    """Refuse a directory that is no snapshot: nothing of `RECOGNISED` in it, or a
    `manifest.json` that is not a pinchpoint snapshot manifest. Analysing it would answer
    "OK, no findings" about a host nobody looked at."""
    found = [name for name in RECOGNISED if os.path.lexists(root / name)]
    if not found:
        raise NotASnapshotError(
            f"{location} is not a snapshot: found none of {', '.join(RECOGNISED)}"
        )
    if "manifest.json" in found:
        source = SnapshotSource(root, location)
        if source.manifest() is None:
            raise NotASnapshotError(
                f"{location}: manifest.json is not a pinchpoint snapshot manifest "
                f"(format {SNAPSHOT_FORMAT!r}, as `pinchpoint capture` writes it)"
            )
    elif not any(name in found for name in ("sys", "proc")):
        raise NotASnapshotError(
            f"{location} is not a snapshot: no manifest.json, sys/ or proc/ in it"
        )


@contextmanager
def open_snapshot(path: str | Path) -> Iterator[SnapshotSource]:
    """A snapshot from a directory or an archive. An archive is unpacked by the one checked
    extractor the service uses too (`archives.extract_snapshot_archive`), into this process's
    scratch (`scratch.py`), and refused whole when any member is hostile (`ArchiveRejected`,
    naming the member). Raises `FileNotFoundError`, or `NotASnapshotError` (a `ValueError`) for what
    holds no snapshot."""
    location = str(path)
    if os.path.isdir(path):
        recognise(Path(path), location)
        yield SnapshotSource(path, location)
        return
    if not os.path.exists(path):
        raise FileNotFoundError(f"no snapshot at {path}")
    if not is_archive(path):
        raise NotASnapshotError(f"{path} is neither a snapshot directory nor a .tar.gz archive")
    # imported here: a snapshot directory (every `check` of one) needs no archive reader
    from pinchpoint.checks.source.archives import (
        MALFORMED,
        ArchiveLimits,
        ArchiveRejected,
        extract_snapshot_archive,
    )

    with Scratch("snapshot-") as tmp:
        try:
            root = extract_snapshot_archive(
                Path(path), Path(tmp, "tree"), ArchiveLimits(), any_compression=True
            )
        except ArchiveRejected as err:
            said = "is not a readable snapshot archive" if err.status == MALFORMED else "refused"
            raise ArchiveRejected(
                f"{location} {said}: {err.reason}", err.status, err.member
            ) from None
        yield SnapshotSource(root, location)
