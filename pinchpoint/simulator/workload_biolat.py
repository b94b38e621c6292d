"""`pinchpoint-biolat`'s recording of a simulated workload (`[workload] record_latency`), as
`capture --record-seconds` keeps one in a snapshot (`commands/biolat/recording.json`).

One line, the recorder's final one (`pinchpoint/checks/parse/biolat.py` reads it): over the
sampled window, for each loaded block device and operation, `totals` rows `[dev, op, kind,
count, sum, max]` and `buckets` rows `[dev, op, kind, bucket, count]` of its I/Os' time queued
(kind 1), on the device (0) and in the block layer in all (3), in ns, and of their sizes in bytes
(2); `dev` is the kernel's internal dev_t (major << 20 | minor), buckets the recorder's
log-linear index, 8 per power of two (`bpf/biolat.h`). The times are the workload's own: each
I/O's arrival, issue and completion in its device's queue (docs/simulator-workload.md).
"""

from __future__ import annotations

import json
from collections import Counter

from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fc import FcView
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.tree_writer import TreeWriter
from pinchpoint.simulator.workload import WorkloadResult
from pinchpoint.simulator.workload_diskstats import block_devices

RECORDING = "commands/biolat/recording.json"
SUB_BITS = 3  # the recorder's buckets per power of two, as bits
READ, WRITE = 0, 1  # REQ_OP_READ, REQ_OP_WRITE
DEVICE, QUEUE, SIZE, TOTAL = 0, 1, 2, 3


def raw_bucket(value: int) -> int:
    """The recorder's bucket of a value: the value itself below 8, then 8 per power of two."""
    if value < 1 << SUB_BITS:
        return max(value, 0)
    octave = value.bit_length() - 1
    sub = (value >> (octave - SUB_BITS)) & ((1 << SUB_BITS) - 1)
    return (octave - SUB_BITS + 1) * (1 << SUB_BITS) + sub


def _rows(dev: int, op: int, kind: int, values: list[int]) -> tuple[list[int], list[list[int]]]:
    counts = Counter(map(raw_bucket, values))
    total = [dev, op, kind, len(values), sum(values), max(values)]
    return total, [[dev, op, kind, bucket, n] for bucket, n in sorted(counts.items())]


def _size_rows(dev: int, op: int, size: int, ios: int) -> tuple[list[int], list[list[int]]]:
    """Every I/O of a load has its size: one bucket."""
    return [dev, op, SIZE, ios, size * ios, size], [[dev, op, SIZE, raw_bucket(size), ios]]


def recording_line(spec: HostSpec, view: KernelView, fc: FcView, workload: WorkloadResult) -> bytes:
    """The recorder's final line for the workload's window."""
    devt = {d.name: (d.major << 20) | d.minor for d in block_devices(spec, view, fc)}
    totals: list[list[int]] = []
    buckets: list[list[int]] = []
    for device, recorded in sorted(workload.recorded.items()):
        dev = devt.get(device)
        if dev is None:
            continue
        for op, is_read in ((READ, True), (WRITE, False)):
            ios = [io for io in recorded.ios if io[0] is is_read]
            if not ios:
                continue
            for total, rows in (
                _rows(dev, op, DEVICE, [io[2] for io in ios]),
                _rows(dev, op, TOTAL, [io[3] for io in ios]),
                _size_rows(dev, op, recorded.io_bytes, len(ios)),
            ):
                totals.append(total)
                buckets.extend(rows)
            queued = [io[1] for io in ios if io[1] > 0]  # those that waited in the queue
            if queued:
                total, rows = _rows(dev, op, QUEUE, queued)
                totals.append(total)
                buckets.extend(rows)
    line = {
        "format": 1,
        "final": True,
        "elapsed_ns": workload.window_ns,
        "sub_buckets": 1 << SUB_BITS,
        "programs": [],
        "drops": {"start_map_full": 0, "histogram_map_full": 0, "no_disk": 0},
        "totals": totals,
        "buckets": buckets,
    }
    return json.dumps(line, separators=(",", ":")).encode() + b"\n"


def write_recording(
    writer: TreeWriter, spec: HostSpec, view: KernelView, fc: FcView, workload: WorkloadResult
) -> None:
    """`commands/biolat/recording.json`, when the workload asks for a recording."""
    writer.mkdir("commands/biolat")
    writer.write(RECORDING, recording_line(spec, view, fc, workload))
