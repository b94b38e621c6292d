"""Benchmark: first meaningful paint of the topology page from the local service on the
simulated 1,920-path host (target, issue 7: ≤ 1 s).

Simulates `tests/fixtures/specs/bench_1920_stats.toml` (4 HBAs, 16 JBODs × 60 dual-ported disks,
statistics), starts `pinchpoint serve --snapshot DIR --open-reads` on a free loopback port,
waits for its first report and a few sampler ticks, then opens `/topology` in Debian's headless
Chromium (driven by Playwright, never its own browser builds) and reads the page's performance
timeline:

* first contentful paint (the shell: header and navigation);
* the tree, the callouts naming enclosures with missing paths and the ranking drawn (the
  `pp:topology:tree` mark), while ECharts may still load;
* first meaningful paint: the `pp:topology:drawn` mark the page sets once the tree, the
  hierarchy chart and the ranking are drawn (every node of the 1,920-path tree with its figures);
* the `GET /v1/views/topology` request alone, as the browser timed it.

Each run is a new browser context (cold: nothing cached); then as many reloads in one context
(warm: the shell, the scripts and ECharts from the browser's cache). The service's own answer
is rebuilt at most once per sampler tick, so most runs read it from its cache: the first, cold
build is timed apart with `--build-runs` by asking for a new window each time.

    python bench/web_bench.py [--runs 7] [--keep DIR] [--url http://127.0.0.1:9460]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from machine import machine_line
from playwright.sync_api import Browser, Page, sync_playwright

from pinchpoint.checks.source.choose import scratch_dir

SPEC = Path(__file__).resolve().parent.parent / "tests/fixtures/specs/bench_1920_stats.toml"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRAWN = "pp:topology:drawn"
TARGET_MS = 1000.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def simulate(snapshot: Path) -> None:
    if (snapshot / "manifest.json").exists() or any(snapshot.glob("*")):
        print(f"reusing the simulated host in {snapshot}")
        return
    started = time.perf_counter()
    from pinchpoint.simulator import load_spec, write_snapshot

    write_snapshot(load_spec(SPEC), snapshot)
    print(f"simulated the 1,920-path host in {time.perf_counter() - started:.1f} s")


def start_service(snapshot: Path, data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [
        sys.executable,
        "-c",
        "from pinchpoint.cli import app; app()",
        "serve",
        "--snapshot",
        str(snapshot),
        "--open-reads",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return process, f"http://127.0.0.1:{port}"


def wait_until_ready(url: str, timeout_s: float = 300) -> float:
    """Seconds until the service has a report and sampled figures for the topology view."""
    started = time.perf_counter()
    deadline = time.monotonic() + timeout_s
    with httpx.Client(base_url=url, timeout=30) as client:
        while time.monotonic() < deadline:
            try:
                if client.get("/topology").status_code == 404:
                    raise SystemExit(
                        "this service does not serve the pages: app.py must include "
                        "pinchpoint.api.web.router and pinchpoint.api.routes.views.router"
                    )
                answer = client.get("/v1/views/topology")
                if answer.status_code == 200 and answer.json()["sampled"]:
                    return time.perf_counter() - started
            except httpx.TransportError:
                pass
            time.sleep(1)
    raise SystemExit(f"the service at {url} had no sampled topology within {timeout_s:.0f} s")


def timings(page: Page) -> dict[str, float]:
    """The page's paint and mark times (ms since navigation start) and the view request."""
    page.wait_for_selector("main > section[data-ready]", state="attached", timeout=60_000)
    found: dict[str, float] = page.evaluate(
        """(drawn) => {
            const paint = performance.getEntriesByName('first-contentful-paint')[0];
            const mark = performance.getEntriesByName(drawn)[0];
            const tree = performance.getEntriesByName('pp:topology:tree')[0];
            const view = performance.getEntriesByType('resource')
                .find((r) => r.name.includes('/v1/views/topology'));
            const echarts = performance.getEntriesByType('resource')
                .find((r) => r.name.includes('echarts.min.js'));
            const nav = performance.getEntriesByType('navigation')[0];
            return {
                fcp: paint ? paint.startTime : NaN,
                drawn: mark.startTime,
                tree: tree.startTime,
                view: view ? view.duration : NaN,
                view_bytes: view ? view.encodedBodySize : NaN,
                echarts: echarts ? echarts.duration : NaN,
                dom_content_loaded: nav.domContentLoadedEventEnd,
            };
        }""",
        DRAWN,
    )
    return found


def measure(browser: Browser, url: str, runs: int) -> tuple[list[dict[str, float]], ...]:
    cold = []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        page.goto(f"{url}/topology")
        cold.append(timings(page))
        context.close()
    warm = []
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/topology")
    timings(page)
    for _ in range(runs):
        page.reload()
        warm.append(timings(page))
    context.close()
    return cold, warm


def build_times(url: str, runs: int) -> list[float]:
    """Milliseconds of `GET /v1/views/topology` when the service must build it (a window
    never asked before, so its cache cannot answer)."""
    found = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for run in range(runs):
            started = time.perf_counter()
            answer = client.get("/v1/views/topology", params={"window_s": 290 - run})
            answer.raise_for_status()
            found.append((time.perf_counter() - started) * 1000)
    return found


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: median {statistics.median(values):.0f} ms, best {min(values):.0f} ms, "
        f"worst {max(values):.0f} ms"
    )


def report(cold: list[dict[str, float]], warm: list[dict[str, float]], build: list[float]) -> None:
    print()
    for label, runs in (("cold (new browser context)", cold), ("warm (reload)", warm)):
        print(f"{label}, {len(runs)} runs:")
        for key, name in (
            ("fcp", "  first contentful paint"),
            ("tree", "  tree, callouts and ranking drawn"),
            ("drawn", "  first meaningful paint (tree + chart drawn)"),
            ("view", "  GET /v1/views/topology in the browser"),
            ("echarts", "  echarts.min.js"),
        ):
            print(summary(name, [r[key] for r in runs]))
    print(summary("view built by the service (uncached)", build))
    size = cold[0]["view_bytes"]
    print(f"topology answer: {size / 1024:.0f} KiB")
    worst = max(r["drawn"] for r in cold)
    verdict = "within" if worst <= TARGET_MS else "OVER"
    print(f"\nfirst meaningful paint, worst cold run: {worst:.0f} ms ({verdict} the 1 s target)")
    print("\nMarkdown for docs/benchmarks.md:\n")
    print("| topology page, 1,920-path host | median | worst |")
    print("| --- | --- | --- |")
    for label, runs in (("cold", cold), ("warm", warm)):
        for key, name in (
            ("fcp", "first contentful paint"),
            ("tree", "tree and callouts drawn"),
            ("drawn", "first meaningful paint (tree and chart)"),
        ):
            values = [r[key] for r in runs]
            print(
                f"| {name}, {label} | {statistics.median(values):.0f} ms | {max(values):.0f} ms |"
            )
    print(
        f"| `GET /v1/views/topology` built uncached | {statistics.median(build):.0f} ms "
        f"| {max(build):.0f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--build-runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Simulate into (or reuse) this directory.")
    parser.add_argument("--url", help="Measure a service already running there instead.")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit("Debian's chromium is needed: apt-get install chromium")
    print(machine_line())
    process = None
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        try:
            url = args.url
            if url is None:
                snapshot = args.keep or Path(scratch, "bench_1920_stats")
                simulate(snapshot)
                process, url = start_service(snapshot, Path(scratch, "data"))
            print(f"service ready with sampled figures after {wait_until_ready(url):.1f} s")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox"]
                )
                try:
                    cold, warm = measure(browser, url, args.runs)
                finally:
                    browser.close()
            report(cold, warm, build_times(url, args.build_runs))
        finally:
            if process is not None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                errors = process.stderr.read().decode(errors="replace") if process.stderr else ""
                if process.returncode not in (0, -15) and errors:
                    print(errors[-2000:], file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
