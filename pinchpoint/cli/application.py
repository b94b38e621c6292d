"""The `pinchpoint` Typer app, whose commands are imported when they run: a command's module
(and what it imports: collectors, rules, the service) is loaded only for that command, or for
a list of every command's options (the app's own `--help` through Typer, the tests)."""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer
import typer.main

from pinchpoint import __version__
from pinchpoint.cli.commands import APP_HELP, COMMANDS, VERSION_HELP
from pinchpoint.cli.console import output_console
from pinchpoint.cli.errors import PinchpointGroup

_MODULES = {name: module for name, module, _ in COMMANDS if module}


def load_command(name: str) -> Any:  # typer's vendored click.Command
    """The click command `name` as its module declares it (the module imported now)."""
    module = importlib.import_module(_MODULES[name])
    declared = typer.Typer(add_completion=False)
    module.register(declared)
    return typer.main.get_group(declared).commands[name]


class LazyGroup(PinchpointGroup):
    """The `pinchpoint` group: the commands of `cli.commands` are loaded when asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [name for name, _, _ in COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in _MODULES:
            command = self.commands[cmd_name] = load_command(cmd_name)
        return command


app = typer.Typer(
    name="pinchpoint",
    cls=LazyGroup,
    help=APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        output_console().print(f"pinchpoint {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help=VERSION_HELP),
    ] = False,
) -> None:
    """The options of `pinchpoint` itself (before the command)."""


@app.command()
def version() -> None:
    """Print the pinchpoint version."""
    output_console().print(f"pinchpoint {__version__}")
