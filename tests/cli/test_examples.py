"""Every command's `--help` ends with "Examples:" and one to three real invocations of that
command, each of which Click's parser accepts with the command's own options and types."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
import typer.main
from cli_commands import every_command
from typer.core import TyperGroup
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.cli.examples import epilog_examples

runner = CliRunner()


def parses(words: list[str]) -> None:
    """Parse `pinchpoint WORDS` as the command would, without running it: the commands named
    are looked up, then the last one's parser reads every option, argument and type (a bad
    value or an unknown option raises click's usage error)."""
    command: Any = typer.main.get_group(app)
    name = "pinchpoint"
    rest = list(words)
    while isinstance(command, TyperGroup) and rest and not rest[0].startswith("-"):
        name, rest = rest[0], rest[1:]
        command = command.get_command(None, name)
        assert command is not None, name
    context = command.make_context(name, rest)
    context.close()


@pytest.mark.parametrize("path", sorted(every_command(groups=True)), ids=" ".join)
def test_each_command_has_examples_that_parse(path: tuple[str, ...]) -> None:
    command = every_command(groups=True)[path]
    examples = epilog_examples(command.epilog)
    assert 1 <= len(examples) <= 3, (path, command.epilog)
    for example in examples:
        words = shlex.split(example)
        assert words[: len(path) + 1] == ["pinchpoint", *path], example
        parses(words[1:])
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    help_lines = [line.strip() for line in shown.output.splitlines()]
    assert "Examples:" in help_lines
    assert all(example in help_lines for example in examples)


def test_the_parser_refuses_what_the_command_does_not_take() -> None:
    """The check above can fail: a wrong option, value or missing argument is refused."""
    for words in (
        ["check", "--no-such-option"],
        ["capture", "out", "--format", "markdown"],
        ["stats", "show", "--by", "galaxy"],
        ["explain"],
    ):
        with pytest.raises(Exception) as raised:
            parses(words)
        assert type(raised.value).__name__ in ("NoSuchOption", "BadParameter", "MissingParameter")
