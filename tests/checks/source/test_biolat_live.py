"""The kernel latency recorder on this machine's loop devices, against fio and against the
kernel's own ftrace of the same block events: counts, percentiles, queued time, the device
filter, the programs' cost. Skipped with the reason where BPF is not available (`make test` on
the development and CI machines has it)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from loop_devices import loop_device, recording_unavailable, run_fio

from pinchpoint.checks.collect.latency_recording import block_devices
from pinchpoint.checks.parse.biolat import parse_recording
from pinchpoint.checks.source import LiveSource
from pinchpoint.checks.source.biolat import recording_command
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.latency_recording import BlockOp, BlockRecording

pytestmark = pytest.mark.skipif(
    recording_unavailable() is not None, reason=recording_unavailable() or ""
)

TRACING = Path("/sys/kernel/tracing")


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with loop_device(tmp_path_factory.mktemp("loop")) as name:
        yield name


def dev_of(name: str) -> str:
    return next(dev for dev, n in block_devices(LiveSource()).items() if n == name)


class Recorder:
    """The recorder started in the background; `stop()` ends the window and parses it."""

    def __init__(self, devices: list[str], stats: bool = False) -> None:
        command = recording_command(600, devices, stats)
        self.process = subprocess.Popen(
            command.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()  # attach is synchronous: then the window opens
        assert "attached" in line, line + self.process.stderr.read()

    def stop(self) -> BlockRecording:
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return parse_recording(out)


def test_every_io_fio_completed_is_counted_once(loop: str) -> None:
    recorder = Recorder([dev_of(loop)])
    fio = run_fio(loop, "--iodepth=8", "--io_size=16M")
    recording = recorder.stop()
    (device,) = recording.devices  # the filter: only the loop device
    assert device.dev == dev_of(loop)
    for op, figures in ((BlockOp.READ, fio["read"]), (BlockOp.WRITE, fio["write"])):
        recorded = device.op(op)
        assert recorded is not None
        assert abs(recorded.device_time.count - figures["total_ios"]) <= 0.01 * figures["total_ios"]
        assert recorded.bytes == figures["io_bytes"]
        # fio's total latency (submission + completion) bounds the device time from above;
        # 5% for the two histograms' bucket widths
        total = figures["lat_ns"]["percentile"]
        for percent in (50, 90, 99):
            ours = recorded.device_time.percentile_s(percent)
            assert ours is not None and ours * 1e9 <= total[f"{percent}.000000"] * 1.05
        assert recorded.device_time.max_ns is not None
        assert recorded.device_time.max_ns <= figures["lat_ns"]["max"]
    assert recording.lost == 0


def test_io_before_the_window_is_not_counted(loop: str) -> None:
    run_fio(loop, "--io_size=2M")  # done before the recorder starts
    recorder = Recorder([dev_of(loop)])
    recording = recorder.stop()
    assert recording.devices == []


def test_queued_time_where_a_scheduler_queues(loop: str) -> None:
    """With mq-deadline on the loop device, requests are inserted before they are issued:
    each one has a queued time, and it is at most its whole time in the block layer."""
    scheduler = Path(f"/sys/block/{loop}/queue/scheduler")
    before = scheduler.read_text()
    if "mq-deadline" not in before:
        pytest.skip(f"no mq-deadline scheduler on {loop}: {before.strip()}")
    scheduler.write_text("mq-deadline")
    try:
        recorder = Recorder([dev_of(loop)])
        fio = run_fio(loop, "--iodepth=16", "--rw=randread")
        recording = recorder.stop()
    finally:
        scheduler.write_text(before.split("[")[1].split("]")[0])
    read = recording.devices[0].op(BlockOp.READ)
    assert read is not None
    # within 1 % as the issue asks (on a loaded machine a few of the first requests can be
    # inserted while the probes attach, so neither queued nor timed), none beyond that lost
    total = fio["read"]["total_ios"]
    assert abs(read.device_time.count - total) <= 0.01 * total
    assert 0 < read.queue_time.count <= read.device_time.count


def _ftrace_latencies(instance: Path, dev: str) -> LatencyHistogram:
    """Device times from the kernel's own trace of block_rq_issue / block_rq_complete, paired
    by sector as the trace prints them (timestamps in microseconds)."""
    started: dict[str, float] = {}
    histogram = LatencyHistogram()
    major, minor = dev.split(":")
    for line in (instance / "trace").read_text().splitlines():
        if line.startswith("#") or f" {major},{minor} " not in line:
            continue
        fields = line.split()
        stamp = next(float(f.rstrip(":")) for f in fields if f.endswith(":") and "." in f)
        sector = fields[fields.index("+") - 1]
        if "block_rq_issue:" in line:
            started[sector] = stamp
        elif "block_rq_complete:" in line and sector in started:
            histogram.record_seconds(stamp - started.pop(sector))
    return histogram


@pytest.fixture
def tracefs() -> Iterator[Path]:
    """/sys/kernel/tracing, mounted for the test when it is not (and unmounted afterwards)."""
    mounted_here = False
    if not TRACING.joinpath("instances").is_dir():
        done = subprocess.run(
            ["mount", "-t", "tracefs", "nodev", str(TRACING)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode != 0 or not TRACING.joinpath("instances").is_dir():
            pytest.skip(f"tracefs is not mounted at {TRACING} and cannot be: {done.stderr.strip()}")
        mounted_here = True
    try:
        yield TRACING
    finally:
        if mounted_here:
            subprocess.run(["umount", str(TRACING)], capture_output=True, timeout=30, check=False)


def test_percentiles_agree_with_the_kernels_own_trace(loop: str, tracefs: Path) -> None:
    dev = dev_of(loop)
    major, minor = (int(p) for p in dev.split(":"))
    instance = tracefs / "instances" / f"pinchpoint-test-{os.getpid()}"
    instance.mkdir()
    try:
        (instance / "buffer_size_kb").write_text("65536")
        for event in ("block_rq_issue", "block_rq_complete"):
            events = instance / "events" / "block" / event
            (events / "filter").write_text(f"dev == {major << 20 | minor}")
            (events / "enable").write_text("1")
        recorder = Recorder([dev])
        time.sleep(0.2)
        run_fio(loop, "--iodepth=1", "--rw=randread", "--io_size=8M")
        recording = recorder.stop()
        (instance / "tracing_on").write_text("0")
        traced = _ftrace_latencies(instance, dev)
    finally:
        for event in ("block_rq_issue", "block_rq_complete"):
            (instance / "events" / "block" / event / "enable").write_text("0")
        instance.rmdir()
    read = recording.devices[0].op(BlockOp.READ)
    assert read is not None
    assert abs(traced.count - read.device_time.count) <= 0.01 * read.device_time.count
    for percent in (50, 90, 99):
        ours, theirs = read.device_time.percentile_s(percent), traced.percentile_s(percent)
        assert ours is not None and theirs is not None
        # ftrace stamps in whole microseconds: 2 µs of slack besides 5%
        assert abs(ours - theirs) <= 0.05 * theirs + 2e-6, (percent, ours, theirs)


def test_the_programs_cost_is_measured(loop: str) -> None:
    recorder = Recorder([dev_of(loop)], stats=True)
    run_fio(loop, "--io_size=4M")
    recording = recorder.stop()
    runs = {p.name: p for p in recording.programs}
    assert runs["on_issue"].run_count >= 1024 and runs["on_complete"].run_count >= 1024
    assert all(p.run_time_ns > 0 for p in recording.programs if p.run_count)
