"""Sweeps: one check of the target host, its report stored, its changes notified.

Sweeps run one at a time on a worker thread, in the order they were asked for, so the API answers
reads while a sweep runs and two requested at once never collect the same host in parallel. A
sweep that fails is recorded with the reason; the next one starts as usual.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel

from pinchpoint.model.inventory import Inventory
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
    duration_s: float | None = None
    report_id: int | None = None
    findings: int | None = None
    read_smart: bool | None = None  # False: SMART health reused from a sweep under an hour old
    error: str | None = None


class SweepQueueFullError(RuntimeError):
    """Too many sweeps are waiting already."""


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
        on_transitions: Callable[[list[FindingTransition]], None] | None = None,
        on_report: ReportListener | None = None,
    ) -> None:
        self.target = target
        self.store = store
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
        self._update(sweep, state=SweepState.RUNNING, started_at=datetime.now(UTC))
        try:
            saved, checkup = self._sweep(sweep)
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
            )
            return sweep
        duration = time.monotonic() - started
        self.counters.sweeps += 1
        self.counters.last_duration_s = duration
        self.counters.last_success = datetime.now(UTC)
        self.counters.collection_problems = len(checkup.report.collection)
        self._update(
            sweep,
            state=SweepState.DONE,
            finished_at=datetime.now(UTC),
            duration_s=duration,
            report_id=saved.id,
            findings=len(checkup.report.findings),
            step=None,
        )
        if saved.transitions and self._on_transitions is not None:
            self._on_transitions(saved.transitions)
        if self._on_report is not None:
            try:
                self._on_report(saved, checkup)
            except Exception:  # a listener (the fleet push) must not fail the sweep
                log.exception("after sweep %s", sweep.id)
        return sweep

    def _sweep(self, sweep: Sweep) -> tuple[SavedReport, Checkup]:
        started = time.monotonic()
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
        with self.target.source() as source:
            checkup = check_source(
                source,
                kind=self.target.source_kind,
                live=self.target.live,
                config=config,
                seconds=self.live_seconds,
                previous=self._previous,
                known_health=self._previous.health if reuse_health and self._previous else None,
                progress=lambda message: self._update(sweep, step=message),
                stored_mutes=self.store.active_mutes,
            )
        self._update(sweep, step="storing the report")
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
