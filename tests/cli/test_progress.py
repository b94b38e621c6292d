"""Progress bars: `simulate`, `check` and `inventory` draw one on a terminal (a real pseudo
terminal here) and write nothing but their result into a pipe."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_paths import TESTS

SPEC = TESTS / "fixtures" / "specs" / "healthy_host.toml"
TIMEOUT_S = 300
HIDE_CURSOR = b"\x1b[?25l"  # what Rich's live display sends first
BAR = "━".encode()  # Rich's bar column


def environment() -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join(sys.path),
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "40",
    }


def on_terminal(args: list[str]) -> tuple[int, bytes]:
    """`pinchpoint ARGS` with stdin, stdout and stderr on a pseudo terminal: the exit status and
    every byte it wrote there."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pinchpoint", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=environment(),
        close_fds=True,
    )
    os.close(follower)
    written = bytearray()
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            written += chunk
        else:
            pytest.fail(f"pinchpoint {' '.join(args)} did not end within {TIMEOUT_S} s")
        return process.wait(timeout=TIMEOUT_S), bytes(written)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def in_pipes(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "pinchpoint", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=environment(),
        timeout=TIMEOUT_S,
        check=False,
    )


def test_simulate_shows_its_steps_on_a_terminal(tmp_path: Path) -> None:
    status, written = on_terminal(["simulate", str(SPEC), "--out", str(tmp_path / "t")])
    assert status == 0, written.decode(errors="replace")
    assert HIDE_CURSOR in written and BAR in written
    # the last frame: the last step with the bar full
    assert b"SES pages" in written and b"7/7" in written
    assert b"simulated host written to" in written


def test_simulate_in_a_pipe_writes_only_its_result(tmp_path: Path) -> None:
    done = in_pipes(["simulate", str(SPEC), "--out", str(tmp_path / "p")])
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert done.stdout == f"simulated host written to {tmp_path / 'p'}\n".encode()


@pytest.mark.parametrize("command", ["check", "inventory"])
def test_check_and_inventory_show_a_bar_on_a_terminal_only(
    command: str, procfs_snapshot: Path
) -> None:
    args = [command, "--snapshot", str(procfs_snapshot)]
    status, written = on_terminal(args)
    assert status in (0, 1), written.decode(errors="replace")  # 1: findings
    assert HIDE_CURSOR in written and BAR in written
    done = in_pipes(args)
    assert done.returncode == status
    assert b"\x1b" not in done.stderr and BAR not in done.stderr
    assert b"\x1b" not in done.stdout and done.stdout
