"""`--format markdown` of the commands that draw tables for a terminal (`inventory`, `stats …`,
`config show`): the same renderables written as Markdown, for a ticket or a wiki page — each
table a Markdown table under its title in bold, each line of text a paragraph, and what is
neither (the fabric's tree) drawn as plain text in a fenced block. The words are the views' own:
nothing here decides what is shown."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator

from rich.console import Console, Group, RenderableType
from rich.table import Column, Table
from rich.text import Text

from pinchpoint.cli.console import PIPE_WIDTH, output_console
from pinchpoint.cli.fitted import FittedTable
from pinchpoint.text import printable

_ALIGN = {"right": "---:", "center": ":---:"}


def markdown_document(renderables: Iterable[RenderableType]) -> str:
    """The Markdown of what a command would print, one block per table or line of text. Text
    from hosts is kept as visible escapes (`pinchpoint.text.printable`)."""
    drawer = Console(file=io.StringIO(), width=PIPE_WIDTH, color_system=None, emoji=False)
    blocks = [block for each in renderables for block in _blocks(each, drawer)]
    return printable("\n\n".join(blocks) + "\n", lines=True)


def print_views(views: Iterable[RenderableType], markdown: bool) -> None:
    """What a command draws, on the terminal (each view in turn) or as one Markdown document."""
    if markdown:
        sys.stdout.write(markdown_document(views))
        return
    console = output_console()
    for view in views:
        console.print(view)


def _blocks(renderable: RenderableType, drawer: Console) -> Iterator[str]:
    if isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from _blocks(part, drawer)
    elif isinstance(renderable, FittedTable):  # one table: a page has no width to fit
        whole = renderable.part(range(len(renderable.columns)), renderable.title or None)
        yield _table(whole, drawer)
    elif isinstance(renderable, Table):
        yield _table(renderable, drawer)
    elif isinstance(renderable, Text | str):
        text = _plain(renderable, drawer).strip()
        if text:
            yield _paragraph(text)
    else:
        yield "```\n" + _drawn(renderable, drawer) + "\n```"


def _plain(renderable: RenderableType, drawer: Console) -> str:
    """The characters a cell or line shows: console markup in a string read as Rich reads it."""
    if isinstance(renderable, Text):
        return renderable.plain
    if isinstance(renderable, str):
        return drawer.render_str(renderable, highlight=False).plain
    return _drawn(renderable, drawer)


def _drawn(renderable: RenderableType, drawer: Console) -> str:
    """`renderable` drawn as plain text (no colours), lines stripped of trailing blanks."""
    with drawer.capture() as captured:
        drawer.print(renderable)
    return "\n".join(line.rstrip() for line in captured.get().rstrip("\n").split("\n"))


def _paragraph(text: str) -> str:
    """A line of text that Markdown shows as written (a leading `#` or `-` is no heading)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    escaped = [f"\\{line}" if line[0] in "#->*+|" else line for line in lines]
    return "  \n".join(escaped)  # hard line breaks


def _cell(renderable: RenderableType, drawer: Console) -> str:
    """One Markdown table cell: its lines joined by `<br>`, pipes escaped."""
    lines = [line.strip() for line in _plain(renderable, drawer).splitlines()]
    return "<br>".join(line for line in lines if line).replace("|", "\\|")


def _title(table: Table, drawer: Console) -> str | None:
    if table.title is None:
        return None
    title = _plain(table.title, drawer).strip()
    return f"**{title}**" if title else None


def _table(table: Table, drawer: Console) -> str:
    columns: list[Column] = table.columns
    lines = [
        "| " + " | ".join(_cell(c.header, drawer) for c in columns) + " |",
        "|" + "|".join(_ALIGN.get(c.justify, "---") for c in columns) + "|",
    ]
    for row in zip(*(list(c.cells) for c in columns), strict=True):
        lines.append("| " + " | ".join(_cell(cell, drawer) for cell in row) + " |")
    title = _title(table, drawer)
    return "\n".join([title, "", *lines] if title else lines)
