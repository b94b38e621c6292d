"""Benchmark: the API under load on the simulated 1,920-path host.

Simulates `tests/fixtures/specs/bench_1920_stats.toml`, starts the real `pinchpoint serve
--snapshot` on a loopback port (SQLite store in a scratch directory), waits for its first sweep,
then drives `GET /v1/reports/latest` and `GET /v1/inventory/enclosures` with `hey` (the Debian
HTTP load generator: `sh scripts/install-system-deps.sh bench`): 50 concurrent clients at 4
requests/s each = 200 requests/s, for `--seconds`. Prints p50/p90/p99, the status codes and
errors per endpoint, and the server's peak RSS.

    python bench/api_load_bench.py [--seconds 30] [--rate 200] [--clients 50]

Target (issue 6): p99 ≤ 50 ms and no errors at 200 requests/s from 50 clients.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_line

from pinchpoint.simulator import load_spec, write_snapshot

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "fixtures" / "specs" / "bench_1920_stats.toml"
TOKEN = "bench-admin-token-0123456789abcdef"
ENDPOINTS = ("/v1/reports/latest", "/v1/inventory/enclosures")
QUIET = """
[service.schedule]
sweep = ""
smart = ""
daily_report = ""
prune = ""
stats_interval_s = 0
"""


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_report(url: str, server: subprocess.Popen[str], timeout_s: float = 600) -> float:
    """Seconds until the first report is served."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if server.poll() is not None:
            raise SystemExit(f"the service stopped: {server.communicate()[1][-2000:]}")
        try:
            answer = httpx.get(
                f"{url}/v1/reports/latest",
                headers={"Authorization": f"Bearer {TOKEN}"},
                timeout=10,
            )
            if answer.status_code == 200:
                return time.monotonic() - started
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise SystemExit("no report within the time limit")


def peak_rss_mib(pid: int) -> float | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmHWM:\s+(\d+) kB", text)
    return int(found.group(1)) / 1024 if found else None


def hey(url: str, seconds: int, clients: int, rate: int) -> dict[str, str]:
    """One `hey` run; its latency percentiles, status codes and errors."""
    per_client = max(1, rate // clients)
    done = subprocess.run(
        [
            "hey",
            "-z",
            f"{seconds}s",
            "-c",
            str(clients),
            "-q",
            str(per_client),
            "-H",
            f"Authorization: Bearer {TOKEN}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = done.stdout
    figures = {}
    for name in ("50", "90", "99"):
        found = re.search(rf"\s{name}%+ in ([\d.]+) secs", out)
        figures[f"p{name}"] = f"{float(found.group(1)) * 1000:.1f} ms" if found else "?"
    requests = re.search(r"Requests/sec:\s+([\d.]+)", out)
    figures["requests/s"] = requests.group(1) if requests else "?"
    codes = re.findall(r"\[(\d{3})\]\s+(\d+) responses", out)
    figures["status"] = ", ".join(f"{c}×{n}" for c, n in codes)
    errors = out.split("Error distribution:")[1].strip() if "Error distribution:" in out else ""
    figures["errors"] = errors or "none"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--clients", type=int, default=50)
    args = parser.parse_args()
    if shutil.which("hey") is None:
        raise SystemExit("hey is not installed: sh scripts/install-system-deps.sh bench")
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="pinchpoint-api-bench-") as scratch:
        snapshot = Path(scratch, "host")
        write_snapshot(load_spec(SPEC), snapshot)
        config = Path(scratch, "pinchpoint.toml")
        config.write_text(QUIET, encoding="utf-8")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        environment = {**os.environ, "PINCHPOINT_ADMIN_TOKEN": TOKEN}
        environment["PINCHPOINT_READ_TOKEN"] = TOKEN + "-read"
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("pinchpoint")),
                "serve",
                "--snapshot",
                str(snapshot),
                "--port",
                str(port),
                "--data-dir",
                str(Path(scratch, "data")),
                "--config",
                str(config),
                "--log-level",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        try:
            first = wait_for_report(url, server)
            print(f"first sweep of the 1,920-path snapshot stored after {first:.1f} s")
            for endpoint in ENDPOINTS:
                httpx.get(url + endpoint, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
                figures = hey(url + endpoint, args.seconds, args.clients, args.rate)
                shown = ", ".join(f"{k} {v}" for k, v in figures.items())
                print(f"GET {endpoint}: {args.rate} req/s target, {args.clients} clients: {shown}")
            rss = peak_rss_mib(server.pid)
            print(f"server peak RSS {rss:.0f} MiB" if rss else "server peak RSS unknown")
            files = Path(scratch, "data").glob("pinchpoint.db*")  # the database and its WAL
            print(f"store after one sweep: {sum(f.stat().st_size for f in files) / 1e6:.1f} MB")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)


if __name__ == "__main__":
    main()
