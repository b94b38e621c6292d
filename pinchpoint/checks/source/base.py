"""What every source of host facts is: read-only access to one host's /sys, /proc and command
outputs by host path, with failures as `SourceError`s in the terms of `ProblemKind`."""

from __future__ import annotations

import errno
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from pinchpoint.checks.source.budget import ToolBudget
from pinchpoint.checks.source.commands import Command, CommandResult
from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.snapshot import Manifest
from pinchpoint.text import host_name_text, host_text

DEFAULT_MAX_WORKERS = 8
READ_CHUNK = 65536
# The most of one file any source reads (command outputs, SES pages, diskstats): a 1,920-path
# host's largest is under 1 MiB. A larger file is refused, said with its size.
MAX_FILE_BYTES = 32 * 1024 * 1024


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


def too_large(path: str, size: int | None = None) -> SourceError:
    what = f"{size:,} bytes" if size is not None else "larger"
    return SourceError(
        path,
        ProblemKind.UNREADABLE,
        f"{what}, more than the {MAX_FILE_BYTES:,} bytes read of one file: not read",
    )


class ReadOnce:
    """What one inventory run has read: each sysfs attribute's bytes (or the error reading it
    met) by path, so that collectors asking for the same attribute (the SAS walk and the block
    devices both read a disk's `size`) read it once. `block_beside`: the block devices are
    read by another process at the same time, whose reads this one cannot see — the SAS walk
    leaves a disk's size and rotation, and each path's queue depth, to them (`collect_inventory`
    joins them afterwards)."""

    def __init__(self) -> None:
        self.attributes: dict[str, bytes | SourceError] = {}
        self.block_beside = False
        # the block device directories the SAS walk left to the other process, by name
        self.left_to_block: dict[str, str] = {}
        # the SCSI device directories whose `queue_depth` the SAS walk left to the other
        # process (it reads the same file as `/sys/block/<name>/device/queue_depth`), by name
        self.queue_depth_left: dict[str, str] = {}


class Source(ABC):
    """Read-only access to one host's /sys, /proc and command outputs."""

    kind: SourceKind
    location: str
    # Problems met opening the source itself (e.g. archive members refused), shown with the rest.
    open_problems: list[CollectionProblem]
    # How long the check reading through this source may run tools, all together (a live host;
    # the service sets one per sweep). None: each run has only its own timeout.
    budget: ToolBudget | None = None
    # While one inventory is read: each attribute read once (`sysfs.read_once`); None between.
    read_once: ReadOnce | None = None

    @abstractmethod
    def _real(self, path: str) -> str:
        """The filesystem path that holds host path `path`."""

    # A short read ends the file for a regular file, not for sysfs or procfs on a live host.
    short_read_is_end = False

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The whole file; plain os.open/os.read, twice as fast as open() for 80,000 attributes.
        With `limit`, at most `limit + 1` bytes (more than `limit`: the file was cut); without,
        a file past `MAX_FILE_BYTES` is refused as unreadable."""
        try:
            fd = os.open(self._real(path), os.O_RDONLY | os.O_CLOEXEC)
        except OSError as err:
            raise _error_from_os(path, err) from None
        try:
            return self._read_fd(path, fd, limit)
        finally:
            os.close(fd)

    def _read_fd(self, path: str, fd: int, limit: int | None) -> bytes:
        cap = MAX_FILE_BYTES if limit is None else limit + 1
        try:
            chunk = os.read(fd, min(READ_CHUNK, cap))
        except OSError as err:
            raise _error_from_os(path, err) from None
        if len(chunk) >= cap or (self.short_read_is_end and len(chunk) < READ_CHUNK):
            return chunk
        return self._read_rest(path, fd, chunk, cap, limit)

    def _read_rest(self, path: str, fd: int, chunk: bytes, cap: int, limit: int | None) -> bytes:
        """The file whose first `chunk` was read, up to `cap` bytes (refused beyond it when
        there is no `limit`)."""
        chunks = [chunk]
        got = len(chunk)
        try:
            while chunk := os.read(fd, min(READ_CHUNK, cap - got)):
                chunks.append(chunk)
                got += len(chunk)
                if got >= cap:
                    break
        except OSError as err:
            raise _error_from_os(path, err) from None
        if limit is None and got >= cap:
            raise too_large(path)
        return b"".join(chunks)

    def read_text(self, path: str) -> str:
        """The whole file as text; bytes that are not UTF-8 are kept as `\\xNN` escapes, never
        fatal (`pinchpoint.text.host_text`, the one decoding of host bytes)."""
        return host_text(self.read_bytes(path))

    def _real_directory(self, path: str) -> str:
        """`_real` of a directory to list or test (a snapshot remembers its walk)."""
        return self._real(path)

    def list_dir(self, path: str) -> list[str]:
        """Entry names, sorted; a name that is not UTF-8 is listed with `\\xNN` escapes (as
        text that JSON can carry: reading below it then reports it missing)."""
        try:
            names = os.listdir(self._real_directory(path))
        except OSError as err:
            raise _error_from_os(path, err) from None
        if not "".join(names).isascii():  # ASCII holds no lone surrogate: most listings
            names = [host_name_text(name) for name in names]
        names.sort()
        return names

    def read_link(self, path: str) -> str:
        try:
            return host_name_text(os.readlink(self._real(path)))
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
