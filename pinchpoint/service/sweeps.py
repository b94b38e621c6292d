"""Sweeps: one check of the target host, its report stored, its changes notified.

Sweeps run one at a time on a worker thread, in the order they were asked for, so the API answers
reads while a sweep runs and two requested at once never collect the same host in parallel. A
sweep that fails is recorded with the reason; the next one starts as usual.

A sweep has a deadline (`sweep_deadline_s`). A read of the host can block for good (a sysfs
attribute whose driver hangs, a FIFO where a file should be) and no timeout reaches into a
blocked `read()`, so the check itself runs on a thread of its own that the worker stops waiting
for at the deadline: the sweep is recorded as failed with the step it was stuck at, its tool
budget is called off (running tools are stopped, none starts), and the worker goes on. The
abandoned thread stores nothing if it ever returns. A thread was chosen over a child process
because a process blocked in the kernel cannot be killed either, and a child would have to send
the whole inventory back (seconds on a large host) at every sweep; the cost of the choice is a
thread and its memory per stuck sweep, so at most `MAX_STUCK` are left behind: while that many
are still stuck, a sweep is refused at once, with the reason.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel

from pinchpoint.checks.source.budget import DEFAULT_TOOL_BUDGET_S, ToolBudget
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import ImportedStats
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config, ConfigError, load_config
from pinchpoint.service.checkup import Checkup, check_source
from pinchpoint.service.events import FindingTransition
from pinchpoint.service.metrics import SweepCounters
from pinchpoint.service.store import SavedReport, Store
from pinchpoint.service.target import HostTarget

log = logging.getLogger(__name__)

MAX_QUEUED = 4  # sweeps waiting behind the running one; more requests are refused
KEPT_SWEEPS = 200  # finished sweeps remembered for GET /v1/checks/{id}
DEFAULT_DEADLINE_S = 600.0  # a sweep of the 1,920-path host takes 2-3 s
MAX_STUCK = 2  # abandoned sweeps still blocked before new ones are refused


class SweepState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Sweep(BaseModel):
    """One requested check and how far it got."""

    id: str
    reason: str  # "schedule", "api", "smart", "startup"
    state: SweepState = SweepState.QUEUED
    requested_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    step: str | None = None  # the collector working now: "walking the SAS transport tree"
    step_started_at: datetime | None = None
    deadline_at: datetime | None = None  # when a running sweep is abandoned
    missed_deadline: bool = False
    duration_s: float | None = None
    report_id: int | None = None
    findings: int | None = None
    read_smart: bool | None = None  # False: SMART health reused from a sweep under an hour old
    error: str | None = None


class SweepQueueFullError(RuntimeError):
    """Too many sweeps are waiting already."""


class SweepOverdueError(RuntimeError):
    """The check did not end by the sweep's deadline and was left behind at `step`."""

    def __init__(self, message: str, step: str) -> None:
        super().__init__(message)
        self.step = step


@dataclass
class StuckSweep:
    """An abandoned sweep whose check has not returned yet: where it was stuck, since when."""

    thread: threading.Thread
    sweep_id: str
    step: str
    since: datetime


ReportListener = Callable[[SavedReport, Checkup], None]


class SweepRunner:
    """Runs sweeps of `target` one at a time and stores each report in `store`."""

    def __init__(
        self,
        target: HostTarget,
        store: Store,
        *,
        config_file: Callable[[], Config] | None = None,
        raise_after: int = 2,
        resolve_after: int = 2,
        live_seconds: float = 1.0,
        smart_max_age_s: float = 3600.0,
        deadline_s: float = DEFAULT_DEADLINE_S,
        tool_budget_s: float = DEFAULT_TOOL_BUDGET_S,
        on_transitions: Callable[[list[FindingTransition]], None] | None = None,
        on_report: ReportListener | None = None,
        recorded: Callable[[], list[ImportedStats]] | None = None,
        not_recorded_because: Callable[[], str | None] | None = None,
    ) -> None:
        self.target = target
        # the per-I/O latency the service recorded lately, for the rules (docs/ebpf.md), and
        # why there is none when its recorder cannot run (the report says so)
        self._recorded = recorded or (lambda: [])
        self._not_recorded_because = not_recorded_because or (lambda: None)
        self.store = store
        self.deadline_s = deadline_s
        self.tool_budget_s = tool_budget_s
        self._config = config_file or (lambda: load_config(None, CATALOG))
        self.raise_after = raise_after
        self.resolve_after = resolve_after
        self.live_seconds = live_seconds
        self._on_transitions = on_transitions
        self._on_report = on_report
        self._queue: queue.Queue[Sweep | None] = queue.Queue()
        self._sweeps: OrderedDict[str, Sweep] = OrderedDict()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._previous: Inventory | None = None
        self._health_read_at = 0.0  # monotonic time of the last sweep that ran smartctl
        self.smart_max_age_s = smart_max_age_s
        self.counters = SweepCounters()
        self._stuck: list[StuckSweep] = []
        # the first deadline missed since the last success, and the step the sweep was stuck at
        self._overdue: tuple[datetime, str] | None = None

    # --- asking for sweeps -------------------------------------------------------------

    def request(self, reason: str) -> Sweep:
        """Queue a sweep and return it at once; raises `SweepQueueFullError` when many wait."""
        with self._lock:
            waiting = sum(1 for s in self._sweeps.values() if s.state is SweepState.QUEUED)
            if waiting >= MAX_QUEUED:
                raise SweepQueueFullError(f"{waiting} sweeps are waiting already")
            sweep = Sweep(id=uuid.uuid4().hex, reason=reason, requested_at=datetime.now(UTC))
            self._remember(sweep)
        self._queue.put(sweep)
        return sweep

    def request_unless_pending(self, reason: str) -> Sweep | None:
        """Queue a sweep unless one is waiting or running (a schedule does not pile up)."""
        with self._lock:
            busy = any(
                s.state in (SweepState.QUEUED, SweepState.RUNNING) for s in self._sweeps.values()
            )
        return None if busy else self.request(reason)

    def get(self, sweep_id: str) -> Sweep | None:
        with self._lock:
            sweep = self._sweeps.get(sweep_id)
            return sweep.model_copy() if sweep is not None else None

    def recent(self) -> list[Sweep]:
        """Sweeps remembered, newest first."""
        with self._lock:
            return [s.model_copy() for s in reversed(self._sweeps.values())]

    def running(self) -> Sweep | None:
        with self._lock:
            return next(
                (s.model_copy() for s in self._sweeps.values() if s.state is SweepState.RUNNING),
                None,
            )

    def newest_error(self) -> str | None:
        """The error of the newest sweep that failed, if any is remembered."""
        with self._lock:
            return next((s.error for s in reversed(self._sweeps.values()) if s.error), None)

    def overdue(self, now: datetime | None = None) -> tuple[datetime, str] | None:
        """Since when sweeps are overdue and the step that was slow: the first deadline missed
        since the last success, or the deadline of a sweep still running past it; None when
        sweeps keep their deadlines."""
        now = now or datetime.now(UTC)
        with self._lock:
            if self._overdue is not None:
                return self._overdue
            for sweep in self._sweeps.values():
                due = sweep.deadline_at
                if sweep.state is SweepState.RUNNING and due is not None and due < now:
                    return due, sweep.step or "starting"
        return None

    def stuck(self) -> list[StuckSweep]:
        """Abandoned sweeps whose check is still blocked (those that ended are forgotten)."""
        with self._lock:
            self._stuck = [s for s in self._stuck if s.thread.is_alive()]
            return list(self._stuck)

    def _remember(self, sweep: Sweep) -> None:
        self._sweeps[sweep.id] = sweep
        while len(self._sweeps) > KEPT_SWEEPS:
            oldest = next(iter(self._sweeps))
            if self._sweeps[oldest].state in (SweepState.QUEUED, SweepState.RUNNING):
                break
            self._sweeps.pop(oldest)

    # --- the worker --------------------------------------------------------------------

    def start(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="pinchpoint-sweeps")
            self._worker.daemon = True
            self._worker.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Let the running sweep finish, drop the waiting ones, stop the worker."""
        if self._worker is None:
            return
        self._queue.put(None)
        self._worker.join(timeout_s)
        self._worker = None

    def _work(self) -> None:
        while True:
            sweep = self._queue.get()
            if sweep is None:
                return
            self.run(sweep)

    def wait(self, sweep_id: str, timeout_s: float) -> Sweep | None:
        """The sweep once finished (tests, `--once`); None if it did not finish in time."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            sweep = self.get(sweep_id)
            if sweep is not None and sweep.state in (SweepState.DONE, SweepState.FAILED):
                return sweep
            time.sleep(0.05)
        return None

    # --- one sweep ---------------------------------------------------------------------

    def _update(self, sweep: Sweep, **changes: object) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(sweep, name, value)

    def run(self, sweep: Sweep) -> Sweep:
        """Run `sweep` now, on the calling thread."""
        started = time.monotonic()
        now = datetime.now(UTC)
        deadline_at = now + timedelta(seconds=self.deadline_s)
        self._update(sweep, state=SweepState.RUNNING, started_at=now, deadline_at=deadline_at)
        try:
            saved, checkup = self._sweep(sweep, started)
        except SweepOverdueError as err:
            log.error("sweep %s %s", sweep.id, err)
            self.counters.errors += 1
            self.counters.deadline_missed += 1
            with self._lock:
                self._overdue = self._overdue or (deadline_at, err.step)
            self._update(
                sweep,
                state=SweepState.FAILED,
                error=str(err),
                missed_deadline=True,
                finished_at=datetime.now(UTC),
                duration_s=time.monotonic() - started,
                step=None,
                step_started_at=None,
            )
            return sweep
        except Exception as err:  # a failed sweep is recorded; the service goes on
            log.exception("sweep %s failed", sweep.id)
            self.counters.errors += 1
            self._update(
                sweep,
                state=SweepState.FAILED,
                error=f"{type(err).__name__}: {err}",
                finished_at=datetime.now(UTC),
                duration_s=time.monotonic() - started,
                step=None,
                step_started_at=None,
            )
            return sweep
        duration = time.monotonic() - started
        self.counters.sweeps += 1
        self.counters.last_duration_s = duration
        self.counters.last_success = datetime.now(UTC)
        with self._lock:
            self._overdue = None
        self.counters.collection_problems = len(checkup.report.collection)
        self._update(
            sweep,
            state=SweepState.DONE,
            finished_at=datetime.now(UTC),
            duration_s=duration,
            report_id=saved.id,
            findings=len(checkup.report.findings),
            step=None,
            step_started_at=None,
        )
        if saved.transitions and self._on_transitions is not None:
            self._on_transitions(saved.transitions)
        if self._on_report is not None:
            try:
                self._on_report(saved, checkup)
            except Exception:  # a listener (the fleet push) must not fail the sweep
                log.exception("after sweep %s", sweep.id)
        return sweep

    def _sweep(self, sweep: Sweep, started: float) -> tuple[SavedReport, Checkup]:
        try:
            config = self._config()
        except ConfigError as err:
            raise RuntimeError(f"the rules' config file cannot be used: {err}") from None
        reuse_health = (
            sweep.reason == "schedule"
            and self._previous is not None
            and time.monotonic() - self._health_read_at < self.smart_max_age_s
        )
        self._update(sweep, read_smart=not reuse_health)
        checkup = self._check_by_deadline(sweep, config, reuse_health, started)
        self._update(sweep, step="storing the report", step_started_at=datetime.now(UTC))
        saved = self.store.save_report(
            checkup.report,
            inventory=checkup.inventory,
            duration_s=time.monotonic() - started,
            origin="sweep",
            raise_after=self.raise_after,
            resolve_after=self.resolve_after,
        )
        self._previous = checkup.inventory
        if not reuse_health:
            self._health_read_at = time.monotonic()
        return saved, checkup

    def _check_by_deadline(
        self, sweep: Sweep, config: Config, reuse_health: bool, started: float
    ) -> Checkup:
        """The check of the host, run on a thread of its own and waited for until the sweep's
        deadline; raises `SweepOverdueError` (and leaves the thread behind) when it misses it."""
        stuck = self.stuck()
        if len(stuck) >= MAX_STUCK:
            oldest = stuck[0]
            raise RuntimeError(
                f"not started: {len(stuck)} sweeps that missed their deadline are still stuck "
                f"(the oldest at: {oldest.step}, since {oldest.since:%Y-%m-%d %H:%M:%S} UTC); "
                "the host does not answer a read"
            )
        budget = ToolBudget(self.tool_budget_s, of="sweep")
        abandoned = threading.Event()
        outcome: list[Checkup | Exception] = []

        def say(message: str) -> None:
            if not abandoned.is_set():  # an abandoned check no longer speaks for its sweep
                self._update(sweep, step=message, step_started_at=datetime.now(UTC))

        def check() -> None:
            try:
                with self.target.source() as source:
                    source.budget = budget
                    outcome.append(
                        check_source(
                            source,
                            kind=self.target.source_kind,
                            live=self.target.live,
                            config=config,
                            seconds=self.live_seconds,
                            previous=self._previous,
                            known_health=self._previous.health
                            if reuse_health and self._previous
                            else None,
                            progress=say,
                            stored_mutes=self.store.active_mutes,
                            imports=self._recorded() if self.target.live else (),
                            not_recorded_because=self._not_recorded_because()
                            if self.target.live
                            else None,
                        )
                    )
            except Exception as err:  # handed to the worker, which records it
                outcome.append(err)

        thread = threading.Thread(target=check, name=f"pinchpoint-check-{sweep.id[:8]}")
        thread.daemon = True  # a check stuck in the kernel must not hold the process at exit
        thread.start()
        thread.join(max(0.0, self.deadline_s - (time.monotonic() - started)))
        if thread.is_alive():
            abandoned.set()
            why = f"the sweep missed its deadline of {self.deadline_s:g} s"
            budget.call_off(why)
            with self._lock:
                step = sweep.step or "starting"
                since = sweep.step_started_at or sweep.started_at or datetime.now(UTC)
                self._stuck.append(StuckSweep(thread, sweep.id, step, since))
            for_s = (datetime.now(UTC) - since).total_seconds()
            raise SweepOverdueError(
                f"missed its deadline of {self.deadline_s:g} s, stuck at: {step} (for "
                f"{for_s:.0f} s); it was left behind and will store nothing",
                step,
            )
        if not outcome:
            raise RuntimeError("the check ended without a result")
        result = outcome[0]
        if isinstance(result, Exception):
            raise result
        return result
