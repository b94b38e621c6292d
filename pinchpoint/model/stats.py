"""Latency and load statistics: diskstats samples, iostat figures, imported series.

Three kinds of numbers arrive here. Raw `/proc/diskstats` counters (`DiskstatsSample`), from
which the figures `iostat -x` prints are computed between two samples (`IntervalFigures`);
series imported from other tools (`ImportedStats`: `zpool iostat`, `iostat`, fio, Windows
PerfMon), made of timed points of named metrics and latency histograms; and what both look like
once attached to the inventory and summed along the hierarchy (`pinchpoint.stats`).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.problems import CollectionProblem


class ParseSkips(BaseModel):
    """Lines (or cells) a parser could not use: how many, and the first one, so a user can see
    what was wrong without the import failing."""

    count: int = 0
    first_line_number: int | None = None
    first_example: str | None = None
    first_reason: str | None = None

    def add(self, line_number: int | None, text: str, reason: str) -> None:
        """Count one unusable line; the first is kept as the example."""
        self.count += 1
        if self.first_example is None:
            self.first_line_number = line_number
            self.first_example = text[:200]
            self.first_reason = reason

    def summary(self) -> str | None:
        """`3 lines skipped, first (line 7): "…": reason`, or None when nothing was skipped."""
        if self.count == 0:
            return None
        where = f" (line {self.first_line_number})" if self.first_line_number is not None else ""
        noun = "line" if self.count == 1 else "lines"
        example = f'"{self.first_example}"'
        return f"{self.count} {noun} skipped, first{where}: {example}: {self.first_reason}"


# -- /proc/diskstats -------------------------------------------------------------------------


class DiskstatsCounters(BaseModel):
    """One device's line of `/proc/diskstats` (or its `/sys/block/<dev>/stat`).

    Counters since boot; times in milliseconds, sizes in 512-byte sectors. Kernels before 4.18
    print 14 fields, 4.18 adds discards (18), 5.5 adds flushes (20); fields a kernel does not
    print are None.
    """

    model_config = ConfigDict(frozen=True)

    major: int
    minor: int
    device: str
    reads: int
    reads_merged: int
    sectors_read: int
    read_ms: int
    writes: int
    writes_merged: int
    sectors_written: int
    write_ms: int
    in_flight: int
    io_ms: int  # time the device had I/O in flight: the base of %util
    weighted_ms: int  # sum of each I/O's time in the queue: the base of aqu-sz
    discards: int | None = None
    discards_merged: int | None = None
    sectors_discarded: int | None = None
    discard_ms: int | None = None
    flushes: int | None = None
    flush_ms: int | None = None
    field_count: int = 14  # 14, 18 or 20: the layout this line came in


# The 17 counters in the kernel's order (Documentation/admin-guide/iostats.rst), as they follow
# the major, minor and name columns of /proc/diskstats: the field order of `DiskstatsCounters`.
DISKSTATS_COUNTER_FIELDS = tuple(DiskstatsCounters.model_fields)[3:-1]


class DiskstatsSample(BaseModel):
    """All devices' counters at one moment, and the clock to measure the interval with."""

    uptime_s: float | None = None  # first field of /proc/uptime read with the sample
    monotonic_s: float | None = None  # time.monotonic() when sampled live
    taken_at: datetime | None = None
    devices: list[DiskstatsCounters] = Field(default_factory=list)
    skipped: ParseSkips = Field(default_factory=ParseSkips)
    problems: list[CollectionProblem] = Field(default_factory=list)  # files missing, unreadable


class DeviceFigures(BaseModel):
    """What `iostat -x` (sysstat 12) prints for one device over one interval.

    Serialised with sysstat's own JSON key names (`by_alias`): `r/s`, `rkB/s`, `r_await`,
    `aqu-sz`, `util` … Rates are per second, sizes in kB (1024 bytes), waits in milliseconds.
    `reset` is set when the device's counters went backwards (driver reload, device replaced):
    its figures are then zero, never negative.
    """

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    device: str
    r_s: float = Field(0.0, alias="r/s")
    w_s: float = Field(0.0, alias="w/s")
    d_s: float = Field(0.0, alias="d/s")
    f_s: float = Field(0.0, alias="f/s")
    rkb_s: float = Field(0.0, alias="rkB/s")
    wkb_s: float = Field(0.0, alias="wkB/s")
    dkb_s: float = Field(0.0, alias="dkB/s")
    rrqm_s: float = Field(0.0, alias="rrqm/s")
    wrqm_s: float = Field(0.0, alias="wrqm/s")
    drqm_s: float = Field(0.0, alias="drqm/s")
    rrqm_pct: float = Field(0.0, alias="rrqm")
    wrqm_pct: float = Field(0.0, alias="wrqm")
    drqm_pct: float = Field(0.0, alias="drqm")
    r_await: float = Field(0.0, alias="r_await")
    w_await: float = Field(0.0, alias="w_await")
    d_await: float = Field(0.0, alias="d_await")
    f_await: float = Field(0.0, alias="f_await")
    rareq_sz: float = Field(0.0, alias="rareq-sz")
    wareq_sz: float = Field(0.0, alias="wareq-sz")
    dareq_sz: float = Field(0.0, alias="dareq-sz")
    aqu_sz: float = Field(0.0, alias="aqu-sz")
    util: float = Field(0.0, alias="util")
    idle: float = Field(100.0, alias="idle")
    reset: bool = False


class IntervalFigures(BaseModel):
    """Every device's figures between two samples."""

    interval_s: float
    devices: list[DeviceFigures] = Field(default_factory=list)
    appeared: list[str] = Field(default_factory=list)  # in the second sample only
    vanished: list[str] = Field(default_factory=list)  # in the first sample only
    problems: list[str] = Field(default_factory=list)  # e.g. a zero-length interval


# -- imported and aggregated series ----------------------------------------------------------


class Metric(StrEnum):
    """A load or latency figure, whatever tool measured it. Units are in the name."""

    READ_IOPS = "read_iops"
    WRITE_IOPS = "write_iops"
    READ_KBPS = "read_kB/s"
    WRITE_KBPS = "write_kB/s"
    READ_LATENCY_MS = "read_latency_ms"  # mean time per read, queue included
    WRITE_LATENCY_MS = "write_latency_ms"
    LATENCY_MS = "latency_ms"  # mean over reads and writes where a tool gives no split
    QUEUE = "queue"  # I/Os active plus waiting, averaged over the interval (aqu-sz)
    UTIL_PCT = "util_pct"  # share of time with I/O in flight
    IDLE_PCT = "idle_pct"
    READ_SIZE_KB = "read_size_kB"
    WRITE_SIZE_KB = "write_size_kB"
    DISK_READ_LATENCY_MS = "disk_read_latency_ms"  # zpool iostat -l disk_wait: device only
    DISK_WRITE_LATENCY_MS = "disk_write_latency_ms"
    CURRENT_QUEUE = "current_queue"  # I/Os outstanding at the sample instant (PerfMon)


class HistogramKind(StrEnum):
    """Which latency a histogram holds: ZFS splits the time of an I/O into stages."""

    READ = "read"  # whole latency of reads (fio completion latency, diskstats means)
    WRITE = "write"
    TOTAL_WAIT_READ = "total_wait/read"  # zpool iostat -w: queue plus disk
    TOTAL_WAIT_WRITE = "total_wait/write"
    DISK_WAIT_READ = "disk_wait/read"  # time on the device only
    DISK_WAIT_WRITE = "disk_wait/write"
    SYNCQ_WAIT_READ = "syncq_wait/read"
    SYNCQ_WAIT_WRITE = "syncq_wait/write"
    ASYNCQ_WAIT_READ = "asyncq_wait/read"
    ASYNCQ_WAIT_WRITE = "asyncq_wait/write"
    SCRUB_WAIT = "scrub_wait"
    TRIM_WAIT = "trim_wait"
    REBUILD_WAIT = "rebuild_wait"


class StatsEntityKind(StrEnum):
    """What an imported series is about, as the tool named it."""

    BLOCK_DEVICE = "block_device"  # sda, dm-3, nvme0n1
    VOLUME = "volume"  # a Windows logical disk (H:) or physical disk ("1 H:")
    POOL = "pool"  # a ZFS pool
    VDEV = "vdev"  # a ZFS vdev (mirror-0) or leaf disk
    JOB = "job"  # a fio job


class StatPoint(BaseModel):
    """The metrics of one entity over one interval ending at `at` (or `offset_s` after the
    start where the tool gives no clock)."""

    at: datetime | None = None
    offset_s: float | None = None
    interval_s: float | None = None
    values: dict[Metric, float] = Field(default_factory=dict)


class PercentilePoint(BaseModel):
    """One reported percentile (fio's `clat_ns.percentile`)."""

    kind: HistogramKind
    percent: float
    latency_s: float


class EntityStats(BaseModel):
    """Everything one source said about one entity."""

    name: str  # as the tool named it: "sda", "H:", "/dev/disk/by-id/…-part1", "mirror-0"
    kind: StatsEntityKind
    parent: str | None = None  # the pool of a vdev, the vdev of a leaf
    entity_id: str | None = None  # the inventory id this attaches to, when it does
    points: list[StatPoint] = Field(default_factory=list)
    histograms: dict[HistogramKind, LatencyHistogram] = Field(default_factory=dict)
    percentiles: list[PercentilePoint] = Field(default_factory=list)


class ImportKind(StrEnum):
    """The formats `pinchpoint stats import --kind` reads."""

    ZPOOL_IOSTAT_W = "zpool-iostat-w"  # zpool iostat -wvHp
    ZPOOL_IOSTAT_L = "zpool-iostat-l"  # zpool iostat -lvHp
    IOSTAT_TEXT = "iostat"  # iostat -x text
    IOSTAT_JSON = "iostat-json"  # iostat -x -o JSON
    FIO_JSON = "fio"  # fio --output-format=json (or json+)
    PERFMON_CSV = "perfmon"  # Windows PerfMon / relog CSV
    EBPF = "ebpf"  # pinchpoint stats record --json: per-I/O latency recorded in the kernel


class ImportedStats(BaseModel):
    """One imported file: its entities' series, and what could not be used."""

    kind: ImportKind
    source_name: str  # the file name it came from
    host: str | None = None  # from the data where it says (PerfMon counter paths, iostat header)
    started_at: datetime | None = None
    entities: list[EntityStats] = Field(default_factory=list)
    skipped: ParseSkips = Field(default_factory=ParseSkips)
    problems: list[str] = Field(default_factory=list)  # e.g. unknown counters, ignored


# -- /proc/net/dev ---------------------------------------------------------------------------


class NetDevCounters(BaseModel):
    """One interface's line of `/proc/net/dev`: counters since the interface was created.

    Bytes are as the driver counts them (Ethernet header included, no preamble or FCS). 64-bit
    on current kernels; kernels before 2.6.35 on 32-bit machines printed 32-bit counters that
    wrap. `rx_drop` includes missed packets, `rx_frame` the length, overrun, CRC and frame
    errors, `tx_carrier` the carrier, aborted, window and heartbeat errors (net-procfs.c).
    """

    model_config = ConfigDict(frozen=True)

    interface: str
    rx_bytes: int
    rx_packets: int
    rx_errs: int
    rx_drop: int
    rx_fifo: int
    rx_frame: int
    rx_compressed: int
    rx_multicast: int
    tx_bytes: int
    tx_packets: int
    tx_errs: int
    tx_drop: int
    tx_fifo: int
    tx_colls: int
    tx_carrier: int
    tx_compressed: int


class NetDevSample(BaseModel):
    """All interfaces' counters at one moment, with the clock to measure the interval with.

    Kept apart from `DiskstatsSample` (a sample of a series holds both files, read back to back,
    and the same `proc/uptime`): a host without block devices still has interfaces.
    """

    uptime_s: float | None = None  # first field of /proc/uptime read with the sample
    monotonic_s: float | None = None  # time.monotonic() when sampled live
    interfaces: list[NetDevCounters] = Field(default_factory=list)
    skipped: ParseSkips = Field(default_factory=ParseSkips)
    problems: list[CollectionProblem] = Field(default_factory=list)  # files missing, unreadable


class InterfaceFigures(BaseModel):
    """One interface's traffic between two samples, per second.

    MB is 10^6 bytes and link speeds are in Mbit/s (10^6 bits), as Ethernet counts them: a
    1 Gbit/s link carries at most 125 MB/s. `util_pct` is the busier direction against the
    negotiated speed (Ethernet is full duplex); None when the speed is unknown. Above 100 % is
    more than the link can carry: a measuring error, not a result (field case 5). `reset`:
    the counters went backwards (interface recreated, driver reloaded): figures are zero.
    """

    interface: str
    rx_bytes_s: float = 0.0
    tx_bytes_s: float = 0.0
    rx_packets_s: float = 0.0
    tx_packets_s: float = 0.0
    rx_errors_s: float = 0.0  # errs + fifo + frame
    tx_errors_s: float = 0.0  # errs + fifo + colls + carrier
    rx_drops_s: float = 0.0
    tx_drops_s: float = 0.0
    speed_mbps: int | None = None  # negotiated, from the inventory
    util_pct: float | None = None
    reset: bool = False

    @property
    def rx_mb_s(self) -> float:
        return self.rx_bytes_s / 1e6

    @property
    def tx_mb_s(self) -> float:
        return self.tx_bytes_s / 1e6


class NetDevInterval(BaseModel):
    """Every interface's figures between two samples."""

    interval_s: float
    interfaces: list[InterfaceFigures] = Field(default_factory=list)
    appeared: list[str] = Field(default_factory=list)  # in the second sample only
    vanished: list[str] = Field(default_factory=list)  # in the first sample only
    problems: list[str] = Field(default_factory=list)  # e.g. a zero-length interval, resets
