"""The kernel latency recorder's recording of a simulated workload (`record_latency`): read back
by the real parser, it counts in the sampled window exactly what the simulated diskstats count,
with the same device time; its buckets are the recorder's."""

from __future__ import annotations

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.parse.biolat import latency_bucket, parse_recording
from pinchpoint.model.histogram import bucket_index
from pinchpoint.model.latency_recording import BlockOp, size_bounds
from pinchpoint.simulator import load_spec, spec_from_data
from pinchpoint.simulator.fc import fc_view
from pinchpoint.simulator.snapshot_writer import kernel_view
from pinchpoint.simulator.workload import run_workload
from pinchpoint.simulator.workload_biolat import raw_bucket, recording_line
from pinchpoint.simulator.workload_diskstats import block_devices

SECTOR = 512


@pytest.mark.parametrize("value", [0, 1, 7, 8, 9, 15, 16, 1023, 1024, 1500, 10**6, 3 * 10**9])
def test_buckets_are_the_recorders(value: int) -> None:
    raw = raw_bucket(value)
    assert latency_bucket(raw) == bucket_index(value)  # as the parser converts a time
    low, high = size_bounds(raw)  # as the model reads a size
    assert low <= value < high


def test_the_recording_counts_what_the_diskstats_count() -> None:
    spec = load_spec(SPECS / "prometheus_host.toml")
    assert spec.workload is not None and spec.workload.record_latency
    view = kernel_view(spec)
    fc = fc_view(spec, view)
    workload = run_workload(spec, view, fc)
    assert workload is not None
    recording = parse_recording(recording_line(spec, view, fc, workload).decode())
    assert recording.seconds == (spec.workload.samples - 1) * spec.workload.interval_s
    names = {f"{d.major}:{d.minor}": d.name for d in block_devices(spec, view, fc)}
    checked = 0
    for device in recording.devices:
        samples = workload.series[names[device.dev]].samples
        first, last = samples[0], samples[-1]
        for op, ios, sectors, ms in (
            (BlockOp.READ, "reads", "sectors_read", "read_ms"),
            (BlockOp.WRITE, "writes", "sectors_written", "write_ms"),
        ):
            done = getattr(last, ios) - getattr(first, ios)
            recorded = device.op(op)
            if recorded is None:
                assert done == 0, (device.dev, op)
                continue
            assert recorded.device_time.count == recorded.total_time.count == done
            assert recorded.bytes == (getattr(last, sectors) - getattr(first, sectors)) * SECTOR
            device_ms = recorded.device_time.sum_ns / 1e6
            assert abs(device_ms - (getattr(last, ms) - getattr(first, ms))) < 1
            assert recorded.total_time.sum_ns >= recorded.device_time.sum_ns
            assert recorded.queue_time.count <= done
            checked += 1
    # 36 disks' paths (written), 6 LUN paths and 3 maps (read and written)
    assert checked >= 60


def test_without_record_latency_no_recording() -> None:
    data = load_spec(SPECS / "prometheus_host.toml").model_dump(exclude_none=True)
    data["workload"]["record_latency"] = False
    spec = spec_from_data(data)
    view = kernel_view(spec)
    workload = run_workload(spec, view, fc_view(spec, view))
    assert workload is not None and workload.recorded == {}
