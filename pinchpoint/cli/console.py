"""Terminal plumbing every command shares: result and error consoles, progress bars."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

errors = Console(stderr=True)
PIPE_WIDTH = 200  # when output goes to a file or a ticket, do not cut WWNs at 80 columns


def output_console() -> Console:
    """A console for results: the terminal's width, or a wide page when piped."""
    probe = Console()
    if probe.is_terminal or "COLUMNS" in os.environ:
        return probe
    return Console(width=PIPE_WIDTH)


def fail(message: str, code: int = 2) -> typer.Exit:
    errors.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


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
