"""The `pinchpoint` command: inventory, capture and simulate, on a live host or a snapshot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pinchpoint import __version__
from pinchpoint.check_cli import register as register_check_commands
from pinchpoint.checks.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource, Source, open_snapshot
from pinchpoint.console import (
    demo_source,
    errors,
    fail,
    output_console,
    progress_bar,
    progress_reporter,
)
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.serve_cli import register as register_serve_command
from pinchpoint.stats_cli import stats_app

app = typer.Typer(
    name="pinchpoint",
    help="Is the I/O path cabled and configured as it should be, and where is the pinch point?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(stats_app, name="stats")
register_check_commands(app)
register_serve_command(app)


def _collect(source: Source, kind: SourceKind | None = None) -> Inventory:
    with progress_bar() as progress:
        task = progress.add_task("inventory", total=None)
        return collect_inventory(source, kind=kind, progress=progress_reporter(progress, task))


def _show(inventory: Inventory, as_json: bool, disks: bool) -> None:
    if as_json:
        sys.stdout.write(inventory.model_dump_json(indent=2) + "\n")
    else:
        from pinchpoint.render import inventory_view

        output_console().print(inventory_view(inventory, with_disks=disks))


@app.command()
def inventory(
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
    as_json: Annotated[bool, typer.Option("--json", help="Print the typed model as JSON.")] = False,
    disks: Annotated[
        bool, typer.Option("--disks", help="Also list every disk with its paths.")
    ] = False,
) -> None:
    """The SAS fabric: HBA → port → chain → enclosure → slots, with the path count of each."""
    if sum([snapshot is not None, demo]) > 1:
        raise fail("--snapshot and --demo exclude each other")
    if demo:
        with demo_source() as source:
            _show(_collect(source, SourceKind.DEMO), as_json, disks)
        return
    if snapshot is not None:
        try:
            with open_snapshot(snapshot) as source:
                _show(_collect(source), as_json, disks)
        except (FileNotFoundError, ValueError) as err:
            raise fail(str(err)) from None
        return
    found = _collect(LiveSource())
    if demo_if_no_sas and not found.sas.hbas:
        errors.print(
            "[yellow]This host has no SAS fabric (no SAS HBA found); showing the demo host.[/]"
        )
        with demo_source() as source:
            _show(_collect(source, SourceKind.DEMO), as_json, disks)
        return
    _show(found, as_json, disks)


@app.command("capture")
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
) -> None:
    """Write a snapshot of everything the collectors read, to analyse this host elsewhere."""
    from pinchpoint.checks.capture import capture, capture_tarball

    try:
        with progress_bar() as progress:
            task = progress.add_task("capture", total=None)
            say = progress_reporter(progress, task)
            write = capture_tarball if tar else capture
            result = write(out, progress=say, samples=samples, interval_s=interval)
    except FileExistsError as err:
        raise fail(f"{err}; choose a new path") from None
    fabric = result.inventory.sas
    output_console().print(
        f"snapshot written to [bold]{result.path}[/]: {len(fabric.hbas)} SAS HBAs, "
        f"{len(fabric.enclosures)} enclosures, {fabric.path_count} disk paths, "
        f"{len(result.inventory.problems)} parts not collected"
    )


@app.command()
def simulate(
    spec: Annotated[Path, typer.Argument(help="Host spec (TOML or YAML).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot directory to write.")],
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing snapshot.")
    ] = False,
) -> None:
    """Write a snapshot of an imagined host described by SPEC."""
    from pydantic import ValidationError

    from pinchpoint.simulator import load_spec, write_snapshot

    try:
        host = load_spec(spec)
        write_snapshot(host, out, overwrite=overwrite)
    except FileNotFoundError as err:
        raise fail(f"no such spec file: {err.filename or spec}") from None
    except FileExistsError as err:
        raise fail(f"{err}; pass --overwrite to replace it") from None
    except (ValidationError, ValueError) as err:
        raise fail(f"{spec}: {err}") from None
    output_console().print(f"simulated host written to [bold]{out}[/]")


@app.command()
def version() -> None:
    """Print the pinchpoint version."""
    output_console().print(f"pinchpoint {__version__}")


if __name__ == "__main__":
    app()
