"""Enclosures as the kernel's `ses` driver shows them in `/sys/class/enclosure`.

Each SES device with the EncServ bit gets `…/H:C:T:L/enclosure/H:C:T:L/` with `id` (the
enclosure logical identifier), `components`, and one directory per element (named after the
element descriptor, e.g. "SLOT 01", or its number) holding `slot`, `status`, `fault`, `locate`,
`active` and a `device` link to the disk in that bay.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.checks.source import SourceError
from pinchpoint.checks.source.sysfs import SysfsReader
from pinchpoint.model import ids
from pinchpoint.model.sas import EnclosureElement

__all__ = ["SesFacts", "SlotFacts", "read_enclosure_components", "read_enclosure_id"]

PART = "enclosure"
_NOT_COMPONENTS = frozenset({"power", "subsystem", "device", "uevent", "id", "components"})


@dataclass(slots=True)
class SlotFacts:
    """What one source says about one bay; merged later with other sources."""

    index: int
    element_index: int | None = None
    descriptor: str | None = None
    status: str | None = None
    fault: bool | None = None
    locate: bool | None = None
    active: bool | None = None
    device_hctl: str | None = None
    sas_addresses: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SesFacts:
    """Everything learnt about one SES device (one I/O module of an enclosure)."""

    hctl: str
    sg_device: str | None = None
    sas_address: str | None = None
    logical_id: str | None = None
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    nickname: str | None = None
    slot_count: int | None = None
    expander_elements: int | None = None
    io_modules: int | None = None  # I/O modules the configuration page declares
    dual_ported_slots: int = 0  # slots whose device shows two phys with addresses (aes)
    in_enclosure_class: bool = False
    slots: dict[int, SlotFacts] = field(default_factory=dict)
    elements: list[EnclosureElement] | None = None  # None: no enclosure status page read
    status_summary: list[str] = field(default_factory=list)  # summary bits set: "CRIT", …
    elements_whole: bool = False  # the status page was read to its end


def _flag(text: str | None) -> bool | None:
    if text is None or text == "":
        return None
    return text.strip() not in ("0", "off")


def read_enclosure_id(read: SysfsReader, enclosure_dir: str, facts: SesFacts) -> None:
    """The enclosure logical identifier from one `/sys/class/enclosure` directory."""
    facts.in_enclosure_class = True
    logical = read.value(f"{enclosure_dir}/id")
    if logical:
        facts.logical_id = ids.normalise_sas_address(logical)


def read_enclosure_components(read: SysfsReader, enclosure_dir: str, facts: SesFacts) -> None:
    """Every bay of one `/sys/class/enclosure` directory: slot, status, LEDs, device."""
    count = read.integer(f"{enclosure_dir}/components")
    for name in read.entries(enclosure_dir):
        if name in _NOT_COMPONENTS:
            continue
        comp = f"{enclosure_dir}/{name}"
        slot = read.integer(f"{comp}/slot")
        if slot is None:
            continue  # not a device slot (fans, PSUs … carry no slot number)
        found = facts.slots.setdefault(slot, SlotFacts(index=slot))
        found.descriptor = found.descriptor or (name if not name.isdigit() else None)
        found.status = found.status or read.value(f"{comp}/status")
        found.fault = _flag(read.value(f"{comp}/fault"))
        found.locate = _flag(read.value(f"{comp}/locate"))
        found.active = _flag(read.value(f"{comp}/active"))
        try:
            # The link ends in the disk's H:C:T:L directory; its name is all we need.
            found.device_hctl = (
                read.source.read_link(f"{comp}/device").rstrip("/").rsplit("/", 1)[-1]
            )
        except SourceError:
            found.device_hctl = None  # an empty bay has no device link
    if facts.slot_count is None and count is not None and facts.slots:
        facts.slot_count = len(facts.slots)
