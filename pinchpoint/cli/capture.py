"""`pinchpoint capture`: a snapshot of everything the collectors read on this host, as a
directory or a tarball, to analyse it elsewhere (like sosreport)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from pinchpoint.cli.console import data, fail, output_console, progress_bar, progress_reporter
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import JsonOption, chosen_format, format_option
from pinchpoint.plurals import plural
from pinchpoint.report import ReportFormat


def capture_command(
    out: Annotated[
        Path, typer.Argument(help="Snapshot directory to write (or OUT.tar.gz with --tar).")
    ],
    tar: Annotated[
        bool, typer.Option("--tar", help="Write a .tar.gz archive instead of a directory.")
    ] = False,
    samples: Annotated[
        int,
        typer.Option(
            "--samples", min=0, help="Also record this many /proc/diskstats samples (stats diff)."
        ),
    ] = 0,
    interval: Annotated[
        float, typer.Option("--interval", min=0.1, help="Seconds between diskstats samples.")
    ] = 10.0,
    record_seconds: Annotated[
        float,
        typer.Option(
            "--record-seconds",
            min=0,
            max=3600,
            help="Also record per-I/O latency in the kernel (eBPF) for this long, so the "
            "snapshot carries real distributions (docs/ebpf.md).",
        ),
    ] = 0.0,
    form: Annotated[
        ReportFormat | None, format_option(ReportFormat.TABLE, ReportFormat.JSON)
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Write a snapshot of everything the collectors read, to analyse this host elsewhere.

    JSON names the snapshot and counts what it holds (SAS HBAs, enclosures, disk paths, parts
    not collected)."""
    from pinchpoint.checks.source.capture import capture, capture_tarball

    chosen = chosen_format(form, as_json)

    try:
        with progress_bar() as progress:
            task = progress.add_task("capture", total=None)
            say = progress_reporter(progress, task)
            write = capture_tarball if tar else capture
            result = write(
                out,
                progress=say,
                samples=samples,
                interval_s=interval,
                record_s=record_seconds,
            )
    except FileExistsError as err:
        raise fail(f"{err} — choose a new path") from None
    fabric = result.inventory.sas
    if chosen is ReportFormat.JSON:
        from pinchpoint.text import json_printable

        written = {
            "snapshot": str(result.path),
            "sas_hbas": len(fabric.hbas),
            "enclosures": len(fabric.enclosures),
            "disk_paths": fabric.path_count,
            "not_collected": [p.model_dump(mode="json") for p in result.inventory.problems],
        }
        sys.stdout.write(json_printable(json.dumps(written, ensure_ascii=False)) + "\n")
        return
    output_console().print(
        f"snapshot written to [bold]{data(result.path)}[/]: {plural(len(fabric.hbas), 'SAS HBA')}, "
        f"{plural(len(fabric.enclosures), 'enclosure')}, {plural(fabric.path_count, 'disk path')}, "
        f"{plural(len(result.inventory.problems), 'part')} not collected"
    )


EXAMPLES = (
    "pinchpoint capture host42",
    "pinchpoint capture host42.tar.gz --tar --samples 7 --interval 10",
    "pinchpoint capture host42.tar.gz --tar --record-seconds 30 --json",
)


def register(app: typer.Typer) -> None:
    """Add `capture` to the `pinchpoint` command."""
    app.command("capture", epilog=examples_epilog(EXAMPLES))(capture_command)
