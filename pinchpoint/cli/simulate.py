"""`pinchpoint simulate`: write the snapshot of an imagined host from a spec (docs/simulator.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pinchpoint.cli.console import data, fail, output_console


def simulate_command(
    spec: Annotated[Path, typer.Argument(help="Host spec (TOML or YAML).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot directory to write.")],
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing snapshot.")
    ] = False,
) -> None:
    """Write a snapshot of an imagined host described by SPEC."""
    from pydantic import ValidationError

    from pinchpoint.simulator import load_spec, write_snapshot
    from pinchpoint.simulator.spec.load import SpecError

    try:
        host = load_spec(spec)
        write_snapshot(host, out, overwrite=overwrite)
    except FileNotFoundError as err:
        raise fail(
            f"no such spec file: {err.filename or spec} — check the path "
            "(pinchpoint/simulator/specs/ holds examples)"
        ) from None
    except FileExistsError as err:
        raise fail(f"{err} — pass --overwrite to replace it, or choose a new --out") from None
    except SpecError as err:  # its message names the file
        raise fail(f"{err} — correct the spec (docs/simulator.md)") from None
    except (ValidationError, ValueError) as err:
        raise fail(f"{spec}: {err} — correct the spec (docs/simulator.md)") from None
    output_console().print(f"simulated host written to [bold]{data(out)}[/]")


def register(app: typer.Typer) -> None:
    """Add `simulate` to the `pinchpoint` command."""
    app.command("simulate")(simulate_command)
