"""`iostat -x` text of sysstat 10.x, 11.x and 12.x, with or without `-t` and the avg-cpu block.

Each report is a `Device` header line naming the columns, then one line per device, ended by
a blank line. The column names say the sysstat version (10.x: `avgrq-sz avgqu-sz await svctm`;
11.x: `r_await w_await aqu-sz rareq-sz`; 12.x adds `d/s`, `f/s`), so columns are read by name.
Every report becomes one point per device; the first report covers the time since boot.
"""

from __future__ import annotations

import re
from datetime import datetime

from pinchpoint.checks.parse.importers.series import EntityTable, StatsImportError, number
from pinchpoint.model.stats import (
    ImportedStats,
    ImportKind,
    Metric,
    ParseSkips,
    StatPoint,
    StatsEntityKind,
)

__all__ = ["KNOWN_UNUSED", "device_values", "parse_iostat_text", "report_time", "unknown_columns"]

# column → (metric, factor into the metric's unit); one table for text and JSON keys.
COLUMN_METRICS: dict[str, tuple[Metric, float]] = {
    "r/s": (Metric.READ_IOPS, 1.0),
    "w/s": (Metric.WRITE_IOPS, 1.0),
    "rkB/s": (Metric.READ_KBPS, 1.0),
    "wkB/s": (Metric.WRITE_KBPS, 1.0),
    "rMB/s": (Metric.READ_KBPS, 1024.0),
    "wMB/s": (Metric.WRITE_KBPS, 1024.0),
    "rsec/s": (Metric.READ_KBPS, 0.5),  # 512-byte sectors
    "wsec/s": (Metric.WRITE_KBPS, 0.5),
    "r_await": (Metric.READ_LATENCY_MS, 1.0),
    "w_await": (Metric.WRITE_LATENCY_MS, 1.0),
    "await": (Metric.LATENCY_MS, 1.0),
    "aqu-sz": (Metric.QUEUE, 1.0),
    "avgqu-sz": (Metric.QUEUE, 1.0),
    "%util": (Metric.UTIL_PCT, 1.0),
    "util": (Metric.UTIL_PCT, 1.0),
    "rareq-sz": (Metric.READ_SIZE_KB, 1.0),
    "wareq-sz": (Metric.WRITE_SIZE_KB, 1.0),
}
# Printed by some sysstat version but with no metric here: read and ignored without a word.
KNOWN_UNUSED = frozenset(
    [
        "rrqm/s",
        "wrqm/s",
        "%rrqm",
        "%wrqm",
        "rrqm",
        "wrqm",
        "d/s",
        "dkB/s",
        "dMB/s",
        "drqm/s",
        "%drqm",
        "drqm",
        "d_await",
        "dareq-sz",
        "f/s",
        "f_await",
        "svctm",
        "avgrq-sz",
        "tps",
        "kB_read/s",
        "kB_wrtn/s",
        "kB_dscd/s",
        "kB_read",
        "kB_wrtn",
        "kB_dscd",
        "MB_read/s",
        "MB_wrtn/s",
        "MB_read",
        "MB_wrtn",
    ]
)

_BANNER = re.compile(r"^\S+ \S+ \((?P<host>[^)]*)\)\s+(?P<date>\S+)")
_TIMESTAMP_FORMATS = (
    "%m/%d/%y %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%y %I:%M:%S %p",
    "%m/%d/%Y %I:%M:%S %p",
    "%Y-%m-%dT%H:%M:%S%z",  # S_TIME_FORMAT=ISO
    "%Y-%m-%d %H:%M:%S",
)


def report_time(text: str) -> datetime | None:
    """The `-t` time of a report as sysstat prints it (month first, as in the C and en_US
    locales, or ISO 8601), or None."""
    for fmt in _TIMESTAMP_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def device_values(columns: list[str], cells: list[str]) -> tuple[dict[Metric, float], list[str]]:
    """The metrics of one device line (idle = 100 - util), and the cells that were not
    numbers."""
    values: dict[Metric, float] = {}
    bad: list[str] = []
    for column, cell in zip(columns, cells, strict=True):
        mapped = COLUMN_METRICS.get(column)
        if mapped is None:
            continue
        value = number(cell)
        if value is None or value < 0:
            bad.append(f"{column}={cell}")
            continue
        values[mapped[0]] = value * mapped[1]
    if Metric.UTIL_PCT in values:
        values[Metric.IDLE_PCT] = max(0.0, 100.0 - values[Metric.UTIL_PCT])
    return values, bad


def unknown_columns(columns: list[str]) -> list[str]:
    return [c for c in columns if c not in COLUMN_METRICS and c not in KNOWN_UNUSED]


def parse_iostat_text(text: str, source_name: str) -> ImportedStats:
    """One point per report per device from `iostat -x [-t] [interval [count]]` text."""
    table = EntityTable()
    skipped = ParseSkips()
    problems: list[str] = []
    host: str | None = None
    columns: list[str] | None = None
    at: datetime | None = None
    previous_at: datetime | None = None
    started_at: datetime | None = None
    reports = 0
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        raw = lines[index]
        line = raw.strip()
        index += 1
        if not line:
            columns = None
            continue
        banner = _BANNER.match(line)
        if banner and line.startswith(("Linux", "SunOS", "FreeBSD")):
            host = banner["host"]
            continue
        stamp = report_time(line)
        if stamp is not None:
            previous_at, at = at, stamp
            started_at = started_at or stamp
            continue
        if line.startswith("avg-cpu"):
            index += 1  # the line of CPU figures under it
            continue
        fields = line.split()
        if fields[0] in ("Device:", "Device"):
            columns = fields[1:]
            reports += 1
            for column in unknown_columns(columns):
                message = f"unknown iostat column ignored: {column}"
                if message not in problems:
                    problems.append(message)
            continue
        if columns is None:
            skipped.add(index, raw, "not under a Device header")
            continue
        if len(fields) - 1 != len(columns):
            skipped.add(
                index, raw, f"{len(fields) - 1} values for {len(columns)} columns of the header"
            )
            continue
        values, bad = device_values(columns, fields[1:])
        if bad:
            skipped.add(index, raw, f"not a number: {', '.join(bad)}")
            continue
        interval = (at - previous_at).total_seconds() if at and previous_at else None
        entity = table.get(fields[0], StatsEntityKind.BLOCK_DEVICE)
        entity.points.append(StatPoint(at=at, interval_s=interval, values=values))
    if reports == 0:
        raise StatsImportError(
            f"{source_name}: no `Device` header found (expected `iostat -x` text)"
        )
    if reports > 1:
        problems.append("the first report covers the time since boot, later ones one interval")
    return ImportedStats(
        kind=ImportKind.IOSTAT_TEXT,
        source_name=source_name,
        host=host,
        started_at=started_at,
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )
