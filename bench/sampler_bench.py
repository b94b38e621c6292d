"""Benchmark: the live sampler's CPU cost for 2,000 block devices at 1 Hz (target ≤ 2% of a core).

Builds a /proc/diskstats-like file of 2,000 devices from the real 20-field sda line of the jc
capture (tests/fixtures/diskstats), renamed sda … and given different counters, and a new
version of it per sample with every counter grown (so every device is active, every delta real:
the worst case for ranking). Measured with `time.process_time()` around the work only (writing
the next file is not counted), per sample:

- tick: what `stats watch` does every second: read + parse into the raw table + keep it
  (`LiveSampler.tick`) and rank the devices (`busiest_devices`, top 20);
- top-20 figures: iostat -x figures of the 20 shown (`table_interval_figures` with names);
- all figures: every device's figures from the two tables (`table_interval_figures`), what
  `stats watch --all` adds;
- before: the previous design, models for every device every second (`live_sample` +
  `interval_figures`), for comparison.

Prints a calibration line (CPU ms of a 1,000,000-iteration loop in a function) so figures from
different machines can be compared, and a Markdown block for docs/benchmarks.md.

    python bench/sampler_bench.py [--devices 2000] [--samples 60] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import string
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

from machine import machine_line

from pinchpoint.checks.collect.diskstats import LiveSampler, live_sample
from pinchpoint.stats.iostat import busiest_devices, interval_figures, table_interval_figures

TOP = 20
REAL_LINE = (
    Path(__file__).resolve().parent.parent
    / "tests/fixtures/diskstats"
    / ("jc__proc_diskstats_ubuntu_20field.txt")
)


def device_names(count: int) -> list[str]:
    """sda … sdz, sdaa … : the kernel's names for SCSI disks."""
    names: list[str] = []
    for length in (1, 2, 3):
        for letters in product(string.ascii_lowercase, repeat=length):
            names.append("sd" + "".join(letters))
            if len(names) == count:
                return names
    return names


def base_counters() -> list[int]:
    line = next(t for t in REAL_LINE.read_text().splitlines() if " sda " in t)
    return [int(f) for f in line.split()[3:]]


def diskstats_text(names: list[str], base: list[int], step: int) -> str:
    """The file at sample `step`: each device's counters grown by an amount of its own."""
    lines = []
    for index, name in enumerate(names):
        grow = (index % 97 + 1) * step
        counters = [value + grow * (position % 5 + 1) for position, value in enumerate(base)]
        counters[8] = index % 4  # in flight
        major, minor = 8 + 57 * (index // 16 > 15), (index * 16) % 256
        lines.append(f"{major:4d} {minor:7d} {name} " + " ".join(map(str, counters)))
    return "\n".join(lines) + "\n"


def one_run(path: Path, texts: list[str]) -> dict[str, list[float]]:
    """CPU seconds of each part of each sample over the series of texts."""
    costs: dict[str, list[float]] = {"tick": [], "top": [], "all": [], "before": []}
    path.write_text(texts[0])
    sampler = LiveSampler(str(path))
    before = sampler.tick()
    previous_sample = live_sample(str(path))
    for text in texts[1:]:
        path.write_text(text)
        start = time.process_time()
        after = sampler.tick()
        shown = busiest_devices(before, after, TOP)
        costs["tick"].append(time.process_time() - start)
        assert len(shown) == TOP

        start = time.process_time()
        table_interval_figures(before, after, shown)
        costs["top"].append(time.process_time() - start)

        start = time.process_time()
        every = table_interval_figures(before, after)
        costs["all"].append(time.process_time() - start)
        assert len(every.devices) == len(after.names) and not every.problems

        start = time.process_time()
        current_sample = live_sample(str(path))
        interval_figures(previous_sample, current_sample)
        costs["before"].append(time.process_time() - start)
        before, previous_sample = after, current_sample
    return costs


ROWS = (
    ("tick", "**per tick: read + parse + keep + rank** (what runs every second)"),
    ("top", f"figures of the top {TOP} shown"),
    ("all", "figures of every device (`--all`)"),
    ("before", "before: `live_sample` + `interval_figures` (models for every device)"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    machine = machine_line()  # before the runs: the calibration loop sees the same load
    names = device_names(args.devices)
    base = base_counters()
    texts = [diskstats_text(names, base, step) for step in range(args.samples + 1)]
    tmp_root = "/dev/shm" if os.path.isdir("/dev/shm") else None
    runs: list[dict[str, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="pinchpoint-sampler-", dir=tmp_root) as tmp:
        path = Path(tmp, "diskstats")
        for _ in range(args.runs):
            runs.append(one_run(path, texts))
    peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size_kib = len(texts[0]) / 1024
    print(
        f"## sampler: {args.devices:,} devices at 1 Hz, {args.samples} samples × {args.runs} runs"
    )
    print()
    print(f"Machine: {machine}. File: {size_kib:.0f} KiB, 20-field lines.")
    print()
    print("| what | best run (mean) | median run (mean) | worst sample | % of one core at 1 Hz |")
    print("|---|---|---|---|---|")
    for key, label in ROWS:
        means = [statistics.mean(run[key]) for run in runs]
        worst = max(c for run in runs for c in run[key])
        print(
            f"| {label} | {min(means) * 1000:.1f} ms | {statistics.median(means) * 1000:.1f} ms "
            f"| {worst * 1000:.1f} ms | {min(means) * 100:.2f} % "
            f"(median {statistics.median(means) * 100:.2f} %) |"
        )
    print()
    print(f"Peak RSS of the benchmark process: {peak_rss_mib:.0f} MiB (it holds every text).")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
