"""Benchmark: how often `collect_inventory` reads each file of the simulated 1,920-path host
(issue 17: 1,940 sysfs files were read twice), in one process and with the block devices read
by a forked child beside the SAS walk (what a host this large does), counting the reads of
both processes. Target: every file at most once.

Each read through the snapshot source is appended to a log (O_APPEND, so the child's count
too); with `--before TREE` an earlier source tree is counted the same way in turn.

    python bench/inventory_reads_bench.py [--keep DIR] [--before TREE]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from machine import child_json, machine_line

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
CHILD = r"""
import collections, json, os, sys
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource

snapshot, log, parallel = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_TRUNC)
real_read = SnapshotSource.read_bytes


def counted(self, path, limit=None):
    os.write(fd, path.encode() + b"\n")
    return real_read(self, path, limit)


SnapshotSource.read_bytes = counted
inventory = collect_inventory(SnapshotSource(snapshot), parallel=parallel)
os.close(fd)
counts = collections.Counter(open(log).read().splitlines())
twice = sorted(p for p, n in counts.items() if n > 1)
print(json.dumps({
    "files": len(counts), "reads": sum(counts.values()), "more_than_once": len(twice),
    "kinds": collections.Counter(p.rsplit("/", 1)[-1] for p in twice).most_common(4),
    "disks": len(inventory.sas.disks), "paths": inventory.sas.path_count,
}))
"""


def count(tree: Path, snapshot: Path, parallel: bool, log: Path) -> dict[str, object]:
    return child_json(tree, CHILD, str(snapshot), str(log), "1" if parallel else "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument("--before", type=Path, help="An earlier source tree to count too.")
    args = parser.parse_args()
    print(machine_line())
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        snapshot = args.keep or Path(scratch, "bench_1920_stats")
        if not snapshot.exists():
            from pinchpoint.simulator import load_spec, write_snapshot

            write_snapshot(load_spec(SPEC), snapshot)
        print("\n| code | mode | files read | reads | files read more than once | which |")
        print("|---|---|---|---|---|---|")
        for label, tree in trees.items():
            for parallel in (False, True):
                found = count(tree.resolve(), snapshot, parallel, Path(scratch, "reads.log"))
                mode = "block devices in a forked child" if parallel else "one process"
                kinds = ", ".join(f"{k} ×{n}" for k, n in found["kinds"]) or "—"  # type: ignore[attr-defined]
                print(
                    f"| {label} | {mode} | {found['files']:,} | {found['reads']:,} "
                    f"| **{found['more_than_once']:,}** | {kinds} |"
                )


if __name__ == "__main__":
    main()
