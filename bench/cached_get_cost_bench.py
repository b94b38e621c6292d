"""Benchmark: the server CPU one cached GET costs, through the real `pinchpoint serve`.

Simulates `tests/fixtures/specs/bench_1920_stats.toml` (or reuses `--keep`), starts one
`pinchpoint serve --snapshot` per `--code` checkout (this one by default; the schedule off, the
first sweep only) and, round after round, alternating the checkouts (A/B, so that a machine
loaded by others weighs on both alike), sends `--requests` sequential GETs of each endpoint over
one keep-alive connection (the read token, gzip asked, as `api_load_bench.py` asks) and reads
the server's CPU time (user + system, /proc/PID/stat) before and after: the CPU per request,
the median over rounds. `--profile` runs each server under cProfile instead and prints the
functions its requests spent most time in (the event loop's thread).

    python bench/cached_get_cost_bench.py [--code PATH ...] [--rounds 5] [--requests 1000]
                                          [--keep DIR] [--profile]
"""

from __future__ import annotations

import argparse
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_load_bench import ENDPOINTS, QUIET, SPEC, THROUGH_SWEEPS, TOKEN, free_port, wait_for_report
from machine import machine_line

from pinchpoint.simulator import load_spec, write_snapshot

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass
class Served:
    """One checkout's running service."""

    label: str
    url: str
    process: subprocess.Popen[str]
    profile: Path | None
    per_request_ms: dict[str, list[float]] = field(default_factory=dict)


def start(code: Path, snapshot: Path, scratch: Path, profile: bool) -> Served:
    """`pinchpoint serve` of checkout `code` on a free port, its first report stored."""
    label = code.name
    home = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=scratch))
    config = home / "pinchpoint.toml"
    config.write_text(QUIET, encoding="utf-8")
    port = free_port()
    environment = {**os.environ, "PINCHPOINT_ADMIN_TOKEN": TOKEN}
    environment["PINCHPOINT_READ_TOKEN"] = TOKEN + "-read"
    environment["PYTHONPATH"] = str(code.resolve())
    profile_file = home / "profile.out" if profile else None
    command = [sys.executable]
    if profile_file is not None:
        command += ["-m", "cProfile", "-o", str(profile_file)]
    command += ["-m", "pinchpoint", "serve", "--snapshot", str(snapshot), "--port", str(port)]
    command += ["--data-dir", str(home / "data"), "--config", str(config)]
    command += ["--log-level", "warning"]
    process = subprocess.Popen(  # cwd: `python -m` would import a `pinchpoint` found there
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
        cwd=home,
    )
    url = f"http://127.0.0.1:{port}"
    wait_for_report(url, process)
    return Served(label, url, process, profile_file)


def measure(served: Served, path: str, requests: int) -> float:
    """Server CPU milliseconds per sequential GET of `path`."""
    headers = {"Authorization": f"Bearer {TOKEN}-read", "Accept-Encoding": "gzip"}
    with httpx.Client(base_url=served.url, headers=headers, timeout=60) as client:
        for _ in range(20):  # warm: answers rendered, the connection open
            client.get(path).raise_for_status()
        before = cpu_seconds(served.process.pid)
        for _ in range(requests):
            client.get(path).raise_for_status()
        after = cpu_seconds(served.process.pid)
    return (after - before) * 1000 / requests


def stop(served: Served) -> None:
    # uvicorn raises the signal again once it has stopped: SIGTERM would end the process before
    # cProfile writes its file, SIGINT (KeyboardInterrupt) lets it
    served.process.send_signal(signal.SIGINT if served.profile else signal.SIGTERM)
    served.process.wait(120)


def print_profile(served: Served, top: int = 25) -> None:
    if served.profile is None or not served.profile.exists():
        print(f"{served.label}: no profile written")
        return
    print(f"--- {served.label}: cProfile of the event loop's thread, by own time ---")
    stats = pstats.Stats(str(served.profile))
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, action="append", help="checkout(s) to compare")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=1000, help="per endpoint and round")
    parser.add_argument("--endpoints", default=",".join(THROUGH_SWEEPS))
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument("--profile", action="store_true", help="run the servers under cProfile")
    args = parser.parse_args()
    codes: list[Path] = args.code or [ROOT]
    paths = {name: ENDPOINTS[name] for name in args.endpoints.split(",")}
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="pinchpoint-get-cost-") as scratch:
        snapshot = args.keep or Path(scratch, "host")
        if not snapshot.exists():
            write_snapshot(load_spec(SPEC), snapshot)
        servers = [start(code, snapshot, Path(scratch), args.profile) for code in codes]
        try:
            time.sleep(2)
            for round_number in range(args.rounds):
                order = servers if round_number % 2 == 0 else servers[::-1]
                for served in order:
                    for name, path in paths.items():
                        cost = measure(served, path, args.requests)
                        served.per_request_ms.setdefault(name, []).append(cost)
            for served in servers:
                figures = ", ".join(
                    f"{paths[name]} {statistics.median(costs):.3f} ms "
                    f"({min(costs):.3f}–{max(costs):.3f})"
                    for name, costs in served.per_request_ms.items()
                )
                print(f"{served.label}: server CPU per GET, median of {args.rounds}: {figures}")
        finally:
            for served in servers:
                stop(served)
        if args.profile:
            for served in servers:
                print_profile(served)
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
