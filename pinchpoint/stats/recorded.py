"""What a per-I/O latency recording says, per device and operation, in the figures
`pinchpoint stats record` prints and the API returns: counts, percentiles in microseconds and
the buckets themselves as `[upper bound, count]` (count per bucket, not cumulative) — of the
device time, the whole time in the block layer (`total`) and the time queued (`queued`).
`stats import` reads this JSON back (`checks/parse/importers/ebpf_json.py`)."""

from __future__ import annotations

from typing import Any

from pinchpoint.model.histogram import LatencyHistogram, bucket_bounds_ns
from pinchpoint.model.latency_recording import (
    BlockRecording,
    DeviceRecording,
    OpRecording,
    size_bounds,
)

PERCENTILES = (50, 90, 99)


def _us(value_s: float | None) -> float | None:
    return None if value_s is None else round(value_s * 1e6, 1)


def latency_summary(histogram: LatencyHistogram) -> dict[str, Any]:
    """count, p50_us, p90_us, p99_us, max_us, mean_us and the buckets `[upper_us, count]` (the
    open-ended slowest bucket's upper bound is the largest latency seen)."""
    buckets: list[list[float | int]] = []
    for index in sorted(histogram.counts):
        _low, high = bucket_bounds_ns(index)
        upper = high if high is not None else (histogram.max_ns or 0)
        buckets.append([round(upper / 1000, 3), histogram.counts[index]])
    summary: dict[str, Any] = {"count": histogram.count}
    for percent in PERCENTILES:
        summary[f"p{percent}_us"] = _us(histogram.percentile_s(percent))
    summary["max_us"] = _us(histogram.max_s())
    summary["mean_us"] = _us(histogram.mean_s())
    summary["buckets"] = buckets
    return summary


def op_summary(op: OpRecording, seconds: float) -> dict[str, Any]:
    """One operation on one device: its device time, its queued time and its sizes."""
    device = op.device_time
    summary: dict[str, Any] = {"op": op.op.value, **latency_summary(device)}
    summary["iops"] = round(device.count / seconds, 1) if seconds > 0 else None
    summary["mb_per_s"] = round(op.bytes / seconds / 1e6, 3) if seconds > 0 else None
    summary["mean_size_bytes"] = round(op.bytes / device.count) if device.count else None
    summary["bytes"] = op.bytes
    summary["total"] = latency_summary(op.total_time)
    summary["queued"] = latency_summary(op.queue_time)
    summary["size_buckets"] = [
        [size_bounds(index)[1], count] for index, count in sorted(op.sizes.items())
    ]
    return summary


def device_summary(device: DeviceRecording, seconds: float) -> dict[str, Any]:
    return {
        "device": device.name or device.dev,
        "dev": device.dev,
        "id": device.wwid,
        "ops": [op_summary(op, seconds) for op in device.ops],
    }


def recording_summary(recording: BlockRecording) -> dict[str, Any]:
    """The whole recording as `stats record --json` prints it."""
    seconds = recording.seconds
    return {
        "source": recording.source,
        "seconds": round(seconds, 3),
        "lost": {
            "recursion_misses": recording.recursion_misses,
            **recording.drops,
        },
        "programs": [
            {
                "name": p.name,
                "runs": p.run_count,
                "run_time_ns": p.run_time_ns,
                "ns_per_run": round(p.run_time_ns / p.run_count, 1) if p.run_count else None,
                "recursion_misses": p.recursion_misses,
            }
            for p in recording.programs
        ],
        "devices": [device_summary(d, seconds) for d in recording.devices],
    }


__all__ = ["device_summary", "latency_summary", "op_summary", "recording_summary"]
