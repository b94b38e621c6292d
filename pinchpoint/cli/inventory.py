"""`pinchpoint inventory`: the I/O path of a host — SAS fabric first, then PCIe, NICs, FC,
multipath, block devices, health and ZFS — drawn for a terminal or printed as JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pinchpoint.cli.console import errors, output_console, progress_bar, progress_reporter
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import JsonOption, chosen_format, format_option, host_source
from pinchpoint.report import ReportFormat

if TYPE_CHECKING:
    from pinchpoint.checks.source import Source
    from pinchpoint.model.inventory import Inventory, SourceKind


def collect_with_progress(source: Source, kind: SourceKind | None = None) -> Inventory:
    """The whole inventory of `source`, with a progress bar on a terminal."""
    from pinchpoint.checks.collect.inventory import collect_inventory

    with progress_bar() as progress:
        task = progress.add_task("inventory", total=None)
        return collect_inventory(source, kind=kind, progress=progress_reporter(progress, task))


def _show(inventory: Inventory, form: ReportFormat, disks: bool) -> None:
    if form is ReportFormat.JSON:
        from pinchpoint.text import json_printable

        sys.stdout.write(json_printable(inventory.model_dump_json(indent=2)) + "\n")
        return
    from pinchpoint.cli.inventory_view import inventory_view

    view = inventory_view(inventory, with_disks=disks)
    if form is ReportFormat.MARKDOWN:
        from pinchpoint.cli.markdown import markdown_document

        sys.stdout.write(markdown_document([view]))
    else:
        output_console().print(view)


def inventory_command(
    snapshot: Annotated[
        Path | None,
        typer.Option(
            "--snapshot", "-s", help="Read a snapshot directory or .tar.gz instead of this host."
        ),
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="Show the bundled demo host (field case 1).")
    ] = False,
    demo_if_no_sas: Annotated[
        bool,
        typer.Option(
            "--demo-if-no-sas", help="Show the demo host when this host has no SAS fabric."
        ),
    ] = False,
    disks: Annotated[
        bool, typer.Option("--disks", help="Also list every disk with its paths.")
    ] = False,
    form: Annotated[
        ReportFormat | None,
        format_option(ReportFormat.TABLE, ReportFormat.JSON, ReportFormat.MARKDOWN),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """The SAS fabric: HBA → port → chain → enclosure → slots, with the path count of each.

    JSON is the typed model (`Inventory`), every field the collectors filled."""
    chosen = chosen_format(form, as_json)
    if demo_if_no_sas and snapshot is None and not demo:
        from pinchpoint.checks.collect.sas.presence import has_sas_hba
        from pinchpoint.checks.source import LiveSource

        if not has_sas_hba(LiveSource()):
            errors.print("[yellow]This host has no SAS HBA; showing the demo host.[/]")
            demo = True
    with host_source(snapshot, demo) as (source, kind):
        found = collect_with_progress(source, kind)
    _show(found, chosen, disks)


EXAMPLES = (
    "pinchpoint inventory --demo --disks",
    "pinchpoint inventory --snapshot host42.tar.gz --format json",
    "pinchpoint inventory --demo-if-no-sas --json",
)


def register(app: typer.Typer) -> None:
    """Add `inventory` to the `pinchpoint` command."""
    app.command("inventory", epilog=examples_epilog(EXAMPLES))(inventory_command)
