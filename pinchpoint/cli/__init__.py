"""The `pinchpoint` command: one module per command group, each declaring its commands and
importing the heavy parts (collectors, rules, statistics, the service) only when it runs.

- `inventory`: the I/O path of a host; `capture`: a snapshot of it; `simulate`: an imagined host
- `check`: the rules against a host; `rules` and `explain`: the catalog
- `stats …`: latency and load figures; `serve`: the service; `config show`: the settings in force
"""

from __future__ import annotations

import typer

from pinchpoint import __version__
from pinchpoint.cli import capture, check, config, inventory, rules, serve, simulate
from pinchpoint.cli.console import output_console
from pinchpoint.cli.errors import PinchpointGroup
from pinchpoint.cli.stats import stats_app

app = typer.Typer(
    name="pinchpoint",
    cls=PinchpointGroup,
    help="Is the I/O path cabled and configured as it should be, and where is the pinch point?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for group in (inventory, capture, simulate, check, rules, serve, config):
    group.register(app)
app.add_typer(stats_app, name="stats")


@app.command()
def version() -> None:
    """Print the pinchpoint version."""
    output_console().print(f"pinchpoint {__version__}")


if __name__ == "__main__":
    app()
