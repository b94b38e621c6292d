"""Real block devices for the tests that record per-I/O latency: loop devices over files
(`losetup --direct-io=on`; kernel modules such as null_blk cannot be loaded here), fio to drive
them, and the reason to skip where this host cannot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pinchpoint.checks.source.biolat import unavailable_reason


def recording_unavailable() -> str | None:
    """Why these tests cannot run here, or None."""
    reason = unavailable_reason()
    if reason is not None:
        return reason
    for tool in ("losetup", "fio"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/install-system-deps.sh tools)"
    return None


@contextmanager
def loop_device(directory: Path, size_mib: int = 256) -> Iterator[str]:
    """A loop device with direct I/O over a file in `directory`; its kernel name."""
    backing = directory / "loop.img"
    with open(backing, "wb") as file:
        file.truncate(size_mib * 1024 * 1024)
    path = subprocess.run(
        ["losetup", "--direct-io=on", "--find", "--show", str(backing)],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.strip()
    try:
        yield os.path.basename(path)
    finally:
        subprocess.run(["losetup", "--detach", path], check=False, timeout=30)


def completed_ios(device: str) -> int:
    """Reads plus writes the kernel completed on `device` (its /sys/block/<device>/stat)."""
    fields = Path(f"/sys/block/{device}/stat").read_text(encoding="ascii").split()
    return int(fields[0]) + int(fields[4])


def wait_until_busy(device: str, timeout_s: float = 60.0) -> None:
    """Return once I/Os complete on `device` (a load generator started in the background may
    take seconds to issue its first I/O on a busy machine); AssertionError after `timeout_s`."""
    start = completed_ios(device)
    deadline = time.monotonic() + timeout_s
    while completed_ios(device) - start < 10:
        if time.monotonic() > deadline:
            raise AssertionError(f"no I/O on {device} after {timeout_s:.0f} s")
        time.sleep(0.05)


@contextmanager
def fio_in_background(
    device: str, *, rw: str, iodepth: int, rate_iops: int, runtime_s: int
) -> Iterator[str]:
    """fio doing `rw` 4 KiB direct I/O on /dev/`device` at `rate_iops` for up to `runtime_s`,
    started, waited for until its I/O reaches the device, and stopped on exit; `device`."""
    fio = subprocess.Popen(
        ["fio", "--name=busy", f"--filename=/dev/{device}", f"--rw={rw}", "--bs=4k",
         "--direct=1", "--ioengine=libaio", f"--iodepth={iodepth}", "--size=64M",
         "--time_based", f"--runtime={runtime_s}", f"--rate_iops={rate_iops}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until_busy(device)
        yield device
    finally:
        fio.terminate()
        fio.wait(30)


def run_fio(device: str, *extra: str, timeout_s: float = 120) -> dict[str, Any]:
    """fio's JSON for one job on /dev/`device`: random 4 KiB reads and writes, direct, libaio,
    with total-latency percentiles; `extra` adds or overrides options."""
    argv = [
        "fio",
        "--name=pinchpoint-test",
        f"--filename=/dev/{device}",
        "--rw=randrw",
        "--bs=4k",
        "--direct=1",
        "--ioengine=libaio",
        "--iodepth=4",
        "--size=64M",
        "--io_size=8M",
        "--lat_percentiles=1",
        "--output-format=json",
        *extra,
    ]
    done = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=timeout_s)
    job: dict[str, Any] = json.loads(done.stdout)["jobs"][0]
    return job
