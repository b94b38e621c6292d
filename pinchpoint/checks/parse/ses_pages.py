"""Parsers for what `sg_ses --page=PG` prints (cf, es, ed, aes, snic) into `pinchpoint.model.ses`.

Pure functions of text, no I/O: the collectors run `sg_ses` (or read a snapshot) and hand the
output here. Accepted shapes:

* `sg_ses --status --page=PG --inhex=FILE` (no INQUIRY line);
* live `sg_ses --page=PG /dev/sgN`, which first prints the INQUIRY line
  (`  HGST      H4060-J           3010`), on newer versions a timestamp, and for most pages
  `  Primary enclosure logical identifier (hex): …` before the page header;
* the wording of sg3_utils 1.46 (Debian, sg_ses 2.48) and of the later versions (1.48 and on):
  headers with or without the trailing colon, "Element Descriptor In" or "Element descriptor",
  "status descriptor list" or "Status descriptor list:", "nickname:" or "subenclosure nickname:"
  (the change that broke sasutils), logical identifiers printed with or without leading zeros.
  Keys are compared case-insensitively with spacing collapsed.

Not accepted: `--join`/`--all` output, `--inner-hex`, and `--filter` for the es page (its
truncation check compares an element's lines with those of the type's overall element).

What happens with bad input:

* empty, binary, the wrong page, or a header with nothing complete after it: `SesParseError`,
  one line saying what was expected and what was found;
* a page whose text ends early keeps every element that is complete, drops the one the text
  ended inside, and returns with `truncated=True` and a warning naming where it ended. A last
  line without its newline was cut mid-line: it is ignored (a half-printed SAS address would
  otherwise be believed);
* an element with a value that does not parse ("number of phys: x") is dropped with a warning;
  the rest of the page stands and `truncated` stays False.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import NamedTuple, TypeVar

from pydantic import ValidationError

from pinchpoint.model.ses import (
    SAS_EXPANDER,
    SesAdditionalElement,
    SesAdditionalStatus,
    SesConfiguration,
    SesDescriptorGroup,
    SesElementDescriptors,
    SesEnclosureStatus,
    SesInquiry,
    SesNickname,
    SesNicknames,
    SesPage,
    SesStatusElement,
    SesSubenclosure,
    SesTypeDescriptor,
)

__all__ = [
    "PAGE_PARSERS",
    "SesParseError",
    "parse_additional_status",
    "parse_configuration",
    "parse_element_descriptors",
    "parse_enclosure_status",
    "parse_nicknames",
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


class _GarbledError(ValueError):
    """A value that must be a number or an address is not: its element is dropped."""


class _IncompleteError(ValueError):
    """An element lacks lines it must have: the text probably ended inside it."""


# --- page headers -------------------------------------------------------------------------------

# Each page's title line as sg_ses prints it, for the error messages.
_TITLES = {
    "cf": "Configuration diagnostic page",
    "es": "Enclosure Status diagnostic page",
    "ed": "Element Descriptor In diagnostic page",
    "aes": "Additional element status diagnostic page",
    "snic": "Subenclosure nickname status diagnostic page",
}

# The title lines themselves, whole-line and case-insensitive; the colon is optional (1.48+
# prints "Enclosure Status diagnostic page" bare) and the element descriptor page dropped "In".
_HEADERS = {
    "cf": re.compile(r"configuration diagnostic page:?", re.IGNORECASE),
    "es": re.compile(r"enclosure status diagnostic page:?", re.IGNORECASE),
    "ed": re.compile(r"element descriptor (?:in )?diagnostic page:?", re.IGNORECASE),
    "aes": re.compile(r"additional element status diagnostic page:?", re.IGNORECASE),
    "snic": re.compile(r"subenclosure nickname status diagnostic page:?", re.IGNORECASE),
}


def _is_any_page_title(raw_line: str) -> bool:
    """True for the title of any diagnostic page, where the page asked for ends (`--page=all`).

    Titles start in the first column ("Supported SES diagnostic pages:", "String In diagnostic
    page (for primary subenclosure):"); every line of a page's content is indented.
    """
    return bool(raw_line) and not raw_line[0].isspace() and "diagnostic page" in raw_line.lower()


def _is_primary_logical_id(text: str) -> bool:
    """True for the "Primary enclosure logical identifier (hex): …" line sg_ses prints first."""
    return _key(text.partition(":")[0]) == "primary enclosure logical identifier (hex)"


def _page_named_by(text: str) -> str | None:
    """The abbreviation of the page whose title `text` is, if it is one of ours."""
    return next((page for page, header in _HEADERS.items() if header.fullmatch(text)), None)


# --- the text around the page: lines, preamble, warnings ----------------------------------------


class _Line(NamedTuple):
    """One non-blank line of the page."""

    number: int  # 1-based, in the whole text, for warnings
    text: str  # stripped


@dataclass
class _Body:
    """The lines of one page after its title, with what came before it and what went wrong.

    The lines are kept as two lists, not as a `_Line` each: a 60-bay page has 1,200 of them,
    and the es and aes parsers read them in runs (`_layout`).
    """

    page: str
    numbers: list[int]  # of the page's non-blank lines, 1-based in the whole text, for warnings
    texts: list[str]  # those lines, stripped
    cut: bool  # the text ended mid-line; that line was dropped
    inquiry: SesInquiry | None = None
    primary_logical_id: str | None = None
    warnings: list[str] = field(default_factory=list)

    def line(self, index: int) -> _Line:
        """The page's line `index` (0 is the first after the title)."""
        return _Line(self.numbers[index], self.texts[index])

    def lines(self) -> list[_Line]:
        """All the page's lines."""
        return list(map(_Line, self.numbers, self.texts))

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


def _page_body(text: str, page: str) -> _Body:
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
    body = _Body(page=page, numbers=[], texts=[], cut=False)
    _read_preamble(body, raw[:title_at])
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


def _read_preamble(body: _Body, raw_lines: list[str]) -> None:
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
                found = _hex_id(value, "primary enclosure logical identifier")
            except _GarbledError as bad:
                body.warn(f"preamble: {bad}")
            else:
                if body.primary_logical_id not in (None, found):
                    body.warn(f"preamble: a second primary logical identifier {found} ignored")
                body.primary_logical_id = body.primary_logical_id or found
        elif first:
            body.inquiry = _inquiry(raw_line)
        first = False


# --- values ---------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)  # a page repeats the same few dozen names on every element
def _key(name: str) -> str:
    """A field name as compared: lowercase, single spaces."""
    return " ".join(name.lower().split())


# Splits "a: 1, b: 2" before each ", name:" (a name starts with a letter and holds letters,
# digits, spaces, '_', '-', '/', parentheses). A value holding ", " and no colon stays whole.
_FIELD_BREAK = re.compile(r",\s+(?=[A-Za-z][\w ()/-]*:)")


def _fields(text: str) -> dict[str, str]:
    """The `name: value` fields of a line ("number of phys: 1, not all phys: 0" -> two)."""
    if "," not in text:  # most lines hold one field: no need to split them
        name, colon, value = text.partition(":")
        return {_key(name): value.strip()} if colon else {}
    fields: dict[str, str] = {}
    for part in _FIELD_BREAK.split(text):
        name, colon, value = part.partition(":")
        if colon:
            fields.setdefault(_key(name), value.strip())
    return fields


_NUMBER = re.compile(r"0x[0-9a-f]+|[0-9]+", re.IGNORECASE | re.ASCII)  # decimal or 0x-hex
_HEX = re.compile(r"(?:0x)?(?P<digits>[0-9a-f]{1,16})", re.IGNORECASE | re.ASCII)  # 64-bit hex


@lru_cache(maxsize=1024)  # the same values come back on every element ("0", "0x1", slot numbers)
def _number(value: str, what: str) -> int:
    """The integer a field starts with ("0 [primary]" -> 0, "0x14" -> 20); garbled if none."""
    words = value.split(None, 1)
    word = words[0] if words else ""
    try:
        if word.isdigit() and word.isascii():  # plain decimal, the usual case: no regex needed
            return int(word)
        if _NUMBER.fullmatch(word):
            return int(word, 16) if word.lower().startswith("0x") else int(word)
    except ValueError:  # more digits than Python converts
        pass
    raise _GarbledError(f"{what} {value!r} is not a number")


@lru_cache(maxsize=1024)  # every slot repeats the addresses of the expanders it is wired to
def _hex_id(value: str, what: str) -> str:
    """A SAS address or logical identifier as `0x` + 16 hex digits; zero as "0x0"."""
    words = value.split(None, 1)
    match = _HEX.fullmatch(words[0]) if words else None
    if match is None:
        raise _GarbledError(f"{what} {value!r} is not a 64-bit hex number")
    number = int(match["digits"], 16)
    return "0x0" if number == 0 else f"0x{number:016x}"


def _optional_number(body: _Body, key: str, found: tuple[str, _Line] | None) -> int | None:
    """A page-level number (generation code, counts) and its line: garbled is only a warning."""
    if found is None:
        return None
    value, line = found
    try:
        return _number(value, key)
    except _GarbledError as bad:
        body.warn(f"line {line.number}: {bad}")
        return None


def _page_fields(lines: list[_Line]) -> dict[str, tuple[str, _Line]]:
    """The `name: value` fields of page-level lines, each with the line it came from."""
    found: dict[str, tuple[str, _Line]] = {}
    for line in lines:
        for name, value in _fields(line.text).items():
            found.setdefault(name, (value, line))
    return found


# --- element type headings and element blocks (es, ed, aes) -------------------------------------


@dataclass(frozen=True)
class _Heading:
    """An "Element type: X, subenclosure id: N [ti=K]" line."""

    element_type: str
    subenclosure_id: int
    type_index: int | None
    possible_elements: int | None  # only on the configuration page (on this line or the next)
    line: _Line


_TYPE_INDEX = re.compile(r"\[ti=(?P<ti>[^\]]*)\]", re.IGNORECASE)  # the "[ti=3]" suffix


def _heading(line: _Line) -> _Heading | None:
    """The element type heading on `line`, None if it is not one; `_GarbledError` if unusable."""
    if line.text[0] not in "eE" or not line.text.lower().startswith("element type:"):
        return None
    fields = _fields(line.text)
    element_type = fields.get("element type", "")
    if not element_type:
        raise _GarbledError("the element type heading names no type")
    if "subenclosure id" not in fields:
        raise _GarbledError(f"the heading of {element_type!r} has no subenclosure id")
    subenclosure = fields["subenclosure id"]
    type_index = _TYPE_INDEX.search(subenclosure)
    possible = fields.get("number of possible elements")
    return _Heading(
        element_type=element_type,
        subenclosure_id=_number(subenclosure, "subenclosure id"),
        type_index=_number(type_index["ti"], "type index") if type_index else None,
        possible_elements=None if possible is None else _number(possible, "possible elements"),
        line=line,
    )


def _element_label(text: str) -> tuple[str | None, str] | None:
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
class _Block:
    """The lines of one element: its first line and those under it, below its type heading."""

    heading: _Heading | None  # None when the heading was unusable
    start: _Line
    numbers: list[int] = field(default_factory=list)  # the lines under `start`, as in `_Body`
    texts: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Where the block starts and what it is, for warnings."""
        kind = self.heading.element_type if self.heading else "element of an unusable type"
        return f"line {self.start.number}: {kind} {self.start.text!r}"


@dataclass
class _Layout:
    """A page cut into the lines above its first element type and its element blocks."""

    preface: list[_Line]  # lines before the first heading (summary, generation code, list title)
    blocks: list[_Block]


# The first letters of the lines `_layout` looks at: "Element type: …" headings, and the first
# lines of elements ("Element index: …", "Element 3 descriptor:", "Overall descriptor:").
_STARTS = frozenset("eEoO")


def _layout(body: _Body, is_start: Callable[[str], bool], *, count_types: bool) -> _Layout:
    """Cut the page into element blocks under their headings.

    `is_start` tells the first line of an element; it is true only for lines starting with one
    of `_STARTS`. `count_types` numbers the headings in order when the version prints no `[ti=N]`
    (right for es and ed, which list every type; not for aes, which skips types).

    Only the lines starting with one of `_STARTS` are looked at one by one; the runs of lines
    between them go whole to the element open above them, to the preface, or to warnings.
    """
    layout = _Layout(preface=[], blocks=[])
    heading: _Heading | None = None
    open_block: _Block | None = None
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
            found = _heading(line)
        except _GarbledError as bad:
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
            open_block = _Block(heading=heading, start=line)
            layout.blocks.append(open_block)
    place(run, len(body.texts))
    return layout


def _collect(
    body: _Body, blocks: list[_Block], build: Callable[[_Block, bool], T]
) -> tuple[list[T], bool]:
    """Build every block's element, dropping those that fail; True if the text ended in one.

    `build(block, is_last)` raises `_GarbledError` for a bad value (dropped, noted) or
    `_IncompleteError` for missing lines (dropped; if it is the last block, the page was cut).
    """
    built: list[T] = []
    ended_inside = False
    for position, block in enumerate(blocks):
        if block.heading is None:
            continue  # already warned about at its heading
        is_last = position == len(blocks) - 1
        try:
            built.append(build(block, is_last))
        except _GarbledError as bad:
            body.warn(f"{block.describe()} dropped: {bad}")
        except _IncompleteError as short:
            if is_last:
                ended_inside = True
                body.warn(f"{block.describe()} dropped: the text ends inside it ({short})")
            else:
                body.warn(f"{block.describe()} dropped: {short}")
    return built, ended_inside


def _safely(page: str, build: Callable[[], T]) -> T:
    """Run a model constructor, turning a validation failure into `SesParseError`."""
    try:
        return build()
    except ValidationError as invalid:
        first = invalid.errors()[0]
        raise SesParseError(page, f"unusable values ({first['msg']})") from None


# --- configuration (cf) -------------------------------------------------------------------------


@dataclass
class _SubenclosureDraft:
    """The lines of one enclosure descriptor, before their values are checked."""

    line: _Line
    fields: dict[str, str] = field(default_factory=dict)
    vendor_line: str | None = None


@dataclass
class _TypeDraft:
    """The lines of one type descriptor header, before their values are checked."""

    line: _Line
    heading: _Heading | None
    problem: str = ""  # why the heading is unusable
    possible: str | None = None
    text: str = ""


# "enclosure vendor: Areca     product: ARC-802801.33.63  rev: 0133": fixed-width vendor and
# product that may hold spaces, so each value runs up to the next label.
_VENDOR_LINE = re.compile(
    r"enclosure vendor:\s?(?P<vendor>.*?)\s*product:\s?(?P<product>.*?)\s*rev:\s?(?P<rev>.*)",
    re.IGNORECASE,
)
# A hex dump line under "vendor-specific data:": "11 22 33 44 55 00 00 00   .\"3DU..."
_HEX_DUMP = re.compile(r"[0-9a-f]{2}(?: |$)", re.IGNORECASE)
_CF_LIST_TITLES = {
    "enclosure descriptor list",
    "type descriptor header and text list",
    "type descriptor header list",
}


def _subenclosure(draft: _SubenclosureDraft) -> SesSubenclosure:
    """One enclosure descriptor; incomplete without its header count, garbled on a bad value."""
    f = draft.fields
    if "number of type descriptor headers" not in f:
        raise _IncompleteError("no 'number of type descriptor headers' line")
    vendor = product = revision = None
    if draft.vendor_line is not None:
        match = _VENDOR_LINE.fullmatch(draft.vendor_line)
        if match is None:
            raise _GarbledError(
                f"vendor line {draft.vendor_line!r} is not 'vendor: … product: … rev: …'"
            )
        vendor, product, revision = match["vendor"], match["product"], match["rev"].strip()
    logical_id = f.get("enclosure logical identifier (hex)")
    relative = f.get("relative es process id")
    processes = f.get("number of es processes")
    return SesSubenclosure(
        subenclosure_id=_number(f["subenclosure identifier"], "subenclosure identifier"),
        primary="primary" in f["subenclosure identifier"].lower(),
        relative_es_process_id=None if relative is None else _number(relative, "ES process id"),
        es_process_count=None if processes is None else _number(processes, "ES processes"),
        type_descriptor_header_count=_number(
            f["number of type descriptor headers"], "number of type descriptor headers"
        ),
        logical_id=None
        if logical_id is None
        else _hex_id(logical_id, "enclosure logical identifier"),
        vendor=vendor,
        product=product,
        revision=revision,
    )


def _type_descriptor(draft: _TypeDraft, type_index: int) -> SesTypeDescriptor:
    """One type descriptor header; `_IncompleteError` without its possible-elements count."""
    if draft.heading is None:
        raise _GarbledError(draft.problem)
    possible = draft.heading.possible_elements
    if possible is None:
        if draft.possible is None:
            raise _IncompleteError("no 'number of possible elements' line")
        possible = _number(draft.possible, "number of possible elements")
    return SesTypeDescriptor(
        type_index=type_index,
        element_type=draft.heading.element_type,
        subenclosure_id=draft.heading.subenclosure_id,
        possible_elements=possible,
        text=draft.text,
    )


def _configuration_drafts(
    body: _Body,
) -> tuple[list[_Line], list[_SubenclosureDraft], list[_TypeDraft]]:
    """Group the cf lines: page-level lines, enclosure descriptors, type descriptor headers."""
    page_lines: list[_Line] = []
    subs: list[_SubenclosureDraft] = []
    types: list[_TypeDraft] = []
    in_hex_dump = False
    for line in body.lines():
        lowered = _key(line.text).rstrip(":")
        if in_hex_dump and _HEX_DUMP.match(line.text):
            continue
        in_hex_dump = lowered in ("vendor-specific data", "vendor specific data")
        if in_hex_dump or lowered in _CF_LIST_TITLES:
            continue
        if lowered.startswith("element type:"):
            try:
                types.append(_TypeDraft(line=line, heading=_heading(line)))
            except _GarbledError as bad:
                types.append(_TypeDraft(line=line, heading=None, problem=str(bad)))
            continue
        fields = _fields(line.text)
        if "subenclosure identifier" in fields:
            subs.append(_SubenclosureDraft(line=line, fields=fields))
        elif lowered.startswith("enclosure vendor:") and subs:
            subs[-1].vendor_line = line.text
        elif "number of possible elements" in fields and types:
            types[-1].possible = fields["number of possible elements"]
        elif lowered.startswith("text:") and types:
            types[-1].text = line.text.partition(":")[2].strip()
        elif fields and subs and not types:
            for name, value in fields.items():
                subs[-1].fields.setdefault(name, value)
        elif fields and not subs and not types:
            page_lines.append(line)
        else:
            body.warn(f"line {line.number}: not understood: {line.text!r}")
    return page_lines, subs, types


def parse_configuration(text: str) -> SesConfiguration:
    """Decode `sg_ses --page=cf`: enclosure identity (logical id, vendor, product), element types.

    Raises `SesParseError` unless the primary subenclosure's logical identifier is there.
    """
    body = _page_body(text, "cf")
    page_lines, sub_drafts, type_drafts = _configuration_drafts(body)
    page_fields = _page_fields(page_lines)
    secondary = _optional_number(
        body, "secondary subenclosures", page_fields.get("number of secondary subenclosures")
    )
    generation = _optional_number(body, "generation code", page_fields.get("generation code"))
    truncated = body.cut

    subenclosures: list[SesSubenclosure] = []
    for position, sub_draft in enumerate(sub_drafts):
        try:
            subenclosures.append(_subenclosure(sub_draft))
        except (_GarbledError, _IncompleteError) as bad:
            ended = isinstance(bad, _IncompleteError) and position == len(sub_drafts) - 1
            truncated = truncated or ended
            body.warn(f"line {sub_draft.line.number}: subenclosure descriptor dropped: {bad}")
    expected_types = sum(s.type_descriptor_header_count for s in subenclosures)

    descriptors: list[SesTypeDescriptor] = []
    for type_index, type_draft in enumerate(type_drafts):
        try:
            descriptors.append(_type_descriptor(type_draft, type_index))
        except (_GarbledError, _IncompleteError) as bad:
            ended = isinstance(bad, _IncompleteError) and type_index == len(type_drafts) - 1
            truncated = truncated or ended
            body.warn(f"line {type_draft.line.number}: type descriptor header dropped: {bad}")

    if secondary is None:
        secondary = max(len(sub_drafts) - 1, 0)
    if len(sub_drafts) < secondary + 1:
        truncated = True
        body.warn(f"{secondary + 1} subenclosure descriptors announced, {len(sub_drafts)} found")
    if len(type_drafts) < expected_types:
        truncated = True
        body.warn(f"{expected_types} type descriptor headers announced, {len(type_drafts)} found")

    primary = next((s for s in subenclosures if s.primary), None) or next(
        (s for s in subenclosures if s.subenclosure_id == 0), None
    )
    if primary is None or primary.logical_id is None:
        problem = (
            "no primary subenclosure descriptor"
            if primary is None
            else "the primary subenclosure descriptor has no enclosure logical identifier"
        )
        raise SesParseError("cf", problem + (" (page truncated)" if truncated else ""))
    logical_id = primary.logical_id
    return _safely(
        "cf",
        lambda: SesConfiguration(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation,
            truncated=truncated,
            warnings=body.warnings,
            logical_id=logical_id,
            vendor=primary.vendor,
            product=primary.product,
            revision=primary.revision,
            secondary_subenclosure_count=secondary,
            subenclosures=subenclosures,
            type_descriptors=descriptors,
        ),
    )


# --- enclosure status (es) ----------------------------------------------------------------------

# One "Name=value" fragment of a status line, the value an integer with an optional unit
# ("Actual speed=7500 rpm", "Connector physical link=0x0"), optionally after a "Label: " prefix
# ("Tone indicator: Info=0").
_FLAG = re.compile(
    r"(?:(?P<label>[^:=]+):\s*)?(?P<name>[^:=]+?)\s*=\s*(?P<value>0x[0-9a-f]+|[0-9]+)(?:\s+\S+)?",
    re.IGNORECASE | re.ASCII,
)
_SUMMARY_FLAGS = ("INVOP", "INFO", "NON-CRIT", "CRIT", "UNRECOV")


class _StatusLine(NamedTuple):
    """The fragments of one status line, between its commas, sorted by what they are."""

    has_status: bool  # a "status: X" fragment is there (the last one counts)
    status: str | None  # X, None when empty
    flags: tuple[tuple[str, int], ...]  # the "Name=value" fragments, in order
    details: tuple[str, ...]  # the other fragments ("Fan at third lowest speed")
    odd: tuple[str, ...]  # details with an "=" whose value is no number: worth a warning


def _status_line(text: str) -> _StatusLine:
    """Split a status line at its commas ("Ident=0, Fail=0, status: OK" -> two flags, status)."""
    has_status, status = False, None
    flags: list[tuple[str, int]] = []
    details: list[str] = []
    odd: list[str] = []
    for fragment in (f.strip() for f in text.split(",")):
        if not fragment:
            continue
        name, colon, value = fragment.partition(":")
        pair = _FLAG.fullmatch(fragment) if "=" in fragment else None
        if colon and _key(name) == "status":
            has_status, status = True, value.strip() or None
        elif pair:
            key = " ".join(pair["name"].split())
            if pair["label"]:
                key = f"{' '.join(pair['label'].split())}: {key}"
            flags.append((key, _number(pair["value"], key)))
        else:
            if "=" in fragment:
                odd.append(fragment)
            details.append(fragment)
    return _StatusLine(has_status, status, tuple(flags), tuple(details), tuple(odd))


def _status_fragments(
    block: _Block, seen: dict[str, _StatusLine]
) -> tuple[str | None, dict[str, int], list[str], list[str]]:
    """Split an element's lines at commas: (status text, Name=value flags, other text, problems).

    Every slot of a JBOD prints the same few lines, so each distinct line is split only once
    per page: `seen` holds the lines split so far.
    """
    status: str | None = None
    flags: dict[str, int] = {}
    details: list[str] = []
    problems: list[str] = []
    for number, text in zip(block.numbers, block.texts, strict=True):
        split = seen.get(text)
        if split is None:
            split = seen[text] = _status_line(text)
        if split.has_status:
            status = split.status
        flags.update(split.flags)
        details.extend(split.details)
        for fragment in split.odd:
            problems.append(f"line {number}: {fragment!r} has no numeric value")
    return status, flags, details, problems


def _status_element(
    body: _Body,
    block: _Block,
    is_last: bool,
    overall_lines: Mapping[int, int],
    seen: dict[str, _StatusLine],
) -> SesStatusElement:
    """One status element; the last one of the page must have as many lines as its overall one."""
    assert block.heading is not None  # _collect skips blocks without a heading
    label = _element_label(block.start.text)
    number_text = label[0] if label else None
    number = None if number_text is None else _number(number_text, "element number")
    status, flags, details, problems = _status_fragments(block, seen)
    if status is None:
        raise _IncompleteError("no 'status:' line")
    reference = overall_lines.get(id(block.heading))
    if is_last and number is not None and reference and len(block.texts) < reference:
        raise _IncompleteError(f"{len(block.texts)} status lines where its type has {reference}")
    for problem in problems:
        body.warn(problem)
    heading = block.heading
    return SesStatusElement(
        element_type=heading.element_type,
        subenclosure_id=heading.subenclosure_id,
        type_index=heading.type_index if heading.type_index is not None else 0,
        element_number=number,
        status=status,
        flags=flags,
        details=details,
    )


def _summary(body: _Body, preface: list[_Line]) -> dict[str, bool]:
    """The INVOP/INFO/NON-CRIT/CRIT/UNRECOV bits of the line under the title."""
    for line in preface:
        pairs: dict[str, str] = {}
        for fragment in line.text.split(","):
            name, equals, value = fragment.partition("=")
            if equals:
                pairs[name.strip().upper()] = value.strip()
        if all(flag in pairs for flag in _SUMMARY_FLAGS):
            try:
                return {flag: _number(pairs[flag], flag) != 0 for flag in _SUMMARY_FLAGS}
            except _GarbledError as bad:
                raise SesParseError("es", f"summary line {line.number}: {bad}") from None
    raise SesParseError("es", "no 'INVOP=…, INFO=…, NON-CRIT=…, CRIT=…, UNRECOV=…' summary line")


def _generation(body: _Body, preface: list[_Line]) -> int | None:
    """The generation code from the lines under the title, if printed and readable."""
    return _optional_number(body, "generation code", _page_fields(preface).get("generation code"))


def parse_enclosure_status(text: str) -> SesEnclosureStatus:
    """Decode `sg_ses --page=es`: summary bits, and each element's status and flags (slot LEDs)."""
    body = _page_body(text, "es")
    layout = _layout(body, lambda t: _element_label(t) is not None, count_types=True)
    summary = _summary(body, layout.preface)
    overall_lines = {
        id(b.heading): len(b.texts)
        for b in layout.blocks
        if b.heading is not None and _element_label(b.start.text) == (None, "")
    }
    seen: dict[str, _StatusLine] = {}  # status lines already split, by their text
    elements, ended_inside = _collect(
        body,
        layout.blocks,
        lambda block, is_last: _status_element(body, block, is_last, overall_lines, seen),
    )
    if not elements:
        raise SesParseError("es", "no complete status element after the summary line")
    return _safely(
        "es",
        lambda: SesEnclosureStatus(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=_generation(body, layout.preface),
            truncated=body.cut or ended_inside,
            warnings=body.warnings,
            invalid_operation=summary["INVOP"],
            info=summary["INFO"],
            non_critical=summary["NON-CRIT"],
            critical=summary["CRIT"],
            unrecoverable=summary["UNRECOV"],
            elements=elements,
        ),
    )


# --- element descriptors (ed) -------------------------------------------------------------------


def _descriptor_text(rest: str) -> str:
    """A descriptor as printed, with sg_ses' "<empty>" for a zero-length one turned into ""."""
    return "" if rest == "<empty>" else rest


def parse_element_descriptors(text: str) -> SesElementDescriptors:
    """Decode `sg_ses --page=ed`: the printed name of each element ("SLOT 01"), by element type."""
    body = _page_body(text, "ed")
    groups: list[SesDescriptorGroup] = []
    group: SesDescriptorGroup | None = None
    headings_seen = 0
    preface: list[_Line] = []
    for line in body.lines():
        try:
            heading = _heading(line)
        except _GarbledError as bad:
            body.warn(f"line {line.number}: {bad}; the descriptors under it are skipped")
            group, headings_seen = None, headings_seen + 1
            continue
        label = _element_label(line.text)
        if heading is not None:
            type_index = heading.type_index if heading.type_index is not None else headings_seen
            group = SesDescriptorGroup(
                element_type=heading.element_type,
                subenclosure_id=heading.subenclosure_id,
                type_index=type_index,
            )
            groups.append(group)
            headings_seen += 1
        elif label is not None and group is not None:
            number_text, rest = label
            if number_text is None:
                group.overall = _descriptor_text(rest)
                continue
            try:
                group.descriptors[_number(number_text, "element number")] = _descriptor_text(rest)
            except _GarbledError as bad:
                body.warn(f"line {line.number}: descriptor dropped: {bad}")
        elif headings_seen == 0 and "generation code" in _fields(line.text):
            preface.append(line)
        elif headings_seen == 0 and "descriptor" in line.text.lower():
            continue  # the list title: "element descriptor list (grouped by type):" and kin
        elif group is not None or headings_seen == 0:
            body.warn(f"line {line.number}: not understood: {line.text!r}")
    if not groups:
        raise SesParseError("ed", "no 'Element type: …' group after the header")
    return _safely(
        "ed",
        lambda: SesElementDescriptors(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=_generation(body, preface),
            truncated=body.cut,
            warnings=body.warnings,
            groups=groups,
        ),
    )


# --- additional element status (aes) ------------------------------------------------------------

# The first line of an element: "Element index: 25  eiioe=0", possibly followed by
# "but overridden" (1.48+). Devices that give no index get "Element N descriptor" instead.
_ELEMENT_INDEX = re.compile(
    r"element index:\s*(?P<index>\S+)(?:\s+eiioe=(?P<eiioe>\S+))?.*", re.IGNORECASE
)
_NOTHING_ATTACHED = "no sas device attached"
_PAIR_TITLE = "attached connector; other_element pairs"  # the line above an expander's pairs
_SAS_EXPANDER_KEY = _key(SAS_EXPANDER)  # element types compare as `same_element_type` does


def _expander_pair(text: str) -> tuple[str, str] | None:
    """Split an expander phy's pair line at its "]" ("[16] connector ei: 2" -> "16", "connector
    ei: 2"); None for other lines. Other pairs: "[0] no connector; other ei: 13", and with a join
    (live device) names instead of indexes: "[0] no connector; SLOT 14 [0,13] etype: …".
    """
    phy, bracket, rest = text[1:].partition("]")
    if text[0] != "[" or not bracket:
        return None
    return phy, rest.lstrip()


def _is_aes_start(text: str) -> bool:
    """True for the first line of an additional element status descriptor (a stripped line)."""
    if text[:1] not in ("e", "E"):  # neither "Element index: …" nor "Element N descriptor: …"
        return False
    if _ELEMENT_INDEX.fullmatch(text):
        return True
    label = _element_label(text)
    return label is not None and label[0] is not None


@dataclass
class _PhyDraft:
    """The lines under one "phy index: N" line."""

    fields: dict[str, str] = field(default_factory=dict)
    other_text: list[str] = field(default_factory=list)


@dataclass
class _AesDraft:
    """The lines of one aes element, sorted by what they describe."""

    fields: dict[str, str] = field(default_factory=dict)
    invalid: bool = False
    pairs: list[tuple[str, str]] = field(default_factory=list)  # expander pairs: phy, the rest
    has_pair_title: bool = False
    phys: list[_PhyDraft] = field(default_factory=list)


# What the lines of a SAS phy descriptor are called; anything else under a phy is its
# connector / other element text (SCSI port and controller elements).
_PHY_KEYS = frozenset(
    {
        "sas device type",
        "initiator port for",
        "target port for",
        "attached sas address",
        "sas address",
        "phy identifier",
        "phy_id",
    }
)


# What one line of an aes element is, worked out once per distinct text (a plain tuple: a page
# has hundreds of distinct lines):
# * kind: "invalid" ("flagged as invalid …"), "pair title" or "fields";
# * fields: its `name: value` fields, shared by the lines alike: not to be changed;
# * starts_phy: it is a "phy index: N" line;
# * of_phy: it is another line of a phy descriptor ("SAS address: …", one of `_PHY_KEYS`).
_AesLine = tuple[str, dict[str, str], bool, bool]


def _aes_line(text: str) -> _AesLine:
    """Sort one line; the first letter rules out the rare kinds before the text is compared."""
    if text[0] in "fF" and _key(text).startswith("flagged as invalid"):
        return "invalid", {}, False, False
    if text[0] in "aA" and _key(text).startswith(_PAIR_TITLE):
        return "pair title", {}, False, False
    fields = _fields(text)
    starts_phy = "phy index" in fields
    return "fields", fields, starts_phy, not starts_phy and not _PHY_KEYS.isdisjoint(fields)


def _aes_draft(body: _Body, block: _Block, seen: dict[str, _AesLine]) -> _AesDraft:
    """Sort an aes element's lines into element fields, phy blocks and expander pairs.

    Slots repeat most lines ("phy index: 0", "target port for: SSP"), so each distinct line is
    sorted only once per page: `seen` holds the lines sorted so far, by their text.
    """
    draft = _AesDraft()
    phy: _PhyDraft | None = None  # the phy the lines are about, from its "phy index" line on
    for number, text in zip(block.numbers, block.texts, strict=True):
        if text[0] == "[" and phy is None and (pair := _expander_pair(text)):
            draft.pairs.append(pair)  # unlike the others, each of these lines is different
            continue
        sorted_line = seen.get(text)
        if sorted_line is None:
            sorted_line = seen[text] = _aes_line(text)
        kind, fields, starts_phy, of_phy = sorted_line
        if phy is not None and of_phy:  # the usual line
            for name, value in fields.items():
                phy.fields.setdefault(name, value)
        elif kind == "invalid":
            draft.invalid = True
        elif kind == "pair title":
            draft.has_pair_title = True
        elif starts_phy:
            phy = _PhyDraft(fields=dict(fields))  # the lines below add to it
            draft.phys.append(phy)
        elif phy is not None:
            phy.other_text.append(text)
        elif fields:
            for name, value in fields.items():
                draft.fields.setdefault(name, value)
        elif draft.fields.get("transport protocol", "").upper().startswith("SAS"):
            body.warn(f"line {number}: not understood: {text!r}")
    return draft


def _port_list(value: str | None) -> list[str]:
    """The protocols after "initiator port for:" / "target port for:" ("SSP STP" -> two)."""
    return value.split() if value else []


def _slot_phy(phy: _PhyDraft) -> dict[str, object]:
    """A device slot's phy, as the fields of a `SesPhy`; addresses may be left out only when
    nothing is attached."""
    f = phy.fields
    index = _number(f["phy index"], "phy index")
    if "sas device type" not in f:
        raise _IncompleteError(f"phy {index} has no 'SAS device type' line")
    printed = ("attached sas address" in f, "sas address" in f)
    nothing = _key(f["sas device type"]).startswith(_NOTHING_ATTACHED)
    if any(printed) and "phy identifier" not in f:
        raise _IncompleteError(f"phy {index} has no 'phy identifier' line")
    if not nothing and not all(printed):
        raise _IncompleteError(f"phy {index} has a device but not both SAS addresses")
    identifier = f.get("phy identifier")
    return {
        "phy_index": index,
        "device_type": f["sas device type"],
        "initiator_ports": _port_list(f.get("initiator port for")),
        "target_ports": _port_list(f.get("target port for")),
        "attached_sas_address": _hex_id(f.get("attached sas address", "0"), "attached SAS address"),
        "sas_address": _hex_id(f.get("sas address", "0"), "SAS address"),
        "phy_identifier": None if identifier is None else _number(identifier, "phy identifier"),
    }


def _port_phy(phy: _PhyDraft) -> dict[str, object]:
    """A phy of a SCSI port or controller element, as the fields of a `SesPortPhy`."""
    f = phy.fields
    index = _number(f["phy index"], "phy index")
    if "sas address" not in f:
        raise _IncompleteError(f"phy {index} has no 'SAS address' line")
    return {
        "phy_index": index,
        "phy_identifier": _number(f["phy_id"], "phy_id") if "phy_id" in f else None,
        "sas_address": _hex_id(f["sas address"], "SAS address"),
        "description": "; ".join(phy.other_text),
    }


def _expander_phy(pair: tuple[str, str]) -> dict[str, object]:
    """One "[N] connector …; other …" pair of a SAS expander element (as `_expander_pair` split
    it), as a `SesExpanderPhy`'s fields."""
    phy, rest = pair
    phy_index = _number(phy, "expander phy index")
    connector_index, other_index = _pair_indexes(rest)
    return {
        "phy_index": phy_index,
        "connector_element_index": connector_index,
        "other_element_index": other_index,
        "description": rest,
    }


@lru_cache(maxsize=1024)  # an expander wires many phys alike ("no connector; other ei: 61")
def _pair_indexes(rest: str) -> tuple[int | None, int | None]:
    """The connector and other element indexes of a pair's text after its "[N]", if printed."""
    connector, _, other = rest.partition(";")
    connector_index = _fields(connector).get("connector ei")
    other_index = _fields(other).get("other ei")
    return (
        None if connector_index is None else _number(connector_index, "connector ei"),
        None if other_index is None else _number(other_index, "other ei"),
    )


def _phy_count(fields: Mapping[str, str]) -> int | None:
    """The count of "number of phys" (SAS) or "number of ports" (FCP, PCIe), if printed."""
    for key in ("number of phys", "number of ports"):
        if key in fields:
            return _number(fields[key], key)
    return None


def _additional_element(
    body: _Body, block: _Block, seen: dict[str, _AesLine]
) -> SesAdditionalElement:
    """One aes element, checked complete: every announced phy (or pair) is there."""
    assert block.heading is not None  # _collect skips blocks without a heading
    draft = _aes_draft(body, block, seen)
    f = draft.fields
    element_index = eiioe = element_number = None
    index_line = _ELEMENT_INDEX.fullmatch(block.start.text)
    if index_line:
        element_index = _number(index_line["index"], "element index")
        if index_line["eiioe"] is not None:
            eiioe = _number(index_line["eiioe"], "eiioe")
    else:
        label = _element_label(block.start.text)
        element_number = _number(label[0] or "", "element number") if label else None
    transport = f.get("transport protocol")
    if transport is None and not draft.invalid:
        raise _IncompleteError("no 'Transport protocol' line")
    phy_count = _phy_count(f)
    not_all = f.get("not all phys", f.get("not all ports"))
    slot = f.get("device slot number")
    values = {
        "element_type": block.heading.element_type,
        "subenclosure_id": block.heading.subenclosure_id,
        "type_index": block.heading.type_index,
        "element_index": element_index,
        "element_number": element_number,
        "eiioe": eiioe,
        "invalid": draft.invalid,
        "transport_protocol": transport,
        "phy_count": phy_count,
        "not_all_phys": None if not_all is None else _number(not_all, "not all phys") != 0,
        "device_slot_number": None if slot is None else _number(slot, "device slot number"),
    }
    if not draft.invalid and (transport or "").upper().startswith("SAS"):
        values |= _sas_phys(block.heading.element_type, phy_count, draft)
    # nothing more is decoded for invalid elements and other transports
    return SesAdditionalElement(**values)


def _sas_phys(element_type: str, phy_count: int | None, draft: _AesDraft) -> dict[str, object]:
    """The phys of a SAS element, as model fields: slot phys, expander pairs, or port phys.

    Each phy is a plain dict here: the element's model validates them all at once.
    """
    if phy_count is None:
        raise _IncompleteError("no 'number of phys' line")
    expander = draft.has_pair_title or _key(element_type) == _SAS_EXPANDER_KEY
    if expander:
        if "sas address" not in draft.fields:
            raise _IncompleteError("the expander has no 'SAS address' line")
        pairs = [_expander_phy(pair) for pair in draft.pairs]
        if len(pairs) < phy_count:
            raise _IncompleteError(f"{len(pairs)} of {phy_count} expander phys")
        return {
            "sas_address": _hex_id(draft.fields["sas address"], "expander SAS address"),
            "expander_phys": pairs,
        }
    if any("phy_id" in phy.fields for phy in draft.phys):
        ports = [_port_phy(phy) for phy in draft.phys]
        if len(ports) < phy_count:
            raise _IncompleteError(f"{len(ports)} of {phy_count} phys")
        return {"port_phys": ports}
    phys = [_slot_phy(phy) for phy in draft.phys]
    if len(phys) < phy_count:
        raise _IncompleteError(f"{len(phys)} of {phy_count} phys")
    return {"phys": phys}


def parse_additional_status(text: str) -> SesAdditionalStatus:
    """Decode `sg_ses --page=aes`: per slot the attached SAS addresses, per expander its address."""
    body = _page_body(text, "aes")
    layout = _layout(body, _is_aes_start, count_types=False)
    seen: dict[str, _AesLine] = {}  # the lines already sorted, by their text
    elements, ended_inside = _collect(
        body, layout.blocks, lambda block, _last: _additional_element(body, block, seen)
    )
    if not elements:
        raise SesParseError("aes", "no complete additional element status descriptor")
    return _safely(
        "aes",
        lambda: SesAdditionalStatus(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=_generation(body, layout.preface),
            truncated=body.cut or ended_inside,
            warnings=body.warnings,
            elements=elements,
        ),
    )


# --- subenclosure nicknames (snic) --------------------------------------------------------------


def _nickname_key(name: str) -> str:
    """Key of a snic line, without the "subenclosure " prefix 1.48+ puts on most of them."""
    key = _key(name)
    return key.removeprefix("subenclosure ") if key != "subenclosure identifier" else key


def _nickname(fields: Mapping[str, str]) -> SesNickname:
    """One nickname descriptor; `_IncompleteError` without its "nickname:" line."""
    if "nickname" not in fields:
        raise _IncompleteError("no 'nickname:' line")
    status = fields.get("nickname status")
    additional = fields.get("nickname additional status")
    return SesNickname(
        subenclosure_id=_number(fields["subenclosure identifier"], "subenclosure identifier"),
        nickname=fields["nickname"],
        status=None if status is None else _number(status, "nickname status"),
        additional_status=None
        if additional is None
        else _number(additional, "nickname additional status"),
        language_code=fields.get("nickname language code") or None,
    )


def parse_nicknames(text: str) -> SesNicknames:
    """Decode `sg_ses --page=snic`: the nickname of each subenclosure."""
    body = _page_body(text, "snic")
    page_lines: list[_Line] = []
    drafts: list[tuple[_Line, dict[str, str]]] = []
    for line in body.lines():
        name, colon, value = line.text.partition(":")
        key = _nickname_key(name)
        if not colon:
            body.warn(f"line {line.number}: not understood: {line.text!r}")
        elif key == "subenclosure identifier":
            drafts.append((line, {key: value.strip()}))
        elif drafts:  # the whole rest of the line: a nickname may hold ", x:"
            drafts[-1][1].setdefault(key, value.strip())
        else:
            page_lines.append(line)
    page_fields = _page_fields(page_lines)
    secondary = _optional_number(
        body, "secondary subenclosures", page_fields.get("number of secondary subenclosures")
    )
    truncated = body.cut
    nicknames: list[SesNickname] = []
    for position, (line, fields) in enumerate(drafts):
        try:
            nicknames.append(_nickname(fields))
        except (_GarbledError, _IncompleteError) as bad:
            truncated = truncated or (
                isinstance(bad, _IncompleteError) and position == len(drafts) - 1
            )
            body.warn(f"line {line.number}: nickname descriptor dropped: {bad}")
    if secondary is None:
        secondary = max(len(drafts) - 1, 0)
    if len(drafts) < secondary + 1:
        truncated = True
        body.warn(f"{secondary + 1} nickname descriptors announced, {len(drafts)} found")
    if not nicknames:
        raise SesParseError("snic", "no complete nickname descriptor after the header")
    generation = _optional_number(body, "generation code", page_fields.get("generation code"))
    return _safely(
        "snic",
        lambda: SesNicknames(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation,
            truncated=truncated,
            warnings=body.warnings,
            secondary_subenclosure_count=secondary,
            nicknames=nicknames,
        ),
    )


# The parser for each `sg_ses --page=` abbreviation.
PAGE_PARSERS: Mapping[str, Callable[[str], SesPage]] = {
    "cf": parse_configuration,
    "es": parse_enclosure_status,
    "ed": parse_element_descriptors,
    "aes": parse_additional_status,
    "snic": parse_nicknames,
}
