"""`pinchpoint stats`: latency and load figures from samples, imports and the live host."""

from __future__ import annotations

import typer

stats_app = typer.Typer(
    help="Latency and load: iostat figures, imported series, breakdowns along the hierarchy.",
    no_args_is_help=True,
)

# Each module adds its commands to `stats_app` when imported.
from pinchpoint.stats_cli import diff, imports, show  # noqa: E402

__all__ = ["diff", "imports", "show", "stats_app"]
