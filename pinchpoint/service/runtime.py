"""The running service: the store, the host it sweeps, the sweep worker, the schedule and the
notifier, started and stopped together. The API reaches everything through one `Service`."""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from pinchpoint.model.findings import Finding, Mute, Report
from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import host_from_token, host_name_problem, host_token
from pinchpoint.performance import keep_long_lived, settle_heap
from pinchpoint.rules.catalog import CATALOG, FLEET_RULES
from pinchpoint.rules.config import Config, ConfigError, load_config
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.service.checkup import Checkup
from pinchpoint.service.events import FindingTransition
from pinchpoint.service.fleet import push_report
from pinchpoint.service.metrics import MetricsInput, metrics_exposition
from pinchpoint.service.metrics_cache import MetricsCache
from pinchpoint.service.notify import Notifier
from pinchpoint.service.readiness import ReadinessFacts, StoreWatch, readiness
from pinchpoint.service.recent_answers import RecentAnswers
from pinchpoint.service.sampling import StatsSampler
from pinchpoint.service.schedule import Jobs, build_scheduler
from pinchpoint.service.settings import ServiceSettings, TargetKind
from pinchpoint.service.store import FindingRecord, FindingState, SavedReport, Store
from pinchpoint.service.sweeps import SweepRunner
from pinchpoint.service.target import HostTarget

log = logging.getLogger(__name__)

VIEW_TTL_S = 5.0  # how long a cached view is served without asking the store
DAY_SUFFIX_LENGTH = len("-2026-01-01")


class HostNameRefusedError(ValueError):
    """A host name from another machine that is not one; the message says why."""


def daily_report_path(directory: Path, host: str, day: date, suffix: str) -> Path:
    """`<directory>/<host token>-<day>.<suffix>`: the host's name enters the path only as
    `naming.host_token` makes it (a long name becomes a few directories), so whatever a pushed
    report or a snapshot calls its host, the file is inside `directory`."""
    path = directory / f"{host_token(host)}-{day:%Y-%m-%d}.{suffix}"
    if not path.resolve().is_relative_to(directory.resolve()):  # a second fence
        raise OSError(f"{path} would leave {directory}")
    return path


def daily_report_host(directory: Path, path: Path) -> str:
    """The host a daily report file under `directory` is of (`daily_report_path` reversed)."""
    stem = path.relative_to(directory).as_posix().rsplit(".", 1)[0]
    return host_from_token(stem[:-DAY_SUFFIX_LENGTH])


def write_private_file(path: Path, text: str) -> None:
    """Write `text` to `path`, making its directories; a symbolic link found there is not
    followed (O_NOFOLLOW) and the file is readable by the service's user and group only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags, 0o640)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)


@dataclass
class HostView:
    """A host's newest report and the inventory it was made from, read once and shared by every
    request until the next report replaces it."""

    report_id: int
    report: Report
    inventory: Inventory | None
    rendered: dict[str, bytes] = field(default_factory=dict)  # serialised once per report
    # what the API derives from the report (view models), built on first use, once per report
    derived: dict[str, object] = field(default_factory=dict)

    def cached(self, key: str, render: Callable[[], bytes]) -> bytes:
        """`render()`'s bytes, computed once per report (the JSON of a 1,920-path host's
        report is served hundreds of times between two sweeps)."""
        body = self.rendered.get(key)
        if body is None:
            body = self.rendered[key] = render()
        return body


class Service:
    """Everything `pinchpoint serve` runs, built from the settings."""

    def __init__(self, settings: ServiceSettings, *, store: Store | None = None) -> None:
        self.settings = settings
        self.started_at = datetime.now(UTC)
        data_dir = settings.resolved_data_dir()
        if store is None:
            data_dir.mkdir(parents=True, exist_ok=True)
        self.store = store or Store.open(settings.resolved_database_url())
        self.store.fleet_judge = self._judge_fleet
        self.target = HostTarget.from_settings(settings)
        self.notifier = Notifier(settings.webhooks, base_url=settings.public_url)
        self.sampler = StatsSampler(
            self.target,
            self.store,
            self._sampled_inventory,
            record_latency=settings.record_latency and settings.schedule.stats_interval_s > 0,
            record_budget_bytes=settings.record_map_budget_bytes,
        )
        self.runner = SweepRunner(
            self.target,
            self.store,
            config_file=self.rules_config,
            raise_after=settings.raise_after,
            resolve_after=settings.resolve_after,
            live_seconds=settings.live_stats_seconds,
            deadline_s=settings.sweep_deadline_s,
            tool_budget_s=settings.tool_budget_s,
            on_transitions=self.notify,
            on_report=self._after_sweep,
            recorded=self.sampler.recent_recorded,
            not_recorded_because=self.sampler.not_recorded_because,
        )
        self.store_watch = StoreWatch(self.store.ping)
        self.scheduler = build_scheduler(
            settings.schedule,
            Jobs(
                sweep=lambda: self.runner.request_unless_pending("schedule"),
                smart=lambda: self.runner.request_unless_pending("smart"),
                daily_report=self._once("daily_report", self.write_daily_report),
                prune=self._once("prune", self.prune),
                sample_stats=self.sampler.tick,
                compact_stats=self._once("compact_stats", self.compact_statistics),
            ),
        )
        self._own_host: str | None = None
        self._views: dict[str, HostView] = {}
        self._checked: dict[str, float] = {}  # when each view was last checked against the store
        self._refreshing: set[str] = set()  # views being checked in the background
        self._building: dict[str, Future[HostView | None]] = {}  # one read of a view per key
        self._views_lock = threading.Lock()
        # what the API renders of a new view before it is swapped in (its hottest answers), so
        # that no request after a sweep renders them on the event loop
        self.view_preparers: list[Callable[[HostView], None]] = []
        self._metrics_cache = MetricsCache()
        self._changes = 0  # bumped when a report is stored or a mute changes
        self.recent_answers = RecentAnswers()  # store reads asked often (GET /v1/findings)
        # GET /v1/fleet/findings by the store's fleet generation: valid until any instance's
        # push moves it, however old (the newest two kept: a request may read an older one)
        self.fleet_answers = RecentAnswers(max_age_s=math.inf, kept=2)

    # --- lifecycle ---------------------------------------------------------------------

    def start(self, *, first_sweep: bool = True) -> None:
        """Prepare the target, start the worker and the schedule, and sweep once at once so a
        fresh service has a report to show. Scratch left by services and commands killed
        before they could clean up (uploads, the demo host) is removed first."""
        from pinchpoint.checks.source.scratch import clean_stale_everywhere

        clean_stale_everywhere(self.settings.resolved_data_dir() / "uploads")
        filled = self.store.backfill_fleet_facts()  # a store from before fleet facts
        if filled:
            log.info("fleet facts taken from the newest inventory of %d hosts", filled)
        self.target.open()
        self.store_watch.start()
        self.runner.start()
        self.scheduler.start()
        if first_sweep:
            self.runner.request("startup")

    def stop(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        self.runner.stop()
        self.sampler.close()
        self.store_watch.stop()
        self.notifier.close()
        self.target.close()
        self.store.close()

    # --- what sweeps use ---------------------------------------------------------------

    def rules_config(self) -> Config:
        """The rules' config, re-read before each sweep so an edit needs no restart."""
        return load_config(self.settings.config_file, CATALOG)

    def notify(self, transitions: list[FindingTransition]) -> None:
        self.notifier.notify(transitions)

    def _after_sweep(self, saved: SavedReport, checkup: Checkup) -> None:
        self._own_host = saved.host
        if saved.states_advanced and not saved.duplicate:
            # the sweep's own report and inventory, as stored (no round trip through the store)
            self.swap_view(
                saved.host,
                HostView(report_id=saved.id, report=checkup.report, inventory=checkup.inventory),
            )
        else:
            self.forget(saved.host)
        still_open = [r.finding for r in self._all_findings(saved.host, FindingState.OPEN)]
        self.notifier.refresh(saved.host, still_open, saved.generated_at, saved.id)
        if self.settings.push_to:
            push_report(
                self.settings.push_to,
                self.settings.push_token,
                checkup.report,
                checkup.inventory,
                duration_s=self.runner.counters.last_duration_s,
            )

    def _sampled_inventory(self) -> Inventory | None:
        view = (self.fresh_view(None) if self._own_host is not None else None) or self.view(None)
        return view.inventory if view is not None else None

    def analyse_snapshot(self, root: Path) -> tuple[int, int, str]:
        """Check an uploaded snapshot as a host of its own, `<hostname> (snapshot)`; returns
        the stored report's id, the parts not collected and the host name used. A host name
        that is not one (`naming.host_name_problem`) is refused: `HostNameRefusedError`."""
        from pinchpoint.checks.source import open_snapshot
        from pinchpoint.service.checkup import check_source

        with open_snapshot(root) as source:
            checkup = check_source(source, kind=None, live=False, config=self.rules_config())
        hostname = checkup.report.host.hostname
        problem = host_name_problem(hostname) if hostname else None
        if problem is not None:
            raise HostNameRefusedError(f"the snapshot's {problem}")
        name = f"{hostname or 'unnamed host'} (snapshot)"
        host = checkup.report.host.model_copy(update={"hostname": name})
        report = checkup.report.model_copy(update={"host": host})
        inventory = checkup.inventory.model_copy(update={"host": host})
        saved = self.store.save_report(
            report, inventory=inventory, origin="upload", raise_after=1, resolve_after=1
        )
        self.forget(name)
        return saved.id, len(report.collection), name

    def readiness(self) -> ReadinessFacts:
        """What `/readyz` answers, from memory only (it never waits on the store or a sweep)."""
        return readiness(
            self.runner, self.store_watch.answers(), self.settings.sweep_stale_after_s()
        )

    def metrics(self, accept: str | None = None) -> tuple[bytes, str]:
        """The Prometheus exposition of the newest sweep and of the service itself, in the
        format the scraper's `accept` header asks for, rendered per scrape."""
        return metrics_exposition(self._metrics_input(), accept)

    def metrics_answer(self, accept: str | None, gzipped: bool) -> tuple[bytes, str]:
        """`metrics` as served: rendered once per view, sampler tick and change of the
        service's counters, then served from memory (gzip-compressed when `gzipped`)."""
        return self._metrics_cache.answer(self._metrics_key(), self._metrics_input, accept, gzipped)

    def _metrics_key(self) -> tuple[object, ...]:
        """What the exposition depends on; a new key renders it anew (docs/prometheus.md)."""
        view = self.fresh_view(None) if self._own_host is not None else None
        running = self.runner.running()
        counts = self.notifier.counts
        return (
            id(view),
            view.report_id if view is not None else None,
            self._changes,
            self.runner.counters.model_dump_json(),
            running.id if running is not None else None,
            len(self.runner.stuck()),
            (counts.sent, counts.failed, counts.retried, counts.pending),
            id(self.sampler.recorded()),
            self.sampler.work.intervals,
        )

    def _metrics_input(self) -> MetricsInput:
        view = self.fresh_view(None) if self._own_host is not None else None
        view = view or self.view(None)
        host = view.report.host.hostname if view is not None else self.own_host()
        open_findings = [r.finding for r in self._all_findings(host, FindingState.OPEN)]
        for record in self._all_findings(host, FindingState.MUTED):
            finding = record.finding.model_copy()
            if finding.muted is None and record.mute is not None:
                finding.muted = Mute(
                    rule=record.rule,
                    entity_id=record.entity.id,
                    until=record.mute.until,
                    reason=record.mute.reason,
                )
            open_findings.append(finding)
        running = self.runner.running()
        started = running.started_at if running is not None else None
        data = MetricsInput(
            host=host or socket.gethostname(),
            inventory=view.inventory if view is not None else None,
            report=view.report if view is not None else None,
            open_findings=open_findings,
            sweeps=self.runner.counters,
            running_sweep_s=(datetime.now(UTC) - started).total_seconds() if started else None,
            stuck_sweeps=len(self.runner.stuck()),
            notifications=self.notifier.counts,
            work=self.sampler.work.totals(),
            recorded=self.sampler.recorded(),
            demo=self.target.kind is TargetKind.DEMO,
        )
        return data

    def _all_findings(self, host: str | None, state: FindingState) -> list[FindingRecord]:
        found: list[FindingRecord] = []
        while True:
            page = self.store.findings(host=host, state=state, limit=1000, offset=len(found))
            found.extend(page.items)
            if not page.items or len(found) >= page.total:
                return found

    def fleet_findings(self) -> list[Finding]:
        """Findings across hosts, as the pushes that changed them left them in the store (no
        inventory is read, nothing is judged here)."""
        return self.store.fleet_findings()

    def fleet_findings_json(self) -> bytes:
        """The same as the JSON array the API serves: the bytes kept for the store's fleet
        generation, read first (a change committed after it is seen by the next request), or
        joined from the stored bodies once per generation however many ask meanwhile."""
        generation = self.store.fleet_generation()
        return self.fleet_answers.get(generation, generation, self.store.fleet_findings_json)

    def _judge_fleet(self, facts: FleetFacts) -> list[Finding]:
        """The fleet rules on some hosts' fleet facts, with the rules' config as it is now: what
        a push that changes a host's facts runs (`service/store/fleet.py`). A config file that
        cannot be used is logged and the defaults judge: a push is never refused for it."""
        try:
            config = self.rules_config()
        except ConfigError as err:
            log.error("the rules' config file cannot be used, fleet rules use defaults: %s", err)
            config = Config()
        return evaluate(fleet_context(facts), FLEET_RULES, config)[0]

    # --- views the API serves ----------------------------------------------------------

    @property
    def changes(self) -> int:
        """How many times this service stored a report or changed a mute (answers kept in
        memory are made anew when it moves)."""
        return self._changes

    def swap_view(self, host: str, view: HostView) -> None:
        """Make `view` the view of `host`: prepared first (its hottest answers rendered), then
        swapped in whole by one assignment, so readers get the previous view until then and
        never wait. No full collection of the heap: the new objects are frozen (O(1)) and the
        old view is freed by reference counting (`performance.keep_long_lived`)."""
        self._prepare(view)
        with self._views_lock:
            self._views[host] = view
            self._views.pop("", None)
            self._checked[host] = time.monotonic()
            self._checked.pop("", None)
            self._changes += 1
        keep_long_lived()

    def _prepare(self, view: HostView) -> None:
        for prepare in self.view_preparers:
            try:
                prepare(view)
            except Exception:  # a view unprepared is rendered on first use instead
                log.exception("preparing the view of report %s", view.report_id)

    def forget(self, host: str) -> None:
        """Drop the cached view of `host` (a new report was stored, a mute changed)."""
        with self._views_lock:
            self._changes += 1
            self._views.pop(host, None)
            self._views.pop("", None)
            self._checked.pop(host, None)
            self._checked.pop("", None)

    def fresh_view(self, host: str | None = None) -> HostView | None:
        """The cached view of `host` without touching the store, or None when there is none.
        Every report this service stores drops the cache at once; a view older than
        `VIEW_TTL_S` (another process may write to a shared store) is still served while one
        background check against the store runs, so that no burst of requests waits on it."""
        key = host or self._own_host or ""
        if host is None and self._own_host is None:
            return None
        with self._views_lock:
            view = self._views.get(key)
            checked = self._checked.get(key, 0.0)
            stale = view is not None and time.monotonic() - checked >= VIEW_TTL_S
            refresh = stale and key not in self._refreshing
            if refresh:
                self._refreshing.add(key)
        if refresh:
            threading.Thread(
                target=self._refresh_view, args=(host, key), name="pinchpoint-view", daemon=True
            ).start()
        return view

    def _refresh_view(self, host: str | None, key: str) -> None:
        try:
            self.view(host)
        except Exception:
            log.exception("checking the cached report of %s against the store", key or "this host")
        finally:
            with self._views_lock:
                self._refreshing.discard(key)

    def own_host(self) -> str | None:
        """The name of the host this service sweeps: from its sweeps, this run or an earlier
        one (uploads and pushed reports are other hosts)."""
        if self._own_host is None:
            recent = self.store.report_summaries(limit=100).items
            self._own_host = next((r.host for r in recent if r.origin == "sweep"), None)
        return self._own_host

    def view(self, host: str | None = None) -> HostView | None:
        """The newest report of `host` (None: of the host this service sweeps, else the newest
        report of any host) with its inventory, checked against the store. Single flight: one
        caller per host reads the store, the others meanwhile wait for its answer."""
        host = host or self.own_host()
        key = host or ""
        with self._views_lock:
            pending = self._building.get(key)
            mine = pending is None
            if pending is None:
                pending = self._building[key] = Future()
        if not mine:
            return pending.result()
        try:
            found = self._read_view(host, key)
        except BaseException as err:
            pending.set_exception(err)
            raise
        else:
            pending.set_result(found)
            return found
        finally:
            with self._views_lock:
                self._building.pop(key, None)

    def _read_view(self, host: str | None, key: str) -> HostView | None:
        with self._views_lock:
            cached = self._views.get(key)
        checked_at = time.monotonic()
        newest = self.store.report_summaries(host=host, limit=1).items
        if not newest:
            return None
        if cached is not None and cached.report_id == newest[0].id:
            with self._views_lock:
                self._checked[key] = checked_at
            return cached
        latest = self.store.report(newest[0].id)
        if latest is None:  # pruned in between
            return None
        view = HostView(
            report_id=latest.id,
            report=latest.report,
            inventory=self.store.inventory_of(latest.id),
        )
        self._prepare(view)
        with self._views_lock:
            current = self._views.get(key)
            if current is not None and current.report.generated_at > view.report.generated_at:
                return current  # a sweep swapped in a newer one meanwhile
            self._views[key] = view
            self._checked[key] = checked_at
        keep_long_lived()
        return view

    # --- scheduled chores --------------------------------------------------------------

    def _once(self, name: str, job: Callable[[], None]) -> Callable[[], None]:
        """`job` run by one instance only of the services over this store, each firing (the
        store records who started it: `Store.claim_job`)."""
        instance = f"{socket.gethostname()}:{os.getpid()}"

        def run() -> None:
            if self.store.claim_job(name, instance):
                job()
            else:
                log.info("scheduled job %s: another instance runs it", name)

        return run

    def write_daily_report(self) -> None:
        """The newest report as HTML and Markdown in `<data dir>/reports/`, one per host a day,
        each file named by `daily_report_path` (a host that cannot be written is logged and
        the others still are)."""
        from pinchpoint.report import ReportFormat
        from pinchpoint.report.text import report_text

        directory = self.settings.resolved_data_dir() / "reports"
        directory.mkdir(parents=True, exist_ok=True)
        for host in self.store.hosts():
            latest = self.store.latest_report(host.name)
            if latest is None:
                continue
            day = latest.report.generated_at.date()
            try:
                for form, suffix in ((ReportFormat.HTML, "html"), (ReportFormat.MARKDOWN, "md")):
                    path = daily_report_path(directory, host.name, day, suffix)
                    write_private_file(path, report_text(latest.report, form))
            except OSError as err:
                log.error("daily report of %s not written: %s", host.name, err.strerror or err)
                continue
            log.info("daily report of %s written to %s", host.name, directory)

    def compact_statistics(self) -> None:
        """Roll statistics points past their tier's age into the next, coarser tier."""
        for host in self.store.series_hosts():
            self.sampler.compact(host)

    def prune(self) -> None:
        started = time.monotonic()
        result = self.store.prune(keep_reports_days=self.settings.schedule.retention_days)
        self.forget("")  # findings were forgotten
        self.compact_statistics()
        # the one full collection of the day: what views' freezes kept of young cyclic garbage
        settle_heap()
        log.info("pruned the store in %.1f s: %s", time.monotonic() - started, result)
