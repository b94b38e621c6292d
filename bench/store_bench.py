"""Benchmark: 30 days of 5-minute sweeps of the 1,920-path host in the report store.

Simulates `tests/fixtures/specs/bench_1920_stats.toml` and runs the check pipeline on it once
(as bench/check_bench.py does) for its report and inventory, then saves N reports (default
8,640: 30 days × 288) into a fresh store, 5 minutes apart, as the service's sweeps would:

* each report carries the inventory; the inventory's host block (`captured_at`) changes every
  sweep, its `health` part (SMART power-on hours) once a day (`--health-every 288`; 1 makes it
  change every sweep, as a live host's temperatures would);
* the simulated host is healthy, so its report gets the demo host's field-case-1 finding
  ("JBOD-003 has 1 of 2 SAS paths", with its evidence) for each of its 16 JBODs, and the
  demo's chain finding: 17 findings with real evidence, about 60 kB of JSON per report;
* findings vary so that states move: one finding is absent 30 minutes in every 5 hours
  (resolves and re-opens), one flaps every other sweep (never resolves), one is critical
  for one hour a day (worsened);
* the store is pruned once a day with the service's default retention (30 days).

Then reports the database size (SQLite: the file plus its WAL after a checkpoint;
PostgreSQL: `pg_database_size`), the time per save (median, p99) and the time of the API's
reads on the full store. Never run by the tests.

    python bench/store_bench.py [--reports 8640] [--dir DIR] [--url URL] [--health-every N]
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

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.model.findings import Finding, Report, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.service.store import FindingState, Store
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
DEMO = ROOT / "pinchpoint" / "simulator" / "specs" / "demo.toml"
START = datetime(2026, 1, 1, tzinfo=UTC)
SWEEP = timedelta(minutes=5)
PER_DAY = 288
RETENTION_DAYS = 30


def _timed(what: str, action: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = action()
    print(f"  {what}: {(time.perf_counter() - start) * 1000:,.0f} ms")
    return result


def check(spec: Path, snapshot: Path | None = None) -> tuple[Report, Inventory]:
    """A simulated host's report and inventory, made by the check pipeline."""
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        where = snapshot or Path(scratch, spec.stem)
        if not where.exists():
            _timed(f"simulate {spec.stem}", lambda: write_snapshot(load_spec(spec), where))
        source = SnapshotSource(where)
        inventory = _timed("inventory", lambda: collect_inventory(source))
        gathered = _timed("statistics", lambda: gather_statistics(source, inventory, live=False))
        report = _timed(
            "rules", lambda: build_report(rule_context(inventory, gathered), CATALOG, now=START)
        )
    return report, inventory


def with_field_case_findings(report: Report, inventory: Inventory, demo: Report) -> Report:
    """`report` plus the demo's single-path finding on each JBOD of `inventory` and the demo's
    other findings (the single-path finding's entity replaced by this host's JBODs)."""
    single = next(f for f in demo.findings if f.rule == "sas.enclosure.single_path")
    added = []
    for enclosure in inventory.sas.enclosures:
        entity = single.entity.model_copy(
            update={"id": enclosure.id, "name": enclosure.nickname or enclosure.id}
        )
        added.append(
            single.model_copy(update={"id": f"{single.rule}@{enclosure.id}", "entity": entity})
        )
    added.extend(f for f in demo.findings if f.rule != single.rule)
    return report.model_copy(update={"findings": [*report.findings, *added]})


def findings_of_sweep(base: list[Finding], index: int) -> list[Finding]:
    """The base findings, varied as described at the top."""
    findings = list(base)
    if len(findings) >= 3:
        if index // 6 % 10 == 3:  # 30 minutes off in every 5 hours
            findings.pop(0)
        if index % 2:  # every other sweep
            findings.pop()
        if index % PER_DAY < 12:  # one hour a day: critical
            findings[-1] = findings[-1].model_copy(update={"severity": Severity.CRITICAL})
    return findings


def inventory_of_sweep(inventory: Inventory, index: int, every: int, at: datetime) -> Inventory:
    """The inventory read at `at`: a new host block, the SMART part changed every `every`."""
    generation = index // every
    disks = [
        disk.model_copy(update={"power_on_hours": (disk.power_on_hours or 0) + generation})
        for disk in inventory.health.disks
    ]
    health = inventory.health.model_copy(update={"disks": disks})
    host = inventory.host.model_copy(update={"captured_at": at})
    return inventory.model_copy(update={"health": health, "host": host})


def database_bytes(store_url: str) -> int:
    """The size of the store on disk: SQLite file + WAL after a checkpoint, or the PostgreSQL
    database."""
    engine = create_engine(store_url)
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "postgresql":
                size = connection.execute(text("SELECT pg_database_size(current_database())"))
                return int(size.scalar_one())
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        engine.dispose()
    path = Path(engine.url.database or "")
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _reads(store: Store, runs: int) -> None:
    """Time the reads the API serves, on the full store."""
    latest = store.latest_report()
    assert latest is not None
    page = store.report_summaries(limit=2)
    older = page.items[-1].id
    reads: dict[str, Callable[[], object]] = {
        "latest_report()": store.latest_report,
        "latest_report(host)": lambda: store.latest_report(latest.report.host.hostname),
        "report_summaries(limit=50)": lambda: store.report_summaries(limit=50),
        "report_summaries(offset=8000)": lambda: store.report_summaries(limit=50, offset=8000),
        "report_summaries(since 1 day)": lambda: store.report_summaries(
            since=latest.report.generated_at - timedelta(days=1), limit=50
        ),
        "findings()": store.findings,
        "findings(state=open)": lambda: store.findings(state=FindingState.OPEN),
        "hosts()": store.hosts,
        "diff(previous, latest)": lambda: store.diff(older, latest.id),
        "inventory_of(latest)": lambda: store.inventory_of(latest.id),
    }
    print(f"reads on the full store (best / median of {runs}):")
    for name, read in reads.items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            read()
            times.append(time.perf_counter() - start)
        print(f"  {name}: {min(times) * 1000:,.1f} / {statistics.median(times) * 1000:,.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=30 * PER_DAY)
    parser.add_argument("--dir", type=Path, help="Where the SQLite file goes (default: /tmp).")
    parser.add_argument("--url", help="A store URL instead (an empty PostgreSQL database).")
    parser.add_argument("--health-every", type=int, default=PER_DAY)
    parser.add_argument("--snapshot", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(machine_line())
    print("the 1,920-path host and the demo host, once:")
    report, inventory = check(SPEC, args.snapshot)
    report = with_field_case_findings(report, inventory, check(DEMO)[0])
    print(
        f"  report: {len(report.findings)} findings, {len(report.model_dump_json()):,} bytes "
        f"of JSON; inventory: {len(inventory.model_dump_json()):,} bytes of JSON"
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        url = args.url or f"sqlite:///{Path(scratch, 'pinchpoint.db')}"
        store = Store.open(url)
        saves: list[float] = []
        prunes: list[float] = []
        started = time.perf_counter()
        for index in range(args.reports):
            at = START + index * SWEEP
            sweep = report.model_copy(
                update={
                    "generated_at": at,
                    "host": report.host.model_copy(update={"captured_at": at}),
                    "findings": findings_of_sweep(report.findings, index),
                }
            )
            read = inventory_of_sweep(inventory, index, args.health_every, at)
            start = time.perf_counter()
            store.save_report(sweep, inventory=read, duration_s=5.0, now=at)
            saves.append(time.perf_counter() - start)
            if index % PER_DAY == PER_DAY - 1:
                start = time.perf_counter()
                store.prune(keep_reports_days=RETENTION_DAYS, now=at)
                prunes.append(time.perf_counter() - start)
                day = (index + 1) // PER_DAY
                print(
                    f"  day {day}: {index + 1:,} reports, {database_bytes(url) / 2**20:,.1f} MiB, "
                    f"median save {statistics.median(saves[-PER_DAY:]) * 1000:,.1f} ms",
                    flush=True,
                )
        total = time.perf_counter() - started
        size = database_bytes(url)
        ordered = sorted(saves)
        median = statistics.median(saves)
        print(
            f"{args.reports:,} saves in {total:,.0f} s: median {median * 1000:,.1f} ms, "
            f"p99 {ordered[int(len(ordered) * 0.99) - 1] * 1000:,.1f} ms, max "
            f"{ordered[-1] * 1000:,.0f} ms; first save (inventory new) {saves[0] * 1000:,.0f} ms"
        )
        if prunes:
            print(f"daily prune: median {statistics.median(prunes) * 1000:,.1f} ms")
        hosts = store.hosts()
        print(
            f"store: {store.dialect}, {size / 2**20:,.1f} MiB after {args.reports:,} reports "
            f"({size / max(1, args.reports) / 1024:,.1f} KiB per report); "
            f"{hosts[0].reports:,} reports kept"
        )
        _reads(store, args.runs)
        store.close()


if __name__ == "__main__":
    main()
