"""Benchmark: statistics series of the 1,920-path host in the store.

Simulates `tests/fixtures/specs/bench_1920_stats.toml`, sweeps it once, then records `--ticks`
10-second intervals (replayed from the snapshot, timestamps advancing 10 s per tick) the way the
service's sampler does, compacting as the service does every 10 minutes. Prints the time per
tick, the rows and bytes stored per group point, and the steady-state size of the default
retention (10 s for 1 h, 5 min for 7 days, 1 h for 90 days) from those measured figures.

    python bench/series_bench.py [--ticks 360]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_line

from pinchpoint.service.runtime import Service
from pinchpoint.service.sampling import group_policy
from pinchpoint.service.settings import Schedule, ServiceSettings, TargetKind
from pinchpoint.simulator import load_spec, write_snapshot

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=360)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="pinchpoint-series-bench-") as scratch:
        snapshot = Path(scratch, "host")
        write_snapshot(load_spec(SPEC), snapshot)
        settings = ServiceSettings(
            data_dir=Path(scratch, "data"),
            target=TargetKind.SNAPSHOT,
            snapshot=snapshot,
            schedule=Schedule(sweep="", smart="", daily_report="", prune="", compact_stats=""),
        )
        Path(scratch, "data").mkdir()
        service = Service(settings)
        service.runner.run(service.runner.request("bench"))
        host = service.own_host() or ""
        start = datetime.now(UTC).replace(microsecond=0)
        durations = []
        for tick in range(args.ticks):
            now = start + timedelta(seconds=10 * tick)
            began = time.perf_counter()
            view = service.view(None)
            assert view is not None and view.inventory is not None
            interval = service.sampler.source.next(view.inventory)
            assert interval is not None
            service.sampler.record(view.inventory, interval, service.sampler.source.imports, now)
            durations.append(time.perf_counter() - began)
            if tick % 60 == 59:
                service.sampler.compact(host, now)
        service.sampler.flush()  # the groups' last bucket, written once done
        from sqlalchemy import create_engine

        engine = create_engine(settings.resolved_database_url())
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT count(*) FROM series_points")).scalar_one()
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        engine.dispose()
        size = Path(scratch, "data", "pinchpoint.db").stat().st_size
        entities = len(service.store.series_entities(host))
        service.stop()
        per_row = size / rows if rows else 0
        steady = sum(t.keep_s // t.resolution_s for t in group_policy().tiers) * entities
        print(
            f"{args.ticks} ticks: median {statistics.median(durations) * 1000:.0f} ms, "
            f"max {max(durations) * 1000:.0f} ms per tick; {entities} group series, "
            f"{rows} rows, {size / 1e6:.1f} MB ({per_row:.0f} bytes per row incl. indexes)"
        )
        print(
            f"steady state of the default retention: {steady:,} rows ≈ "
            f"{steady * per_row / 1e6:.0f} MB (from the measured bytes per row)"
        )


if __name__ == "__main__":
    main()
