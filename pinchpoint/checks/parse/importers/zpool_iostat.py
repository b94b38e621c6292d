"""`zpool iostat -wvHp` (latency histograms) and `zpool iostat -lvHp` (average latencies).

With `-H` OpenZFS prints no headers and no indentation (`print_iostat_histos` and
`print_vdev_stats` in `cmd/zpool/zpool_main.c`): for `-w`, each pool, vdev and leaf is a line
holding its name, then one tab-separated row per power-of-two bucket, labelled with the bucket's
upper end in nanoseconds (row i counts latencies in [2^i, 2^(i+1)) ns, labelled 2^(i+1) - 1);
for `-l`, one tab-separated line per pool, vdev and leaf. The tree is therefore rebuilt from
the names: a pool comes first, `mirror-0`, `raidz2-1`, `draid…-0` are top-level vdevs, and
paths or device names are leaves of the last top-level vdev (or of the pool when it has none).

The first block of `zpool iostat` covers the time since the pool was imported; each later
block (with an interval) covers one interval, and its histogram counts are scaled to per
second. The histograms kept are those of the first block: the exact counts since import.
Later blocks are counted and said in `problems`. For `-l`, every block is a point.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache

from pinchpoint.checks.parse.importers.series import EntityTable, StatsImportError, number
from pinchpoint.model.histogram import LatencyHistogram, bucket_index, range_midpoint_ns
from pinchpoint.model.stats import (
    EntityStats,
    HistogramKind,
    ImportedStats,
    ImportKind,
    Metric,
    ParseSkips,
    StatPoint,
    StatsEntityKind,
)
from pinchpoint.plurals import plural

__all__ = ["HISTOGRAM_WIDTHS", "LATENCY_WIDTHS", "parse_zpool_histograms", "parse_zpool_latency"]

# Columns of a `-w` row after the bucket label, in print order (vsx_type_to_nvlist[IOS_L_HISTO]):
# ZFS 0.7 prints 9 (no trim), 0.8 adds trim, 2.0 adds rebuild.
HISTOGRAM_COLUMNS = (
    HistogramKind.TOTAL_WAIT_READ,
    HistogramKind.TOTAL_WAIT_WRITE,
    HistogramKind.DISK_WAIT_READ,
    HistogramKind.DISK_WAIT_WRITE,
    HistogramKind.SYNCQ_WAIT_READ,
    HistogramKind.SYNCQ_WAIT_WRITE,
    HistogramKind.ASYNCQ_WAIT_READ,
    HistogramKind.ASYNCQ_WAIT_WRITE,
    HistogramKind.SCRUB_WAIT,
    HistogramKind.TRIM_WAIT,
    HistogramKind.REBUILD_WAIT,
)
HISTOGRAM_WIDTHS = (9, 10, 11)
# the rest of a row counting no I/O in any column (after its label), by its number of columns
_ZERO_ROWS = {"\t0" * width: width for width in HISTOGRAM_WIDTHS}

# `-l` line: name, alloc, free, read ops, write ops, read bytes, write bytes, then average
# waits in ns: total r/w, disk r/w, syncq r/w, asyncq r/w, scrub, trim (0.8+), rebuild (2.0+).
LATENCY_WIDTHS = (16, 17, 18)
NS_PER_MS = 1_000_000

_TOP_VDEV = re.compile(r"^(mirror|raidz\d?|draid\d?(:\w+)*|spare|replacing|indirect)-\d+$")
_LEAF = re.compile(
    r"^(/|sd[a-z]+|hd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme\d|dm-|md\d|loop\d|da\d|ada\d|nvd\d|"
    r"wwn-|scsi-|ata-|nvme-|usb-|pci-|virtio-|gpt/|gptid/|diskid/|label/|c\d+t)"
)
_GUID = re.compile(r"^\d{6,}$")  # a missing device is named by its GUID


def _entity_kind(name: str) -> str:
    """`pool`, `top` (a top-level vdev) or `leaf`, from the name alone (see module docstring)."""
    if _TOP_VDEV.match(name):
        return "top"
    if _LEAF.match(name) or "-part" in name or _GUID.match(name):
        return "leaf"
    return "pool"


class _Tree:
    """Places each name printed under -H in the pool → vdev → leaf tree as it arrives."""

    def __init__(self, table: EntityTable) -> None:
        self.table = table
        self.pool: str | None = None
        self.top: str | None = None

    def place(self, name: str) -> EntityStats:
        role = _entity_kind(name)
        if role == "pool" or self.pool is None:
            self.pool, self.top = name, None
            return self.table.get(name, StatsEntityKind.POOL)
        if role == "top":
            self.top = name
            return self.table.get(name, StatsEntityKind.VDEV, parent=self.pool)
        return self.table.get(name, StatsEntityKind.VDEV, parent=self.top or self.pool)


def _timestamp(line: str) -> datetime | None:
    """The line `zpool iostat -T u` prints before each block (seconds since the epoch)."""
    if line.isdigit():
        return datetime.fromtimestamp(int(line), tz=UTC)
    return None


def _bucket_bounds(label: int) -> tuple[int, int] | None:
    """[low, high) in ns of the bucket whose row is labelled `label` (2^(i+1) - 1)."""
    high = label + 1
    if high < 2 or high & (high - 1):
        return None
    return high // 2, high


def _row_counts(cells: list[str]) -> list[int] | None:
    """The counts of one row as whole numbers, or None when one is not a number or negative.
    Plain digits (every row zpool prints) are converted at once, and a row of zeros (most rows:
    no I/O took that long) not at all; anything else cell by cell."""
    counts = cells[1:]
    digits = "".join(counts)
    if all(counts) and digits.isdigit():
        return list(map(int, counts)) if digits.strip("0") else [0] * len(counts)
    values = [number(cell) for cell in counts]
    if any(value is None or value < 0 for value in values):
        return None
    return [int(value or 0) for value in values]


class _Tally:
    """One histogram's rows as they are read: bucket counts, sum, minimum and maximum, made
    into a `LatencyHistogram` once at the end (recording row by row is what made it slow)."""

    __slots__ = ("counts", "max_ns", "min_ns", "sum_ns")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.sum_ns = 0
        self.min_ns: int | None = None
        self.max_ns: int | None = None

    def add(self, index: int, value_ns: int, count: int) -> None:
        """`count` I/Os placed at `value_ns`, the midpoint of their zpool bucket."""
        self.counts[index] = self.counts.get(index, 0) + count
        self.sum_ns += value_ns * count
        if self.min_ns is None or value_ns < self.min_ns:
            self.min_ns = value_ns
        if self.max_ns is None or value_ns > self.max_ns:
            self.max_ns = value_ns

    def histogram(self) -> LatencyHistogram:
        return LatencyHistogram.from_counts(self.counts, self.sum_ns, self.min_ns, self.max_ns)


@cache
def _bucket_of_label(label: int) -> tuple[int, int] | None:
    """(bucket index, value in ns) where the I/Os of the row labelled `label` are recorded,
    as `LatencyHistogram.record_range_ns` places them; None for a label that is not 2^n - 1."""
    bounds = _bucket_bounds(label)
    if bounds is None:
        return None
    value_ns = range_midpoint_ns(*bounds)
    return bucket_index(value_ns), value_ns


def parse_zpool_histograms(text: str, source_name: str) -> ImportedStats:
    """Latency histograms of every pool, vdev and leaf in `zpool iostat -wvHp` output."""
    table = EntityTable()
    tree = _Tree(table)
    skipped = ParseSkips()
    tallies: dict[str, list[_Tally]] = {}  # entity name -> one tally per column, in order
    current: list[_Tally] | None = None
    first_name: str | None = None
    block = 0
    later_names = 0
    started_at: datetime | None = None
    for number_, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if "\t" not in line and " " not in line:
            stamp = _timestamp(line)
            if stamp is not None:
                started_at = started_at or stamp
                continue
            if line == first_name:
                block += 1
            first_name = first_name or line
            if block == 0:
                current = tallies.setdefault(tree.place(line).name, [])
            else:
                current = None
                later_names += 1
            continue
        label, tab, tail = line.partition("\t")
        zeros = _ZERO_ROWS.get(tab + tail)
        if zeros is not None and label.isdigit():
            # most rows: no I/O in this bucket in any column, nothing to split or count
            if block > 0:
                continue
            if current is None:
                skipped.add(number_, raw, "histogram row before any pool or vdev name")
            elif _bucket_of_label(int(label)) is None:
                skipped.add(number_, raw, "bucket label is not 2^n - 1 or a count is not a number")
            else:
                while len(current) < zeros:
                    current.append(_Tally())
            continue
        cells = line.split("\t")
        if len(cells) - 1 not in HISTOGRAM_WIDTHS or not cells[0].isdigit():
            skipped.add(
                number_, raw, "not a -wvHp histogram row (name line or label + 9-11 counts)"
            )
            continue
        if block > 0:
            continue
        if current is None:
            skipped.add(number_, raw, "histogram row before any pool or vdev name")
            continue
        bucket = _bucket_of_label(int(cells[0]))
        counts = _row_counts(cells)
        if bucket is None or counts is None:
            skipped.add(number_, raw, "bucket label is not 2^n - 1 or a count is not a number")
            continue
        while len(current) < len(counts):
            current.append(_Tally())
        if not any(counts):
            continue  # most rows: no I/O in this bucket in any column
        index, value_ns = bucket
        for tally, count in zip(current, counts, strict=False):
            if count > 0:
                tally.add(index, value_ns, count)
    if not table.entities():
        raise StatsImportError(
            f"{source_name}: no pool or vdev histogram found (expected `zpool iostat -wvHp`)"
        )
    for entity in table.entities():
        for kind, tally in zip(HISTOGRAM_COLUMNS, tallies.get(entity.name, []), strict=False):
            entity.histograms[kind] = tally.histogram()
    problems = []
    if block > 0:
        problems.append(
            f"{plural(block, 'later interval block')} ({later_names} vdev histograms) not used: "
            "their counts are per-second rates; the histograms hold the first block, "
            "since pool import"
        )
    empty = [e.name for e in table.entities() if all(h.empty for h in e.histograms.values())]
    if empty:
        problems.append(f"no I/O in any histogram of: {', '.join(empty[:10])}")
    return ImportedStats(
        kind=ImportKind.ZPOOL_IOSTAT_W,
        source_name=source_name,
        started_at=started_at,
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )


def _latency_values(cells: list[str]) -> dict[Metric, float]:
    """Metrics of one `-lvHp` line; `-` (no I/O in the interval) leaves a latency out."""
    values: dict[Metric, float] = {}
    plain = {
        Metric.READ_IOPS: (3, 1.0),
        Metric.WRITE_IOPS: (4, 1.0),
        Metric.READ_KBPS: (5, 1 / 1024),
        Metric.WRITE_KBPS: (6, 1 / 1024),
        Metric.READ_LATENCY_MS: (7, 1 / NS_PER_MS),
        Metric.WRITE_LATENCY_MS: (8, 1 / NS_PER_MS),
        Metric.DISK_READ_LATENCY_MS: (9, 1 / NS_PER_MS),
        Metric.DISK_WRITE_LATENCY_MS: (10, 1 / NS_PER_MS),
    }
    for metric, (index, scale) in plain.items():
        value = number(cells[index])
        if value is not None and value >= 0:
            values[metric] = value * scale
    return values


def parse_zpool_latency(text: str, source_name: str) -> ImportedStats:
    """Operations, bandwidth and average waits of every pool, vdev and leaf in
    `zpool iostat -lvHp` output: one point per block."""
    table = EntityTable()
    tree = _Tree(table)
    skipped = ParseSkips()
    first_name: str | None = None
    block = 0
    at: datetime | None = None
    started_at: datetime | None = None
    for number_, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        stamp = _timestamp(line)
        if stamp is not None:
            at = stamp
            started_at = started_at or stamp
            continue
        cells = line.split("\t")
        if len(cells) not in LATENCY_WIDTHS:
            skipped.add(number_, raw, "not a -lvHp line (name + 15 to 17 tab-separated values)")
            continue
        if any(number(cell) is None and cell.strip() != "-" for cell in cells[1:]):
            skipped.add(number_, raw, "a value is neither a number nor '-'")
            continue
        name = cells[0]
        if name == first_name:
            block += 1
        first_name = first_name or name
        entity = tree.place(name)
        entity.points.append(StatPoint(at=at, values=_latency_values(cells)))
    if not table.entities():
        raise StatsImportError(
            f"{source_name}: no pool or vdev line found (expected `zpool iostat -lvHp`)"
        )
    problems = []
    if block > 0:
        problems.append(
            "the first point of each pool and vdev covers the time since import, "
            f"the {plural(block, 'later point')} one interval each"
        )
    return ImportedStats(
        kind=ImportKind.ZPOOL_IOSTAT_L,
        source_name=source_name,
        started_at=started_at,
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )
