"""`pinchpoint simulate`: write the snapshot of an imagined host from a spec (docs/simulator.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from pinchpoint.cli.console import data, fail, output_console, progress_bar, progress_reporter
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import JsonOption, chosen_format, format_option
from pinchpoint.report import ReportFormat


def simulate_command(
    spec: Annotated[Path, typer.Argument(help="Host spec (TOML or YAML).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot directory to write.")],
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing snapshot.")
    ] = False,
    form: Annotated[
        ReportFormat | None, format_option(ReportFormat.TABLE, ReportFormat.JSON)
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Write a snapshot of an imagined host described by SPEC.

    JSON names the snapshot written and the host: {"snapshot": ..., "hostname": ...}."""
    from pydantic import ValidationError

    from pinchpoint.simulator import load_spec, write_snapshot
    from pinchpoint.simulator.spec.load import SpecError

    chosen = chosen_format(form, as_json)
    try:
        host = load_spec(spec)
        with progress_bar() as progress:
            task = progress.add_task("simulate", total=None)
            write_snapshot(
                host, out, overwrite=overwrite, progress=progress_reporter(progress, task)
            )
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
    if chosen is ReportFormat.JSON:
        from pinchpoint.text import json_printable

        written = {"snapshot": str(out), "hostname": host.host.hostname}
        sys.stdout.write(json_printable(json.dumps(written, ensure_ascii=False)) + "\n")
        return
    output_console().print(f"simulated host written to [bold]{data(out)}[/]")


EXAMPLES = (
    "pinchpoint simulate tests/fixtures/specs/healthy_host.toml --out /tmp/healthy",
    "pinchpoint simulate pinchpoint/simulator/specs/demo.toml --out demo --overwrite --json",
)


def register(app: typer.Typer) -> None:
    """Add `simulate` to the `pinchpoint` command."""
    app.command("simulate", epilog=examples_epilog(EXAMPLES))(simulate_command)
