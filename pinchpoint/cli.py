"""The `pinchpoint` command: inventory, capture and simulate, on a live host or a snapshot."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from pinchpoint import __version__
from pinchpoint.checks.capture import capture, capture_tarball
from pinchpoint.checks.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource, Source, open_snapshot
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.render import inventory_view

app = typer.Typer(
    name="pinchpoint",
    help="Is the I/O path cabled and configured as it should be, and where is the pinch point?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
errors = Console(stderr=True)
PIPE_WIDTH = 200  # when output goes to a file or a ticket, do not cut WWNs at 80 columns


def output_console() -> Console:
    """A console for results: the terminal's width, or a wide page when piped."""
    probe = Console()
    if probe.is_terminal or "COLUMNS" in os.environ:
        return probe
    return Console(width=PIPE_WIDTH)


def fail(message: str, code: int = 2) -> typer.Exit:
    errors.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


@contextmanager
def demo_source() -> Iterator[Source]:
    """The bundled demo host, simulated into a temporary snapshot."""
    from pinchpoint.simulator import demo_spec, write_snapshot

    with tempfile.TemporaryDirectory(prefix="pinchpoint-demo-") as tmp:
        write_snapshot(demo_spec(), Path(tmp, "demo"))
        with open_snapshot(Path(tmp, "demo")) as source:
            yield source


_COUNTED_STEP = re.compile(r"^(?P<what>.+?) (?P<done>\d+)/(?P<total>\d+)$")  # "smartctl 12/144"


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    )


def _reporter(progress: Progress, task: TaskID) -> Callable[[str], None]:
    """A collector's progress messages on the bar: counted steps ("smartctl 12/144") fill it."""

    current = [task]

    def report(message: str) -> None:
        counted = _COUNTED_STEP.match(message)
        if counted is None:
            if progress.tasks and progress.tasks[-1].total is not None:
                # after a counted step, a fresh task: an open-ended step has no bar to fill
                progress.remove_task(current[0])
                current[0] = progress.add_task(message, total=None)
            progress.update(current[0], description=message)
        else:
            progress.update(
                current[0],
                description=counted["what"],
                total=int(counted["total"]),
                completed=int(counted["done"]),
            )

    return report


def _collect(source: Source, kind: SourceKind | None = None) -> Inventory:
    with _progress() as progress:
        task = progress.add_task("inventory", total=None)
        return collect_inventory(source, kind=kind, progress=_reporter(progress, task))


def _show(inventory: Inventory, as_json: bool, disks: bool) -> None:
    if as_json:
        sys.stdout.write(inventory.model_dump_json(indent=2) + "\n")
    else:
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
) -> None:
    """Write a snapshot of everything the collectors read, to analyse this host elsewhere."""
    try:
        with _progress() as progress:
            task = progress.add_task("capture", total=None)
            say = _reporter(progress, task)
            result = capture_tarball(out, progress=say) if tar else capture(out, progress=say)
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
