"""Folding decoded `sg_ses` pages into the facts of one SES device.

Slots are addressed three ways in SES and they must not be confused: the element number within
its type (what `es` and `ed` list in order), the element index of `aes` (which counts elements of
every type), and the device slot number (the bay a technician reads). The bay is the key here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.checks.collect.sas.enclosure_class import SesFacts, SlotFacts
from pinchpoint.checks.parse.ses import PAGE_PARSERS, SesParseError
from pinchpoint.model.sas import ElementLimits, EnclosureElement
from pinchpoint.model.ses import (
    SesAdditionalElement,
    SesAdditionalStatus,
    SesConfiguration,
    SesElementDescriptors,
    SesEnclosureStatus,
    SesNicknames,
    SesStatusElement,
    SesThresholds,
    is_slot_type,
)

__all__ = ["SES_PAGES", "SesPages", "apply_pages", "parse_page"]

SES_PAGES = ("cf", "snic", "ed", "es", "aes", "th")


@dataclass
class SesPages:
    """The decoded pages of one SES device; any may be missing."""

    cf: SesConfiguration | None = None
    snic: SesNicknames | None = None
    ed: SesElementDescriptors | None = None
    es: SesEnclosureStatus | None = None
    aes: SesAdditionalStatus | None = None
    th: SesThresholds | None = None
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
        facts.io_modules = pages.cf.io_module_count
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
    if pages.es is not None:
        facts.elements_whole = not pages.es.truncated
        element_addresses = _element_addresses(pages)
        facts.elements = [
            _element(
                status, pages, element_addresses.get((status.type_index, status.element_number))
            )
            for status in pages.es.elements
            if status.element_number is not None and not is_slot_type(status.element_type)
        ]
        facts.status_summary = [
            name
            for name, on in (
                ("UNRECOV", pages.es.unrecoverable),
                ("CRIT", pages.es.critical),
                ("NON-CRIT", pages.es.non_critical),
                ("INFO", pages.es.info),
                ("INVOP", pages.es.invalid_operation),
            )
            if on
        ]


# Status bits that report a problem of the element, as sg_ses names them (power supply,
# temperature, voltage and current sensors, enclosure); "Fail" is kept on its own.
_ALARM_BITS = frozenset(
    name.lower()
    for name in (
        "DC overvoltage",
        "DC undervoltage",
        "DC overcurrent",
        "Overtmp fail",
        "Temperature warn",
        "AC fail",
        "DC fail",
        "OT failure",
        "OT warning",
        "UT failure",
        "UT warning",
        "Warn Over",
        "Warn Under",
        "Crit Over",
        "Crit Under",
        "Failure indication",
        "Warning indication",
    )
)


def _detail_number(details: list[str], name: str) -> float | None:
    """The number of a "Voltage: 0.94 volts" detail, if the element prints one."""
    for detail in details:
        key, colon, value = detail.partition(":")
        if colon and key.strip().lower() == name:
            words = value.split()
            try:
                return float(words[0]) if words else None
            except ValueError:
                return None
    return None


def _element_addresses(pages: SesPages) -> dict[tuple[int, int], str]:
    """(type index, element number) -> SAS address of each expander and each controller
    (ESM) the additional element status page describes."""
    if pages.aes is None:
        return {}
    bases = _type_bases(pages.cf)
    positions: dict[int, int] = {}
    found: dict[tuple[int, int], str] = {}
    for element in pages.aes.elements:
        if is_slot_type(element.element_type) or element.invalid or element.type_index is None:
            continue
        ti = element.type_index
        position = positions.get(ti, 0)
        positions[ti] = position + 1
        address = element.sas_address or next(
            (p.sas_address for p in element.port_phys if p.sas_address != "0x0"), None
        )
        if address:
            found[(ti, _element_number(element, position, bases))] = address
    return found


def _element(
    status: SesStatusElement, pages: SesPages, sas_address: str | None
) -> EnclosureElement:
    """One non-slot element: its status bits, readings, name and limits."""
    assert status.element_number is not None  # the caller keeps individual elements only
    number = status.element_number
    kind = status.element_type.lower()
    limits = pages.th.threshold(status.type_index, number) if pages.th is not None else None
    fail = status.flag("Fail")
    temperature = status.flag("Temperature") if "temperature" in kind else None
    speed = status.flag("Actual speed") if "cooling" in kind or "fan" in kind else None
    return EnclosureElement(
        element_type=status.element_type,
        type_index=status.type_index,
        index=number,
        descriptor=pages.ed.descriptor(status.type_index, number) if pages.ed else None,
        status=status.status,
        predicted_failure=status.predicted_failure,
        fail=None if fail is None else fail != 0,
        warnings=[k for k, v in status.flags.items() if v and k.lower() in _ALARM_BITS],
        temperature_c=None if temperature is None else float(temperature),
        voltage_v=_detail_number(status.details, "voltage") if "voltage" in kind else None,
        current_a=_detail_number(status.details, "current") if "current" in kind else None,
        fan_rpm=speed,
        sas_address=sas_address,
        limits=None
        if limits is None
        else ElementLimits(
            high_critical=limits.high_critical,
            high_warning=limits.high_warning,
            low_warning=limits.low_warning,
            low_critical=limits.low_critical,
            unit=limits.unit,
        ),
    )
