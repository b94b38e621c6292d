"""Benchmark: how long a reader of the service's views stalls while sweeps replace them.

Runs the service's sweeps of the simulated 1,920-path host (`tests/fixtures/specs/
bench_1920_stats.toml`, a snapshot target, SQLite store in a scratch directory) in-process, the
way `pinchpoint serve` runs them, while a reader thread does what a request does — takes the
host's current view (`fresh_view`, else `view`) — then sleeps 1 ms, in a loop. Each gap between
two wakeups longer than the sleep is time the reader could not run: a full collection at the
swap, a rebuild of the view from the store, the GIL held by the sweep. Prints, per sweep and
overall, the longest gap, the 99.9th percentile and the time lost in gaps over 20 ms.

    python bench/swap_pause_bench.py [--sweeps 5] [--code PATH]

`--code` runs another checkout's service (PYTHONPATH), to compare two in one session.
Target (issue 17): no stop-the-world at the swap (no gap near the ~150-200 ms of a full
collection of the heap).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"

CHILD = r"""
import statistics, sys, threading, time
from datetime import UTC, datetime
from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import Schedule, ServiceSettings, TargetKind
from pinchpoint.service.sweeps import Sweep

snapshot, data_dir, sweeps = sys.argv[1], sys.argv[2], int(sys.argv[3])
quiet = Schedule(sweep="", smart="", daily_report="", prune="", compact_stats="",
                 stats_interval_s=0)
service = Service(ServiceSettings.model_validate({"data_dir": data_dir, "target":
    TargetKind.SNAPSHOT, "snapshot": snapshot, "schedule": quiet}))
service.target.open()
service.runner.run(Sweep(id="first", reason="startup", requested_at=datetime.now(UTC)))
service.view(None)
gaps: list[float] = []
stop = threading.Event()

def reader() -> None:
    last = time.perf_counter()
    while not stop.is_set():
        view = service.fresh_view(None) or service.view(None)
        assert view is not None
        time.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last - 0.001)
        last = now

thread = threading.Thread(target=reader, daemon=True)
thread.start()
for number in range(sweeps):
    time.sleep(1.0)
    start = len(gaps)
    began = time.perf_counter()
    service.runner.run(Sweep(id=f"s{number}", reason="api", requested_at=datetime.now(UTC)))
    time.sleep(1.0)  # the first requests after the swap
    mine = gaps[start:] or [0.0]
    print(f"sweep {number + 1}: {time.perf_counter() - began - 1.0:.1f} s; reader's longest gap "
          f"{max(mine) * 1000:.0f} ms, {sum(g for g in mine if g > 0.02) * 1000:.0f} ms lost "
          f"in gaps > 20 ms")
stop.set()
thread.join()
ordered = sorted(gaps)
print(f"overall ({len(gaps)} wakeups): longest gap {ordered[-1] * 1000:.0f} ms, p99.9 "
      f"{ordered[int(len(ordered) * 0.999)] * 1000:.1f} ms, p99 "
      f"{ordered[int(len(ordered) * 0.99)] * 1000:.1f} ms; gaps > 100 ms: "
      f"{sum(1 for g in gaps if g > 0.1)}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=5)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose service runs")
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import machine_line

    from pinchpoint.simulator import load_spec, write_snapshot

    print(machine_line())
    print(f"code: {args.code.resolve().name}")
    with tempfile.TemporaryDirectory(prefix="pinchpoint-swap-bench-") as scratch:
        snapshot = args.keep or Path(scratch, "host")
        if not snapshot.exists():
            write_snapshot(load_spec(SPEC), snapshot)
        environment = {**os.environ, "PYTHONPATH": str(args.code.resolve())}
        data_dir = Path(scratch, "data")
        subprocess.run(
            [sys.executable, "-c", CHILD, str(snapshot), str(data_dir), str(args.sweeps)],
            env=environment,
            check=True,
            cwd=scratch,
        )


if __name__ == "__main__":
    main()
