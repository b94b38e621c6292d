"""`pinchpoint stats record` as a user runs it: on a loop device under fio, its JSON and its
table; and every reason it cannot record said in one line with exit 2 (no loader, not root, a
device that does not exist, a loader that fails or prints garbage)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from loop_devices import fio_in_background, loop_device, recording_unavailable

from pinchpoint.checks.source.biolat import LOADER_ENV
from pinchpoint.model.histogram import OVERFLOW_BUCKET, bucket_bounds_ns

needs_bpf = pytest.mark.skipif(
    recording_unavailable() is not None, reason=recording_unavailable() or ""
)


def pinchpoint(
    *args: str, env: dict[str, str] | None = None, user: str | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pinchpoint", *args]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "300", **(env or {})},
        cwd="/",
    )


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if recording_unavailable() is not None:
        pytest.skip(recording_unavailable() or "")
    directory = tmp_path_factory.mktemp("loop")
    with loop_device(directory) as name:
        yield name


@pytest.fixture
def busy(loop: str) -> Iterator[str]:
    """fio reading and writing the loop device for 20 s in the background."""
    with fio_in_background(loop, rw="randrw", iodepth=4, rate_iops=400, runtime_s=20):
        yield loop


@needs_bpf
def test_json_per_device_and_op(busy: str) -> None:
    started = time.monotonic()
    done = pinchpoint("stats", "record", "--seconds", "3", "--device", busy, "--json")
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["source"] == "ebpf" and 2.9 < data["seconds"] < 3.2
    (device,) = data["devices"]
    assert (
        device["device"] == busy
        and device["dev"] == Path(f"/sys/class/block/{busy}/dev").read_text().strip()
    )
    ops = {op["op"]: op for op in device["ops"]}
    assert set(ops) == {"read", "write"}
    for op in ops.values():
        # fio paces reads and writes at 400 IOPS each (fewer when the machine is busy)
        assert 0 < op["iops"] <= 400 * 1.05
        assert op["count"] > 0 and abs(op["iops"] - op["count"] / data["seconds"]) < 1
        assert op["p50_us"] <= op["p90_us"] <= op["p99_us"] <= op["max_us"]
        counts = [count for _upper, count in op["buckets"]]
        assert sum(counts) == op["count"]  # per bucket, not cumulative
        uppers = [upper for upper, _count in op["buckets"]]
        assert uppers == sorted(uppers)
        # the project's scheme, 8 buckets per power of two: every bound is one of its bounds
        bounds = {bucket_bounds_ns(i)[1] for i in range(OVERFLOW_BUCKET)}
        assert all(round(upper * 1000) in bounds for upper in uppers[:-1])
        assert op["mean_size_bytes"] == 4096
    assert data["lost"]["recursion_misses"] == 0
    # the recorder's layout and its maps' memory, within the default budget
    memory = data["map_memory"]
    assert memory["layout"] == "percpu" and memory["budget_bytes"] == 64 * 2**20
    assert 0 < memory["bytes"] == sum(memory["maps"].values()) <= memory["budget_bytes"]
    assert memory["disks"] == 1 and memory["cpus"] == os.cpu_count()
    print(f"stats record --seconds 3 returned after {elapsed:.2f} s")


@needs_bpf
def test_a_budget_the_per_cpu_layout_exceeds_gets_the_shared_one(busy: str) -> None:
    first = pinchpoint("stats", "record", "--seconds", "0.5", "--device", busy, "--json")
    assert first.returncode == 0, first.stderr
    needed = json.loads(first.stdout)["map_memory"]["needed_bytes"]
    budget = needed["percpu"] - 1
    done = pinchpoint(
        "stats", "record", "--seconds", "1", "--device", busy,
        "--map-budget-bytes", str(budget), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["map_memory"]["layout"] == "shared"
    assert data["map_memory"]["bytes"] <= budget == data["map_memory"]["budget_bytes"]
    (device,) = data["devices"]
    assert all(op["count"] > 0 for op in device["ops"])
    table = pinchpoint(
        "stats", "record", "--seconds", "0.5", "--device", busy, "--map-budget-bytes", str(budget)
    )
    assert table.returncode == 0, table.stderr
    assert "one value shared by the CPUs" in table.stdout


@needs_bpf
def test_a_budget_too_small_for_the_maps() -> None:
    done = pinchpoint("stats", "record", "--seconds", "1", "--map-budget-bytes", "4096")
    _one_line_exit_2(done, "a map budget of 4096 bytes cannot hold the recorder's maps")


def test_a_budget_that_is_not_a_positive_number() -> None:
    for bad in ("0", "-5", "64M"):
        done = pinchpoint("stats", "record", "--seconds", "1", "--map-budget-bytes", bad)
        assert done.returncode == 2 and "--map-budget-bytes" in done.stderr, done.stderr


@needs_bpf
def test_the_table(busy: str) -> None:
    done = pinchpoint("stats", "record", "--seconds", "2", "--device", f"/dev/{busy}")
    assert done.returncode == 0, done.stderr
    assert "recorded in the kernel (eBPF)" in done.stdout
    row = next(line for line in done.stdout.splitlines() if busy in line)
    assert "read" in row and ("µs" in row or "ms" in row)


def _one_line_exit_2(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_without_the_loader_it_says_how_to_build_it(tmp_path: Path) -> None:
    done = pinchpoint(
        "stats", "record", "--seconds", "1", env={LOADER_ENV: str(tmp_path / "missing")}
    )
    if os.geteuid() != 0:
        _one_line_exit_2(done, "needs root")
    else:
        _one_line_exit_2(done, "make bpf")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root")
def test_not_root_it_says_what_it_needs() -> None:
    done = pinchpoint("stats", "record", "--seconds", "1", user="65534")
    _one_line_exit_2(done, "needs root, or CAP_BPF and CAP_PERFMON")


@needs_bpf
def test_a_device_that_does_not_exist() -> None:
    done = pinchpoint("stats", "record", "--seconds", "1", "--device", "sdzz")
    _one_line_exit_2(done, "no block device 'sdzz'")


@needs_bpf
@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("echo 'libbpf: failed to load' >&2; exit 1", "exited with status 1: libbpf: failed"),
        ("printf '\\377\\033[2J{not json'", "output is unusable"),
        ("exit 0", "printed nothing"),
    ],
)
def test_a_loader_that_fails_or_prints_garbage(tmp_path: Path, script: str, words: str) -> None:
    loader = tmp_path / "pinchpoint-biolat"
    loader.write_text(f"#!/bin/sh\n{script}\n")
    loader.chmod(0o755)
    done = pinchpoint("stats", "record", "--seconds", "1", env={LOADER_ENV: str(loader)})
    _one_line_exit_2(done, words)
