"""Per-I/O latency recorded in the kernel, as statistics: the JSON `pinchpoint stats record
--json` prints (`"source": "ebpf"`), and the recording itself (`BlockRecording`, from a live
recording or a snapshot's `commands/biolat/recording.json`).

Each device becomes a block device entity with real distributions: `read`/`write` histograms
of the whole time in the block layer (what iostat's r_await and w_await average) and
`disk_wait/read`/`disk_wait/write` of the device time, and one point over the window with its
IOPS, throughput, mean latencies, request sizes and queue (Little's law: the time all requests
spent in the block layer over the window's length, iostat's aqu-sz).
"""

from __future__ import annotations

import json
import math
from typing import Any

from pinchpoint.checks.parse.importers.series import StatsImportError
from pinchpoint.model.histogram import LatencyHistogram, bucket_index
from pinchpoint.model.latency_recording import (
    BlockOp,
    BlockRecording,
    DeviceRecording,
    OpRecording,
)
from pinchpoint.model.stats import (
    EntityStats,
    HistogramKind,
    ImportedStats,
    ImportKind,
    Metric,
    StatPoint,
    StatsEntityKind,
)

__all__ = ["parse_ebpf_json", "recording_imported"]

# direction: whole-time histogram, device-time histogram, IOPS, kB/s, mean, device mean, size
DIRECTIONS = {
    BlockOp.READ: (
        HistogramKind.READ,
        HistogramKind.DISK_WAIT_READ,
        Metric.READ_IOPS,
        Metric.READ_KBPS,
        Metric.READ_LATENCY_MS,
        Metric.DISK_READ_LATENCY_MS,
        Metric.READ_SIZE_KB,
    ),
    BlockOp.WRITE: (
        HistogramKind.WRITE,
        HistogramKind.DISK_WAIT_WRITE,
        Metric.WRITE_IOPS,
        Metric.WRITE_KBPS,
        Metric.WRITE_LATENCY_MS,
        Metric.DISK_WRITE_LATENCY_MS,
        Metric.WRITE_SIZE_KB,
    ),
}


def _device_entity(device: DeviceRecording, seconds: float) -> EntityStats:
    entity = EntityStats(name=device.name or device.dev, kind=StatsEntityKind.BLOCK_DEVICE)
    values: dict[Metric, float] = {}
    queued_ns = 0
    for op in device.ops:
        queued_ns += op.total_time.sum_ns
        if op.op not in DIRECTIONS:
            continue
        whole, disk, iops, kbps, mean, disk_mean, size = DIRECTIONS[op.op]
        count = op.device_time.count
        if op.total_time.count:
            entity.histograms[whole] = op.total_time
        if count:
            entity.histograms[disk] = op.device_time
        values[iops] = count / seconds
        values[kbps] = op.bytes / 1024 / seconds
        if op.total_time.count:
            values[mean] = op.total_time.sum_ns / op.total_time.count / 1e6
        if count:
            values[disk_mean] = op.device_time.sum_ns / count / 1e6
            values[size] = op.bytes / count / 1024
    values[Metric.QUEUE] = queued_ns / 1e9 / seconds
    entity.points.append(StatPoint(offset_s=seconds, interval_s=seconds, values=values))
    return entity


def recording_imported(recording: BlockRecording, source_name: str) -> ImportedStats:
    """A recording as imported statistics, one block device entity per recorded device."""
    if recording.seconds <= 0:
        raise StatsImportError(f"{source_name}: the recording lasted no time")
    imported = ImportedStats(kind=ImportKind.EBPF, source_name=source_name)
    imported.entities = [_device_entity(d, recording.seconds) for d in recording.devices]
    if recording.lost:
        imported.problems.append(
            f"{recording.lost} I/Os were not accounted by the recorder (recursion misses or "
            "full maps): counts are low by that much"
        )
    return imported


# -- the JSON of `stats record --json` ----------------------------------------------------


def _number(data: dict[str, Any], key: str, where: str) -> float:
    value = data.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise StatsImportError(f"{where}: '{key}' is not a number")
    if value < 0:
        raise StatsImportError(f"{where}: '{key}' is negative")
    return float(value)


def _histogram(data: Any, where: str) -> LatencyHistogram:
    """A latency summary (`count`, `mean_us`, `max_us`, `buckets` `[upper_us, count]`) back
    into a histogram: each upper bound is a bound of the one bucket scheme."""
    if not isinstance(data, dict):
        raise StatsImportError(f"{where}: not an object")
    buckets = data.get("buckets")
    if not isinstance(buckets, list):
        raise StatsImportError(f"{where}: 'buckets' is not a list")
    counts: dict[int, int] = {}
    for row in buckets:
        if (
            not isinstance(row, list)
            or len(row) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in row)
            or not math.isfinite(row[0])
            or row[0] <= 0
            or row[1] < 0
            or row[1] != int(row[1])
        ):
            raise StatsImportError(f"{where}: a bucket is not [upper_us, count]: {row!r:.60}")
        index = bucket_index(max(0, round(row[0] * 1000) - 1))
        counts[index] = counts.get(index, 0) + int(row[1])
    count = sum(counts.values())
    if count == 0:
        return LatencyHistogram()
    mean = data.get("mean_us")
    largest = data.get("max_us")
    sum_ns = round(mean * 1000 * count) if isinstance(mean, int | float) and mean > 0 else 0
    max_ns = round(largest * 1000) if isinstance(largest, int | float) and largest > 0 else None
    try:
        return LatencyHistogram.from_counts(counts, sum_ns, None, max_ns)
    except ValueError as err:
        raise StatsImportError(f"{where}: {err}") from None


def _op(data: Any, where: str) -> OpRecording:
    if not isinstance(data, dict) or data.get("op") not in {o.value for o in BlockOp}:
        raise StatsImportError(f"{where}: not an op of read, write, flush, discard or other")
    where = f"{where} {data['op']}"
    op = OpRecording(op=BlockOp(data["op"]), device_time=_histogram(data, where))
    if "total" in data:
        op.total_time = _histogram(data["total"], f"{where} total")
    if "queued" in data:
        op.queue_time = _histogram(data["queued"], f"{where} queued")
    if "bytes" in data:
        op.bytes = int(_number(data, "bytes", where))
    return op


def parse_ebpf_json(text: str, source_name: str) -> ImportedStats:
    """The JSON `pinchpoint stats record --json` prints, as imported statistics."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        raise StatsImportError(f"{source_name}: not JSON ({err})") from None
    if not isinstance(data, dict) or data.get("source") != "ebpf":
        raise StatsImportError(f"{source_name}: not the JSON of `pinchpoint stats record`")
    seconds = _number(data, "seconds", source_name)
    devices = data.get("devices")
    if not isinstance(devices, list):
        raise StatsImportError(f"{source_name}: 'devices' is not a list")
    recording = BlockRecording(seconds=seconds)
    for number, item in enumerate(devices, start=1):
        where = f"{source_name}: device {number}"
        if not isinstance(item, dict) or not isinstance(item.get("device"), str):
            raise StatsImportError(f"{where}: no device name")
        ops = item.get("ops")
        if not isinstance(ops, list):
            raise StatsImportError(f"{where}: 'ops' is not a list")
        recording.devices.append(
            DeviceRecording(
                dev=str(item.get("dev") or ""),
                name=item["device"],
                wwid=item.get("id") if isinstance(item.get("id"), str) else None,
                ops=[_op(op, where) for op in ops],
            )
        )
    return recording_imported(recording, source_name)
