"""`pinchpoint stats`: latency and load figures from samples, imports and the live host."""

from __future__ import annotations

import typer

stats_app = typer.Typer(
    help="Latency and load: iostat figures, imported series, breakdowns along the hierarchy.",
    no_args_is_help=True,
)
