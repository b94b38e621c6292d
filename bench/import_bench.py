"""Import a 24-hour PerfMon CSV of 50 counters at 15 s (5,760 samples): wall time, peak RSS.

The file is generated in the layout of `tests/fixtures/imports/synthetic__perfmon_relog_*.csv`
(relog's quoted cells, CRLF, `(PDH-CSV 4.0) (GMT Standard Time)(0)`, blank first sample for
rate counters): 6 logical disks × 8 counters plus 2 counters of other objects.

    python bench/import_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from machine import machine_line

from pinchpoint.checks.collect.imports import import_stats

HOST = "DBSRV01"
VOLUMES = ("C:", "D:", "E:", "F:", "H:", "_Total")
DISK_COUNTERS = (
    ("% Idle Time", lambda r: r.uniform(20, 99)),
    ("Avg. Disk Queue Length", lambda r: r.uniform(0, 8)),
    ("Avg. Disk sec/Read", lambda r: r.lognormvariate(-5, 1)),
    ("Avg. Disk sec/Write", lambda r: r.lognormvariate(-6, 1)),
    ("Disk Read Bytes/sec", lambda r: r.uniform(0, 4e8)),
    ("Disk Reads/sec", lambda r: r.uniform(0, 3000)),
    ("Disk Write Bytes/sec", lambda r: r.uniform(0, 2e8)),
    ("Disk Writes/sec", lambda r: r.uniform(0, 1500)),
)
OTHER_COUNTERS = (r"Memory\Available MBytes", r"Processor(_Total)\% Processor Time")
SAMPLES = 24 * 3600 // 15


def write_perfmon_csv(path: Path, samples: int = SAMPLES, seed: int = 4) -> int:
    """Write the benchmark file; returns the number of counters."""
    rng = random.Random(seed)
    paths = [f"\\\\{HOST}\\LogicalDisk({v})\\{name}" for v in VOLUMES for name, _ in DISK_COUNTERS]
    paths += [f"\\\\{HOST}\\{other}" for other in OTHER_COUNTERS]
    makers = [make for _ in VOLUMES for _, make in DISK_COUNTERS]
    start = datetime(2026, 11, 21, 0, 0, 0, 121000)
    with path.open("w", newline="") as out:
        header = ['"(PDH-CSV 4.0) (GMT Standard Time)(0)"', *(f'"{p}"' for p in paths)]
        out.write(",".join(header) + "\r\n")
        for index in range(samples):
            stamp = start + timedelta(seconds=15 * index, milliseconds=2 * index % 7)
            if index == 0:
                cells = [" "] * len(makers) + ["20412.000000", " "]
            else:
                cells = [f"{make(rng):.6f}" for make in makers]
                cells += [f"{rng.uniform(1e4, 2e4):.6f}", f"{rng.uniform(0, 100):.6f}"]
            row = [f'"{stamp:%m/%d/%Y %H:%M:%S}.{stamp.microsecond // 1000:03d}"']
            row += [f'"{cell}"' for cell in cells]
            out.write(",".join(row) + "\r\n")
    return len(paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pinchpoint-import-bench-") as tmp:
        path = Path(tmp, "perfmon-24h.csv")
        counters = write_perfmon_csv(path)
        size_mib = path.stat().st_size / 2**20
        print(f"machine: {machine_line()}")
        print(f"{path.name}: {counters} counters, {SAMPLES} samples, {size_mib:.1f} MiB")
        times = []
        for _ in range(args.runs):
            begin = time.perf_counter()
            imported = import_stats(path)
            times.append(time.perf_counter() - begin)
        points = sum(len(e.points) for e in imported.entities)
        in_process_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"import_stats in process: best {min(times):.3f} s, median "
            f"{statistics.median(times):.3f} s ({len(imported.entities)} volumes, {points} points)"
            f", peak RSS of this process {in_process_rss:.0f} MiB"
        )
        cli = [sys.executable, "-m", "pinchpoint", "stats", "import", str(path), "--json"]
        walls = []
        for _ in range(args.runs):
            begin = time.perf_counter()
            subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)
            walls.append(time.perf_counter() - begin)
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"`pinchpoint stats import FILE --json`, whole process: best {min(walls):.3f} s, "
            f"median {statistics.median(walls):.3f} s, peak RSS {child_rss:.0f} MiB"
        )


if __name__ == "__main__":
    main()
