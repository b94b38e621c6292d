"""The service's clock: when sweeps, SMART reads, statistics samples, the daily report and
pruning run. Cron-like expressions from the settings, run by APScheduler in the background."""

from __future__ import annotations

import logging
from collections.abc import Callable

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from pinchpoint.service.settings import Schedule

log = logging.getLogger(__name__)


class Jobs:
    """What each scheduled job does (the service provides them)."""

    def __init__(
        self,
        sweep: Callable[[], object],
        smart: Callable[[], object],
        daily_report: Callable[[], object],
        prune: Callable[[], object],
        sample_stats: Callable[[], object] | None,
        compact_stats: Callable[[], object] | None = None,
    ) -> None:
        self.sweep = sweep
        self.smart = smart
        self.daily_report = daily_report
        self.prune = prune
        self.sample_stats = sample_stats
        self.compact_stats = compact_stats


def _guarded(name: str, job: Callable[[], object]) -> Callable[[], None]:
    """A job whose failure is logged, not raised into the scheduler."""

    def run() -> None:
        try:
            job()
        except Exception:
            log.exception("scheduled job %s failed", name)

    return run


def build_scheduler(schedule: Schedule, jobs: Jobs) -> BackgroundScheduler:
    """A scheduler (not started) with one job per non-empty entry of `schedule`."""
    scheduler = BackgroundScheduler(job_defaults={"coalesce": True, "max_instances": 1})
    cron_jobs = {
        "sweep": (schedule.sweep, jobs.sweep),
        "smart": (schedule.smart, jobs.smart),
        "daily_report": (schedule.daily_report, jobs.daily_report),
        "prune": (schedule.prune, jobs.prune),
    }
    if jobs.compact_stats is not None:
        cron_jobs["compact_stats"] = (schedule.compact_stats, jobs.compact_stats)
    for name, (expression, job) in cron_jobs.items():
        if expression:
            scheduler.add_job(
                _guarded(name, job), CronTrigger.from_crontab(expression), id=name, name=name
            )
    if jobs.sample_stats is not None and schedule.stats_interval_s > 0:
        scheduler.add_job(
            _guarded("sample_stats", jobs.sample_stats),
            IntervalTrigger(seconds=schedule.stats_interval_s),
            id="sample_stats",
            name="sample_stats",
        )
    return scheduler
