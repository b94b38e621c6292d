"""The text around one `sg_ses` page: its title, the preamble before it (INQUIRY line, primary
logical identifier), its lines, its warnings, and the page-level values every page shares.

`page_body` finds the page's title in the text (refusing empty, binary or other text with one
line saying what was found), reads the preamble, and keeps the page's own non-blank lines with
their numbers for warnings; a last line without its newline was cut mid-line and is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from pydantic import ValidationError

from pinchpoint.checks.parse.ses.values import (
    GarbledError,
    field_key,
    hex_id_value,
    line_fields,
    number_value,
)
from pinchpoint.model.ses import SesInquiry

__all__ = [
    "MAX_LINE",
    "MAX_WARNINGS",
    "Body",
    "Line",
    "SesParseError",
    "fields_with_lines",
    "generation_code",
    "optional_number",
    "page_body",
    "safely",
]

MAX_WARNINGS = 50  # garbage after a valid header must not produce a warning per line forever
MAX_LINE = 400  # sg_ses lines are under 200 characters; longer ones are not its output

T = TypeVar("T")


class SesParseError(ValueError):
    """The text is not the `sg_ses` page asked for, or holds nothing usable; the message says so."""

    def __init__(self, page: str, problem: str) -> None:
        super().__init__(f"sg_ses {page} output: {problem}")
        self.page = page
        self.problem = problem


# --- page headers -------------------------------------------------------------------------------

# Each page's title line as sg_ses prints it, for the error messages.
_TITLES = {
    "cf": "Configuration diagnostic page",
    "es": "Enclosure Status diagnostic page",
    "ed": "Element Descriptor In diagnostic page",
    "aes": "Additional element status diagnostic page",
    "snic": "Subenclosure nickname status diagnostic page",
    "th": "Threshold In diagnostic page",
}

# The title lines themselves, whole-line and case-insensitive; the colon is optional (1.48+
# prints "Enclosure Status diagnostic page" bare) and the element descriptor page dropped "In".
_HEADERS = {
    "cf": re.compile(r"configuration diagnostic page:?", re.IGNORECASE),
    "es": re.compile(r"enclosure status diagnostic page:?", re.IGNORECASE),
    "ed": re.compile(r"element descriptor (?:in )?diagnostic page:?", re.IGNORECASE),
    "aes": re.compile(r"additional element status diagnostic page:?", re.IGNORECASE),
    "snic": re.compile(r"subenclosure nickname status diagnostic page:?", re.IGNORECASE),
    "th": re.compile(r"threshold in diagnostic page:?", re.IGNORECASE),
}


def _is_any_page_title(raw_line: str) -> bool:
    """True for the title of any diagnostic page, where the page asked for ends (`--page=all`).

    Titles start in the first column ("Supported SES diagnostic pages:", "String In diagnostic
    page (for primary subenclosure):"); every line of a page's content is indented.
    """
    return bool(raw_line) and not raw_line[0].isspace() and "diagnostic page" in raw_line.lower()


def _is_primary_logical_id(text: str) -> bool:
    """True for the "Primary enclosure logical identifier (hex): …" line sg_ses prints first."""
    return field_key(text.partition(":")[0]) == "primary enclosure logical identifier (hex)"


def _page_named_by(text: str) -> str | None:
    """The abbreviation of the page whose title `text` is, if it is one of ours."""
    return next((page for page, header in _HEADERS.items() if header.fullmatch(text)), None)


# --- the text around the page: lines, preamble, warnings ----------------------------------------


class Line(NamedTuple):
    """One non-blank line of the page."""

    number: int  # 1-based, in the whole text, for warnings
    text: str  # stripped


@dataclass
class Body:
    """The lines of one page after its title, with what came before it and what went wrong.

    The lines are kept as two lists, not as a `Line` each: a 60-bay page has 1,200 of them,
    and the es and aes parsers read them in runs (`page_layout`).
    """

    page: str
    numbers: list[int]  # of the page's non-blank lines, 1-based in the whole text, for warnings
    texts: list[str]  # those lines, stripped
    cut: bool  # the text ended mid-line; that line was dropped
    inquiry: SesInquiry | None = None
    primary_logical_id: str | None = None
    warnings: list[str] = field(default_factory=list)

    def line(self, index: int) -> Line:
        """The page's line `index` (0 is the first after the title)."""
        return Line(self.numbers[index], self.texts[index])

    def lines(self) -> list[Line]:
        """All the page's lines."""
        return list(map(Line, self.numbers, self.texts))

    def warn(self, message: str) -> None:
        """Record a warning, up to MAX_WARNINGS of them."""
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        elif len(self.warnings) == MAX_WARNINGS:
            self.warnings.append("further warnings suppressed")


def _snippet(text: str, limit: int = 60) -> str:
    """The first non-blank line of `text`, shortened and quoted: safe in a one-line message."""
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    if len(first) > limit:
        first = first[:limit] + "…"
    return repr(first)


def _looks_binary(text: str) -> bool:
    """True for bytes decoded as text: NULs or replacement characters."""
    return "\x00" in text or "\ufffd" in text


def _missing_header(text: str, lines: list[str], page: str) -> str:
    """The one-line problem for text without the page's title: what it holds instead."""
    expected = f"no '{_TITLES[page]}' header"
    if _looks_binary(text):
        return f"{expected} (got binary data: {_snippet(text)})"
    other = next((p for p in map(_page_named_by, (ln.strip() for ln in lines)) if p), None)
    if other is not None:
        return f"{expected} (got the '{other}' page: {_TITLES[other]!r})"
    return f"{expected} (got: {_snippet(text)})"


def page_body(text: str, page: str) -> Body:
    """Find the page's title, read the preamble before it, and return the page's own lines."""
    if not isinstance(text, str):
        raise SesParseError(page, f"expected text, got {type(text).__name__}")
    if not text.strip():
        raise SesParseError(page, f"empty (expected a '{_TITLES[page]}' header)")
    raw = text.split("\n")
    if "\r" in text:
        raw = [line.rstrip("\r") for line in raw]
    cut = raw[-1] != ""  # sg_ses ends every line with a newline: this last one was cut
    title_at = next(
        (i for i, line in enumerate(raw) if _HEADERS[page].fullmatch(line.strip())), None
    )
    if title_at is None:
        raise SesParseError(page, _missing_header(text, raw, page))
    body = Body(page=page, numbers=[], texts=[], cut=False)
    _take_preamble(body, raw[:title_at])
    numbers, texts = body.numbers, body.texts
    for number, raw_line in enumerate(raw[title_at + 1 :], start=title_at + 2):
        stripped = raw_line.strip()
        if not stripped:
            continue
        if cut and number == len(raw):
            body.cut = True
            body.warn(f"line {number} was cut mid-line (no newline at the end): ignored")
            break
        if raw_line[0] != " " and _is_any_page_title(raw_line):  # page content is indented
            body.warn(f"line {number}: another page starts ({stripped!r}): stopped there")
            break
        if len(stripped) > MAX_LINE:
            body.warn(f"line {number}: {len(stripped)} characters, not sg_ses output: ignored")
        elif stripped[0] in "pP" and stripped[1:2] in "rR" and _is_primary_logical_id(stripped):
            continue  # it belongs to the next page ("Pr…": the first letters rule out most lines)
        else:
            numbers.append(number)
            texts.append(stripped)
    return body


# The INQUIRY line, in sg_ses' fixed layout "  %.8s  %.16s  %.4s": vendor and product are
# space-padded and may contain spaces themselves ("Areca Te").
_INQUIRY = re.compile(r"  (?P<vendor>.{8})  (?P<product>.{16})  (?P<revision>\S.{0,3})\s*")


def _inquiry(raw_line: str) -> SesInquiry | None:
    """The vendor/product/revision of an INQUIRY line, or None if the line is not one."""
    if ":" in raw_line:
        return None
    fixed = _INQUIRY.fullmatch(raw_line)
    if fixed:
        parts = [fixed["vendor"], fixed["product"], fixed["revision"]]
    else:  # spacing lost on the way (NULs in the INQUIRY data, or reformatted text)
        parts = re.split(r"\s{2,}", raw_line.strip())
    if len(parts) != 3 or not all(p.strip() for p in parts):
        return None
    vendor, product, revision = (p.strip() for p in parts)
    return SesInquiry(vendor=vendor, product=product, revision=revision)


def _take_preamble(body: Body, raw_lines: list[str]) -> None:
    """Take the INQUIRY line and the primary logical identifier from the lines before the title.

    Other lines there (the timestamp newer versions print, "device has EncServ bit set") are
    skipped: they say nothing the pages do not.
    """
    first = True
    for raw_line in raw_lines:
        if not raw_line.strip():
            continue
        value = raw_line.partition(":")[2]
        if _is_primary_logical_id(raw_line):
            try:
                found = hex_id_value(value, "primary enclosure logical identifier")
            except GarbledError as bad:
                body.warn(f"preamble: {bad}")
            else:
                if body.primary_logical_id not in (None, found):
                    body.warn(f"preamble: a second primary logical identifier {found} ignored")
                body.primary_logical_id = body.primary_logical_id or found
        elif first:
            body.inquiry = _inquiry(raw_line)
        first = False


# --- page-level values ------------------------------------------------------------------------


def optional_number(body: Body, key: str, found: tuple[str, Line] | None) -> int | None:
    """A page-level number (generation code, counts) and its line: garbled is only a warning."""
    if found is None:
        return None
    value, line = found
    try:
        return number_value(value, key)
    except GarbledError as bad:
        body.warn(f"line {line.number}: {bad}")
        return None


def fields_with_lines(lines: list[Line]) -> dict[str, tuple[str, Line]]:
    """The `name: value` fields of page-level lines, each with the line it came from."""
    found: dict[str, tuple[str, Line]] = {}
    for line in lines:
        for name, value in line_fields(line.text).items():
            found.setdefault(name, (value, line))
    return found


def generation_code(body: Body, preface: list[Line]) -> int | None:
    """The generation code from the lines under the title, if printed and readable."""
    return optional_number(
        body, "generation code", fields_with_lines(preface).get("generation code")
    )


def safely(page: str, build: Callable[[], T]) -> T:
    """Run a model constructor, turning a validation failure into `SesParseError`."""
    try:
        return build()
    except ValidationError as invalid:
        first = invalid.errors()[0]
        raise SesParseError(page, f"unusable values ({first['msg']})") from None
