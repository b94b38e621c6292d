"""Tool runs with real processes: a run's whole process group is stopped, its output is capped,
and a check's tool budget bounds every run together (issue 14, item 7)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect.smart import collect_health
from pinchpoint.checks.source import LiveSource
from pinchpoint.checks.source.budget import ToolBudget
from pinchpoint.checks.source.commands import Command, CommandStatus, run_command
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import ProblemKind

MIB = 1024 * 1024


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its reaper is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]


def test_a_timeout_stops_the_tool_and_every_process_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tool forks a grandchild that sleeps and holds its output pipe: both are stopped."""
    pid_file = tmp_path / "grandchild.pid"
    sleep = shutil.which("sleep")
    body = f"{sleep} 60 &\necho $! > {pid_file}\nwait"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "forking-tool", body)))
    started = time.monotonic()
    result = run_command(Command(("forking-tool",), "x/forking", timeout_s=0.5))
    took = time.monotonic() - started
    grandchild = int(pid_file.read_text())
    try:
        assert result.status is CommandStatus.TIMEOUT
        assert result.reason() == "forking-tool did not finish within 0.5 s and was stopped"
        assert took < 5
        deadline = time.monotonic() + 5
        while _running(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(grandchild), "the grandchild outlived the tool's run"
    finally:
        if _running(grandchild):
            os.kill(grandchild, 9)


def test_a_tool_ignoring_sigterm_is_killed_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = f"trap '' TERM\n{shutil.which('sleep')} 60"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "stubborn-tool", body)))
    started = time.monotonic()
    result = run_command(Command(("stubborn-tool",), "x/stubborn", timeout_s=0.3))
    assert result.status is CommandStatus.TIMEOUT
    assert time.monotonic() - started < 10  # the timeout, the grace, then SIGKILL


_MEASURE = """
import resource, sys
from pinchpoint.checks.source.commands import Command, run_command
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
command = Command(tuple(sys.argv[1:]), "x/endless", timeout_s=60, max_output_bytes={cap})
result = run_command(command)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(result.status.value, (after - before) // 1024, result.duration_s, sep="\\n")
print(result.reason())
"""


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_endless_output_is_capped_and_memory_stays_bounded(stream: str) -> None:
    """`yes` prints forever, at hundreds of MB/s: the run stops at the cap, long before its
    timeout, and the process that ran it grows by little more than the cap (in a process of its
    own, so that the peak is this run's)."""
    cap = 8 * MIB
    printer = ["yes"] if stream == "stdout" else ["sh", "-c", "yes >&2"]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE.format(cap=cap), *printer],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    status, grown_mib, seconds, reason = done.stdout.splitlines()
    assert status == "truncated"
    assert float(seconds) < 30
    assert int(grown_mib) < 64, f"RSS grew by {grown_mib} MiB for an {cap // MIB} MiB cap"
    if stream == "stdout":
        assert reason == f"output truncated at {cap} bytes: yes printed more and was stopped"
    else:
        assert reason.startswith("error output truncated at 1048576 bytes")


def test_many_slow_tools_share_a_small_budget(tmp_path: Path) -> None:
    """Twelve runs of a tool that takes 5 s, four at a time, against a budget of 1 s: the first
    four are stopped when the budget is spent, the other eight are not started."""
    source = LiveSource()
    source.budget = ToolBudget(1.0, of="sweep")
    slow = ("sleep", "5")
    commands = [Command(slow, f"slow/{i}", timeout_s=30) for i in range(12)]
    started = time.monotonic()
    results = source.run_all(commands, max_workers=4)
    assert time.monotonic() - started < 5
    statuses = [r.status for r in results]
    assert statuses.count(CommandStatus.TIMEOUT) == 4
    assert statuses.count(CommandStatus.NOT_RUN) == 8
    stopped = next(r for r in results if r.status is CommandStatus.TIMEOUT)
    skipped = next(r for r in results if r.status is CommandStatus.NOT_RUN)
    assert stopped.reason() == "sleep was stopped: the sweep's tool budget of 1 s was spent"
    assert skipped.reason() == "not run: the sweep's tool budget of 1 s was spent"
    assert skipped.problem_kind is ProblemKind.TIMEOUT


def test_a_budget_called_off_stops_the_runs_in_flight() -> None:
    source = LiveSource()
    budget = source.budget = ToolBudget(60.0)
    slow = ("sleep", "30")
    started = time.monotonic()
    threading.Timer(0.3, budget.call_off, ["the sweep missed its deadline of 1 s"]).start()
    first, second = source.run_all([Command(slow, "a"), Command(slow, "b")], max_workers=1)
    assert time.monotonic() - started < 5
    assert first.reason() == "sleep was stopped: the sweep missed its deadline of 1 s"
    assert second.reason() == "not run: the sweep missed its deadline of 1 s"


def test_smart_collection_keeps_to_the_budget_and_names_the_disks_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A smartctl that hangs on every disk: with a budget of 1 s, 40 disks cost about a second,
    not 40 × 60 s / 8, and every disk says why it has no health."""
    hang = f"exec {shutil.which('sleep')} 60"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "smartctl", hang)))
    source = LiveSource()
    source.budget = ToolBudget(1.0, of="sweep")
    log = ProblemLog()
    devices = [f"sd{chr(ord('a') + i // 26)}{chr(ord('a') + i % 26)}" for i in range(40)]
    started = time.monotonic()
    inventory = collect_health(source, devices, log)
    assert time.monotonic() - started < 6
    assert [d.device for d in inventory.disks] == devices
    reasons = {d.not_collected_reason for d in inventory.disks}
    assert reasons == {
        "SMART not collected: smartctl was stopped: the sweep's tool budget of 1 s was spent",
        "SMART not collected: not run: the sweep's tool budget of 1 s was spent",
    }
    assert all(p.kind is ProblemKind.TIMEOUT for p in log.problems())


def test_a_quick_tool_still_gives_its_whole_output_and_status() -> None:
    script = "import sys; sys.stdout.write('x' * 300000); sys.stderr.write('warn\\n'); sys.exit(3)"
    result = run_command(Command((sys.executable, "-c", script), "x/quick"))
    assert result.status is CommandStatus.FAILED
    assert result.returncode == 3
    assert len(result.stdout) == 300000
    assert result.reason() == f"{sys.executable} exited with status 3: warn"
