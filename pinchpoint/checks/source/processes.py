"""One tool run as a child process that cannot outlive its time or flood this one's memory.

The tool runs in a process group of its own (`start_new_session=True`), so everything it starts
can be stopped with it: when its time is up, or it prints more than it may, or the caller gives
up on it, the whole group gets SIGTERM, then SIGKILL after a grace period. A plain timeout on
the direct child left its children running (a `smartctl` wrapper's helpers, a shell's `sleep`),
holding the output pipes open. Output is read as it comes, in chunks, and reading stops at a
cap: an endless printer once grew this process to 7.6 GB.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

CHUNK = 65536
STOP_GRACE_S = 2.0  # between SIGTERM and SIGKILL to the group
POLL_S = 0.2  # how often a run asks whether its caller still wants it


class Stop(StrEnum):
    """Why a run was stopped before it ended by itself."""

    TIMEOUT = "timeout"  # its time was up
    STDOUT_CAP = "stdout_cap"  # it printed more than the cap on stdout
    STDERR_CAP = "stderr_cap"  # … or on stderr
    CALLED_OFF = "called_off"  # the caller gave up on it (its sweep was abandoned)


@dataclass
class Finished:
    """What a run left: the output kept (at most the caps), the exit status, why it stopped."""

    stdout: bytes
    stderr: bytes
    returncode: int | None
    stopped: Stop | None = None  # None: it ended by itself


class _Capped:
    """One output pipe, read into a buffer of at most `cap` bytes."""

    def __init__(self, cap: int, over: Stop) -> None:
        self.cap = cap
        self.over = over
        self.chunks: list[bytes] = []
        self.size = 0

    def add(self, chunk: bytes) -> bool:
        """Keep `chunk`; False when the cap is passed (what fits is kept)."""
        room = self.cap - self.size
        if len(chunk) > room:
            self.chunks.append(chunk[:room])
            self.size = self.cap
            return False
        self.chunks.append(chunk)
        self.size += len(chunk)
        return True

    def data(self) -> bytes:
        return b"".join(self.chunks)


def _exit_fd(process: subprocess.Popen[bytes]) -> int | None:
    """A descriptor that turns readable when the process ends (Linux 5.3+), else None."""
    try:
        return os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        return None


def _read_until_done(
    process: subprocess.Popen[bytes],
    outputs: dict[int, _Capped],
    ends_at: float,
    called_off: Callable[[], bool] | None,
) -> Stop | None:
    """Read both pipes until they close and the process ends; why it must be stopped if not.
    The process's end is watched with the pipes where the kernel allows it (no polling)."""
    exit_fd = _exit_fd(process)
    try:
        with selectors.DefaultSelector() as selector:
            for fd in outputs:
                os.set_blocking(fd, False)
                selector.register(fd, selectors.EVENT_READ)
            if exit_fd is not None:
                selector.register(exit_fd, selectors.EVENT_READ)
            while len(selector.get_map()) > 0:
                left = ends_at - time.monotonic()
                if left <= 0:
                    return Stop.TIMEOUT
                if called_off is not None:
                    if called_off():
                        return Stop.CALLED_OFF
                    left = min(left, POLL_S)
                for key, _events in selector.select(left):
                    fd = int(key.fd)
                    if fd == exit_fd:
                        process.wait()  # it has ended: this only reaps it
                        selector.unregister(fd)
                        continue
                    try:
                        chunk = os.read(fd, CHUNK)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        selector.unregister(fd)
                    elif not outputs[fd].add(chunk):
                        return outputs[fd].over
    finally:
        if exit_fd is not None:
            os.close(exit_fd)
    while process.returncode is None:  # no descriptor for its end: wait, a slice at a time
        left = ends_at - time.monotonic()
        if left <= 0:
            return Stop.TIMEOUT
        if called_off is not None and called_off():
            return Stop.CALLED_OFF
        try:
            process.wait(min(left, POLL_S))
        except subprocess.TimeoutExpired:
            continue
    return None


def _signal_group(group: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # gone already
        os.killpg(group, signum)


def stop_group(process: subprocess.Popen[bytes], grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM to the process's group; once the tool has ended, or after `grace_s`, SIGKILL to
    whatever is left of the group. Reaps the tool."""
    group = process.pid  # a session leader's group id is its pid
    _signal_group(group, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace_s)
    _signal_group(group, signal.SIGKILL)
    process.wait()


def run_in_own_group(
    argv: Sequence[str],
    env: dict[str, str],
    timeout_s: float,
    max_stdout: int,
    max_stderr: int,
    called_off: Callable[[], bool] | None = None,
) -> Finished:
    """Run `argv` in a new process group with at most `timeout_s` and the output caps; the
    group is stopped when the run is, and anything it left behind is stopped after it ends.
    `called_off()`, asked every `POLL_S`, stops the run when it turns true. Raises `OSError`
    when the tool cannot be started."""
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    stdout = _Capped(max_stdout, Stop.STDOUT_CAP)
    stderr = _Capped(max_stderr, Stop.STDERR_CAP)
    outputs = {process.stdout.fileno(): stdout, process.stderr.fileno(): stderr}
    stopped: Stop | None = None
    try:
        stopped = _read_until_done(process, outputs, time.monotonic() + timeout_s, called_off)
    finally:
        if stopped is not None or process.returncode is None:
            stop_group(process)
        else:  # ended by itself: nothing it started may outlive the run
            _signal_group(process.pid, signal.SIGKILL)
        process.stdout.close()
        process.stderr.close()
    return Finished(stdout.data(), stderr.data(), process.returncode, stopped)
