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
    moves) pass. `trim_line_ends`: the spaces that pad a table's cells to the page's width are
    left off the end of each line (output for a file or a ticket, where no style shows them)."""

    def __init__(self, *args: Any, trim_line_ends: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rendering = threading.local()  # inside an escaping render, on this thread
        self.trim_line_ends = trim_line_ends

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
            segments = super().render(renderable, options)
            if self.trim_line_ends:
                segments = _trimmed_lines(segments)
            for segment in segments:
                if segment.control or not segment.text:
                    yield segment
                else:
                    text = printable(segment.text, lines=True)
                    yield segment if text == segment.text else Segment(text, segment.style)
        finally:
            self._rendering.active = False


def _trimmed_lines(segments: Iterable[Segment]) -> Iterator[Segment]:
    """`segments` with the white space that ends each line left out: a line's segments are held
    until its newline, then the trailing blanks are cut from its last ones."""
    line: list[Segment] = []
    for segment in segments:
        if segment.control or "\n" not in segment.text:
            line.append(segment)
            continue
        *ends, rest = segment.text.split("\n")
        for end in ends:
            line.append(Segment(end, segment.style))
            yield from _rstripped(line)
            yield Segment("\n", segment.style)
            line = []
        if rest:
            line.append(Segment(rest, segment.style))
    yield from line  # no newline followed: nothing known to be a line's end


def _rstripped(line: list[Segment]) -> list[Segment]:
    """One line's segments (a list of the caller's, cut here) without the blanks at its end;
    control segments kept."""
    while line and not line[-1].control:
        text = line[-1].text.rstrip(" ")
        if text:
            line[-1] = Segment(text, line[-1].style)
            break
        line.pop()
    return [s for s in line if s.control or s.text]


errors = SafeConsole(stderr=True)
PIPE_WIDTH = 200  # when output goes to a file or a ticket, do not cut WWNs at 80 columns


def output_console() -> Console:
    """A console for results: the terminal's width, or when piped a wide page (`COLUMNS` wide
    if set) whose lines end with their last word, not with the padding of a table's cells."""
    probe = SafeConsole()
    if probe.is_terminal:
        return probe
    if "COLUMNS" in os.environ:
        return SafeConsole(trim_line_ends=True)
    return SafeConsole(width=PIPE_WIDTH, trim_line_ends=True)


def notice(markup: str) -> None:
    """One line for the user on stderr (console markup): wrapped at a terminal's width, kept
    whole in a pipe or a log, where a break at 80 columns would split it mid-sentence."""
    errors.print(markup, highlight=False, soft_wrap=not errors.is_terminal)


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
