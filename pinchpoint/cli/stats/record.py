"""`stats record`: per-I/O latency of this host's block devices, recorded in the kernel with
eBPF for a number of seconds (`docs/ebpf.md`)."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table

from pinchpoint.checks.collect.latency_recording import RecordingError, record_block_latency
from pinchpoint.checks.source import LiveSource
from pinchpoint.cli.console import fail, output_console
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


def record_report(seconds: float, devices: list[str], as_json: bool, stats: bool) -> None:
    """Record, then print the table or the JSON."""
    try:
        recording = record_block_latency(LiveSource(), seconds, devices, stats)
    except RecordingError as err:
        raise fail(str(err)) from None
    summary = recording_summary(recording)
    if as_json:
        print(json.dumps(summary))
        return
    console = output_console()
    if not summary["devices"]:
        console.print(f"No I/O completed in {summary['seconds']:g} s.")
    else:
        console.print(_table(summary))
    lost = sum(summary["lost"].values())
    if lost:
        console.print(
            f"[yellow]{lost:,} I/Os were not accounted[/] "
            f"({', '.join(f'{k} {v:,}' for k, v in summary['lost'].items() if v)})"
        )
