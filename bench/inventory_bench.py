"""Benchmark: `pinchpoint inventory --snapshot` on a simulated 1,920-path host, against sasutils.

Simulates `tests/fixtures/specs/bench_1920.toml` (4 HBAs × 2 connectors, 16 JBODs × 60
dual-ported disks), then measures:

* the whole CLI run (`inventory --snapshot DIR --json`): wall time and peak RSS of the process;
* `collect_inventory` alone, in process (no interpreter start-up), best and median of N runs;
* sasutils' `sas_devices` on the same tree: run under `unshare -m` with the snapshot's
  `sys` bind-mounted on /sys (it reads /sys directly), wall time, peak RSS, and whether it
  counts the same disks and paths.

Prints a Markdown block for docs/benchmarks.md. Needs root for `unshare -m`; without it, or
without sasutils installed (a dev dependency), the comparison is reported as skipped.

    python bench/inventory_bench.py [--runs 7] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from machine import machine_line

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.sas.fabric import FabricBuilder
from pinchpoint.checks.collect.sas.ses import collect_ses_facts
from pinchpoint.checks.collect.sas.walk import SasSysfsWalker
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.simulator import load_spec, write_snapshot

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "tests" / "fixtures" / "specs"


@dataclass
class Run:
    wall_s: float
    max_rss_mib: float
    returncode: int
    stdout: str
    stderr: str


def measured_isolated(argv: list[str]) -> Run:
    """`measured`, but in a fresh interpreter so RUSAGE_CHILDREN belongs to this child alone."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "w = time.perf_counter() - t\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.buffer.write(p.stderr)\n"
        "sys.stdout.buffer.write(p.stdout)\n"
        "sys.stderr.write(f'\\n@@BENCH {w} {r} {p.returncode}\\n')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=False
    )
    match = re.search(r"@@BENCH (\S+) (\d+) (-?\d+)", done.stderr)
    if match is None:
        raise RuntimeError(f"benchmark wrapper failed: {done.stderr[-500:]}")
    stderr = done.stderr[: match.start()]
    return Run(
        float(match.group(1)), int(match.group(2)) / 1024, int(match.group(3)), done.stdout, stderr
    )


SAS_DEVICES_FORMAT = "@@ {type} {wwid} {paths}"  # one line per logical unit, easy to read back


def sasutils_counts(text: str) -> tuple[int | None, int | None]:
    """Disks and paths from `sas_devices -o "@@ {type} {wwid} {paths}"` (one line per LU)."""
    rows = re.findall(r"@@ (\S+) (\S+) (\d+)", text)
    disks = [int(paths) for kind, _, paths in rows if kind == "disk"]
    if not disks:
        return None, None
    return len(disks), sum(disks)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--spec",
        default="bench_1920",
        help="spec in tests/fixtures/specs: bench_1920 (SAS fabric, issue 2) or bench_host "
        "(the same fabric plus 16 NICs, 2 bonds, 4 FC ports, 1,000 SMART outputs: issue 3)",
    )
    parser.add_argument("--no-sasutils", action="store_true", help="skip the sasutils run")
    parser.add_argument(
        "--keep", type=Path, default=None, help="write the snapshot here and keep it"
    )
    args = parser.parse_args()

    # Real /sys lives in memory: keep the simulated one in memory too, where there is room.
    shm = Path("/dev/shm")
    in_memory = shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2**30
    tmp = tempfile.mkdtemp(prefix="pinchpoint-bench-", dir=shm if in_memory else None)
    snapshot = args.keep or Path(tmp, args.spec)
    try:
        started = time.perf_counter()
        write_snapshot(load_spec(SPECS / f"{args.spec}.toml"), snapshot, overwrite=True)
        simulate_s = time.perf_counter() - started
        files = sum(len(f) for _, _, f in os.walk(snapshot))

        in_process = []
        for _ in range(args.runs):
            started = time.perf_counter()
            inventory = collect_inventory(SnapshotSource(snapshot))
            in_process.append(time.perf_counter() - started)
        sas_only = []
        for _ in range(args.runs):
            started = time.perf_counter()
            log = ProblemLog()
            source = SnapshotSource(snapshot)
            hosts = SasSysfsWalker(source, log).hosts()
            FabricBuilder(hosts, collect_ses_facts(source, hosts, log)).build()
            sas_only.append(time.perf_counter() - started)
        ours_disks = len(inventory.sas.disks)
        ours_paths = inventory.sas.path_count

        cli = [
            measured_isolated(
                [
                    sys.executable,
                    "-m",
                    "pinchpoint",
                    "inventory",
                    "--snapshot",
                    str(snapshot),
                    "--json",
                ]
            )
            for _ in range(args.runs)
        ]
        if any(r.returncode for r in cli):
            raise RuntimeError(f"pinchpoint failed: {cli[0].stderr[-500:]}")

        sas_devices = shutil.which("sas_devices") or str(
            Path(sys.executable).with_name("sas_devices")
        )
        theirs: list[Run] = []
        skipped = None
        if args.no_sasutils:
            skipped = "not asked for (--no-sasutils)"
        elif os.geteuid() != 0 or shutil.which("unshare") is None:
            skipped = "needs root and unshare(1) to bind-mount the snapshot on /sys"
        elif not Path(sas_devices).exists():
            skipped = "sasutils is not installed (pip install -e '.[dev]')"
        else:
            script = (
                f"mount --bind {snapshot}/sys /sys && exec {sas_devices} -o '{SAS_DEVICES_FORMAT}'"
            )
            theirs = [
                measured_isolated(["unshare", "-m", "sh", "-c", script]) for _ in range(args.runs)
            ]
        their_disks, their_paths = (None, None)
        if theirs:
            their_disks, their_paths = sasutils_counts(theirs[0].stdout)
            if theirs[0].returncode:
                skipped = f"sas_devices failed: {theirs[0].stderr.strip().splitlines()[-1:]}"

        print(f"### inventory of `{args.spec}` ({time.strftime('%Y-%m-%d')})\n")
        print(f"- machine: {machine_line()}")
        print(
            f"- snapshot: {ours_disks} SAS disks, {ours_paths} SAS disk paths, "
            f"{len(inventory.network.nics)} NICs, {len(inventory.network.bonds)} bonds, "
            f"{len(inventory.fc.ports)} FC ports, {len(inventory.health.disks)} SMART outputs, "
            f"{files} files; "
            f"simulated in {simulate_s:.2f} s on {'tmpfs' if in_memory else 'disk'}"
        )
        print(
            f"- SAS fabric alone (sysfs walk, SES, join) in process: best {min(sas_only):.3f} s, "
            f"median {statistics.median(sas_only):.3f} s"
        )
        print(
            f"- `collect_inventory` (every part) in process: best {min(in_process):.3f} s, "
            f"median {statistics.median(in_process):.3f} s ({args.runs} runs)"
        )
        print(
            f"- `pinchpoint inventory --snapshot … --json`: "
            f"best {min(r.wall_s for r in cli):.3f} s, "
            f"median {statistics.median(r.wall_s for r in cli):.3f} s wall, "
            f"peak RSS {max(r.max_rss_mib for r in cli):.0f} MiB"
        )
        if theirs and not skipped:
            print(
                f"- sasutils 0.6.1 `sas_devices`: best {min(r.wall_s for r in theirs):.3f} s, "
                f"median {statistics.median(r.wall_s for r in theirs):.3f} s wall, "
                f"peak RSS {max(r.max_rss_mib for r in theirs):.0f} MiB"
            )
            agree = (their_disks, their_paths) == (ours_disks, ours_paths)
            print(
                f"- counts: pinchpoint {ours_disks} disks / {ours_paths} paths, sasutils "
                f"{their_disks} disks / {their_paths} paths: {'same' if agree else 'DIFFERENT'}"
            )
        else:
            print(f"- sasutils comparison skipped: {skipped}")
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
