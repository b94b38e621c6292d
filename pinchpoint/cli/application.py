"""The `pinchpoint` Typer app, whose commands are imported when they run: a command's module
(and what it imports: collectors, rules, the service) is loaded only for that command, or for
a list of every command's options (the app's own `--help` through Typer, the tests)."""

from __future__ import annotations

import importlib
import json
import sys
from typing import Annotated, Any

import typer
import typer.completion
import typer.main
from typer._completion_classes import completion_init
from typer._completion_shared import _completion_scripts

from pinchpoint import __version__
from pinchpoint.cli.commands import (
    APP_HELP,
    COMMANDS,
    INSTALL_COMPLETION_HELP,
    SHELL_METAVAR,
    SHELLS,
    SHOW_COMPLETION_HELP,
    VERSION_HELP,
)
from pinchpoint.cli.console import output_console
from pinchpoint.cli.errors import PinchpointGroup
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import JsonOption, chosen_format, format_option
from pinchpoint.report import ReportFormat

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


# Typer's completion classes answer its scripts' `_PINCHPOINT_COMPLETE=complete_bash` calls
# (Typer registers them itself only with `add_completion`, whose options guess the shell)
completion_init()

# Typer's zsh script, autoloaded from ~/.zfunc as `--install-completion zsh` sets it up, only
# defines and registers its function the first time: the first Tab of every new shell offered
# nothing (pallets/click#2344). Autoloaded, it now completes at once too.
_completion_scripts["zsh"] = """
#compdef %(prog_name)s

%(complete_func)s() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" %(autocomplete_var)s=complete_zsh \
%(prog_name)s)
}

compdef %(complete_func)s %(prog_name)s
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
  %(complete_func)s "$@"
fi
"""


def _print_version(value: bool) -> None:
    if value:
        output_console().print(f"pinchpoint {__version__}")
        raise typer.Exit()


def _shell(value: str) -> str:
    if value not in SHELLS:
        raise typer.BadParameter(f"{value!r}: use {', '.join(SHELLS)}")
    return value


def _shells(incomplete: str) -> list[str]:
    return [shell for shell in SHELLS if shell.startswith(incomplete)]


def _completion_option(name: str, callback: Any, help_text: str) -> Any:
    """`--install-completion SHELL` or `--show-completion SHELL`: Typer's script for the shell
    named (Typer's own options guess the shell, which a script or a sudo shell gets wrong)."""
    return typer.Option(
        name,
        parser=_shell,
        autocompletion=_shells,
        metavar=SHELL_METAVAR,
        callback=callback,
        expose_value=False,
        is_eager=True,
        show_default=False,
        help=help_text,
    )


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help=VERSION_HELP),
    ] = False,
    _install_completion: Annotated[
        str | None,
        _completion_option(
            "--install-completion", typer.completion.install_callback, INSTALL_COMPLETION_HELP
        ),
    ] = None,
    _show_completion: Annotated[
        str | None,
        _completion_option(
            "--show-completion", typer.completion.show_callback, SHOW_COMPLETION_HELP
        ),
    ] = None,
) -> None:
    """The options of `pinchpoint` itself (before the command)."""


VERSION_EXAMPLES = ("pinchpoint version", "pinchpoint version --json")


@app.command(epilog=examples_epilog(VERSION_EXAMPLES))
def version(
    form: Annotated[
        ReportFormat | None, format_option(ReportFormat.TABLE, ReportFormat.JSON)
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Print the pinchpoint version."""
    if chosen_format(form, as_json) is ReportFormat.JSON:
        sys.stdout.write(json.dumps({"version": __version__}) + "\n")
        return
    output_console().print(f"pinchpoint {__version__}")
