"""Where facts are read from: the live host, or a snapshot directory (or tarball) captured earlier.

Every collector reads through a `Source`, with host paths such as `/sys/class/sas_host`. A
snapshot keeps the same paths below its root (`SNAPSHOT/sys/class/sas_host`) and keeps command
outputs under `SNAPSHOT/commands/<tool>/<name>`; see docs/snapshot-format.md.
"""

from __future__ import annotations

import errno
import json
import os
import posixpath
import tarfile
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pinchpoint.checks.commands import Command, CommandResult, CommandStatus, run_command
from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.snapshot import SNAPSHOT_FORMAT, Manifest

DEFAULT_MAX_WORKERS = 8
READ_CHUNK = 65536


class SourceError(Exception):
    """A path could not be read; `kind` says why in the terms of `ProblemKind`."""

    def __init__(self, path: str, kind: ProblemKind, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.kind = kind
        self.reason = reason


def _error_from_os(path: str, err: OSError) -> SourceError:
    if isinstance(err, FileNotFoundError) or err.errno == errno.ENOENT:
        return SourceError(path, ProblemKind.MISSING, "does not exist")
    if isinstance(err, PermissionError) or err.errno in (errno.EACCES, errno.EPERM):
        return SourceError(path, ProblemKind.PERMISSION, "permission denied (run as root)")
    if isinstance(err, NotADirectoryError):
        return SourceError(path, ProblemKind.MISSING, "is not a directory")
    return SourceError(path, ProblemKind.UNREADABLE, err.strerror or str(err))


class Source(ABC):
    """Read-only access to one host's /sys, /proc and command outputs."""

    kind: SourceKind
    location: str
    # Problems met opening the source itself (e.g. archive members refused), shown with the rest.
    open_problems: list[CollectionProblem]

    @abstractmethod
    def _real(self, path: str) -> str:
        """The filesystem path that holds host path `path`."""

    # A short read ends the file for a regular file, not for sysfs or procfs on a live host.
    short_read_is_end = False

    def read_bytes(self, path: str) -> bytes:
        """The whole file; plain os.open/os.read, twice as fast as open() for 80,000 attributes."""
        try:
            fd = os.open(self._real(path), os.O_RDONLY | os.O_CLOEXEC)
        except OSError as err:
            raise _error_from_os(path, err) from None
        try:
            chunk = os.read(fd, READ_CHUNK)
            if self.short_read_is_end and len(chunk) < READ_CHUNK:
                return chunk
            chunks = [chunk]
            while chunk := os.read(fd, READ_CHUNK):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError as err:
            raise _error_from_os(path, err) from None
        finally:
            os.close(fd)

    def read_text(self, path: str) -> str:
        """The whole file as text; undecodable bytes are replaced, never fatal."""
        return self.read_bytes(path).decode("utf-8", errors="replace")

    def list_dir(self, path: str) -> list[str]:
        """Entry names, sorted."""
        try:
            return sorted(os.listdir(self._real(path)))
        except OSError as err:
            raise _error_from_os(path, err) from None

    def read_link(self, path: str) -> str:
        try:
            return os.readlink(self._real(path))
        except OSError as err:
            raise _error_from_os(path, err) from None

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(self._real(path))

    def is_link(self, path: str) -> bool:
        return os.path.islink(self._real(path))

    def exists(self, path: str) -> bool:
        return os.path.exists(self._real(path))

    @abstractmethod
    def resolve(self, path: str) -> str:
        """The canonical host path of `path` with every symlink followed."""

    @abstractmethod
    def run(self, command: Command) -> CommandResult:
        """The output of `command`: run now (live) or as captured (snapshot)."""

    def run_all(
        self, commands: Iterable[Command], max_workers: int = DEFAULT_MAX_WORKERS
    ) -> list[CommandResult]:
        """Run commands with bounded concurrency; results in the order given."""
        todo = list(commands)
        if len(todo) <= 1 or max_workers <= 1:
            return [self.run(c) for c in todo]
        with ThreadPoolExecutor(max_workers=max_workers) as pool:
            return list(pool.map(self.run, todo))

    def manifest(self) -> Manifest | None:
        return None


class LiveSource(Source):
    """This host, now. Commands really run."""

    kind = SourceKind.LIVE

    def __init__(self, root: str = "/") -> None:
        self.root = root.rstrip("/")
        self.location = root
        self.open_problems = []

    def _real(self, path: str) -> str:
        return self.root + path

    def resolve(self, path: str) -> str:
        real = os.path.realpath(self._real(path))
        return real[len(self.root) :] if self.root else real

    def run(self, command: Command) -> CommandResult:
        return run_command(command)


class SnapshotSource(Source):
    """A captured snapshot directory: files at their host paths, command outputs under commands/."""

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

    def _real(self, path: str) -> str:
        return self.root + path

    def resolve(self, path: str) -> str:
        real = os.path.realpath(self._real(path))
        if real != self.root and not real.startswith(self.root + os.sep):
            raise SourceError(path, ProblemKind.UNREADABLE, "symlink points outside the snapshot")
        return real[len(self.root) :] or "/"

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


class RecordingSource(LiveSource):
    """The live host, writing everything read into a snapshot directory (what `capture` uses)."""

    def __init__(self, out_dir: str | Path, root: str = "/") -> None:
        super().__init__(root)
        self.out = os.path.realpath(out_dir)

    def _out(self, path: str) -> str:
        return self.out + path

    def _record_link(self, path: str, target: str) -> None:
        if os.path.isabs(target):
            target = posixpath.relpath(target, posixpath.dirname(path))
        dest = self._out(path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.lexists(dest):
            os.symlink(target, dest)

    def _record_dir(self, path: str) -> None:
        os.makedirs(self._out(path), exist_ok=True)

    def read_bytes(self, path: str) -> bytes:
        data = super().read_bytes(path)
        real_path = self.resolve(path)
        dest = self._out(real_path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as handle:
            handle.write(data)
        return data

    def list_dir(self, path: str) -> list[str]:
        names = super().list_dir(path)
        base = self.resolve(path)
        self._record_dir(base)
        for name in names:
            child = posixpath.join(base, name)
            real = self._real(child)
            if os.path.islink(real):
                self._record_link(child, os.readlink(real))
            elif os.path.isdir(real):
                self._record_dir(child)
        return names

    def read_link(self, path: str) -> str:
        target = super().read_link(path)
        self._record_link(path, target)
        return target

    def is_dir(self, path: str) -> bool:
        found = super().is_dir(path)
        if found:
            self._record_dir(self.resolve(path))
        return found

    def resolve(self, path: str) -> str:
        """Follow links one component at a time, recording each link met."""
        current = "/"
        for part in [p for p in path.split("/") if p]:
            candidate = posixpath.join(current, part)
            real = self._real(candidate)
            if os.path.islink(real):
                target = os.readlink(real)
                self._record_link(candidate, target)
                joined = target if os.path.isabs(target) else posixpath.join(current, target)
                current = self.resolve(posixpath.normpath(joined))
            elif part == "..":
                current = posixpath.dirname(current)
            else:
                current = candidate
        return current

    def run(self, command: Command) -> CommandResult:
        result = super().run(command)
        # Keep whatever the tool printed: smartctl exits non-zero with a full report whenever
        # a log holds errors, and its JSON carries that status itself.
        if result.ok or (result.status is CommandStatus.FAILED and result.stdout.strip()):
            dest = Path(self.out, "commands", command.key)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(result.stdout, encoding="utf-8")
        return result


def _snapshot_root(extracted: Path) -> Path:
    """The directory holding manifest.json: the archive root or its single top directory."""
    if (extracted / "manifest.json").exists():
        return extracted
    children = [c for c in extracted.iterdir() if c.is_dir()]
    if len(children) == 1 and (children[0] / "manifest.json").exists():
        return children[0]
    if len(children) == 1 and not (extracted / "sys").exists():
        return children[0]
    return extracted


def is_archive(path: str | Path) -> bool:
    name = str(path)
    return name.endswith((".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2"))


@contextmanager
def open_snapshot(path: str | Path) -> Iterator[SnapshotSource]:
    """A snapshot from a directory or a tarball (extracted safely to a temporary directory)."""
    location = str(path)
    if os.path.isdir(path):
        yield SnapshotSource(path, location)
        return
    if not os.path.exists(path):
        raise FileNotFoundError(f"no snapshot at {path}")
    if not is_archive(path):
        raise ValueError(f"{path} is neither a snapshot directory nor a .tar.gz archive")
    with tempfile.TemporaryDirectory(prefix="pinchpoint-snapshot-") as tmp:
        refused: list[CollectionProblem] = []

        def safe_member(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
            # The "data" filter refuses absolute paths, links leaving the tree, devices and
            # setuid bits. A refused member is left out and reported; the rest is kept.
            try:
                return tarfile.data_filter(member, dest)
            except tarfile.FilterError as err:
                refused.append(
                    CollectionProblem(
                        part="snapshot",
                        subject=member.name,
                        kind=ProblemKind.UNREADABLE,
                        reason=f"archive member left out: {err}",
                    )
                )
                return None

        try:
            with tarfile.open(path) as archive:
                archive.extractall(tmp, filter=safe_member)
        except (tarfile.TarError, EOFError, OSError) as err:
            raise ValueError(f"{path}: not a readable snapshot archive: {err}") from None
        yield SnapshotSource(_snapshot_root(Path(tmp)), location, refused)
