"""Benchmark: how long `pinchpoint` takes to start, against a bare `python3 -c 'import json'`.

Runs, in fresh interpreters, `python -c 'import json'`, `pinchpoint --version`, `pinchpoint
--help` and `pinchpoint check --help` (the command as the installed entry point starts it, its
output thrown away), each `--runs` times in rounds, and prints the median wall time of each
and its ratio to the bare interpreter. Target (issue 17): `--version` and `--help` ≤ 4×.

With `--before TREE` (a source tree of an earlier pinchpoint, e.g. a `git worktree` of main),
the same commands of that tree run in the same rounds, alternating with this tree's, so both
see the same load. A tree without `--version` runs its `version` command instead.

    python bench/cli_start_bench.py [--runs 20] [--before TREE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import machine_line

ROOT = Path(__file__).resolve().parents[1]
# what the installed `pinchpoint` script runs (old trees: the Typer app was the entry point)
LAUNCH = """import sys
import pinchpoint.cli as cli
entry = getattr(cli, "main", None)
sys.exit(entry() if entry is not None else cli.app())
"""
COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "check --help": ["check", "--help"],
}


def has_version_option(tree: Path) -> bool:
    return (tree / "pinchpoint" / "cli" / "quick.py").exists()


def wall(argv: list[str], tree: Path | None) -> float:
    env = dict(os.environ, COLUMNS="100")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    start = time.perf_counter()
    done = subprocess.run(  # run in the tree: `-c` puts the working directory first on the path
        argv, env=env, cwd=tree or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode()[-1000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--before", type=Path, help="An earlier source tree to compare with.")
    args = parser.parse_args()
    print(machine_line())
    trees: dict[str, Path] = {"after": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), "after": ROOT}
    times: dict[str, list[float]] = {"python -c 'import json'": []}
    for label in trees:
        for name in COMMANDS:
            times[f"{label}: pinchpoint {name}"] = []
    for _ in range(args.runs):
        times["python -c 'import json'"].append(wall([sys.executable, "-c", "import json"], None))
        for name, argv in COMMANDS.items():
            for label, tree in trees.items():
                run = argv
                if argv == ["--version"] and not has_version_option(tree):
                    run = ["version"]
                times[f"{label}: pinchpoint {name}"].append(
                    wall([sys.executable, "-c", LAUNCH, *run], tree)
                )
    bare = statistics.median(times["python -c 'import json'"])
    print(f"\nmedian of {args.runs} runs each, interleaved; machine shared with other work\n")
    print("| what | median | × `import json` |")
    print("|---|---|---|")
    for what, seconds in times.items():
        median = statistics.median(seconds)
        print(f"| {what} | {median * 1000:,.0f} ms | {median / bare:.1f}× |")


if __name__ == "__main__":
    main()
