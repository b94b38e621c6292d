"""Benchmark: how fast `check` of the simulated 1,920-path host could be, part by part — the
floor under issue 17's "`check` on the bench host ≤ 0.5 s".

On the snapshot `check_bench.py` uses (`bench_1920_stats.toml`), it measures:

* the sysfs attributes one inventory reads (each once), and what reading just those files
  costs with nothing else done: a bare `open`/`fstat`/`read`/`close` loop in Python, and the
  same loop in C (compiled with the machine's `cc`, skipped where there is none) — the system
  calls' own floor;
* the inventory in process with its attributes read for real, and with every attribute's bytes
  already in memory (reads free: the directory listings and link checks still done), in one
  process and with the block devices read by the forked child as `check` does;
* a fresh interpreter's start and the imports `check` needs;
* with the inventory already in memory (as a resident process would hold it): statistics, the
  breakdown and the rules.

It ends with the sums: a fresh `check` whose attribute reads cost nothing, and a resident
process that keeps the inventory and only gathers statistics and judges.

    python bench/check_floor_bench.py [--keep DIR] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from machine import machine_line
from simulated import simulated_host

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.base import SourceError
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.stats.gather import gather_statistics

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
IMPORTS = """
import time
start = time.perf_counter()
from pinchpoint.cli import app
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.report import ReportFormat
from pinchpoint.report.text import report_text
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.stats.gather import gather_statistics
print(time.perf_counter() - start)
"""
# The files' own floor: open, fstat, read, close, with no Python in the loop.
C_READER = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  FILE *list = fopen(argv[1], "r");
  int runs = atoi(argv[2]), n = 0, size = 1024;
  char line[8192], **paths = malloc(sizeof(char *) * size);
  static char buffer[65536];
  while (fgets(line, sizeof line, list)) {
    line[strcspn(line, "\n")] = 0;
    if (n == size) paths = realloc(paths, sizeof(char *) * (size *= 2));
    paths[n++] = strdup(line);
  }
  double best = 1e300;
  for (int r = 0; r < runs; r++) {
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (int i = 0; i < n; i++) {
      struct stat found;
      int fd = open(paths[i], O_RDONLY | O_NOFOLLOW);
      if (fd < 0) continue;
      fstat(fd, &found);
      if (read(fd, buffer, sizeof buffer) < 0) perror(paths[i]);
      close(fd);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    double took = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    if (took < best) best = took;
  }
  printf("%.6f\n", best);
  return 0;
}
"""


def best_of(runs: int, action: Callable[[], object]) -> tuple[float, float]:
    """The best wall and the best CPU seconds (this process) of `runs` calls of `action`."""
    walls, cpus = [], []
    for _ in range(runs):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


REAL_READ = SnapshotSource.read_bytes
Read = Callable[[SnapshotSource, str, "int | None"], bytes]


@contextmanager
def reads_through(read: Read) -> Iterator[None]:
    """Every snapshot's attributes read by `read` for the length of the block."""
    SnapshotSource.read_bytes = read  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        SnapshotSource.read_bytes = REAL_READ  # type: ignore[method-assign]


def attributes_read(snapshot: Path) -> dict[str, bytes | SourceError]:
    """Every attribute one inventory reads (in one process), with what reading it gave."""
    found: dict[str, bytes | SourceError] = {}

    def recorded(self: SnapshotSource, path: str, limit: int | None = None) -> bytes:
        try:
            found[path] = REAL_READ(self, path, limit)
        except SourceError as err:
            found[path] = err
            raise
        return found[path]  # type: ignore[return-value]

    with reads_through(recorded):
        collect_inventory(SnapshotSource(snapshot), parallel=False)
    return found


def bare_python_reads(files: list[str], runs: int) -> float:
    """Best CPU seconds of a bare Python loop reading `files`."""
    import os

    def loop() -> None:
        for name in files:
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            os.fstat(fd)
            os.read(fd, 65536)
            os.close(fd)

    return best_of(runs, loop)[1]


def bare_c_reads(files: list[str], runs: int) -> float | None:
    """Best CPU seconds of the C loop reading `files`; None without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    with tempfile.TemporaryDirectory() as where:
        return _compiled_reads(compiler, files, runs, Path(where))


def _compiled_reads(compiler: str, files: list[str], runs: int, scratch: Path) -> float:
    (scratch / "reader.c").write_text(C_READER)
    (scratch / "files").write_text("".join(f"{name}\n" for name in files))
    subprocess.run(
        [compiler, "-O2", "-o", str(scratch / "reader"), str(scratch / "reader.c")], check=True
    )
    done = subprocess.run(
        [str(scratch / "reader"), str(scratch / "files"), str(runs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout)


def fresh_inventory(snapshot: Path, parallel: bool) -> object:
    """One inventory through a new source (no directory or link remembered from a run before)."""
    return collect_inventory(SnapshotSource(snapshot), parallel=parallel)


def inventory_times(
    snapshot: Path, read: dict[str, bytes | SourceError], runs: int
) -> dict[str, tuple[float, float]]:
    """The inventory's best wall and parent CPU, reads real and reads free, alone and forked."""

    def from_memory(self: SnapshotSource, path: str, limit: int | None = None) -> bytes:
        found = read[path]
        if isinstance(found, SourceError):
            raise found
        return found

    times = {}
    for reads, through in (("real", REAL_READ), ("free", from_memory)):
        with reads_through(through):
            for parallel in (False, True):
                label = f"reads {reads}, {'forked child' if parallel else 'one process'}"
                times[label] = best_of(runs, partial(fresh_inventory, snapshot, parallel))
    return times


def fresh_start(runs: int) -> tuple[float, float]:
    """Best seconds of a bare interpreter's start, and of `check`'s imports in a fresh one."""
    starts, imports = [], []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        starts.append(time.perf_counter() - start)
        done = subprocess.run(
            [sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True
        )
        imports.append(float(done.stdout))
    return min(starts), min(imports)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    args = parser.parse_args()
    print(machine_line())
    with simulated_host(SPEC, args.keep, "bench_1920_stats") as snapshot:
        read = attributes_read(snapshot)
        source = SnapshotSource(snapshot)
        files = [f"{snapshot}{source.resolve(p)}" for p, v in read.items() if type(v) is bytes]
        print(f"one inventory reads {len(read):,} attributes ({len(files):,} files that exist)")
        python = bare_python_reads(files, args.runs)
        print(f"  bare Python loop (open, fstat, read, close): {ms(python)} of CPU")
        c = bare_c_reads(files, args.runs)
        print(f"  the same loop in C: {'no C compiler' if c is None else ms(c) + ' of CPU'}")

        print(f"the inventory in process (best of {args.runs}; wall / this process's CPU):")
        inventory = inventory_times(snapshot, read, args.runs)
        for label, (wall, cpu) in inventory.items():
            print(f"  {label}: {ms(wall)} / {ms(cpu)}")

        interpreter, imports = fresh_start(args.runs)
        print(f"a fresh interpreter: start {ms(interpreter)}, `check`'s imports {ms(imports)}")

        held = collect_inventory(source)
        print(f"with the inventory in memory (best of {args.runs}):")
        statistics, _ = best_of(args.runs, lambda: gather_statistics(source, held, live=False))
        gathered = gather_statistics(source, held, live=False)
        judging, _ = best_of(args.runs, lambda: build_report(rule_context(held, gathered), CATALOG))
        print(f"  statistics (diskstats samples, zpool iostat -w): {ms(statistics)}")
        print(f"  breakdown and rules, the report built: {ms(judging)}")

        free = inventory["reads free, forked child"][0]
        fresh = interpreter + imports + free + statistics + judging
        print(
            f"a fresh `check` whose attribute reads cost nothing: {ms(fresh)} (start "
            f"{ms(interpreter)} + imports {ms(imports)} + inventory {ms(free)} + statistics "
            f"{ms(statistics)} + judging {ms(judging)}); target 500 ms"
        )
        print(
            f"a resident process holding the inventory: {ms(statistics + judging)} "
            "(statistics + judging)"
        )


if __name__ == "__main__":
    main()
