"""The output of `pinchpoint-biolat` (`bpf/biolat.c`): one JSON object per line, counts
cumulative since the probes were attached; the last line (`"final": true`) is the whole
recording.

Each line holds `totals` rows `[dev, op, kind, count, sum, max]` and `buckets` rows
`[dev, op, kind, bucket, count]`, where `dev` is the kernel's internal dev_t
(major << 20 | minor), `op` the request's REQ_OP_*, `kind` 0 device time, 1 queued time and
3 whole time in the block layer in nanoseconds, 2 size in bytes, and `bucket` the recorder's
log-linear index (8 per power of two, `bpf/biolat.h`). Latency buckets are turned into the
project's histogram buckets exactly: the two schemes cut the same octaves the same way.
"""

from __future__ import annotations

import json
from typing import Any

from pinchpoint.model.histogram import (
    FIRST_OCTAVE,
    LAST_OCTAVE,
    OVERFLOW_BUCKET,
    SUB_BUCKET_BITS,
    SUB_BUCKETS,
    UNDERFLOW_BUCKET,
    LatencyHistogram,
)
from pinchpoint.model.latency_recording import (
    BlockOp,
    BlockRecording,
    DeviceRecording,
    OpRecording,
    ProgramCost,
    RecorderLayout,
    RecorderMemory,
)

FORMAT = 1
KIND_DEVICE, KIND_QUEUE, KIND_SIZE, KIND_TOTAL = 0, 1, 2, 3
LAST_KIND = KIND_TOTAL
MAX_RAW_BUCKET = (64 - SUB_BUCKET_BITS) * SUB_BUCKETS + SUB_BUCKETS - 1
_OPS = {0: BlockOp.READ, 1: BlockOp.WRITE, 2: BlockOp.FLUSH, 3: BlockOp.DISCARD}


class BiolatParseError(ValueError):
    """The recorder's output is not what it prints."""


def latency_bucket(raw: int) -> int:
    """The project's histogram bucket (`model/histogram.py`) of the recorder's bucket `raw`
    of nanoseconds."""
    if raw < SUB_BUCKETS:
        return UNDERFLOW_BUCKET
    octave = raw // SUB_BUCKETS + SUB_BUCKET_BITS - 1
    if octave < FIRST_OCTAVE:
        return UNDERFLOW_BUCKET
    if octave > LAST_OCTAVE:
        return OVERFLOW_BUCKET
    return 1 + (octave - FIRST_OCTAVE) * SUB_BUCKETS + raw % SUB_BUCKETS


def dev_name(dev: int) -> str:
    """major:minor of the kernel's internal dev_t (20 bits of minor)."""
    return f"{dev >> 20}:{dev & 0xFFFFF}"


def _ints(row: Any, length: int, what: str) -> list[int]:
    if (
        not isinstance(row, list)
        or len(row) != length
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row)
    ):
        raise BiolatParseError(f"a {what} row is not {length} non-negative integers: {row!r:.80}")
    return row


def _last_object(text: str) -> dict[str, Any]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise BiolatParseError("the recorder printed nothing")
    try:
        data = json.loads(lines[-1])
    except (json.JSONDecodeError, RecursionError) as err:
        raise BiolatParseError(f"the recorder's last line is not JSON ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BiolatParseError(f"not the recorder's output format {FORMAT}")
    return data


def _programs(data: dict[str, Any]) -> list[ProgramCost]:
    programs = data.get("programs", [])
    if not isinstance(programs, list):
        raise BiolatParseError("'programs' is not a list")
    found = []
    for item in programs:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise BiolatParseError(f"a program entry is not an object with a name: {item!r:.80}")
        found.append(
            ProgramCost(
                name=item["name"],
                run_count=int(item.get("run_cnt", 0)),
                run_time_ns=int(item.get("run_time_ns", 0)),
                recursion_misses=int(item.get("recursion_misses", 0)),
            )
        )
    return found


def _count(data: dict[str, Any], key: str, what: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BiolatParseError(f"{what} {key!r} is missing or not a non-negative integer")
    return value


def _memory(data: dict[str, Any]) -> RecorderMemory | None:
    """The layout and map memory the recorder reports (None from a recorder before them)."""
    memory = data.get("memory")
    if memory is None:
        return None
    if not isinstance(memory, dict):
        raise BiolatParseError("'memory' is not an object")
    layout = memory.get("layout")
    if layout not in {member.value for member in RecorderLayout}:
        raise BiolatParseError(f"the memory layout {layout!r:.40} is not percpu or shared")
    needed, maps = memory.get("needed_bytes"), memory.get("maps")
    if not isinstance(needed, dict) or not isinstance(maps, dict):
        raise BiolatParseError("'memory' lacks its 'needed_bytes' or 'maps' objects")
    return RecorderMemory(
        layout=RecorderLayout(layout),
        cpus=_count(memory, "cpus", "memory"),
        budget_bytes=_count(memory, "budget_bytes", "memory"),
        capacity=_count(memory, "capacity", "memory"),
        disks=_count(memory, "disks", "memory"),
        needed_percpu_bytes=_count(needed, "percpu", "needed_bytes"),
        needed_shared_bytes=_count(needed, "shared", "needed_bytes"),
        estimated_bytes=_count(memory, "estimated_bytes", "memory"),
        bytes=_count(memory, "bytes", "memory"),
        maps={str(name): _count(maps, name, "maps") for name in maps},
    )


def parse_recording(text: str) -> BlockRecording:
    """The recording in the recorder's last line of output (device names and ids are the
    collector's to fill in)."""
    data = _last_object(text)
    elapsed = data.get("elapsed_ns")
    if not isinstance(elapsed, int) or elapsed < 0:
        raise BiolatParseError("'elapsed_ns' is missing or not a count of nanoseconds")
    if data.get("sub_buckets") != SUB_BUCKETS:
        raise BiolatParseError(f"the recorder's buckets are not {SUB_BUCKETS} per power of two")
    totals, buckets = data.get("totals"), data.get("buckets")
    if not isinstance(totals, list) or not isinstance(buckets, list):
        raise BiolatParseError("'totals' or 'buckets' is missing")
    drops = data.get("drops", {})
    if not isinstance(drops, dict) or not all(isinstance(v, int) for v in drops.values()):
        raise BiolatParseError("'drops' is not an object of counts")

    ops: dict[tuple[int, BlockOp], OpRecording] = {}

    def op_of(dev: int, code: int) -> OpRecording:
        op = _OPS.get(code, BlockOp.OTHER)
        return ops.setdefault((dev, op), OpRecording(op=op))

    latency_counts: dict[tuple[int, BlockOp, int], dict[int, int]] = {}
    for row in buckets:
        dev, code, kind, raw, count = _ints(row, 5, "bucket")
        if raw > MAX_RAW_BUCKET or kind > LAST_KIND:
            raise BiolatParseError(f"a bucket row is out of range: {row!r:.80}")
        recorded = op_of(dev, code)
        if kind == KIND_SIZE:
            recorded.sizes[raw] = recorded.sizes.get(raw, 0) + count
        else:
            counts = latency_counts.setdefault((dev, recorded.op, kind), {})
            index = latency_bucket(raw)
            counts[index] = counts.get(index, 0) + count
    for row in totals:
        dev, code, kind, count, total, largest = _ints(row, 6, "total")
        if kind > LAST_KIND:
            raise BiolatParseError(f"a total row is out of range: {row!r:.80}")
        recorded = op_of(dev, code)
        if kind == KIND_SIZE:
            recorded.bytes += total
            continue
        counts = latency_counts.get((dev, recorded.op, kind), {})
        histogram = LatencyHistogram.from_counts(counts, total, None, largest or None)
        {
            KIND_DEVICE: recorded.device_time,
            KIND_QUEUE: recorded.queue_time,
            KIND_TOTAL: recorded.total_time,
        }[kind].merge_from(histogram)

    devices: dict[int, DeviceRecording] = {}
    for (dev, _op), recorded in sorted(
        ops.items(), key=lambda i: (i[0][0], list(BlockOp).index(i[0][1]))
    ):
        devices.setdefault(dev, DeviceRecording(dev=dev_name(dev))).ops.append(recorded)
    return BlockRecording(
        seconds=elapsed / 1e9,
        devices=list(devices.values()),
        programs=_programs(data),
        drops={str(k): v for k, v in drops.items()},
        memory=_memory(data),
    )
