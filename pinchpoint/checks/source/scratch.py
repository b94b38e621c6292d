"""Scratch space: one directory per process under one parent, cleaned when the process ends and,
when it could not be (a `kill -9`, a crash, a power cut), by the next process to start.

A parent (`pinchpoint-<uid>` in /dev/shm or the temporary directory, or the service's
`uploads/`) holds one directory per process, `<pid>-<start>`: the process id and its start time
in clock ticks since boot (from /proc/<pid>/stat), so a recycled process id is not taken for
the process that made the directory. Everything a process unpacks, simulates or receives goes
in a fresh directory below its own. The first use in a process removes every directory of the
parent whose process is gone; `clean_stale` does it on demand (the service at start-up).
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_mine: dict[Path, Path] = {}  # parent -> this process's directory in it


def _start_ticks(pid: int) -> str | None:
    """The start time of process `pid` (field 22 of /proc/<pid>/stat), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and parentheses.
    fields = text.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


def _alive(pid: int, ticks: str) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, someone else's
    found = _start_ticks(pid)
    return found is None or found == ticks  # no /proc: trust the pid


def own_name() -> str:
    """This process's directory name: `<pid>-<start ticks>`."""
    pid = os.getpid()
    return f"{pid}-{_start_ticks(pid) or 0}"


def clean_stale(parent: Path) -> list[Path]:
    """Remove the directories in `parent` left by processes that are gone; returns them.
    Entries not named `<pid>-<ticks>` are left alone (they are not scratch)."""
    removed: list[Path] = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        pid_text, dash, ticks = name.partition("-")
        if not (dash and pid_text.isdigit() and ticks.isdigit()):
            continue
        if _alive(int(pid_text), ticks):
            continue
        path = parent / name
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        except OSError:
            continue
    return removed


def clean_stale_everywhere(*parents: Path) -> list[Path]:
    """`clean_stale` on `parents` and on the shared parents in /dev/shm and the temporary
    directory (what the service does at start-up); returns what was removed."""
    removed: list[Path] = []
    for parent in (*parents, shared_parent("/dev/shm"), shared_parent()):
        if parent.is_dir() and not parent.is_symlink():
            removed += clean_stale(parent)
    return removed


def _safe_parent(parent: Path) -> bool:
    """`parent` exists (made now if needed) as a real directory of ours, closed to others."""
    try:
        parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(parent)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid()


def shared_parent(base: str | None = None) -> Path:
    """The parent of every process's scratch in `base` (default: the temporary directory)."""
    return Path(base or tempfile.gettempdir(), f"pinchpoint-{os.geteuid()}")


def process_dir(parent: Path) -> Path:
    """This process's scratch directory in `parent`, made on first use (stale ones of gone
    processes are removed then) and removed when the process exits."""
    with _lock:
        found = _mine.get(parent)
        if found is not None and found.is_dir():
            return found
        if not _safe_parent(parent):
            # Someone else's (or a link) in a shared directory: keep out of it.
            own = Path(tempfile.mkdtemp(prefix="pinchpoint-"))
        else:
            clean_stale(parent)
            own = parent / own_name()
            own.mkdir(mode=0o700, exist_ok=True)
        if not _mine:
            atexit.register(_remove_mine)
        _mine[parent] = own
        return own


def _remove_mine() -> None:
    for own in _mine.values():
        shutil.rmtree(own, ignore_errors=True)
    _mine.clear()


def scratch_in(parent: Path, prefix: str) -> Path:
    """A fresh directory below this process's directory in `parent`; the caller removes it."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=process_dir(parent)))


class Scratch:
    """A fresh scratch directory below this process's one, removed by `cleanup` (or `with`)."""

    def __init__(self, prefix: str, base: str | None = None, parent: Path | None = None) -> None:
        self.name = str(scratch_in(parent or shared_parent(base), prefix))

    def cleanup(self) -> None:
        shutil.rmtree(self.name, ignore_errors=True)

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
