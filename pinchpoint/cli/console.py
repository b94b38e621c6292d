"""Terminal plumbing every command shares: result and error consoles, progress bars."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import typer
from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.segment import Segment
from rich.text import Text

from pinchpoint.text import printable


class SafeConsole(Console):
    """A console that never sends a control character it did not make: text from hosts (a host
    name with escape sequences, a vendor string with a bidi override) is drawn as visible
    escapes (`pinchpoint.text.printable`); Rich's own control codes (a progress bar's cursor
    moves) pass."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rendering = threading.local()  # inside an escaping render, on this thread

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        # Rich renders nested renderables (a table's cells) through render() again: only the
        # outermost call escapes, once per segment (escaping at every level cost 70% more).
        if getattr(self._rendering, "active", False):
            return super().render(renderable, options)
        return self._escaped(renderable, options)

    def _escaped(
        self, renderable: RenderableType, options: ConsoleOptions | None
    ) -> Iterator[Segment]:
        self._rendering.active = True
        try:
            for segment in super().render(renderable, options):
                if segment.control or not segment.text:
                    yield segment
                else:
                    text = printable(segment.text, lines=True)
                    yield segment if text == segment.text else Segment(text, segment.style)
        finally:
            self._rendering.active = False


errors = SafeConsole(stderr=True)
PIPE_WIDTH = 200  # when output goes to a file or a ticket, do not cut WWNs at 80 columns


def output_console() -> Console:
    """A console for results: the terminal's width, or a wide page when piped."""
    probe = SafeConsole()
    if probe.is_terminal or "COLUMNS" in os.environ:
        return probe
    return SafeConsole(width=PIPE_WIDTH)


def data(value: object) -> str:
    """A value from a host or the user (a path, a name) inside console markup: its square
    brackets printed, not read as markup."""
    return escape(str(value))


def located(where: object, message: str) -> str:
    """`where: message`, unless the message already names `where` (no doubled paths)."""
    return message if str(where) in message else f"{where}: {message}"


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print `pinchpoint: error: <message>` (one line, taken as text, not markup) and return the
    exit to raise."""
    errors.print(error_line(message), soft_wrap=True)
    return typer.Exit(code)


def error_line(message: str) -> Text:
    """The one line every CLI error is: `pinchpoint: error: what (where) — what to do`."""
    line = Text("pinchpoint: ")
    line.append("error:", style="bold red")
    line.append(" " + printable(" ".join(message.split())))
    return line


_COUNTED_STEP = re.compile(r"^(?P<what>.+?) (?P<done>\d+)/(?P<total>\d+)$")  # "smartctl 12/144"


def progress_bar() -> Progress:
    """A transient progress bar on stderr, shown only on a terminal."""
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    )


def progress_reporter(progress: Progress, task: TaskID) -> Callable[[str], None]:
    """A collector's progress messages on the bar: counted steps ("smartctl 12/144") fill it."""

    current = [task]

    def report(message: str) -> None:
        counted = _COUNTED_STEP.match(message)
        if counted is None:
            if progress.tasks and progress.tasks[-1].total is not None:
                # after a counted step, a fresh task: an open-ended step has no bar to fill
                progress.remove_task(current[0])
                current[0] = progress.add_task(message, total=None)
            progress.update(current[0], description=message)
        else:
            progress.update(
                current[0],
                description=counted["what"],
                total=int(counted["total"]),
                completed=int(counted["done"]),
            )

    return report
