"""The kernel latency recorder on this machine's loop devices, against fio and against the
kernel's own ftrace of the same block events: counts, percentiles, queued time, the device
filter, the programs' cost. Skipped with the reason where BPF is not available (`make test` on
the development and CI machines has it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loop_devices import loop_device, recording_unavailable, run_fio

from pinchpoint.checks.collect.latency_recording import block_devices
from pinchpoint.checks.parse.biolat import parse_recording
from pinchpoint.checks.source import LiveSource
from pinchpoint.checks.source.biolat import recording_command
from pinchpoint.model.histogram import SUB_BUCKETS, LatencyHistogram
from pinchpoint.model.latency_recording import BlockOp, BlockRecording, RecorderLayout

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
    """The recorder started in the background; `stop()` ends the window and parses it.
    `said` holds what it printed before attaching (a warning about its budget)."""

    def __init__(
        self,
        devices: list[str],
        stats: bool = False,
        budget_bytes: int | None = None,
        layout: RecorderLayout | None = None,
    ) -> None:
        command = recording_command(600, devices, stats, budget_bytes, layout)
        self.process = subprocess.Popen(
            command.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stderr is not None
        self.said: list[str] = []
        while True:  # attach is synchronous: then the window opens
            line = self.process.stderr.readline()
            assert line, "".join(self.said) + self.process.stderr.read()
            if "attached" in line:
                break
            self.said.append(line)

    def stop(self) -> BlockRecording:
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return parse_recording(out)


def _agrees_with_fio(recording: BlockRecording, fio: dict[str, Any]) -> None:
    """Every I/O fio completed counted, or counted as lost: count + lost equals fio's count
    exactly, and the bytes too when nothing was lost; the percentiles at or below fio's total
    latency. (On a loaded machine the kernel has skipped a few completions: docs/ebpf.md,
    unseen I/Os; they are lost, never silently.)"""
    (device,) = recording.devices  # the filter: only the loop device
    counted = 0
    for op, figures in ((BlockOp.READ, fio["read"]), (BlockOp.WRITE, fio["write"])):
        recorded = device.op(op)
        assert recorded is not None
        counted += recorded.device_time.count
        said = (op, recorded.device_time.count, figures["total_ios"], recording.drops)
        if recording.lost == 0:
            assert recorded.device_time.count == figures["total_ios"], said
            assert recorded.bytes == figures["io_bytes"], said
        # fio's total latency (submission + completion) bounds the device time from above, up
        # to the two histograms' bucket widths: ours interpolates inside a bucket up to 1/8 wide
        # (SUB_BUCKETS), fio reports a bucket of 1/64 (FIO_IO_U_PLAT_BITS = 6)
        total = figures["lat_ns"]["percentile"]
        widths = (1 + 1 / SUB_BUCKETS) * (1 + 1 / 64)
        for percent in (50, 90, 99):
            ours = recorded.device_time.percentile_s(percent)
            assert ours is not None and ours * 1e9 <= total[f"{percent}.000000"] * widths
        assert recorded.device_time.max_ns is not None
        assert recorded.device_time.max_ns <= figures["lat_ns"]["max"]
    assert {"no_start", "no_issue", "no_completion"} <= recording.drops.keys()
    expected = fio["read"]["total_ios"] + fio["write"]["total_ios"]
    assert counted + recording.lost == expected, (counted, recording.lost, recording.drops)


@pytest.mark.parametrize("layout", list(RecorderLayout))
def test_every_io_fio_completed_is_counted_once(loop: str, layout: RecorderLayout) -> None:
    """Both layouts of the histograms: a value per CPU, or one shared (atomic adds)."""
    recorder = Recorder([dev_of(loop)], layout=layout)
    fio = run_fio(loop, "--iodepth=8", "--io_size=16M")
    recording = recorder.stop()
    assert recording.memory is not None and recording.memory.layout is layout
    assert recording.devices[0].dev == dev_of(loop)
    _agrees_with_fio(recording, fio)


@pytest.mark.parametrize("layout", list(RecorderLayout))
def test_two_cpus_counting_into_the_same_entries(loop: str, layout: RecorderLayout) -> None:
    """Two fio jobs, so both CPUs complete the device's I/Os at once: in the shared layout
    their atomic adds meet in the same values."""
    recorder = Recorder([dev_of(loop)], layout=layout)
    fio = run_fio(loop, "--iodepth=8", "--io_size=8M", "--numjobs=2", "--group_reporting")
    recording = recorder.stop()
    assert recording.memory is not None and recording.memory.layout is layout
    _agrees_with_fio(recording, fio)


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


@pytest.mark.parametrize("layout", list(RecorderLayout))
def test_percentiles_agree_with_the_kernels_own_trace(
    loop: str, tracefs: Path, layout: RecorderLayout
) -> None:
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
        recorder = Recorder([dev], layout=layout)
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
    # the same I/Os, exactly: each counted, or counted as lost
    assert traced.count == read.device_time.count + recording.lost, recording.drops
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


def _least_budget(dev: str, layout: RecorderLayout) -> int:
    """The smallest budget the recorder accepts in `layout` for one device, from its own
    refusal of a budget of one byte (which says it, and exits 2)."""
    command = recording_command(1, [dev], budget_bytes=1, layout=layout)
    done = subprocess.run(command.argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "a map budget of 1 bytes cannot hold the recorder's maps" in line, line
    return int(line.split("needs at least ")[1].split()[0])


def test_the_layout_follows_the_budget(loop: str) -> None:
    """Per-CPU values where the budget holds them for every disk (the default budget holds
    them for one disk on 2 CPUs), shared ones where it does not; the maps within it."""
    dev = dev_of(loop)
    recorder = Recorder([dev])
    default = recorder.stop().memory
    assert default is not None and default.layout is RecorderLayout.PERCPU
    assert default.budget_bytes == 64 * 2**20 and default.disks == 1
    assert default.needed_shared_bytes < default.needed_percpu_bytes <= default.budget_bytes
    assert default.capacity >= 4  # read, write, flush, discard
    tight = default.needed_percpu_bytes - 1
    recorder = Recorder([dev], budget_bytes=tight)
    run_fio(loop, "--io_size=1M")
    recording = recorder.stop()
    memory = recording.memory
    assert memory is not None and memory.layout is RecorderLayout.SHARED
    assert memory.budget_bytes == tight and memory.bytes <= tight
    assert memory.capacity >= 4
    assert recording.devices[0].op(BlockOp.READ) is not None and recording.lost == 0


def test_a_budget_below_the_least_is_refused_with_the_reason(loop: str) -> None:
    dev = dev_of(loop)
    shared = _least_budget(dev, RecorderLayout.SHARED)
    percpu = _least_budget(dev, RecorderLayout.PERCPU)
    assert 0 < shared < percpu  # one entry and the spill map, per CPU or not
    assert shared < 16 * 2**20  # the fixed maps: start stamps, device filter, drops


def test_io_past_the_budgets_entries_is_still_counted(loop: str) -> None:
    """A budget that holds one entry: the read entry is made, the writes find no room and
    take the spill map's entries (counted, never dropped silently), and the recorder says
    so before it attaches."""
    dev = dev_of(loop)
    budget = _least_budget(dev, RecorderLayout.SHARED)
    recorder = Recorder([dev], budget_bytes=budget, layout=RecorderLayout.SHARED)
    assert any("fewer than the read and write entries of 1 disks" in s for s in recorder.said)
    fio = run_fio(loop, "--iodepth=4", "--io_size=2M")
    recording = recorder.stop()
    memory = recording.memory
    assert memory is not None and memory.capacity == 1 and memory.bytes <= budget
    (device,) = recording.devices
    counted = 0
    for op, figures in ((BlockOp.READ, fio["read"]), (BlockOp.WRITE, fio["write"])):
        recorded = device.op(op)
        assert recorded is not None
        assert recording.lost or recorded.device_time.count == figures["total_ios"]
        counted += recorded.device_time.count
    # none lost for want of room; completions the kernel skipped under load are counted
    # as lost (docs/ebpf.md, unseen I/Os)
    assert recording.drops["histogram_map_full"] == 0
    assert counted + recording.lost == fio["read"]["total_ios"] + fio["write"]["total_ios"]


def _map_ids(pid: int) -> set[int]:
    """The ids of the BPF maps the process `pid` holds open (its fdinfo's map_id)."""
    ids = set()
    for fd in Path(f"/proc/{pid}/fdinfo").iterdir():
        for line in fd.read_text().splitlines():
            if line.startswith("map_id:"):
                ids.add(int(line.split()[1]))
    return ids


@pytest.mark.parametrize("layout", list(RecorderLayout))
def test_the_maps_take_what_the_recorder_estimated_and_reports(
    loop: str, layout: RecorderLayout
) -> None:
    """The estimate the layout is chosen by (made before the maps exist) is what the kernel
    charges once they do, and the memory the recorder reports is what bpftool shows."""
    recorder = Recorder([dev_of(loop)], layout=layout)
    ids = _map_ids(recorder.process.pid)
    shown = json.loads(
        subprocess.run(
            ["bpftool", "map", "show", "--json"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    recording = recorder.stop()
    memory = recording.memory
    assert memory is not None and memory.layout is layout
    ours = [m for m in shown if m["id"] in ids]
    assert {m["name"]: m["bytes_memlock"] for m in ours} == memory.maps
    assert memory.estimated_bytes == memory.bytes == sum(memory.maps.values())
