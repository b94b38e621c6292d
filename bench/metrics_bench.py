"""Benchmark: the `/metrics` exposition of the simulated 1,920-path host, and its series count.

Simulates `tests/fixtures/specs/bench_host.toml` (4 HBAs, 16 JBODs × 60 dual-ported disks =
1,920 disk paths, 96 expanders, 16 NICs, 2 bonds, 4 FC ports), inventories and checks it as a
sweep does, adds work counters for each of its 960 disks (what the service exports per
disk) and sweep and notification counters, then times `metrics_exposition` — a fresh registry,
every family built and encoded — best and median of N runs, in the text format and in
OpenMetrics, and counts the series per metric; then what a scrape costs once the exposition is
rendered and kept (`service/metrics_cache.py`, plain and gzip).

Target (issue 6): well under 50 ms per scrape on the 2-core development VM.

    python bench/metrics_bench.py [--runs 30] [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from machine import machine_line
from prometheus_client.parser import text_string_to_metric_families
from simulated import simulated_host

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.service.metrics import MetricsInput, SweepCounters, metrics_exposition
from pinchpoint.service.metrics_cache import MetricsCache
from pinchpoint.service.notify import NotifyCounts
from pinchpoint.stats.disk_work import DiskWork
from pinchpoint.stats.gather import gather_statistics

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_host.toml"
OPENMETRICS = "application/openmetrics-text; version=1.0.0"


def host_input(snapshot: Path) -> MetricsInput:
    """What the service holds for the host after a sweep."""
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    gathered = gather_statistics(source, inventory, live=False)
    report = build_report(rule_context(inventory, gathered), CATALOG)
    work = [
        DiskWork(
            disk=disk.id,
            reads=1e6 + index,
            writes=2e6 + index,
            read_bytes=4096e6 + index,
            written_bytes=8192e6 + index,
            read_seconds=5e3 + index % 17,
            write_seconds=6e3 + index % 11,
            busy_seconds=3e3 + index % 100,
            queued_seconds=9e3 + index % 5,
        )
        for index, disk in enumerate(inventory.sas.disks)
    ]
    return MetricsInput(
        host=inventory.host.hostname or "bench",
        inventory=inventory,
        report=report,
        open_findings=report.findings,
        sweeps=SweepCounters(
            sweeps=8640, errors=3, last_duration_s=4.8, last_success=datetime.now(UTC)
        ),
        notifications=NotifyCounts(sent=120, failed=1, retried=9),
        work=work,
    )


def timed(
    data: MetricsInput, accept: str | None, runs: int
) -> tuple[list[float], list[float], bytes]:
    """Wall and CPU seconds of each run (the VM is shared: CPU time is the steadier figure)."""
    walls, cpus = [], []
    body = b""
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        body, _ = metrics_exposition(data, accept)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return walls, cpus, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    args = parser.parse_args()
    print(machine_line())
    with simulated_host(SPEC, args.keep, "bench_host") as snapshot:
        data = host_input(snapshot)
    inventory = data.inventory
    assert inventory is not None
    print(
        f"host: {len(inventory.sas.disks)} disks, {inventory.sas.path_count} paths, "
        f"{len(inventory.sas.expanders)} expanders, {len(inventory.network.nics)} NICs, "
        f"{len(inventory.fc.ports)} FC ports, {len(data.open_findings)} open findings"
    )
    for label, accept in (("text 0.0.4", None), ("OpenMetrics", OPENMETRICS)):
        walls, cpus, body = timed(data, accept, args.runs)
        print(
            f"exposition ({label}), {len(body):,} bytes, {args.runs} runs: wall best "
            f"{min(walls) * 1000:.1f} ms, median {statistics.median(walls) * 1000:.1f} ms; "
            f"CPU best {min(cpus) * 1000:.1f} ms, median {statistics.median(cpus) * 1000:.1f} ms"
        )
    cache = MetricsCache()
    for label, gzipped in (("plain", False), ("gzip", True)):
        first = time.perf_counter()
        body, _ = cache.answer("view", lambda: data, None, gzipped)
        made = time.perf_counter() - first
        start = time.perf_counter()
        for _ in range(args.runs * 100):
            cache.answer("view", lambda: data, None, gzipped)
        each = (time.perf_counter() - start) / (args.runs * 100)
        print(
            f"served from memory ({label}, {len(body):,} bytes): first {made * 1000:.1f} ms, "
            f"then {each * 1e6:.1f} µs per scrape ({args.runs * 100} scrapes)"
        )
    changed = []  # the scrape that first sees a change: renders (before) or starts one (after)
    for n in range(args.runs):
        start = time.perf_counter()
        cache.answer(("changed", n), lambda: data, None, False)
        changed.append(time.perf_counter() - start)
        settle = getattr(cache, "settle", None)
        if settle is not None:
            settle()  # the background render done before the next change
    print(
        f"the first scrape after a change, {args.runs} changes: median "
        f"{statistics.median(changed) * 1000:.2f} ms, worst {max(changed) * 1000:.2f} ms"
    )
    body, _ = metrics_exposition(data)
    series: Counter[str] = Counter()
    for family in text_string_to_metric_families(body.decode("utf-8")):
        for sample in family.samples:
            series[sample.name] += 1
    print(f"series: {sum(series.values()):,} in {len(series)} metrics")
    for name, count in series.most_common():
        print(f"  {count:6,}  {name}")


if __name__ == "__main__":
    main()
