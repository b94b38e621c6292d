"""The enclosure status page (`sg_ses --page=es`): the summary bits, and each element's status
and flags (a slot's LEDs, a fan's speed, a sensor's reading)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from pinchpoint.checks.parse.ses.elements import (
    Block,
    built_elements,
    element_label,
    page_layout,
)
from pinchpoint.checks.parse.ses.page import (
    Body,
    Line,
    SesParseError,
    generation_code,
    page_body,
    safely,
)
from pinchpoint.checks.parse.ses.values import (
    GarbledError,
    IncompleteError,
    field_key,
    number_value,
)
from pinchpoint.model.ses import SesEnclosureStatus, SesStatusElement

__all__ = ["parse_enclosure_status"]


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
        if colon and field_key(name) == "status":
            has_status, status = True, value.strip() or None
        elif pair:
            key = " ".join(pair["name"].split())
            if pair["label"]:
                key = f"{' '.join(pair['label'].split())}: {key}"
            flags.append((key, number_value(pair["value"], key)))
        else:
            if "=" in fragment:
                odd.append(fragment)
            details.append(fragment)
    return _StatusLine(has_status, status, tuple(flags), tuple(details), tuple(odd))


def _status_fragments(
    block: Block, seen: dict[str, _StatusLine]
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
    body: Body,
    block: Block,
    is_last: bool,
    overall_lines: Mapping[int, int],
    seen: dict[str, _StatusLine],
) -> SesStatusElement:
    """One status element; the last one of the page must have as many lines as its overall one."""
    assert block.heading is not None  # built_elements skips blocks without a heading
    label = element_label(block.start.text)
    number_text = label[0] if label else None
    number = None if number_text is None else number_value(number_text, "element number")
    status, flags, details, problems = _status_fragments(block, seen)
    if status is None:
        raise IncompleteError("no 'status:' line")
    reference = overall_lines.get(id(block.heading))
    if is_last and number is not None and reference and len(block.texts) < reference:
        raise IncompleteError(f"{len(block.texts)} status lines where its type has {reference}")
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


def _summary(body: Body, preface: list[Line]) -> dict[str, bool]:
    """The INVOP/INFO/NON-CRIT/CRIT/UNRECOV bits of the line under the title."""
    for line in preface:
        pairs: dict[str, str] = {}
        for fragment in line.text.split(","):
            name, equals, value = fragment.partition("=")
            if equals:
                pairs[name.strip().upper()] = value.strip()
        if all(flag in pairs for flag in _SUMMARY_FLAGS):
            try:
                return {flag: number_value(pairs[flag], flag) != 0 for flag in _SUMMARY_FLAGS}
            except GarbledError as bad:
                raise SesParseError("es", f"summary line {line.number}: {bad}") from None
    raise SesParseError("es", "no 'INVOP=…, INFO=…, NON-CRIT=…, CRIT=…, UNRECOV=…' summary line")


def parse_enclosure_status(text: str) -> SesEnclosureStatus:
    """Decode `sg_ses --page=es`: summary bits, and each element's status and flags (slot LEDs)."""
    body = page_body(text, "es")
    layout = page_layout(body, lambda t: element_label(t) is not None, count_types=True)
    summary = _summary(body, layout.preface)
    overall_lines = {
        id(b.heading): len(b.texts)
        for b in layout.blocks
        if b.heading is not None and element_label(b.start.text) == (None, "")
    }
    seen: dict[str, _StatusLine] = {}  # status lines already split, by their text
    elements, ended_inside = built_elements(
        body,
        layout.blocks,
        lambda block, is_last: _status_element(body, block, is_last, overall_lines, seen),
    )
    if not elements:
        raise SesParseError("es", "no complete status element after the summary line")
    return safely(
        "es",
        lambda: SesEnclosureStatus(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation_code(body, layout.preface),
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
