"""The `pinchpoint` command: one module per command group, each declaring its commands and
importing the heavy parts (collectors, rules, statistics, the service) only when it runs.

- `inventory`: the I/O path of a host; `capture`: a snapshot of it; `simulate`: an imagined host
- `check`: the rules against a host; `rules` and `explain`: the catalog
- `stats …`: latency and load figures; `serve`: the service; `config show`: the settings in force

Importing this package costs nothing: `main` answers `--version` and `--help` from
`cli.quick`, and builds the Typer app (`cli.application`, also `pinchpoint.cli.app`) only for
a command or a shell's completion request; that app imports a command's module only when the
command runs (or its options are completed).
"""

from __future__ import annotations

import os
import sys
from typing import Any

# set by the shell completion scripts (`pinchpoint --show-completion bash`) when they ask
# `pinchpoint` (without arguments) for the words that complete a command line
COMPLETE_VARIABLE = "_PINCHPOINT_COMPLETE"


def main() -> None:
    """The installed `pinchpoint` command."""
    from pinchpoint.cli.quick import answer

    status = None if COMPLETE_VARIABLE in os.environ else answer(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from pinchpoint.cli.application import app

    app(prog_name="pinchpoint")


def __getattr__(name: str) -> Any:
    """`pinchpoint.cli.app`: the Typer app, built when first asked for."""
    if name == "app":
        from pinchpoint.cli.application import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
