"""Benchmark: what keeping read and write histograms apart costs the sampler's tick (issue 18).

The sampler groups each interval along the hierarchy (`breakdown`); to label each heat map by
what it holds it now asks for the histograms kind by kind too (`by_kind=True`). Measured on the
demo host (144 disks, zpool iostat -w histograms: total_wait read and write) and on the
1,920-path host's statistics spec, A/B alternating in the same run (`by_kind` off, on, off,
on …), CPU time (`time.process_time()`) per breakdown of the sampled levels.

    python bench/latency_kinds_bench.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_line

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.service.sampling import SAMPLED_LEVELS
from pinchpoint.simulator import demo_spec, load_spec, write_snapshot
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.gather import gather_statistics

ROOT = Path(__file__).resolve().parent.parent


def measure(name: str, snapshot: Path, rounds: int) -> None:
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    interval, imports = gathered.intervals[0], gathered.imported
    costs: dict[bool, list[float]] = {False: [], True: []}
    family = breakdown(inventory, levels=SAMPLED_LEVELS, intervals=[interval], imports=imports)
    for _ in range(rounds):
        for by_kind in (False, True):
            start = time.process_time()
            breakdown(
                inventory,
                levels=SAMPLED_LEVELS,
                intervals=[interval],
                imports=imports,
                by_kind=by_kind,
            )
            costs[by_kind].append(time.process_time() - start)
    off, on = statistics.median(costs[False]), statistics.median(costs[True])
    kinds = [k.value for k in family.histogram_kinds]
    print(
        f"| {name} | {len(inventory.sas.disks)} | {', '.join(kinds) or 'none'} | "
        f"{off * 1000:.1f} ms | {on * 1000:.1f} ms | {(on / off - 1) * 100:+.1f} % |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(machine_line())
    print("| host | disks | histograms | by_kind off (median) | on (median) | cost |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        demo = Path(scratch) / "demo"
        write_snapshot(demo_spec(), demo)
        measure("demo", demo, args.rounds)
        big = Path(scratch) / "bench"
        write_snapshot(load_spec(ROOT / "tests/fixtures/specs/bench_1920_stats.toml"), big)
        measure("1,920 paths", big, max(3, args.rounds // 3))


if __name__ == "__main__":
    main()
