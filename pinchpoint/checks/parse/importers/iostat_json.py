"""`iostat -x -o JSON` of sysstat 12: `sysstat.hosts[].statistics[].disk[]`.

The keys are the text columns without `%` (`r/s`, `rkB/s` or `rMB/s` with `-m`, `r_await`,
`aqu-sz`, `util` …), so the text importer's column table serves both. Each entry of
`statistics` is one report; with `-t` it carries a `timestamp`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pinchpoint.checks.parse.importers.iostat_text import (
    KNOWN_UNUSED,
    device_values,
    report_time,
    unknown_columns,
)
from pinchpoint.checks.parse.importers.series import EntityTable, StatsImportError
from pinchpoint.checks.parse.json_text import JsonTooDeepError, loads_bounded
from pinchpoint.model.stats import (
    ImportedStats,
    ImportKind,
    ParseSkips,
    StatPoint,
    StatsEntityKind,
)

__all__ = ["parse_iostat_json"]


def _hosts(text: str, source_name: str) -> list[Any]:
    try:
        document = loads_bounded(text)
    except JsonTooDeepError as error:
        raise StatsImportError(f"{source_name}: {error}") from None
    except json.JSONDecodeError as error:
        raise StatsImportError(f"{source_name}: not valid JSON ({error})") from None
    hosts = document.get("sysstat", {}).get("hosts") if isinstance(document, dict) else None
    if not isinstance(hosts, list) or not hosts:
        raise StatsImportError(
            f"{source_name}: no sysstat.hosts in the JSON (expected iostat -o JSON)"
        )
    return hosts


def parse_iostat_json(text: str, source_name: str) -> ImportedStats:
    """One point per report per disk from `iostat -x -o JSON` output."""
    table = EntityTable()
    skipped = ParseSkips()
    problems: list[str] = []
    hosts = _hosts(text, source_name)
    names = [str(h.get("nodename")) for h in hosts if isinstance(h, dict)]
    if len(hosts) > 1:
        problems.append(f"several hosts in one file, devices named per host: {', '.join(names)}")
    started_at: datetime | None = None
    for host_index, host in enumerate(hosts):
        statistics = host.get("statistics") if isinstance(host, dict) else None
        if not isinstance(statistics, list):
            skipped.add(None, str(host)[:200], "a host without a statistics list")
            continue
        previous_at: datetime | None = None
        for report_index, report in enumerate(statistics, start=1):
            disks = report.get("disk") if isinstance(report, dict) else None
            if not isinstance(disks, list):
                skipped.add(report_index, str(report), "a report without a disk list")
                continue
            stamp = report.get("timestamp")
            at = report_time(stamp) if isinstance(stamp, str) else None
            started_at = started_at or at
            interval = (at - previous_at).total_seconds() if at and previous_at else None
            previous_at = at
            for disk in disks:
                if not isinstance(disk, dict) or not isinstance(disk.get("disk_device"), str):
                    skipped.add(report_index, str(disk), "a disk entry without disk_device")
                    continue
                keys = [k for k in disk if k != "disk_device"]
                values, bad = device_values(keys, [str(disk[k]) for k in keys])
                if bad:
                    skipped.add(report_index, str(disk), f"not a number: {', '.join(bad)}")
                    continue
                for key in unknown_columns(keys):
                    message = f"unknown iostat key ignored: {key}"
                    if key not in KNOWN_UNUSED and message not in problems:
                        problems.append(message)
                name = disk["disk_device"]
                if len(hosts) > 1:
                    name = f"{names[host_index]}:{name}"
                entity = table.get(name, StatsEntityKind.BLOCK_DEVICE)
                entity.points.append(StatPoint(at=at, interval_s=interval, values=values))
    if len(statistics_of(hosts)) > 1:
        problems.append("the first report covers the time since boot, later ones one interval")
    return ImportedStats(
        kind=ImportKind.IOSTAT_JSON,
        source_name=source_name,
        host=names[0] if len(names) == 1 else None,
        started_at=started_at,
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )


def statistics_of(hosts: list[Any]) -> list[Any]:
    """Every report of the first host (the one a since-boot note is about)."""
    first = hosts[0] if hosts and isinstance(hosts[0], dict) else {}
    statistics = first.get("statistics")
    return statistics if isinstance(statistics, list) else []
