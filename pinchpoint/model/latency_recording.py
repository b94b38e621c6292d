"""Per-I/O latency recorded in the kernel (eBPF, `docs/ebpf.md`): per block device and
operation, a histogram of each request's device time (issue to completion), of its time queued
in the block layer (insertion to issue), of its whole time there (insertion or issue to
completion) and of its size.

Latencies use the one histogram scheme of `model/histogram.py`, so a recording merges with
every other histogram exactly. Sizes keep the recorder's own log-linear buckets of bytes
(8 per power of two), whose bounds `size_bounds` gives.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from pinchpoint.model.histogram import LatencyHistogram

SIZE_SUB_BITS = 3  # the recorder's buckets per power of two, as bits
SIZE_SUB_BUCKETS = 1 << SIZE_SUB_BITS


class BlockOp(StrEnum):
    """What a request does (the kernel's REQ_OP_* of it)."""

    READ = "read"
    WRITE = "write"
    FLUSH = "flush"
    DISCARD = "discard"
    OTHER = "other"  # secure erase, write zeroes, zone management, driver commands


def size_bounds(index: int) -> tuple[int, int]:
    """[low, high) in bytes of the recorder's size bucket `index`: the value itself below 8,
    then 8 equal steps per power of two."""
    if index < SIZE_SUB_BUCKETS:
        return index, index + 1
    octave = index // SIZE_SUB_BUCKETS + SIZE_SUB_BITS - 1
    sub = index % SIZE_SUB_BUCKETS
    width = 1 << (octave - SIZE_SUB_BITS)
    low = (1 << octave) + sub * width
    return low, low + width


class OpRecording(BaseModel):
    """One operation's requests on one device during the recording."""

    op: BlockOp
    device_time: LatencyHistogram = Field(default_factory=LatencyHistogram)
    # Requests that went through the block layer's queue (a scheduler or a plug) before being
    # issued; requests issued directly are not in it.
    queue_time: LatencyHistogram = Field(default_factory=LatencyHistogram)
    # The whole time in the block layer: from insertion (or issue, for a request issued
    # directly) to completion — what iostat's r_await and w_await average.
    total_time: LatencyHistogram = Field(default_factory=LatencyHistogram)
    sizes: dict[int, int] = Field(default_factory=dict)  # size bucket index -> requests
    bytes: int = 0


class DeviceRecording(BaseModel):
    """One block device's requests: `dev` is major:minor, `name` the kernel name (`sda`,
    `nvme0n1`, `loop0`) and `wwid` its stable id where it has one."""

    dev: str
    name: str | None = None
    wwid: str | None = None
    ops: list[OpRecording] = Field(default_factory=list)

    def op(self, op: BlockOp) -> OpRecording | None:
        return next((o for o in self.ops if o.op is op), None)


class ProgramCost(BaseModel):
    """What one BPF program cost, from the kernel's own statistics (run time is counted only
    while `kernel.bpf_stats_enabled` is on or the recorder asked for it)."""

    name: str
    run_count: int = 0
    run_time_ns: int = 0
    recursion_misses: int = 0  # runs the kernel skipped: I/Os that were not seen


class RecorderLayout(StrEnum):
    """How the recorder keeps its histograms in the kernel (docs/ebpf.md, memory)."""

    PERCPU = "percpu"  # a value per CPU per entry, plain adds: fastest, grows with the CPUs
    SHARED = "shared"  # one value per entry, atomic adds: the same memory on any CPU count


class RecorderMemory(BaseModel):
    """What the recorder's kernel maps take and why: the layout it chose within the budget
    (per-CPU where the budget holds four entries per disk — read, write, flush, discard —
    else shared), the entries the budget holds, and each map's memory as the kernel charges
    it (memlock)."""

    layout: RecorderLayout
    cpus: int  # possible CPUs: per-CPU values are allocated for each
    budget_bytes: int
    capacity: int  # (device, operation) entries the budget holds in this layout
    disks: int  # disks whose read and write entries were made before attaching
    needed_percpu_bytes: int  # what each layout needs for every disk's entries
    needed_shared_bytes: int
    estimated_bytes: int  # the recorder's own estimate of `bytes`, made before its maps were
    bytes: int  # every map's memlock, when the line was printed
    maps: dict[str, int] = Field(default_factory=dict)  # memlock by map name


class BlockRecording(BaseModel):
    """Everything one recording saw, over `seconds` from the moment the probes were
    attached."""

    source: Literal["ebpf"] = "ebpf"
    seconds: float
    devices: list[DeviceRecording] = Field(default_factory=list)
    programs: list[ProgramCost] = Field(default_factory=list)
    # Requests the recorder could not account, by reason (its maps full, no disk on the
    # request): with recursion misses, what a reader must know before trusting the counts.
    drops: dict[str, int] = Field(default_factory=dict)
    # None for a recorder older than the memory budget (a snapshot's, an import's)
    memory: RecorderMemory | None = None

    @property
    def recursion_misses(self) -> int:
        return sum(p.recursion_misses for p in self.programs)

    @property
    def lost(self) -> int:
        """Requests the kernel or the recorder did not account."""
        return self.recursion_misses + sum(self.drops.values())
