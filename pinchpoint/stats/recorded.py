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
    RecorderMemory,
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


def memory_summary(memory: RecorderMemory | None) -> dict[str, Any] | None:
    """The recorder's layout and what its kernel maps take (None from an older recorder)."""
    if memory is None:
        return None
    return {
        "layout": memory.layout.value,
        "cpus": memory.cpus,
        "budget_bytes": memory.budget_bytes,
        "bytes": memory.bytes,
        "entries": memory.capacity,
        "disks": memory.disks,
        "needed_bytes": {
            "percpu": memory.needed_percpu_bytes,
            "shared": memory.needed_shared_bytes,
        },
        "maps": dict(memory.maps),
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
        "map_memory": memory_summary(recording.memory),
        "devices": [device_summary(d, seconds) for d in recording.devices],
    }


def histogram_delta(before: LatencyHistogram, after: LatencyHistogram) -> LatencyHistogram | None:
    """What `after` counted since `before` (both cumulative); None when a count went down (the
    recorder restarted). The maximum is known only when it rose in between."""
    counts = {}
    for index, count in after.counts.items():
        grown = count - before.counts.get(index, 0)
        if grown < 0:
            return None
        if grown:
            counts[index] = grown
    if any(index not in after.counts for index in before.counts):
        return None
    rose = after.max_ns is not None and (before.max_ns is None or after.max_ns > before.max_ns)
    return LatencyHistogram.from_counts(
        counts, max(0, after.sum_ns - before.sum_ns), None, after.max_ns if rose else None
    )


def _op_delta(before: OpRecording | None, after: OpRecording) -> OpRecording | None:
    if before is None:
        return after
    device = histogram_delta(before.device_time, after.device_time)
    queue = histogram_delta(before.queue_time, after.queue_time)
    total = histogram_delta(before.total_time, after.total_time)
    if device is None or queue is None or total is None:
        return None
    sizes = {i: n - before.sizes.get(i, 0) for i, n in after.sizes.items()}
    return OpRecording(
        op=after.op,
        device_time=device,
        queue_time=queue,
        total_time=total,
        sizes={i: n for i, n in sizes.items() if n > 0},
        bytes=max(0, after.bytes - before.bytes),
    )


def recording_delta(before: BlockRecording | None, after: BlockRecording) -> BlockRecording:
    """The requests `after` counted since `before` (two cumulative lines of one recorder): one
    interval's recording. Without `before`, or after a restart, `after` whole."""
    if before is None or after.seconds < before.seconds:
        return after
    earlier = {d.dev: d for d in before.devices}
    devices = []
    for device in after.devices:
        previous = earlier.get(device.dev)
        ops = []
        for op in device.ops:
            delta = _op_delta(previous.op(op.op) if previous else None, op)
            if delta is None:
                return after
            if delta.device_time.count or delta.bytes:
                ops.append(delta)
        if ops:
            devices.append(device.model_copy(update={"ops": ops}))
    return BlockRecording(
        seconds=after.seconds - before.seconds,
        devices=devices,
        programs=after.programs,
        drops={k: v - before.drops.get(k, 0) for k, v in after.drops.items()},
        memory=after.memory,  # what the maps take now
    )


def _histogram_repeated(histogram: LatencyHistogram, times: int) -> LatencyHistogram:
    return LatencyHistogram.from_counts(
        {i: n * times for i, n in histogram.counts.items()},
        histogram.sum_ns * times,
        histogram.min_ns,
        histogram.max_ns,
    )


def recording_repeated(recording: BlockRecording, times: int) -> BlockRecording:
    """What a recorder counts over `times` back-to-back repeats of `recording`: a snapshot's
    recording replayed once per sampler tick grows as a running recorder's counts would."""
    devices = [
        device.model_copy(
            update={
                "ops": [
                    op.model_copy(
                        update={
                            "device_time": _histogram_repeated(op.device_time, times),
                            "queue_time": _histogram_repeated(op.queue_time, times),
                            "total_time": _histogram_repeated(op.total_time, times),
                            "sizes": {i: n * times for i, n in op.sizes.items()},
                            "bytes": op.bytes * times,
                        }
                    )
                    for op in device.ops
                ]
            }
        )
        for device in recording.devices
    ]
    return recording.model_copy(update={"seconds": recording.seconds * times, "devices": devices})


# The `le` bounds of the Prometheus histogram of recorded latency: few and fixed, so a host's
# series stay bounded (18 per disk and op), from 100 µs (an SSD read) to 10 s (a stuck path).
EXPOSED_BOUNDS_S = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip


def cumulative_counts(histogram: LatencyHistogram, bounds_s: tuple[float, ...]) -> list[int]:
    """For each bound, the I/Os certainly at or below it: those in buckets whose upper edge is
    at most the bound (a bucket straddling it counts at the next bound up)."""
    found = []
    for bound in bounds_s:
        limit = round(bound * 1e9)
        found.append(
            sum(
                count
                for index, count in histogram.counts.items()
                if (high := bucket_bounds_ns(index)[1]) is not None and high <= limit
            )
        )
    return found


def recorded_by_disk(
    recording: BlockRecording, disk_of: dict[str, str]
) -> dict[tuple[str, str], LatencyHistogram]:
    """Device time per (disk, op): a device's kernel name mapped through `disk_of` (a SAS
    disk's paths to the disk's id, summed), else its WWID, else its kernel name."""
    found: dict[tuple[str, str], LatencyHistogram] = {}
    for device in recording.devices:
        name = device.name or device.dev
        disk = disk_of.get(name) or device.wwid or name
        for op in device.ops:
            histogram = found.setdefault((disk, op.op.value), LatencyHistogram())
            histogram.merge_from(op.device_time)
    return found


__all__ = [
    "EXPOSED_BOUNDS_S",
    "cumulative_counts",
    "device_summary",
    "histogram_delta",
    "latency_summary",
    "memory_summary",
    "op_summary",
    "recorded_by_disk",
    "recording_delta",
    "recording_repeated",
    "recording_summary",
]
