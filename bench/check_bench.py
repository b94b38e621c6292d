"""Benchmark: `pinchpoint check --snapshot` on the simulated 1,920-path host with statistics.

Simulates `tests/fixtures/specs/bench_1920_stats.toml` (bench_1920.toml plus a mirrored pool
over its 960 disks and a streaming write, 7 samples), then measures:

* the whole CLI run (`check --snapshot DIR --format json`) in a fresh interpreter: wall time;
* in process, once each: inventory, statistics gathering, the breakdown all rules share;
* rule evaluation alone (`evaluate` of the whole catalog on a context whose breakdown is
  already computed), best and median of N runs, and the slowest rules.

Targets (issue 5): end to end ≤ 2 s, evaluation alone ≤ 200 ms.

    python bench/check_bench.py [--runs 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import machine_line

from pinchpoint.checks.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.console import scratch_dir
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import _run, evaluate, rule_context
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
# `check` as the installed command runs it (registered here if cli.py does not yet do it).
LAUNCH = (
    "import sys\n"
    "from pinchpoint.cli import app\n"
    "from pinchpoint.check_cli import register\n"
    "if not any(c.name == 'check' for c in app.registered_commands):\n"
    "    register(app)\n"
    "app(sys.argv[1:])\n"
)


def _timed(what: str, action):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = action()
    print(f"  {what}: {(time.perf_counter() - start) * 1000:,.0f} ms")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        snapshot = args.keep or Path(scratch, "bench_1920_stats")
        if not snapshot.exists():
            _timed("simulate", lambda: write_snapshot(load_spec(SPEC), snapshot))
        walls = []
        for _ in range(args.runs):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", LAUNCH, "check", "-s", str(snapshot), "-f", "json"],
                capture_output=True,
                check=False,
            )
            walls.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stderr.decode()[-2000:])
        print(
            f"end to end (CLI, fresh interpreter): best {min(walls) * 1000:,.0f} ms, "
            f"median {statistics.median(walls) * 1000:,.0f} ms over {args.runs} runs"
        )
        print("in process, once:")
        source = SnapshotSource(snapshot)
        inventory = _timed("inventory", lambda: collect_inventory(source))
        gathered = _timed(
            "statistics (diskstats series + zpool iostat -w)",
            lambda: gather_statistics(source, inventory, live=False),
        )
        context = rule_context(inventory, gathered)
        _timed("breakdown (shared by the rules)", lambda: context.breakdown)
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
            start = time.perf_counter()
            _run(rule, context, Config())
            costs.append((time.perf_counter() - start, rule.id))
        slowest = ", ".join(f"{rid} {s * 1000:,.0f} ms" for s, rid in sorted(costs)[::-1][:4])
        print(f"slowest rules: {slowest}")


if __name__ == "__main__":
    main()
