"""Benchmark: one tick of the service's statistics sampler (`StatsSampler`) for a host of 2,000
block devices: CPU per tick, split into reading + parsing /proc/diskstats into the interval,
and grouping it along the hierarchy + storing the points (target, issue 17: ≤ 10 ms in all).

The host is `tests/fixtures/specs/bench_1920_stats.toml` simulated (960 dual-pathed SAS disks,
2,040 block devices, 7 diskstats samples). Each tick is `StatsSampler.tick` of a live host, its
read of /proc/diskstats given the snapshot's samples in turn, one second apart: read and parse
the counters, the interval's figures, the breakdown of the disks and the groups above them,
points for the disks in memory and for the groups in a SQLite store in a temporary directory.
The inventory is frozen out of the garbage collector's sight first, as the service keeps it
(`performance.keep_long_lived`). CPU is `time.process_time()`, the read + parse part timed
inside the read; the first `--warm` ticks are left out. The whole tick's median is also given
with the resets left out (below: a wrap-around the bench makes, not a host). The figures of the
other part are also given by kind of tick: one that closes a 10 s bucket (the disks' columns
sealed, the groups' points written), one whose read wraps around to the snapshot's first sample
(counters going back: the full breakdown), one that rolls the disks' points into the minute tier
(from 600 s on: `--warm 600` and more), and the others.

With `--sweep-every TICKS`, every TICKS ticks what is alive is moved out of the garbage
collector's sight (`keep_long_lived`), as the service does once each sweep's new view is swapped
in (300 ticks: the default `*/5` schedule at 1 Hz); without it the disks' points pile up in the
collector's sight, as in a sampler with no sweeps. The slowest ticks (p99, max) show where full
collections land.

With `--before TREE` (an earlier source tree, e.g. a `git worktree` of main), that tree's code
runs the same ticks in child processes alternating with this tree's, round by round, so both
see the same load on a shared machine.

With `--instructions TICKS` each tree's ticks run under valgrind's callgrind instead, and the
instructions of a tick are counted (a run of TICKS ticks less a run of none, over a snapshot
with a sample per tick, so that no tick wraps around to the first sample — a reset — as the
timed runs do every 7th tick): a figure the machine's load does not move, for a before/after
ratio on a shared machine.

    python bench/sampler_tick_bench.py [--keep DIR] [--ticks 60] [--rounds 3] [--before TREE]
    python bench/sampler_tick_bench.py --keep DIR --ticks 900 --warm 5 --rounds 1 --sweep-every 300
    python bench/sampler_tick_bench.py --keep DIR --before TREE --instructions 20
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from machine import child_json, machine_line

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"

CHILD = r"""
import dataclasses, json, sys, tempfile, time
from datetime import UTC, datetime, timedelta
import pinchpoint.service.sampling as sampling
from pinchpoint.checks.collect.diskstats import read_diskstats_table
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.service.settings import TargetKind
from pinchpoint.service.store import Store
from pinchpoint.service.target import HostTarget

snapshot, ticks, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sweep_every = int(sys.argv[4]) if len(sys.argv) > 4 else 0
inventory = collect_inventory(SnapshotSource(snapshot))
# out of the collector's sight, as the service keeps its views (`keep_long_lived`): else
# the first collections after the inventory walk its million objects inside the ticks
from pinchpoint.performance import keep_long_lived, settle_heap
settle_heap()
import os
samples = len(os.listdir(f"{snapshot}/samples"))
files = [f"{snapshot}/samples/{n}/proc/diskstats" for n in range(samples)]
reads = [0]
parse_cpu = [0.0]


def sample_file(path: str = "", **options: object) -> object:
    # the live read, of the snapshot's samples in turn, one second apart
    start = time.process_time()
    table = read_diskstats_table(files[reads[0] % len(files)], **options)
    table = dataclasses.replace(table, monotonic_s=float(reads[0]))
    parse_cpu[0] += time.process_time() - start
    reads[0] += 1
    return table


sampling.read_diskstats_table = sample_file
with tempfile.TemporaryDirectory() as scratch:
    store = Store.open(f"sqlite:///{scratch}/store.db")
    sampler = sampling.StatsSampler(HostTarget(TargetKind.LIVE), store, lambda: inventory)
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    sampler.tick(now)  # the baseline
    parse, rest, stored = [], [], 0
    for tick in range(ticks + warm):
        now += timedelta(seconds=1)
        parse_cpu[0] = 0.0
        start = time.process_time()
        stored = sampler.tick(now)
        took = time.process_time() - start
        if tick >= warm:
            parse.append(parse_cpu[0])
            rest.append(took - parse_cpu[0])
        if sweep_every and (tick + 1) % sweep_every == 0:
            keep_long_lived()  # what the service does once a sweep's new view is swapped in
    print(json.dumps({"parse": parse, "record": rest, "stored": stored, "samples": samples,
                      "disks": len(sampler.members.entities())}))
"""


LATER = "half a bucket on (≥ 600 s)"


def tick_kind(second: int, samples: int) -> str:
    """What a tick `second` seconds after the baseline does beyond the usual, on a snapshot of
    `samples` samples read in turn."""
    if second % samples == 0:
        return "reset"  # the read wraps around to the snapshot's first sample: counters go back
    if second % 10 == 0:
        return "closes a bucket"
    if second > 600 and second % 10 == 5:
        return LATER  # the disks' roll-up, half a bucket after a close
    return "other"


def run_child(
    tree: Path, snapshot: Path, ticks: int, warm: int, sweep_every: int = 0
) -> dict[str, object]:
    return child_json(tree, CHILD, str(snapshot), str(ticks), str(warm), str(sweep_every))


def instructions(tree: Path, snapshot: Path, ticks: int, warm: int) -> int:
    """Instructions the child executes under callgrind (`valgrind` must be installed): what a
    loaded machine does not change, unlike CPU time."""
    with tempfile.TemporaryDirectory() as scratch:
        child = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                "-c",
                CHILD,
                str(snapshot),
                str(ticks),
                str(warm),
            ],
            cwd=tree,
            env=dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, errors = child.communicate()
    # the child's own count: a process it forks (the inventory's reader) reports its own
    found = re.search(rf"=={child.pid}== Collected : (\d+)", errors)
    if child.returncode != 0 or found is None:
        raise SystemExit(errors[-3000:])
    return int(found.group(1))


def instructions_per_tick(trees: dict[str, Path], snapshot: Path, ticks: int) -> None:
    """Each tree's instructions per tick: a run of `ticks` ticks less a run of none (the same
    start, inventory and baseline read), divided by `ticks`."""
    print(f"\nInstructions per tick (callgrind; {ticks} ticks less none, after 5 warm-up ticks)\n")
    print("| code | instructions per tick | ratio to the first |")
    print("|---|---|---|")
    first = None
    for label, tree in trees.items():
        ran = instructions(tree.resolve(), snapshot, ticks, 5)
        start = instructions(tree.resolve(), snapshot, 0, 5)
        per_tick = (ran - start) / ticks
        first = first or per_tick
        print(f"| {label} | {per_tick / 1e6:.1f} M | {per_tick / first:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument("--ticks", type=int, default=60)
    parser.add_argument("--warm", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="An earlier source tree to compare with.")
    parser.add_argument(
        "--sweep-every",
        type=int,
        default=0,
        metavar="TICKS",
        help="Every TICKS ticks, move what is alive out of the collector's sight as the "
        "service does after each sweep (keep_long_lived; 300 = the default */5 at 1 Hz).",
    )
    parser.add_argument(
        "--instructions",
        type=int,
        metavar="TICKS",
        help="Count instructions per tick under callgrind over this many ticks instead.",
    )
    args = parser.parse_args()
    print(machine_line())
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        snapshot = args.keep or Path(scratch, "bench_1920_stats")
        if args.instructions:  # a sample per tick: no tick wraps around to the first sample
            snapshot = snapshot.with_name(f"{snapshot.name}_{args.instructions + 7}")
        if not snapshot.exists():
            from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

            data = load_spec(SPEC).model_dump(exclude_none=True)
            if args.instructions:
                data["workload"]["samples"] = args.instructions + 7
            write_snapshot(spec_from_data(data), snapshot)
        if args.instructions:
            instructions_per_tick(trees, snapshot, args.instructions)
            return
        runs: dict[str, list[dict[str, object]]] = {label: [] for label in trees}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                runs[label].append(
                    run_child(tree.resolve(), snapshot, args.ticks, args.warm, args.sweep_every)
                )
    first = runs["after"][0]
    print(
        f"\n2,040 block devices (1,920 disk paths), {first['disks']} disks/LUNs in memory, "
        f"{first['stored']} group points stored per tick; {args.ticks} ticks × {args.rounds} "
        "rounds, interleaved; machine shared with other work\n"
    )
    print(
        "| code | read + parse | figures, breakdown, store: median | p90 | **whole tick** "
        "| whole tick, resets left out |"
    )
    print("|---|---|---|---|---|---|")
    kinds: dict[str, dict[str, list[float]]] = {}
    for label, found in runs.items():
        parse = [s for run in found for s in run["parse"]]  # type: ignore[attr-defined]
        record = [s for run in found for s in run["record"]]  # type: ignore[attr-defined]
        total = [p + r for p, r in zip(parse, record, strict=True)]
        p90 = statistics.quantiles(record, n=10)[-1]
        kinds[label] = {k: [] for k in ("other", "closes a bucket", "reset", LATER)}
        steady = []  # whole ticks but the resets: a host's counters do not go back every 7 s
        for run in found:
            ticks = zip(run["parse"], run["record"], strict=True)  # type: ignore[call-overload]
            for at, (parsed, took) in enumerate(ticks):
                kind = tick_kind(args.warm + at + 1, run["samples"])  # type: ignore[arg-type]
                kinds[label][kind].append(took)
                if kind != "reset":
                    steady.append(parsed + took)
        print(
            f"| {label} | {statistics.median(parse) * 1000:.1f} ms "
            f"| {statistics.median(record) * 1000:.1f} ms | {p90 * 1000:.1f} ms "
            f"| **{statistics.median(total) * 1000:.1f} ms** "
            f"| {statistics.median(steady) * 1000:.1f} ms |"
        )
    print("\nFigures, breakdown, store by kind of tick: median (ticks)\n")
    print("| code | " + " | ".join(kinds["after"]) + " |")
    print("|---" * (len(kinds["after"]) + 1) + "|")
    for label, found_kinds in kinds.items():
        cells = (
            f"{statistics.median(t) * 1000:.1f} ms ({len(t)})" if t else "–"
            for t in found_kinds.values()
        )
        print(f"| {label} | " + " | ".join(cells) + " |")
    print("\nWhole tick, the slowest (the collector's full passes land in these)\n")
    print("| code | p99 | max | ticks over 50 ms |")
    print("|---|---|---|---|")
    for label, found in runs.items():
        total = [
            p + r
            for run in found
            for p, r in zip(run["parse"], run["record"], strict=True)  # type: ignore[call-overload]
        ]
        p99 = statistics.quantiles(total, n=100)[-1]
        slow = sum(1 for t in total if t > 0.05)
        print(f"| {label} | {p99 * 1000:.1f} ms | {max(total) * 1000:.1f} ms | {slow} |")


if __name__ == "__main__":
    main()
