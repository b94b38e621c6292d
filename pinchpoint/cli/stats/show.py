"""`stats show`: statistics summed along the hierarchy, disk → enclosure → chain → HBA, and
network traffic NIC → bond."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.cli.console import errors, fail
from pinchpoint.cli.errors import exit_for
from pinchpoint.cli.markdown import print_views
from pinchpoint.cli.options import host_source
from pinchpoint.model.breakdown import (
    Breakdown,
    GroupFigures,
    GroupLevel,
    LinkFigures,
    LinkLevelBreakdown,
    SlowerBasis,
)
from pinchpoint.model.stats import ImportKind
from pinchpoint.report import ReportFormat
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.gather import gather_statistics, imported_files
from pinchpoint.stats.links import LINK_LEVELS
from pinchpoint.text import json_printable

__all__ = ["parse_duration_s"]

STANDS_OUT = 1.2  # queue per member this far above its level's median is shown in red
BUSY_LINK_PCT = 90.0  # a link this busy (mean utilisation) is shown in red
_DURATION = re.compile(r"^\s*(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>ns|us|µs|ms|s)?\s*$")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, None: 1e-3}


def parse_duration_s(text: str) -> float:
    """`220ms`, `0.5s`, `300us` or a bare number of milliseconds → seconds."""
    found = _DURATION.match(text)
    if found is None:
        raise ValueError(f"not a duration: {text!r} — write e.g. 220ms, 0.5s, 300us")
    return float(found["number"]) * _UNIT_S[found["unit"]]


def _number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.2f}%"


def _queue(group: GroupFigures) -> Text:
    text = Text(_number(group.queue_per_member))
    if group.queue_vs_peers is not None and group.queue_vs_peers >= STANDS_OUT:
        text.stylize("bold red")
        text.append(f" ×{group.queue_vs_peers:.2f}", style="red")
    return text


def level_table(level: GroupLevel, groups: list[GroupFigures], slower_than_ms: float) -> Table:
    """One row per group: load, queue per member, waits, p99 and the share of slow I/Os."""
    member = (
        "LUN" if level in (GroupLevel.LUN, GroupLevel.FC_PORT, GroupLevel.FC_ADAPTER) else "disk"
    )
    table = Table(title=f"by {level.value}", title_justify="left")
    table.add_column(level.value)
    table.add_column("topology")
    table.add_column("members", justify="right")
    table.add_column("IOPS", justify="right")
    table.add_column("MB/s", justify="right")
    table.add_column(f"queue/{member}", justify="right")
    table.add_column("await ms", justify="right")
    table.add_column("p99 ms", justify="right")
    table.add_column(f"> {slower_than_ms:g} ms", justify="right")
    for group in groups:
        members = str(group.members)
        if group.measured != group.members:
            members = f"{group.measured}/{group.members}"
        table.add_row(
            group.name,
            group.detail or "",
            members,
            _number(group.iops if group.measured else None, 0),
            _number(group.mb_s if group.measured else None),
            _queue(group),
            _number(group.await_ms),
            _number(group.p99_ms),
            _share(group.share_slower),
        )
    return table


def _speed(link: LinkFigures) -> Text:
    """`100 of 1000`: red where the link negotiated below what it supports."""
    if link.speed_mbps is None:
        return Text("—")
    fastest = link.max_speed_mbps
    if fastest is not None and fastest > link.speed_mbps:
        return Text(f"{link.speed_mbps:,} of {fastest:,}", style="bold red")
    return Text(f"{link.speed_mbps:,}")


def _util(link: LinkFigures) -> Text:
    text = Text(_number(link.util_pct))
    if link.above_capacity or (link.util_pct or 0.0) >= BUSY_LINK_PCT:
        text.stylize("bold red")
    if link.above_capacity:
        text.append(" > link", style="red")
    return text


def link_table(level: LinkLevelBreakdown) -> Table:
    """One row per NIC, or per bond followed by its members: traffic, speed, utilisation."""
    table = Table(title=f"by {level.level.value}", title_justify="left")
    table.add_column(level.level.value)
    table.add_column("detail")
    table.add_column("speed Mb/s", justify="right")
    table.add_column("rx MB/s", justify="right")
    table.add_column("tx MB/s", justify="right")
    table.add_column("pkt/s", justify="right")
    table.add_column("err+drop/s", justify="right")
    table.add_column("share", justify="right")
    table.add_column("util %", justify="right")
    table.add_column("peak %", justify="right")
    for link in level.links:
        rows = [(link.name, link)] + [(f"  └ {m.name}", m) for m in link.members]
        for name, row in rows:
            measured = row.measured_s > 0
            detail = row.detail or ""
            if row.bond and level.level is GroupLevel.NIC:
                detail = f"{detail}, in {row.bond}"
            table.add_row(
                name,
                detail,
                _speed(row),
                _number(row.rx_mb_s if measured else None, 2),
                _number(row.tx_mb_s if measured else None, 2),
                _number(row.rx_packets_s + row.tx_packets_s if measured else None, 0),
                _number(row.errors_s + row.drops_s if measured else None, 2),
                _share(row.share) if row.share is not None else "",
                _util(row),
                _number(row.peak_util_pct),
            )
    return table


def breakdown_view(result: Breakdown) -> Group:
    """Every level's table, the standalone entities, and what was left out."""
    parts: list[Table | Text] = []
    span = f"{result.intervals} intervals over {result.measured_s:,.1f} s of diskstats samples"
    if result.levels or not result.network:
        parts.append(Text(span, style="dim"))
    if result.network:
        used = result.network[0].intervals
        noun = "interval" if used == 1 else "intervals"
        parts.append(Text(f"{used} {noun} of /proc/net/dev samples", style="dim"))
    for network in result.network:
        if network.note and not network.links:
            parts.append(Text(f"by {network.level.value}: {network.note}", style="yellow"))
            continue
        parts.append(link_table(network))
    if result.network:
        parts.append(
            Text(
                "MB = 10^6 bytes; util % = the busier direction against the negotiated speed "
                "(1 Gb/s carries at most 125 MB/s).",
                style="dim",
            )
        )
    for level in result.levels:
        if level.note and not level.groups:
            parts.append(Text(f"by {level.level.value}: {level.note}", style="yellow"))
            continue
        parts.append(level_table(level.level, level.groups, result.slower_than_ms))
    if result.standalone:
        parts.append(level_table(GroupLevel.STANDALONE, result.standalone, result.slower_than_ms))
    groups = [g for lv in result.levels for g in lv.groups] + result.standalone
    if any(g.slower_basis is SlowerBasis.MEANS_ONLY for g in groups):
        parts.append(
            Text(
                "p99 and the share of slow I/Os need latency histograms (zpool iostat -w, fio): "
                "where only diskstats means are known they show —.",
                style="dim",
            )
        )
    if result.histogram_kinds:
        kinds = ", ".join(k.value for k in result.histogram_kinds)
        parts.append(Text(f"latency columns from merged histograms: {kinds}", style="dim"))
    if result.unmatched:
        shown = ", ".join(result.unmatched[:12])
        more = f" and {len(result.unmatched) - 12} more" if len(result.unmatched) > 12 else ""
        parts.append(Text(f"matched to no inventory entity: {shown}{more}", style="yellow"))
    for note in result.notes:
        parts.append(Text(note, style="yellow"))
    return Group(*parts)


def show_report(
    snapshot: Path | None,
    demo: bool,
    by: list[GroupLevel] | None,
    slower_than: str,
    import_files: list[Path] | None,
    kinds: list[ImportKind] | None,
    seconds: float,
    form: ReportFormat,
) -> None:
    """`pinchpoint stats show`: load and latency grouped along the hierarchy."""
    if snapshot is not None and demo:
        raise fail("--snapshot and --demo exclude each other — give one of them")
    try:
        threshold_s = parse_duration_s(slower_than)
    except ValueError as err:
        raise fail(f"--slower-than: {err}") from None
    if not seconds > 0:
        raise fail(f"--seconds must be above 0, not {seconds} — give a number of seconds above 0")
    levels = by or [GroupLevel.ENCLOSURE]
    try:
        imported = imported_files(import_files or [], kinds or [])
    except ValueError as err:
        raise exit_for(err) from None
    network = any(level in LINK_LEVELS for level in levels)
    storage = any(level not in LINK_LEVELS for level in levels)
    with host_source(snapshot, demo) as (source, kind):
        inventory = collect_inventory(source, kind=kind)
        live = snapshot is None and not demo
        gathered = gather_statistics(
            source,
            inventory,
            live=live,
            seconds=seconds,
            imports=imported,
            disks=storage,
            network=network,
        )
    result = breakdown(
        inventory,
        levels,
        gathered.intervals,
        gathered.imported,
        threshold_s,
        gathered.net_intervals,
    )
    result.notes = gathered.notes + result.notes
    if form is ReportFormat.JSON:
        sys.stdout.write(json_printable(result.model_dump_json(indent=2)) + "\n")
        return
    if gathered.empty:
        errors.print("[yellow]no statistics found[/]")
    print_views([breakdown_view(result)], markdown=form is ReportFormat.MARKDOWN)
