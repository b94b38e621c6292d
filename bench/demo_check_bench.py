"""Benchmark: `pinchpoint check --demo` end to end, and the demo's inventory with and without the
forked child that reads block devices, SMART and ZFS beside the SAS walk.

Since its JBODs are real 60-bay H4060-J shelves the demo has 360 disks and 600 disk paths: above
`PARALLEL_MIN_BLOCK_DEVICES` (256), so `collect_inventory` forks for it, where the 24-bay demo
(240 paths) stayed in one process. Measured in fresh interpreters:

* `check --demo --format json` (simulating the demo into a scratch directory, inventory,
  statistics, rules, the JSON report): wall time, best and median of N runs; with `--before
  TREE` (a source tree of main, e.g. a `git worktree`) that tree's runs alternate with this
  one's, so both see the same load;
* this tree's inventory of one simulated demo snapshot, `parallel=False` against the default
  (the child where the host is large enough), best and median of N each, alternating.

    python bench/demo_check_bench.py [--runs 5] [--before TREE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import child_json, machine_line

ROOT = Path(__file__).resolve().parents[1]
CHECK = "import sys\nfrom pinchpoint.cli import app\napp(sys.argv[1:])\n"
INVENTORY = """
import json, sys, time
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
parallel = None if sys.argv[2] == "auto" else False
start = time.perf_counter()
inventory = collect_inventory(SnapshotSource(sys.argv[1]), parallel=parallel)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "paths": inventory.sas.path_count, "disks": len(inventory.sas.disks)}))
"""
SIMULATE = """
import json, sys
from pinchpoint.simulator import demo_spec, write_snapshot
from pathlib import Path
write_snapshot(demo_spec(), Path(sys.argv[1]))
print(json.dumps({}))
"""


def check_seconds(tree: Path) -> float:
    """Wall time of one `check --demo --format json` in a fresh interpreter on `tree`."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHECK, "check", "--demo", "--format", "json"],
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr[-3000:])
    return seconds


def summary(values: list[float]) -> str:
    return f"best {min(values):.2f} s, median {statistics.median(values):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="an earlier source tree to compare with")
    args = parser.parse_args()
    print(machine_line())
    trees = {"this tree": ROOT} | ({"before": args.before} if args.before else {})
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in trees.items():
            times[name].append(check_seconds(tree))
    for name, values in times.items():
        print(f"check --demo --format json, {name}: {summary(values)}")
    with tempfile.TemporaryDirectory() as scratch:
        snapshot = Path(scratch, "demo")
        child_json(ROOT, SIMULATE, str(snapshot))
        modes: dict[str, list[float]] = {"auto": [], "one process": []}
        facts: dict[str, object] = {}
        for _ in range(args.runs):
            for mode, argument in (("auto", "auto"), ("one process", "off")):
                found = child_json(ROOT, INVENTORY, str(snapshot), argument)
                modes[mode].append(float(found["seconds"]))  # type: ignore[arg-type]
                facts = found
        print(f"demo inventory ({facts['disks']} disks, {facts['paths']} paths):")
        for mode, values in modes.items():
            label = "forked child (auto)" if mode == "auto" else "one process"
            print(f"  {label}: {summary(values)}")


if __name__ == "__main__":
    main()
