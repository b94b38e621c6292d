"""Windows PerfMon CSV, as `relog -f csv`, `typeperf` and the PerfMon GUI write it.

The first header cell is `(PDH-CSV 4.0)`, optionally followed by the time zone and its bias in
minutes (`(PDH-CSV 4.0) (Central Daylight Time)(300)`: local time + 300 min = UTC). The other
header cells are counter paths, `\\\\HOST\\Object(Instance)\\Counter`. Each row is a timestamp
(`MM/DD/YYYY HH:MM:SS.mmm`, month first as PerfMon writes it whatever the locale) and one value
per counter; rate counters are blank (" ") in the first row, which has no previous sample.
A localised Windows may write `;` between cells and a decimal comma; both are understood.

LogicalDisk and PhysicalDisk counters become per-volume metrics (seconds → ms, bytes → kB);
every other counter is listed in `problems` and ignored.
"""

from __future__ import annotations

import csv
import re
from datetime import datetime, timedelta, timezone

from pinchpoint.checks.parse.importers.series import EntityTable, StatsImportError, number
from pinchpoint.model.stats import (
    EntityStats,
    ImportedStats,
    ImportKind,
    Metric,
    ParseSkips,
    StatPoint,
    StatsEntityKind,
)

__all__ = ["KNOWN_UNUSED", "is_perfmon", "parse_perfmon_csv"]

DISK_OBJECTS = ("LogicalDisk", "PhysicalDisk")
# counter → (metric, factor into the metric's unit)
COUNTER_METRICS: dict[str, tuple[Metric, float]] = {
    "Disk Reads/sec": (Metric.READ_IOPS, 1.0),
    "Disk Writes/sec": (Metric.WRITE_IOPS, 1.0),
    "Disk Read Bytes/sec": (Metric.READ_KBPS, 1 / 1024),
    "Disk Write Bytes/sec": (Metric.WRITE_KBPS, 1 / 1024),
    "Avg. Disk sec/Read": (Metric.READ_LATENCY_MS, 1000.0),
    "Avg. Disk sec/Write": (Metric.WRITE_LATENCY_MS, 1000.0),
    "Avg. Disk sec/Transfer": (Metric.LATENCY_MS, 1000.0),
    "Avg. Disk Queue Length": (Metric.QUEUE, 1.0),
    "Current Disk Queue Length": (Metric.CURRENT_QUEUE, 1.0),
    "% Idle Time": (Metric.IDLE_PCT, 1.0),
    "Avg. Disk Bytes/Read": (Metric.READ_SIZE_KB, 1 / 1024),
    "Avg. Disk Bytes/Write": (Metric.WRITE_SIZE_KB, 1 / 1024),
}
# Disk counters that repeat or combine the ones above: read and ignored without a word.
KNOWN_UNUSED = frozenset(
    {
        "% Disk Time",  # Avg. Disk Queue Length × 100, capped at 100: % Idle Time says it right
        "% Disk Read Time",
        "% Disk Write Time",
        "Disk Transfers/sec",
        "Disk Bytes/sec",
        "Avg. Disk Bytes/Transfer",
        "Avg. Disk Read Queue Length",
        "Avg. Disk Write Queue Length",
        "Split IO/Sec",
        "% Free Space",
        "Free Megabytes",
    }
)
PROBLEMS_LISTED = 20
INFINITY = float("inf")

_PATH = re.compile(
    r"^\\\\(?P<host>[^\\]+)\\(?P<object>[^\\(]+)(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]+)$"
)
_HEADER = re.compile(r'^\W{0,3}"?\(PDH-CSV 4\.0\)')
_BIAS = re.compile(r"\((?P<bias>-?\d+)\)\s*$")


def is_perfmon(text: str) -> bool:
    """Whether text starts like a PerfMon CSV (a `(PDH-CSV 4.0)` first cell)."""
    return bool(_HEADER.match(text.lstrip()[:40]))


def _delimiter(header: str) -> str:
    """`,` or the `;` (or tab) of a localised export: the character after the first cell."""
    if header.startswith('"'):
        end = header.find('"', 1)
        return header[end + 1] if 0 < end < len(header) - 1 else ","
    for candidate in (",", ";", "\t"):
        if candidate in header:
            return candidate
    return ","


def _zone(first_cell: str) -> timezone | None:
    """The time zone of the timestamps from the bias in `(PDH-CSV 4.0) (Zone)(bias)`."""
    bias = _BIAS.search(first_cell)
    if bias is None or first_cell.strip().endswith("(PDH-CSV 4.0)"):
        return None
    return timezone(timedelta(minutes=-int(bias["bias"])))


def _timestamp(cell: str, zone: timezone | None) -> datetime | None:
    """`MM/DD/YYYY HH:MM:SS.mmm` (month first, as PerfMon writes it) in the file's zone."""
    text = cell.strip()
    if len(text) == 23 and text[2] == "/" and text[5] == "/" and text[19] == ".":
        try:
            stamp = datetime(
                int(text[6:10]), int(text[0:2]), int(text[3:5]),
                int(text[11:13]), int(text[14:16]), int(text[17:19]), int(text[20:23]) * 1000,
            )  # fmt: skip
            return stamp.replace(tzinfo=zone) if zone else stamp
        except ValueError:
            return None
    for fmt in ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S"):
        try:
            stamp = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return stamp.replace(tzinfo=zone) if zone else stamp
    return None


class _Column:
    """Where one used counter goes: its entity's row values, its metric, its factor."""

    __slots__ = ("entity", "factor", "metric", "path")

    def __init__(self, entity: EntityStats, metric: Metric, factor: float, path: str) -> None:
        self.entity = entity
        self.metric = metric
        self.factor = factor
        self.path = path


def _columns(
    header: list[str], table: EntityTable
) -> tuple[dict[int, _Column], list[str], list[str]]:
    """The used columns by index, the hosts named, and the counters not used."""
    parsed = [(i, _PATH.match(cell.strip())) for i, cell in enumerate(header) if i > 0]
    hosts = sorted({m["host"] for _, m in parsed if m})
    columns: dict[int, _Column] = {}
    unused: list[str] = []
    for index, match in parsed:
        if match is None:
            unused.append(header[index])
            continue
        counter = match["counter"]
        mapped = COUNTER_METRICS.get(counter)
        if match["object"] not in DISK_OBJECTS or mapped is None:
            if match["object"] not in DISK_OBJECTS or counter not in KNOWN_UNUSED:
                unused.append(header[index])
            continue
        name = f"{match['object']}({match['instance'] or ''})"
        if len(hosts) > 1:
            name = f"\\\\{match['host']}\\{name}"
        entity = table.get(name, StatsEntityKind.VOLUME)
        columns[index] = _Column(entity, mapped[0], mapped[1], header[index])
    return columns, hosts, unused


def _by_entity(
    columns: dict[int, _Column],
) -> list[tuple[EntityStats, list[tuple[int, Metric, float, str]]]]:
    """The used columns grouped by entity, so each row builds one point per entity."""
    groups: dict[str, tuple[EntityStats, list[tuple[int, Metric, float, str]]]] = {}
    for index, column in columns.items():
        entry = groups.setdefault(column.entity.name, (column.entity, []))
        entry[1].append((index, column.metric, column.factor, column.path))
    return list(groups.values())


def parse_perfmon_csv(text: str, source_name: str) -> ImportedStats:
    """One point per sample per LogicalDisk/PhysicalDisk instance from a PerfMon CSV."""
    if not is_perfmon(text):
        raise StatsImportError(f"{source_name}: no (PDH-CSV 4.0) header (expected a PerfMon CSV)")
    text = text.lstrip("\ufeff\r\n ")
    header_line = text.split("\n", 1)[0]
    reader = csv.reader(text.splitlines(), delimiter=_delimiter(header_line))
    header = next(reader)
    table = EntityTable()
    columns, hosts, unused = _columns(header, table)
    zone = _zone(header[0])
    skipped = ParseSkips()
    cells_skipped = ParseSkips()
    previous: datetime | None = None
    width = len(header)
    groups = _by_entity(columns)
    for line_number, row in enumerate(reader, start=2):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        at = _timestamp(row[0], zone)
        if at is None:
            skipped.add(line_number, ",".join(row), "no MM/DD/YYYY HH:MM:SS timestamp")
            continue
        if len(row) != width:
            skipped.add(line_number, ",".join(row), f"{len(row)} cells for {width} columns")
            continue
        interval = (at - previous).total_seconds() if previous is not None else None
        if interval is not None and interval <= 0:
            skipped.add(line_number, row[0], "timestamp not after the previous sample")
            continue
        previous = at
        for entity, entity_columns in groups:
            values: dict[Metric, float] = {}
            for index, metric, factor, path in entity_columns:
                cell = row[index]
                try:
                    value = float(cell)
                except ValueError:
                    parsed = number(cell)
                    if parsed is None:
                        cells_skipped.add(line_number, f"{path}: {cell!r}", "blank or text")
                        continue
                    value = parsed
                if not 0 <= value < INFINITY:
                    cells_skipped.add(line_number, f"{path}: {cell!r}", "negative or NaN")
                    continue
                values[metric] = value * factor
            if not values:
                continue
            if Metric.IDLE_PCT in values:
                values[Metric.UTIL_PCT] = max(0.0, 100.0 - values[Metric.IDLE_PCT])
            entity.points.append(
                StatPoint.model_construct(at=at, offset_s=None, interval_s=interval, values=values)
            )
    problems = _problems(unused, cells_skipped, hosts)
    if not columns:
        problems.insert(0, "no LogicalDisk or PhysicalDisk counter in the file")
    return ImportedStats(
        kind=ImportKind.PERFMON_CSV,
        source_name=source_name,
        host=hosts[0] if len(hosts) == 1 else None,
        started_at=_first_time(table),
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )


def _first_time(table: EntityTable) -> datetime | None:
    times = [e.points[0].at for e in table.entities() if e.points and e.points[0].at]
    return min(times) if times else None


def _problems(unused: list[str], cells: ParseSkips, hosts: list[str]) -> list[str]:
    problems = []
    if len(hosts) > 1:
        problems.append(f"counters of several hosts, volumes named per host: {', '.join(hosts)}")
    if unused:
        listed = ", ".join(unused[:PROBLEMS_LISTED])
        more = f" and {len(unused) - PROBLEMS_LISTED} more" if len(unused) > PROBLEMS_LISTED else ""
        problems.append(f"{len(unused)} counters not used (not a disk figure): {listed}{more}")
    if cells.count:
        problems.append(
            f"{cells.count} cells skipped (a rate counter's first sample is always blank), "
            f"first (line {cells.first_line_number}): {cells.first_example}: {cells.first_reason}"
        )
    return problems
