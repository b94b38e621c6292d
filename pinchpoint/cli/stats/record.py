"""`stats record`: per-I/O latency of this host's block devices, recorded in the kernel with
eBPF for a number of seconds (`docs/ebpf.md`)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.table import Table

from pinchpoint.checks.collect.latency_recording import RecordingError, record_block_latency
from pinchpoint.checks.source import LiveSource
from pinchpoint.cli.console import fail
from pinchpoint.cli.markdown import print_views
from pinchpoint.report import ReportFormat
from pinchpoint.stats.recorded import recording_summary
from pinchpoint.units import latency_us_text


def _table(summary: dict[str, Any]) -> Table:
    table = Table(
        title=f"Per-I/O latency, {summary['seconds']:g} s recorded in the kernel (eBPF)",
        title_justify="left",
    )
    for column in ("device", "op", "I/Os", "IOPS", "p50", "p90", "p99", "max", "queued p99"):
        table.add_column(column, justify="left" if column in ("device", "op") else "right")
    for device in summary["devices"]:
        name = device["device"] + (f"\n{device['id']}" if device["id"] else "")
        for number, op in enumerate(device["ops"]):
            queued = op["queued"]
            table.add_row(
                name if number == 0 else "",
                op["op"],
                f"{op['count']:,}",
                f"{op['iops']:,.1f}" if op["iops"] is not None else "—",
                latency_us_text(op["p50_us"]),
                latency_us_text(op["p90_us"]),
                latency_us_text(op["p99_us"]),
                latency_us_text(op["max_us"]),
                latency_us_text(queued["p99_us"]) if queued["count"] else "—",
            )
    return table


LAYOUT_WORDS = {
    "percpu": "a value per CPU",
    "shared": "one value shared by the CPUs (the per-CPU layout exceeds the budget)",
}


def _memory_line(memory: dict[str, Any]) -> str:
    """What the recorder's kernel maps took, of what budget, in which layout."""
    line = (
        f"Recorder maps: {memory['bytes'] / 2**20:,.1f} MiB of a "
        f"{memory['budget_bytes'] / 2**20:,.1f} MiB budget, {LAYOUT_WORDS[memory['layout']]} "
        f"({memory['cpus']} CPUs, room for {memory['entries']:,} device/operation entries)"
    )
    if memory["entries"] < 2 * memory["disks"]:
        line += (
            f"\n[yellow]The budget holds fewer entries than the reads and writes of "
            f"{memory['disks']:,} disks: I/O beyond them is counted as lost[/]"
        )
    return line


def record_report(
    seconds: float,
    devices: list[str],
    form: ReportFormat,
    stats: bool,
    budget_bytes: int | None = None,
) -> None:
    """Record, then print the table, the JSON or the table in Markdown."""
    try:
        recording = record_block_latency(LiveSource(), seconds, devices, stats, budget_bytes)
    except RecordingError as err:
        raise fail(str(err)) from None
    summary = recording_summary(recording)
    if form is ReportFormat.JSON:
        print(json.dumps(summary))
        return
    views: list[RenderableType] = []
    if not summary["devices"]:
        views.append(f"No I/O completed in {summary['seconds']:g} s.")
    else:
        views.append(_table(summary))
    if summary["map_memory"] is not None:
        views.append(_memory_line(summary["map_memory"]))
    lost = sum(summary["lost"].values())
    if lost:
        views.append(
            f"[yellow]{lost:,} I/Os were not accounted[/] "
            f"({', '.join(f'{k} {v:,}' for k, v in summary['lost'].items() if v)})"
        )
    print_views(views, markdown=form is ReportFormat.MARKDOWN)
