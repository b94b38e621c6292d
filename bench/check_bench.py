"""Benchmark: `pinchpoint check --snapshot` on the simulated 1,920-path host with statistics.

Simulates `tests/fixtures/specs/bench_1920_stats.toml` (bench_1920.toml plus a mirrored pool
over its 960 disks and a streaming write, 7 samples), then measures:

* the whole CLI run (`check --snapshot DIR --format json`) in a fresh interpreter: wall time,
  best and median of N runs, and the peak RSS of the largest run;
* where the time of a fresh run goes, best of N: interpreter start (`python -c pass`), then in a
  fresh interpreter the imports `check` needs, inventory, statistics gathering, rule evaluation
  (with the breakdown the rules share) and rendering the JSON report;
* in process, once each: inventory, statistics gathering, the breakdown all rules share;
* rule evaluation alone (`evaluate` of the whole catalog on a context whose breakdown is
  already computed), best and median of N runs, and the slowest rules (best of 3 each).

Targets (issue 5): end to end ≤ 2 s, evaluation alone ≤ 200 ms.

With `--before TREE` (an earlier source tree, e.g. a `git worktree` of main), the end-to-end
runs of that tree and this one alternate first, so both see the same load.

    python bench/check_bench.py [--runs 7] [--keep DIR] [--before TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from machine import machine_line
from simulated import simulated_host

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.derived.breakdown import breakdown
from pinchpoint.rules.engine import _run, evaluate, rule_context
from pinchpoint.stats.gather import gather_statistics

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
# `check` as the installed command runs it.
LAUNCH = "import sys\nfrom pinchpoint.cli import app\napp(sys.argv[1:])\n"
# The same work as `check -f json`, step by step in a fresh interpreter, each step timed.
PHASES = """
import json, sys, time
start = time.perf_counter()
times = {}
from pinchpoint.cli import app
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.report import ReportFormat
from pinchpoint.report.text import report_text
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.stats.gather import gather_statistics
times["imports"] = time.perf_counter() - start
source = SnapshotSource(sys.argv[1])
step = time.perf_counter()
inventory = collect_inventory(source)
times["inventory"] = time.perf_counter() - step
step = time.perf_counter()
gathered = gather_statistics(source, inventory, live=False)
times["statistics"] = time.perf_counter() - step
step = time.perf_counter()
report = build_report(rule_context(inventory, gathered), CATALOG)
times["rules (with the breakdown)"] = time.perf_counter() - step
step = time.perf_counter()
text = report_text(report, ReportFormat.JSON)
times["rendering"] = time.perf_counter() - step
print(json.dumps(times))
"""


def _timed(what: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = action()
    print(f"  {what}: {(time.perf_counter() - start) * 1000:,.0f} ms")
    return result


def _children_cpu() -> float:
    """CPU seconds (user + system) of the waited-for children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _wall(argv: list[str], tree: Path | None = None) -> float:
    """Seconds one command took (with `tree` first on the path, run in it); exits with its
    error output if it failed (1 = findings)."""
    env = None if tree is None else dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, env=env, cwd=tree)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode()[-2000:])
    return took


def _phases(snapshot: Path, runs: int) -> None:
    """Where a fresh run's time goes: the best of `runs` for each phase."""
    starts = [_wall([sys.executable, "-c", "pass"]) for _ in range(runs)]
    found: dict[str, list[float]] = {}
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", PHASES, str(snapshot)], capture_output=True, check=True
        )
        for phase, seconds in json.loads(done.stdout).items():
            found.setdefault(phase, []).append(seconds)
    parts = [("interpreter start", min(starts))]
    parts += [(phase, min(seconds)) for phase, seconds in found.items()]
    print(f"where a fresh run's time goes (best of {runs} each):")
    for phase, seconds in parts:
        print(f"  {phase}: {seconds * 1000:,.0f} ms")
    print(f"  sum of the bests: {sum(s for _, s in parts) * 1000:,.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument(
        "--before",
        type=Path,
        help="An earlier source tree: its `check` alternates with this one's.",
    )
    args = parser.parse_args()
    print(machine_line())
    with simulated_host(SPEC, args.keep, "bench_1920_stats") as snapshot:
        command = [sys.executable, "-c", LAUNCH, "check", "-s", str(snapshot), "-f", "json"]
        if args.before is not None:  # before and after alternating, same load on both
            timed: dict[str, tuple[list[float], list[float]]] = {
                "before": ([], []),
                "after": ([], []),
            }
            for _ in range(args.runs):
                for label, tree in (("before", args.before.resolve()), ("after", ROOT)):
                    cpu = _children_cpu()
                    timed[label][0].append(_wall(command, tree))
                    timed[label][1].append(_children_cpu() - cpu)
            for label, (walls, cpus) in timed.items():
                print(
                    f"end to end, {label} (CLI, fresh interpreter, interleaved): wall best "
                    f"{min(walls) * 1000:,.0f} ms, median {statistics.median(walls) * 1000:,.0f} "
                    f"ms; CPU (user + system, both processes) best {min(cpus) * 1000:,.0f} ms, "
                    f"median {statistics.median(cpus) * 1000:,.0f} ms over {args.runs} runs"
                )
        walls = [_wall(command) for _ in range(args.runs)]
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"end to end (CLI, fresh interpreter): best {min(walls) * 1000:,.0f} ms, "
            f"median {statistics.median(walls) * 1000:,.0f} ms over {args.runs} runs; "
            f"peak RSS {peak_mib:,.0f} MiB"
        )
        _phases(snapshot, args.runs)
        print("in process, once:")
        source = SnapshotSource(snapshot)
        inventory = _timed("inventory", lambda: collect_inventory(source))
        gathered = _timed(
            "statistics (diskstats series + zpool iostat -w)",
            lambda: gather_statistics(source, inventory, live=False),
        )
        context = rule_context(inventory, gathered)
        _timed("breakdown (shared by the rules)", lambda: context.derived(breakdown))
        evaluations = []
        for _ in range(args.runs):
            start = time.perf_counter()
            findings, skipped, ran = evaluate(context, CATALOG)
            evaluations.append(time.perf_counter() - start)
        print(
            f"rule evaluation alone ({ran} rules run, {len(skipped)} skipped, "
            f"{len(findings)} findings): best {min(evaluations) * 1000:,.1f} ms, "
            f"median {statistics.median(evaluations) * 1000:,.1f} ms"
        )
        costs = []
        for rule in CATALOG:
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                _run(rule, context, Config(), {})
                best = min(best, time.perf_counter() - start)
            costs.append((best, rule.id))
        slowest = ", ".join(f"{rid} {s * 1000:,.1f} ms" for s, rid in sorted(costs)[::-1][:6])
        print(f"slowest rules (best of 3): {slowest}")


if __name__ == "__main__":
    main()
