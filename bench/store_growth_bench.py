"""Benchmark: store growth of one 1,920-path host over 30 days in SQLite with the retention
defaults — 5-minute sweeps plus statistics sampled at 1 Hz — and the API's month queries on it.

The service itself (`Service` on the simulated `tests/fixtures/specs/bench_1920_stats.toml`)
sweeps once and samples once (the real sampler: the interval grouped along the hierarchy, one
point per stored group); then, on a fake clock, its own store is written as 30 days of running
would write it, with the store's own API:

* every 5 minutes a sweep's report and inventory (`save_report`; the inventory's host block new
  each sweep, its SMART part once a day, findings that resolve, flap and worsen, as
  bench/store_bench.py does);
* the statistics: at 1 Hz the sampler adds ten points to each 10-second bucket of each group,
  combined exactly in the bucket (`combine_into`); the bench writes each bucket once, holding
  those ten ticks, for the last day, and compaction (every 10 minutes, as the schedule's
  `compact_stats`) rolls them into 5-minute and hourly buckets. For the 29 days before, each
  5-minute bucket is written as compaction leaves it (thirty 10-second buckets combined by the
  same code, in memory): the store ends in the same state, and the bench takes minutes instead
  of a day of inserts;
* the daily prune with the default retention (30 days) and compaction.

Then: the database file (+ WAL after a checkpoint), rows per table, and the time of the month
queries the API makes (`GET /v1/stats` over 30 days, 1 day and 1 hour for a group; report
summaries of the month page by page; findings; hosts). Never run by the tests.

    python bench/store_growth_bench.py [--days 30] [--work DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from machine import machine_line
from sqlalchemy import create_engine, text
from store_bench import (
    DEMO,
    check,
    database_bytes,
    findings_of_sweep,
    inventory_of_sweep,
    with_field_case_findings,
)

from pinchpoint.service.runtime import Service
from pinchpoint.service.sampling import group_policy
from pinchpoint.service.settings import Schedule, ServiceSettings, TargetKind
from pinchpoint.stats.series import SeriesPoint, combine_into

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
SWEEP_S = 300
TICKS_PER_BUCKET = 10  # 1 Hz into 10-second buckets
COMPACT_EVERY_S = 600  # the schedule's compact_stats, */10 * * * *


def _timed(runs: int, action: Callable[[], Any]) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times) * 1000, statistics.median(times) * 1000


def _moved(point: SeriesPoint, start_s: int) -> SeriesPoint:
    return point.model_copy(update={"start_s": start_s})


def _combined(template: SeriesPoint, start_s: int, resolution_s: int, count: int) -> SeriesPoint:
    """`count` copies of `template` combined into one point of `resolution_s` at `start_s`."""
    total = template.model_copy(
        deep=True, update={"start_s": start_s, "resolution_s": resolution_s}
    )
    for _ in range(count - 1):
        combine_into(total, template)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "pinchpoint-growth-bench"
    )
    args = parser.parse_args()
    print(machine_line())
    print("the machine is shared with other work")
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    snapshot = work / "host"
    data = work / "data"
    if data.exists():
        for path in data.iterdir():
            path.unlink()
    data.mkdir(exist_ok=True)
    report, inventory = check(SPEC, snapshot)  # simulated once, kept in the work directory
    demo, _ = check(DEMO)
    report = with_field_case_findings(report, inventory, demo)
    base_findings = list(report.findings)

    settings = ServiceSettings(
        data_dir=data,
        target=TargetKind.SNAPSHOT,
        snapshot=snapshot,
        schedule=Schedule(sweep="", smart="", daily_report="", prune="", compact_stats=""),
    )
    service = Service(settings)
    service.target.open()
    store = service.store
    policy = group_policy()
    # one real sampler tick: the points of each stored group for one 10-second interval
    captured: list[tuple[str, SeriesPoint]] = []
    real_add = store.add_series_points
    store.add_series_points = lambda host, points: captured.extend(points)  # type: ignore[method-assign]
    interval = service.sampler.source.next(inventory)
    assert interval is not None
    service.sampler.record(
        inventory, interval, service.sampler.source.imports, datetime.now(UTC), host="bench"
    )
    service.sampler.flush()  # the groups' bucket is written once done: now
    store.add_series_points = real_add  # type: ignore[method-assign]
    host = inventory.host.hostname or "bench-host"
    per_tick = {entity: point for entity, point in captured}
    # the sampler's point holds one interval; at 1 Hz a bucket holds ten 1-second ticks
    bucket = {
        e: _combined(p.model_copy(update={"covered_s": 1.0}), 0, 10, TICKS_PER_BUCKET)
        for e, p in per_tick.items()
    }
    five = {e: _combined(p, 0, 300, 30) for e, p in bucket.items()}
    print(
        f"{len(per_tick)} stored groups; a 10-second bucket point is "
        f"{len(next(iter(bucket.values())).model_dump_json())} bytes of JSON"
    )

    end = datetime(2026, 12, 1, tzinfo=UTC)
    start = end - timedelta(days=args.days)
    start_s = int(start.timestamp())
    sweeps = args.days * 86400 // SWEEP_S
    saves: list[float] = []
    began = time.perf_counter()
    for index in range(sweeps):
        at = start + timedelta(seconds=index * SWEEP_S)
        at_s = start_s + index * SWEEP_S
        this = report.model_copy(
            update={
                "generated_at": at,
                "findings": findings_of_sweep(base_findings, index),
                "host": report.host.model_copy(update={"hostname": host}),
            }
        )
        swept = inventory_of_sweep(inventory, index, 288, at)
        swept = swept.model_copy(update={"host": swept.host.model_copy(update={"hostname": host})})
        t = time.perf_counter()
        store.save_report(this, inventory=swept, duration_s=1.3, now=at)
        saves.append(time.perf_counter() - t)
        last_day = at >= end - timedelta(days=1)
        if last_day:  # 10-second buckets, compaction as scheduled
            store.add_series_points(
                host,
                [
                    (e, _moved(p, at_s + k * 10))
                    for k in range(SWEEP_S // 10)
                    for e, p in bucket.items()
                ],
            )
            if (at_s + SWEEP_S) % COMPACT_EVERY_S == 0:
                store.compact_series(host, policy, at + timedelta(seconds=SWEEP_S))
        else:  # as compaction leaves them
            store.add_series_points(host, [(e, _moved(p, at_s)) for e, p in five.items()])
            if (at_s + SWEEP_S) % 3600 == 0:
                store.compact_series(host, policy, at + timedelta(seconds=SWEEP_S))
        if (index + 1) % 288 == 0:
            day = (index + 1) // 288
            now = at + timedelta(seconds=SWEEP_S)
            store.prune(keep_reports_days=settings.schedule.retention_days, now=now)
            store.compact_series(host, policy, now)
            size = database_bytes(settings.resolved_database_url())
            print(
                f"  day {day}: {size / 2**20:.1f} MiB, {time.perf_counter() - began:.0f} s "
                f"written, median save {statistics.median(saves) * 1000:.0f} ms",
                flush=True,
            )
    store.compact_series(host, policy, end)
    url = settings.resolved_database_url()
    size = database_bytes(url)
    engine = create_engine(url)
    with engine.connect() as connection:
        counts = {
            table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("reports", "inventory_parts", "finding_states", "series_points")
        }
        tiers = connection.execute(
            text("SELECT resolution_s, count(*) FROM series_points GROUP BY resolution_s")
        ).all()
    engine.dispose()
    print(f"database after {args.days} days: {size / 2**20:.1f} MiB (file + WAL, checkpointed)")
    print(f"rows: {counts}; series points by resolution: {dict(tiers)}")
    print(
        f"saves: median {statistics.median(saves) * 1000:.0f} ms, p99 "
        f"{sorted(saves)[int(len(saves) * 0.99)] * 1000:.0f} ms"
    )
    entity = next(iter(per_tick))
    month = (start, end)
    reads: dict[str, Callable[[], Any]] = {
        "stats of a group, the month": lambda: store.query_series(host, entity, *month, policy),
        "stats of a group, the last day": lambda: store.query_series(
            host, entity, end - timedelta(days=1), end, policy
        ),
        "stats of a group, the last hour": lambda: store.query_series(
            host, entity, end - timedelta(hours=1), end, policy
        ),
        "report summaries of the month, first page": lambda: store.report_summaries(
            host=host, since=start, limit=50
        ),
        "report summaries of the month, last page": lambda: store.report_summaries(
            host=host, since=start, limit=50, offset=max(0, sweeps - 50)
        ),
        "findings (open)": lambda: store.findings(host=host),
        "hosts": lambda: store.hosts(),
    }
    for what, read in reads.items():
        best, median = _timed(20, read)
        print(f"  {what}: best {best:.1f} ms, median {median:.1f} ms")
    service.stop()


if __name__ == "__main__":
    main()
