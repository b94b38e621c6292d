"""What machine a benchmark ran on, in one line every benchmark prints the same way; and
`child_json`, how a benchmark runs a script against one source tree (before/after comparisons).

The development VM's speed varies with its neighbours, so the line carries a calibration: the
CPU time of a plain Python loop, taken when the benchmark starts, to compare figures across runs
and machines (about 30 ms on a current laptop; 50–120 ms on the shared 2-core VM).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def calibration_ms() -> float:
    """CPU milliseconds of a 1,000,000-iteration `x += i` loop in a function (best of 3)."""

    def loop() -> int:
        total = 0
        for i in range(1_000_000):
            total += i
        return total

    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        loop()
        best = min(best, time.process_time() - start)
    return best * 1000


def machine_line() -> str:
    """`x86_64, 2 cores, Python 3.11.7, kernel 6.1.0; load average 0.92; calibration loop 85 ms`."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"kernel {platform.release()}; load average {os.getloadavg()[0]:.2f}; calibration: a "
        f"1,000,000-iteration loop took {calibration_ms():.0f} ms of CPU"
    )


def child_json(tree: Path, script: str, *args: str) -> dict[str, object]:
    """The JSON a Python `script` prints when run in a child process on the source `tree` (its
    pinchpoint imported from there); the child's error ends the benchmark."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    result: dict[str, object] = json.loads(done.stdout)
    return result
