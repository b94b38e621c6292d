"""Benchmark: what the safe snapshot reader and the one checked extractor cost (issue 14).

On the simulated 1,920-path host (`tests/fixtures/specs/bench_1920.toml`, written once into
`--dir`, with its `capture --tar`-style archive beside it), measures, best and median of N runs:

* `collect_inventory` over a `SnapshotSource` of the directory (the snapshot reader);
* `extract_snapshot_archive` of the archive (what the service does with an upload);
* `open_snapshot` of the archive (what `check --snapshot x.tar.gz` does: the CLI's extraction).

Run it with the code to measure first on `PYTHONPATH` (an export of an older commit, e.g.
`git archive 15136bf pinchpoint | tar -x -C OLD`, then `PYTHONPATH=OLD`), reusing `--dir`:

    python bench/snapshot_safety_bench.py --dir /dev/shm/ppbench [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from machine import machine_line

import pinchpoint
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource, open_snapshot
from pinchpoint.checks.source.archives import extract_snapshot_archive
from pinchpoint.simulator import load_spec, write_snapshot

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920.toml"


def timed(runs: int, action: Callable[[], object]) -> tuple[float, float, float]:
    """Best and median wall time, and the best CPU time (user + system, this process and its
    waited children: on a shared, loaded machine the CPU time is the steadier figure)."""
    walls, cpus = [], []
    for _ in range(runs):
        cpu = sum(os.times()[:4])
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
        cpus.append(sum(os.times()[:4]) - cpu)
    return min(walls), statistics.median(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, required=True, help="where the host is kept")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=["read", "extract", "cli_open"])
    args = parser.parse_args()
    snapshot = args.dir / "bench_1920"
    archive = args.dir / "bench_1920.tar.gz"
    if not snapshot.exists():
        write_snapshot(load_spec(SPEC), snapshot)
    if not archive.exists():
        with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
            tar.add(snapshot, arcname=snapshot.name)

    def read() -> None:
        collect_inventory(SnapshotSource(snapshot))

    def extract() -> None:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            extract_snapshot_archive(archive, Path(tmp, "tree"))

    def cli_open() -> None:
        with open_snapshot(archive) as source:
            assert source.manifest() is not None

    results = {
        "code": str(Path(pinchpoint.__file__).parent),
        "machine": machine_line(),
        "members": sum(1 for _ in snapshot.rglob("*")),
        "archive_bytes": archive.stat().st_size,
    }
    print(json.dumps(results), flush=True)
    phases = {"read": read, "extract": extract, "cli_open": cli_open}
    for name in args.only or list(phases):
        best, median, cpu = timed(args.runs, phases[name])
        figures = {"best_s": round(best, 3), "median_s": round(median, 3), "cpu_s": round(cpu, 3)}
        print(json.dumps({name: figures}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
