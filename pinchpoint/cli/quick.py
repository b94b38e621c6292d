"""Answers `pinchpoint` gives before importing Typer, Rich or any command: `--version`, and the
list of commands (`--help`, or no arguments), drawn as Typer draws it (without colours).

The command list is read from `cli.commands`; `tests/cli/test_start.py` compares the text with
what Typer prints for the same app at several widths.
"""

from __future__ import annotations

import os
import sys
import textwrap

from pinchpoint import __version__
from pinchpoint.cli.commands import APP_HELP, APP_OPTIONS, COMMANDS

USAGE = "Usage: pinchpoint [OPTIONS] COMMAND [ARGS]..."
NO_ARGS_EXIT = 2  # what Typer's `no_args_is_help` exits with


def terminal_width() -> int:
    """The width Rich would draw at: $TERMINAL_WIDTH (Typer's), $COLUMNS, the terminal, 80."""
    for variable in ("TERMINAL_WIDTH", "COLUMNS"):
        value = os.environ.get(variable, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    for descriptor in (0, 1, 2):
        try:
            return os.get_terminal_size(descriptor).columns
        except OSError:
            continue
    return 80


def _wrap(text: str, width: int) -> list[str]:
    """Lines of `text` at most `width` wide, each of its own lines wrapped by words."""
    lines: list[str] = []
    for line in text.split("\n"):
        lines += textwrap.wrap(line, max(width, 1), break_on_hyphens=False) or [""]
    return lines


def _panel(title: str, rows: list[tuple[str, str]], first: int, width: int) -> list[str]:
    """A Rich panel of two-column rows: `first` columns of names, then help wrapped."""
    inner = width - 4  # the borders and one space inside each
    text_width = inner - first
    lines = [f"╭─ {title} " + "─" * max(width - len(title) - 5, 0) + "╮"]
    for name, help_text in rows:
        for number, part in enumerate(_wrap(help_text, text_width)):
            left = name if number == 0 else ""
            lines.append("│ " + (left.ljust(first) + part).ljust(inner) + " │")
    lines.append("╰" + "─" * max(width - 2, 0) + "╯")
    return lines


def top_help(width: int) -> str:
    """`pinchpoint --help`: usage, what it is, its options and its commands."""
    blank = " " * width
    lines = [blank, (" " + USAGE).ljust(width), blank]
    lines += [(" " + part).ljust(width) for part in _wrap(APP_HELP, width - 2)]
    lines.append(blank)
    option_width = max(len(name) for name, _, _ in APP_OPTIONS) + 8
    metavar_width = max(len(metavar) for _, metavar, _ in APP_OPTIONS) + 2
    lines += _panel(
        "Options",
        [(name.ljust(option_width) + metavar, h) for name, metavar, h in APP_OPTIONS],
        option_width + metavar_width,
        width,
    )
    command_width = max(len(name) for name, _, _ in COMMANDS) + 2
    lines += _panel("Commands", [(n, h) for n, _, h in COMMANDS], command_width, width)
    return "\n".join(lines) + "\n\n"


def answer(argv: list[str]) -> int | None:
    """Print the answer to `argv` and return the exit status when it needs no command module;
    None when the full command line must read it."""
    if argv == ["--version"]:
        sys.stdout.write(f"pinchpoint {__version__}\n")
        return 0
    if argv == ["--help"]:
        sys.stdout.write(top_help(terminal_width()))
        return 0
    if not argv:
        sys.stdout.write(top_help(terminal_width()))
        return NO_ARGS_EXIT
    return None
