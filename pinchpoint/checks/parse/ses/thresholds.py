"""The threshold in page (`sg_ses --page=th`, 0x5): the warning and critical limits of each
sensor that has them (temperature in °C; voltage and current in % above or below nominal).

    Element type: Temperature sensor, subenclosure id: 0 [ti=4]
      Element 0 descriptor:
        high critical=79, high warning=60
        low warning=5, low critical=0 (in Celsius)

A limit printed `<res>` (reserved) is no limit: None.
"""

from __future__ import annotations

import re

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
from pinchpoint.model.ses import SesThreshold, SesThresholds

__all__ = ["parse_thresholds"]

_LIMITS = ("high critical", "high warning", "low warning", "low critical")
_NOTE = re.compile(r"\s*\((?P<note>[^()]*)\)\s*$")  # "(in Celsius)", "(above nominal voltage)"
_VALUE = re.compile(r"(?P<number>-?[0-9]+(?:\.[0-9]+)?)\s*%?", re.ASCII)


def _unit(notes: list[str]) -> str:
    """What the limits are measured in, from the notes after them."""
    text = " ".join(notes).lower()
    if "celsius" in text:
        return "C"
    if "nominal" in text:
        return "% above/below nominal"
    return ""


def _limit(name: str, value: str) -> float | None:
    """One limit: None for `<res>`, else its number; garbled if neither."""
    value = value.strip()
    if value.lower() in ("<res>", "<reserved>"):
        return None
    match = _VALUE.fullmatch(value)
    if match is None:
        raise GarbledError(f"{name} {value!r} is not a number")
    return float(match["number"])


def _threshold(block: Block) -> SesThreshold:
    """The four limits of one element."""
    assert block.heading is not None  # built_elements skips blocks without a heading
    label = element_label(block.start.text)
    number_text = label[0] if label else None
    number = None if number_text is None else number_value(number_text, "element number")
    limits: dict[str, float | None] = {}
    notes: list[str] = []
    for text in block.texts:
        note = _NOTE.search(text)
        if note:
            notes.append(note["note"])
            text = text[: note.start()]
        for fragment in text.split(","):
            name, equals, value = fragment.partition("=")
            if equals and field_key(name) in _LIMITS:
                limits[field_key(name)] = _limit(field_key(name), value)
    missing = [name for name in _LIMITS if name not in limits]
    if missing:
        raise IncompleteError(f"no {', '.join(missing)}")
    heading = block.heading
    return SesThreshold(
        element_type=heading.element_type,
        subenclosure_id=heading.subenclosure_id,
        type_index=heading.type_index if heading.type_index is not None else 0,
        element_number=number,
        high_critical=limits["high critical"],
        high_warning=limits["high warning"],
        low_warning=limits["low warning"],
        low_critical=limits["low critical"],
        unit=_unit(notes),
    )


def _invalid_operation(body: Body, preface: list[Line]) -> bool:
    """The INVOP bit of the line under the title."""
    for line in preface:
        name, equals, value = line.text.partition("=")
        if equals and name.strip().upper() == "INVOP":
            try:
                return number_value(value.strip(), "INVOP") != 0
            except GarbledError as bad:
                raise SesParseError("th", f"line {line.number}: {bad}") from None
    raise SesParseError("th", "no 'INVOP=…' line under the header")


def parse_thresholds(text: str) -> SesThresholds:
    """Decode `sg_ses --page=th`: each sensor's high/low warning and critical limits."""
    body = page_body(text, "th")
    layout = page_layout(body, lambda t: element_label(t) is not None, count_types=True)
    invalid = _invalid_operation(body, layout.preface)
    thresholds, ended_inside = built_elements(
        body, layout.blocks, lambda block, _is_last: _threshold(block)
    )
    return safely(
        "th",
        lambda: SesThresholds(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation_code(body, layout.preface),
            truncated=body.cut or ended_inside,
            warnings=body.warnings,
            invalid_operation=invalid,
            thresholds=thresholds,
        ),
    )
