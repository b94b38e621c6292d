"""Every command of `pinchpoint`, walked through the app's groups (for the tests that hold a
property of each: `tests/cli/test_format.py`, `tests/cli/test_examples.py`)."""

from __future__ import annotations

from typing import Any

import typer.main
from typer.core import TyperGroup

from pinchpoint.cli import app


def every_command(groups: bool = False) -> dict[tuple[str, ...], Any]:
    """The commands by their path (`("stats", "show")`); with `groups`, the groups too."""
    found: dict[tuple[str, ...], Any] = {}

    def walk(group: TyperGroup, path: tuple[str, ...]) -> None:
        for name in group.list_commands(None):  # type: ignore[arg-type]
            command = group.get_command(None, name)  # type: ignore[arg-type]
            if isinstance(command, TyperGroup):
                if groups:
                    found[(*path, name)] = command
                walk(command, (*path, name))
            else:
                found[(*path, name)] = command

    walk(typer.main.get_group(app), ())
    return found
