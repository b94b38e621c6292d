"""Whether the service is ready, judged from what it holds in memory, so that `/readyz` never
waits: not on the store (a query can queue behind writers or for a pooled connection), not on a
sweep, not on a worker thread. The store is asked on a thread of its own every few seconds; a
ping that does not come back in time counts as an answer not given."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pinchpoint.service.sweeps import SweepRunner

log = logging.getLogger(__name__)

STORE_PING_INTERVAL_S = 5.0  # no good answer for three of these: the store does not answer


class StoreWatch:
    """The store's last answer to a ping, renewed every `interval_s` on a thread of its own."""

    def __init__(self, ping: Callable[[], bool], interval_s: float = STORE_PING_INTERVAL_S) -> None:
        self._ping = ping
        self.interval_s = interval_s
        self.silent_after_s = 3 * interval_s
        self._answered_at: float | None = None  # monotonic time of the last good answer
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check_now(self) -> None:
        try:
            answered = self._ping()
        except Exception:  # a ping that raises is a store that does not answer
            log.exception("pinging the store")
            answered = False
        if answered:
            self._answered_at = time.monotonic()
        else:
            self._answered_at = None

    def start(self) -> None:
        """Ping once now, then every `interval_s` until `stop`."""
        self.check_now()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="pinchpoint-store-watch")
            self._thread.daemon = True
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.interval_s)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.check_now()

    def answers(self) -> bool:
        """The store answered its last ping, and that was recent."""
        answered = self._answered_at
        return answered is not None and time.monotonic() - answered < self.silent_after_s


@dataclass
class ReadinessFacts:
    """What `/readyz` says: ready when `reasons` is empty."""

    store: bool
    last_sweep_at: datetime | None
    last_sweep_age_s: float | None
    last_sweep_error: str | None
    sweep_running: bool
    overdue_since: datetime | None
    reasons: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return not self.reasons


def readiness(
    runner: SweepRunner, store_answers: bool, stale_after_s: float | None
) -> ReadinessFacts:
    """Ready when the store answers, sweeps keep their deadline, and a sweep has succeeded
    within `stale_after_s` (or the first one is still running)."""
    now = datetime.now(UTC)
    last = runner.counters.last_success
    age = (now - last).total_seconds() if last else None
    running = runner.running() is not None
    overdue = runner.overdue(now)
    facts = ReadinessFacts(
        store=store_answers,
        last_sweep_at=last,
        last_sweep_age_s=age,
        last_sweep_error=runner.newest_error(),
        sweep_running=running,
        overdue_since=overdue[0] if overdue else None,
    )
    if not store_answers:
        facts.reasons.append("the report store does not answer")
    if overdue is not None:
        since, step = overdue
        facts.reasons.append(
            f"sweep overdue since {since:%Y-%m-%d %H:%M:%S} UTC (stuck at: {step})"
        )
    if last is None and not running:
        facts.reasons.append("no sweep has succeeded yet")
    if stale_after_s is not None and age is not None and age > stale_after_s and not running:
        facts.reasons.append(f"the last successful sweep is {age:.0f} s old")
    return facts
