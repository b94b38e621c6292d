"""The element descriptor page (`sg_ses --page=ed`): the name each element prints ("SLOT 01"),
grouped by element type."""

from __future__ import annotations

from pinchpoint.checks.parse.ses.elements import element_label, element_type_heading
from pinchpoint.checks.parse.ses.page import (
    Line,
    SesParseError,
    generation_code,
    page_body,
    safely,
)
from pinchpoint.checks.parse.ses.values import GarbledError, line_fields, number_value
from pinchpoint.model.ses import SesDescriptorGroup, SesElementDescriptors

__all__ = ["parse_element_descriptors"]


def _descriptor_text(rest: str) -> str:
    """A descriptor as printed, with sg_ses' "<empty>" for a zero-length one turned into ""."""
    return "" if rest == "<empty>" else rest


def parse_element_descriptors(text: str) -> SesElementDescriptors:
    """Decode `sg_ses --page=ed`: the printed name of each element ("SLOT 01"), by element type."""
    body = page_body(text, "ed")
    groups: list[SesDescriptorGroup] = []
    group: SesDescriptorGroup | None = None
    headings_seen = 0
    preface: list[Line] = []
    for line in body.lines():
        try:
            heading = element_type_heading(line)
        except GarbledError as bad:
            body.warn(f"line {line.number}: {bad}; the descriptors under it are skipped")
            group, headings_seen = None, headings_seen + 1
            continue
        label = element_label(line.text)
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
                group.descriptors[number_value(number_text, "element number")] = _descriptor_text(
                    rest
                )
            except GarbledError as bad:
                body.warn(f"line {line.number}: descriptor dropped: {bad}")
        elif headings_seen == 0 and "generation code" in line_fields(line.text):
            preface.append(line)
        elif headings_seen == 0 and "descriptor" in line.text.lower():
            continue  # the list title: "element descriptor list (grouped by type):" and kin
        elif group is not None or headings_seen == 0:
            body.warn(f"line {line.number}: not understood: {line.text!r}")
    if not groups:
        raise SesParseError("ed", "no 'Element type: …' group after the header")
    return safely(
        "ed",
        lambda: SesElementDescriptors(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation_code(body, preface),
            truncated=body.cut,
            warnings=body.warnings,
            groups=groups,
        ),
    )
