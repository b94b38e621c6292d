"""The configuration page (`sg_ses --page=cf`): the enclosure's identity (logical identifier,
vendor, product, revision), its subenclosures, and its element types with their counts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pinchpoint.checks.parse.ses.elements import Heading, element_type_heading
from pinchpoint.checks.parse.ses.page import (
    Body,
    Line,
    SesParseError,
    fields_with_lines,
    optional_number,
    page_body,
    safely,
)
from pinchpoint.checks.parse.ses.values import (
    GarbledError,
    IncompleteError,
    field_key,
    hex_id_value,
    line_fields,
    number_value,
)
from pinchpoint.model.ses import SesConfiguration, SesSubenclosure, SesTypeDescriptor

__all__ = ["parse_configuration"]


@dataclass
class _SubenclosureDraft:
    """The lines of one enclosure descriptor, before their values are checked."""

    line: Line
    fields: dict[str, str] = field(default_factory=dict)
    vendor_line: str | None = None


@dataclass
class _TypeDraft:
    """The lines of one type descriptor header, before their values are checked."""

    line: Line
    heading: Heading | None
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
        raise IncompleteError("no 'number of type descriptor headers' line")
    vendor = product = revision = None
    if draft.vendor_line is not None:
        match = _VENDOR_LINE.fullmatch(draft.vendor_line)
        if match is None:
            raise GarbledError(
                f"vendor line {draft.vendor_line!r} is not 'vendor: … product: … rev: …'"
            )
        vendor, product, revision = match["vendor"], match["product"], match["rev"].strip()
    logical_id = f.get("enclosure logical identifier (hex)")
    relative = f.get("relative es process id")
    processes = f.get("number of es processes")
    return SesSubenclosure(
        subenclosure_id=number_value(f["subenclosure identifier"], "subenclosure identifier"),
        primary="primary" in f["subenclosure identifier"].lower(),
        relative_es_process_id=None
        if relative is None
        else number_value(relative, "ES process id"),
        es_process_count=None if processes is None else number_value(processes, "ES processes"),
        type_descriptor_header_count=number_value(
            f["number of type descriptor headers"], "number of type descriptor headers"
        ),
        logical_id=None
        if logical_id is None
        else hex_id_value(logical_id, "enclosure logical identifier"),
        vendor=vendor,
        product=product,
        revision=revision,
    )


def _type_descriptor(draft: _TypeDraft, type_index: int) -> SesTypeDescriptor:
    """One type descriptor header; `IncompleteError` without its possible-elements count."""
    if draft.heading is None:
        raise GarbledError(draft.problem)
    possible = draft.heading.possible_elements
    if possible is None:
        if draft.possible is None:
            raise IncompleteError("no 'number of possible elements' line")
        possible = number_value(draft.possible, "number of possible elements")
    return SesTypeDescriptor(
        type_index=type_index,
        element_type=draft.heading.element_type,
        subenclosure_id=draft.heading.subenclosure_id,
        possible_elements=possible,
        text=draft.text,
    )


def _configuration_drafts(
    body: Body,
) -> tuple[list[Line], list[_SubenclosureDraft], list[_TypeDraft]]:
    """Group the cf lines: page-level lines, enclosure descriptors, type descriptor headers."""
    page_lines: list[Line] = []
    subs: list[_SubenclosureDraft] = []
    types: list[_TypeDraft] = []
    in_hex_dump = False
    for line in body.lines():
        lowered = field_key(line.text).rstrip(":")
        if in_hex_dump and _HEX_DUMP.match(line.text):
            continue
        in_hex_dump = lowered in ("vendor-specific data", "vendor specific data")
        if in_hex_dump or lowered in _CF_LIST_TITLES:
            continue
        if lowered.startswith("element type:"):
            try:
                types.append(_TypeDraft(line=line, heading=element_type_heading(line)))
            except GarbledError as bad:
                types.append(_TypeDraft(line=line, heading=None, problem=str(bad)))
            continue
        fields = line_fields(line.text)
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
    body = page_body(text, "cf")
    page_lines, sub_drafts, type_drafts = _configuration_drafts(body)
    page_fields = fields_with_lines(page_lines)
    secondary = optional_number(
        body, "secondary subenclosures", page_fields.get("number of secondary subenclosures")
    )
    generation = optional_number(body, "generation code", page_fields.get("generation code"))
    truncated = body.cut

    subenclosures: list[SesSubenclosure] = []
    for position, sub_draft in enumerate(sub_drafts):
        try:
            subenclosures.append(_subenclosure(sub_draft))
        except (GarbledError, IncompleteError) as bad:
            ended = isinstance(bad, IncompleteError) and position == len(sub_drafts) - 1
            truncated = truncated or ended
            body.warn(f"line {sub_draft.line.number}: subenclosure descriptor dropped: {bad}")
    expected_types = sum(s.type_descriptor_header_count for s in subenclosures)

    descriptors: list[SesTypeDescriptor] = []
    for type_index, type_draft in enumerate(type_drafts):
        try:
            descriptors.append(_type_descriptor(type_draft, type_index))
        except (GarbledError, IncompleteError) as bad:
            ended = isinstance(bad, IncompleteError) and type_index == len(type_drafts) - 1
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
    return safely(
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
