"""A sweep's deadline with real stuck reads: a FIFO where a sysfs attribute should be (a driver
that blocks a read) and a tool that hangs. The sweep is recorded as failed with the step it was
stuck at, the worker goes on, and the abandoned check stores nothing (issue 14, item 6)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from stuck_host import HOSTNAME, OPERSTATE, LiveRoot, host_root, release
from tool_stubs import fake_tool_dir

from pinchpoint.service.readiness import readiness
from pinchpoint.service.store import Store
from pinchpoint.service.sweeps import MAX_STUCK, Sweep, SweepRunner, SweepState


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        yield opened
    finally:
        opened.close()


def runner_of(target: LiveRoot, store: Store, deadline_s: float) -> SweepRunner:
    return SweepRunner(target, store, deadline_s=deadline_s, tool_budget_s=60)  # type: ignore[arg-type]


def sweep_now(runner: SweepRunner) -> Sweep:
    sweep = runner.request("test")
    return runner.run(sweep)


def test_a_read_that_blocks_fails_the_sweep_at_its_deadline_and_names_the_step(
    tmp_path: Path, store: Store
) -> None:
    root = host_root(tmp_path / "host", fifo=OPERSTATE)
    runner = runner_of(LiveRoot(root, hung=OPERSTATE), store, deadline_s=1.5)
    try:
        started = time.monotonic()
        sweep = sweep_now(runner)
        took = time.monotonic() - started
        assert 1.5 <= took < 10
        assert sweep.state is SweepState.FAILED and sweep.missed_deadline
        assert sweep.error is not None
        assert sweep.error.startswith("missed its deadline of 1.5 s, stuck at: reading NICs")
        assert sweep.report_id is None
        assert runner.counters.deadline_missed == 1 and runner.counters.errors == 1
        assert [s.sweep_id for s in runner.stuck()] == [sweep.id]
        overdue = runner.overdue()
        assert overdue is not None and overdue[1] == "reading NICs and bonds"
        facts = readiness(runner, store_answers=True, stale_after_s=None)
        assert not facts.ready
        assert facts.reasons[0].startswith("sweep overdue since ")
        assert facts.reasons[0].endswith("(stuck at: reading NICs and bonds)")
    finally:
        assert release(root / OPERSTATE.lstrip("/"))
    deadline = time.monotonic() + 10
    while runner.stuck() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner.stuck() == []  # the abandoned check returned once the read did …
    assert store.latest_report() is None  # … and stored nothing


def test_the_worker_goes_on_and_a_good_sweep_clears_the_overdue_state(
    tmp_path: Path, store: Store
) -> None:
    root = host_root(tmp_path / "host", fifo=HOSTNAME)
    target = LiveRoot(root, hung=HOSTNAME)
    runner = runner_of(target, store, deadline_s=1.0)
    runner.start()
    try:
        stuck = runner.request("first")
        failed = runner.wait(stuck.id, 30)
        assert failed is not None and failed.missed_deadline
        assert failed.error is not None and "stuck at: reading host identity" in failed.error
        # The host answers again: the FIFO moves aside (still blocking the abandoned check).
        os.rename(root / HOSTNAME.lstrip("/"), root / "stuck-fifo")
        (root / HOSTNAME.lstrip("/")).write_text("stuck-host\n")
        target.hung = None
        runner.deadline_s = 60
        good = runner.request("second")
        done = runner.wait(good.id, 60)
        assert done is not None and done.state is SweepState.DONE, done
        assert runner.overdue() is None
        assert readiness(runner, store_answers=True, stale_after_s=None).ready
    finally:
        release(root / "stuck-fifo")
        runner.stop()
    assert len(store.report_summaries(limit=10).items) == 1


def test_stuck_sweeps_are_bounded(tmp_path: Path, store: Store) -> None:
    """At `MAX_STUCK` abandoned sweeps still blocked, the next is refused at once."""
    root = host_root(tmp_path / "host", fifo=HOSTNAME)
    runner = runner_of(LiveRoot(root, hung=HOSTNAME), store, deadline_s=0.5)
    try:
        for _ in range(MAX_STUCK):
            assert sweep_now(runner).missed_deadline
        started = time.monotonic()
        refused = sweep_now(runner)
        assert time.monotonic() - started < 0.5
        assert refused.state is SweepState.FAILED and not refused.missed_deadline
        assert refused.error is not None
        assert refused.error.startswith(
            f"RuntimeError: not started: {MAX_STUCK} sweeps that missed their deadline are "
            "still stuck (the oldest at: reading host identity, since "
        )
        assert runner.overdue() is not None
    finally:
        deadline = time.monotonic() + 10
        while runner.stuck() and time.monotonic() < deadline:
            release(root / HOSTNAME.lstrip("/"))
            time.sleep(0.05)
    assert runner.stuck() == []


def test_a_hung_tool_is_stopped_when_its_sweep_is_abandoned(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ethtool hangs (its own timeout is 10 s): at the deadline of 1 s the sweep's tool budget
    is called off, so the tool is stopped at once and the abandoned check ends soon after."""
    pid_file = tmp_path / "ethtool.pid"
    hang = f"echo $$ > {pid_file}\nexec {shutil.which('sleep')} 60"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "ethtool", hang)))
    runner = runner_of(LiveRoot(host_root(tmp_path / "host")), store, deadline_s=1.0)
    sweep = sweep_now(runner)
    assert sweep.missed_deadline and sweep.error is not None
    assert "stuck at: reading NICs and bonds" in sweep.error
    deadline = time.monotonic() + 8
    while runner.stuck() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner.stuck() == []
    pid = int(pid_file.read_text())
    status = Path(f"/proc/{pid}/status")
    assert not status.exists() or "zombie" in status.read_text()
    assert store.latest_report() is None
