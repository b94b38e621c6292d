"""Folding decoded `sg_ses` pages into the facts of one SES device.

Slots are addressed three ways in SES and they must not be confused: the element number within
its type (what `es` and `ed` list in order), the element index of `aes` (which counts elements of
every type), and the device slot number (the bay a technician reads). The bay is the key here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.checks.collect.sas.enclosure_class import SesFacts, SlotFacts
from pinchpoint.checks.parse.ses import PAGE_PARSERS, SesParseError
from pinchpoint.model.ses import (
    SesAdditionalElement,
    SesAdditionalStatus,
    SesConfiguration,
    SesElementDescriptors,
    SesEnclosureStatus,
    SesNicknames,
    is_slot_type,
)

__all__ = ["SES_PAGES", "SesPages", "apply_pages", "parse_page"]

SES_PAGES = ("cf", "snic", "ed", "es", "aes")


@dataclass
class SesPages:
    """The decoded pages of one SES device; any may be missing."""

    cf: SesConfiguration | None = None
    snic: SesNicknames | None = None
    ed: SesElementDescriptors | None = None
    es: SesEnclosureStatus | None = None
    aes: SesAdditionalStatus | None = None
    problems: list[str] = field(default_factory=list)


def parse_page(pages: SesPages, page: str, text: str) -> str | None:
    """Decode one page into `pages`; the reason when it cannot be used, else None."""
    try:
        decoded = PAGE_PARSERS[page](text)
    except SesParseError as err:
        return str(err)
    setattr(pages, page, decoded)
    if decoded.truncated:
        return f"output ended early; {'; '.join(decoded.warnings) or 'some elements missing'}"
    return None


def _type_bases(cf: SesConfiguration | None) -> dict[int, int]:
    """Per type index, how many individual elements the types before it hold."""
    if cf is None:
        return {}
    bases, total = {}, 0
    for descriptor in sorted(cf.type_descriptors, key=lambda t: t.type_index):
        bases[descriptor.type_index] = total
        total += descriptor.possible_elements
    return bases


def _element_number(element: SesAdditionalElement, position: int, bases: dict[int, int]) -> int:
    """The element number within its type of an `aes` slot element."""
    if element.element_number is not None:
        return element.element_number
    ti = element.type_index
    if element.element_index is not None and ti is not None and ti in bases:
        overall = ti + 1 if element.eiioe == 1 else 0  # EIIOE=1: indexes count overall elements
        number = element.element_index - bases[ti] - overall
        if number >= 0:
            return number
    return position


def apply_pages(facts: SesFacts, pages: SesPages) -> None:
    """Identity, nickname, bay count and per-bay status, name and SAS addresses."""
    if pages.cf is not None:
        facts.logical_id = facts.logical_id or pages.cf.logical_id
        facts.vendor = pages.cf.vendor or facts.vendor
        facts.product = pages.cf.product or facts.product
        facts.revision = pages.cf.revision or facts.revision
        facts.slot_count = pages.cf.slot_count or facts.slot_count
        facts.expander_elements = pages.cf.expander_count
    if facts.logical_id is None:
        for page in (pages.aes, pages.es, pages.ed, pages.snic):
            if page is not None and page.primary_logical_id:
                facts.logical_id = page.primary_logical_id
                break
    if pages.snic is not None:
        facts.nickname = pages.snic.nickname(0) or facts.nickname
    bay_of: dict[tuple[int, int], int] = {}  # (type index, element number) -> bay
    if pages.aes is not None:
        bases = _type_bases(pages.cf)
        positions: dict[int, int] = {}
        for element in pages.aes.elements:
            if not is_slot_type(element.element_type) or element.invalid:
                continue
            ti = element.type_index if element.type_index is not None else -1
            position = positions.get(ti, 0)
            positions[ti] = position + 1
            number = _element_number(element, position, bases)
            bay = element.device_slot_number if element.device_slot_number is not None else number
            bay_of[(ti, number)] = bay
            slot = facts.slots.setdefault(bay, SlotFacts(index=bay))
            slot.element_index = element.element_index
            addresses = [p.sas_address for p in element.phys if p.attached]
            slot.sas_addresses.extend(a for a in addresses if a not in slot.sas_addresses)
            if len(addresses) >= 2:
                facts.dual_ported_slots += 1
    if pages.es is not None:
        for status in pages.es.slots:
            if status.element_number is None:
                continue  # `slots` holds individual elements only; this keeps mypy sure of it
            number = status.element_number
            bay = bay_of.get((status.type_index, number), bay_of.get((-1, number), number))
            slot = facts.slots.setdefault(bay, SlotFacts(index=bay))
            slot.status = slot.status or status.status
            if slot.fault is None and (
                status.fault_sensed is not None or status.fault_requested is not None
            ):
                slot.fault = bool(status.fault_sensed) or bool(status.fault_requested)
            if slot.locate is None:
                slot.locate = status.ident
            if slot.active is None and status.device_off is not None:
                slot.active = not status.device_off
            if pages.ed is not None:
                slot.descriptor = slot.descriptor or pages.ed.descriptor(status.type_index, number)
    elif pages.ed is not None:
        for group in pages.ed.groups:
            if not is_slot_type(group.element_type):
                continue
            for number, name in group.descriptors.items():
                bay = bay_of.get((group.type_index, number), number)
                slot = facts.slots.setdefault(bay, SlotFacts(index=bay))
                slot.descriptor = slot.descriptor or name
    if facts.slot_count is None and facts.slots:
        facts.slot_count = len(facts.slots)
