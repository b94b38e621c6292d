"""Element type headings and element blocks: how the es, ed and aes pages are cut up.

Under each "Element type: X, subenclosure id: N" heading a page lists its elements, each
starting with a line of its own ("Element 3 descriptor:", "Overall descriptor:", "Element
index: 25"). `page_layout` cuts a page into those blocks; `built_elements` builds each block's
element, dropping (with a warning) those whose values are garbled or whose lines are missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from pinchpoint.checks.parse.ses.page import Body, Line
from pinchpoint.checks.parse.ses.values import (
    GarbledError,
    IncompleteError,
    line_fields,
    number_value,
)

__all__ = [
    "Block",
    "Heading",
    "Layout",
    "built_elements",
    "element_label",
    "element_type_heading",
    "page_layout",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Heading:
    """An "Element type: X, subenclosure id: N [ti=K]" line."""

    element_type: str
    subenclosure_id: int
    type_index: int | None
    possible_elements: int | None  # only on the configuration page (on this line or the next)
    line: Line


_TYPE_INDEX = re.compile(r"\[ti=(?P<ti>[^\]]*)\]", re.IGNORECASE)  # the "[ti=3]" suffix


def element_type_heading(line: Line) -> Heading | None:
    """The element type heading on `line`, None if it is not one; `GarbledError` if unusable."""
    if line.text[0] not in "eE" or not line.text.lower().startswith("element type:"):
        return None
    fields = line_fields(line.text)
    element_type = fields.get("element type", "")
    if not element_type:
        raise GarbledError("the element type heading names no type")
    if "subenclosure id" not in fields:
        raise GarbledError(f"the heading of {element_type!r} has no subenclosure id")
    subenclosure = fields["subenclosure id"]
    type_index = _TYPE_INDEX.search(subenclosure)
    possible = fields.get("number of possible elements")
    return Heading(
        element_type=element_type,
        subenclosure_id=number_value(subenclosure, "subenclosure id"),
        type_index=number_value(type_index["ti"], "type index") if type_index else None,
        possible_elements=None if possible is None else number_value(possible, "possible elements"),
        line=line,
    )


def element_label(text: str) -> tuple[str | None, str] | None:
    """Split "Element 3 descriptor: rest" into ("3", "rest") and "Overall descriptor: rest" into
    (None, "rest"); None for any other line. The number is checked later, by its element.

    `text` is a stripped line: its first letter rules out most lines at once."""
    if text[:1] not in ("e", "E", "o", "O"):
        return None
    label, _, rest = text.partition(":")
    lowered = label.lower().split()
    if lowered == ["overall", "descriptor"]:
        return None, rest.strip()
    if len(lowered) == 3 and lowered[0] == "element" and lowered[2] == "descriptor":
        return label.split()[1], rest.strip()
    return None


@dataclass
class Block:
    """The lines of one element: its first line and those under it, below its type heading."""

    heading: Heading | None  # None when the heading was unusable
    start: Line
    numbers: list[int] = field(default_factory=list)  # the lines under `start`, as in `Body`
    texts: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Where the block starts and what it is, for warnings."""
        kind = self.heading.element_type if self.heading else "element of an unusable type"
        return f"line {self.start.number}: {kind} {self.start.text!r}"


@dataclass
class Layout:
    """A page cut into the lines above its first element type and its element blocks."""

    preface: list[Line]  # lines before the first heading (summary, generation code, list title)
    blocks: list[Block]


# The first letters of the lines `page_layout` looks at: "Element type: …" headings, and the first
# lines of elements ("Element index: …", "Element 3 descriptor:", "Overall descriptor:").
_STARTS = frozenset("eEoO")


def page_layout(body: Body, is_start: Callable[[str], bool], *, count_types: bool) -> Layout:
    """Cut the page into element blocks under their headings.

    `is_start` tells the first line of an element; it is true only for lines starting with one
    of `_STARTS`. `count_types` numbers the headings in order when the version prints no `[ti=N]`
    (right for es and ed, which list every type; not for aes, which skips types).

    Only the lines starting with one of `_STARTS` are looked at one by one; the runs of lines
    between them go whole to the element open above them, to the preface, or to warnings.
    """
    layout = Layout(preface=[], blocks=[])
    heading: Heading | None = None
    open_block: Block | None = None
    headings_seen = 0

    def place(first: int, end: int) -> None:
        """Lines first..end-1, none a heading or an element's first line: where they belong."""
        if open_block is not None:  # an element gets the one run after its first line
            open_block.numbers = body.numbers[first:end]
            open_block.texts = body.texts[first:end]
        elif headings_seen == 0:
            layout.preface.extend(body.line(i) for i in range(first, end))
        elif heading is not None:
            for i in range(first, end):
                body.warn(f"line {body.numbers[i]}: not inside any element: {body.texts[i]!r}")

    run = 0  # the first line not placed yet
    for index in [i for i, text in enumerate(body.texts) if text[0] in _STARTS]:
        line = body.line(index)
        try:
            found = element_type_heading(line)
        except GarbledError as bad:
            place(run, index)
            run = index + 1
            body.warn(f"line {line.number}: {bad}; the elements under it are skipped")
            heading, open_block, headings_seen = None, None, headings_seen + 1
            continue
        if found is None and not is_start(line.text):
            continue  # an ordinary line after all ("OK=0, …"): it stays in the run
        place(run, index)
        run = index + 1
        if found is not None:
            if found.type_index is None and count_types:
                found = replace(found, type_index=headings_seen)
            heading, open_block, headings_seen = found, None, headings_seen + 1
        else:
            open_block = Block(heading=heading, start=line)
            layout.blocks.append(open_block)
    place(run, len(body.texts))
    return layout


def built_elements(
    body: Body, blocks: list[Block], build: Callable[[Block, bool], T]
) -> tuple[list[T], bool]:
    """Build every block's element, dropping those that fail; True if the text ended in one.

    `build(block, is_last)` raises `GarbledError` for a bad value (dropped, noted) or
    `IncompleteError` for missing lines (dropped; if it is the last block, the page was cut).
    """
    built: list[T] = []
    ended_inside = False
    for position, block in enumerate(blocks):
        if block.heading is None:
            continue  # already warned about at its heading
        is_last = position == len(blocks) - 1
        try:
            built.append(build(block, is_last))
        except GarbledError as bad:
            body.warn(f"{block.describe()} dropped: {bad}")
        except IncompleteError as short:
            if is_last:
                ended_inside = True
                body.warn(f"{block.describe()} dropped: the text ends inside it ({short})")
            else:
                body.warn(f"{block.describe()} dropped: {short}")
    return built, ended_inside
