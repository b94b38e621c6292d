"""The SES diagnostic pages one enclosure services device reports, as raw field values.

Status descriptors are kept as the 4 bytes the device returns (SES-4 layout), so the text
renderer decodes bits the way sg_ses does and a test can encode the very same pages to binary
and have the real sg_ses decode them. Element types, in configuration-page order: array device
slots, power supplies, cooling fans, temperature sensors (one per I/O module), the enclosure,
SAS expanders (every expander of every I/O module) and SAS connectors (IN and OUT per I/O
module). Element indexes count individual elements only (EIIOE = 0).

Each I/O module lists a dual-ported disk's phys with its own side first: the kernel's ses driver
takes "the phy 0 address" of a slot to match a SCSI device, so each SES device's enclosure
links the disk path that runs through its own I/O module, as on real dual-I/O-module JBODs.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.simulator.addresses import name_hash
from pinchpoint.simulator.fabric import DiskPort, EnclosureFabric, Expander, SesTarget
from pinchpoint.simulator.spec.sas import ELEMENT_COUNTS, ElementFaultSpec, slot_descriptor

ARRAY_DEVICE_SLOT = 0x17
POWER_SUPPLY = 0x02
COOLING = 0x03
TEMPERATURE_SENSOR = 0x04
ENCLOSURE = 0x0E
SAS_EXPANDER = 0x18
SAS_CONNECTOR = 0x19

STATUS_UNSUPPORTED = 0x0
STATUS_OK = 0x1
STATUS_CRITICAL = 0x2
STATUS_NONCRITICAL = 0x3
STATUS_UNRECOVERABLE = 0x4
STATUS_NOT_INSTALLED = 0x5
STATUS_CODES = {
    "ok": STATUS_OK,
    "critical": STATUS_CRITICAL,
    "noncritical": STATUS_NONCRITICAL,
    "unrecoverable": STATUS_UNRECOVERABLE,
    "not_installed": STATUS_NOT_INSTALLED,
}

DEVICE_TYPE_NONE = 0
DEVICE_TYPE_END = 1
DEVICE_TYPE_EXPANDER = 2
TARGET_SATA = 0x01
TARGET_SSP = 0x08
NO_ELEMENT = 0xFF
MINI_SAS_HD_4X_RECEPTACLE = 0x05
PSU_COUNT = ELEMENT_COUNTS["psu"]
FAN_COUNT = ELEMENT_COUNTS["fan"]
TEMPERATURE_OFFSET = 20
# The limits every simulated temperature sensor reports on the threshold page, in °C:
# high critical, high warning, low warning, low critical.
TEMPERATURE_LIMITS_C = (70, 60, 5, 0)


@dataclass(frozen=True)
class Element:
    """One element (or a type's overall element): its descriptor text and status bytes."""

    descriptor: str
    status: bytes  # 4 bytes: common status byte + 3 type-specific bytes
    threshold: bytes = bytes(4)  # threshold page: high critical, high warning, low w., low c.


@dataclass(frozen=True)
class ElementType:
    """A type descriptor header with its text, overall element and individual elements."""

    code: int
    text: str
    overall: Element
    elements: tuple[Element, ...]


@dataclass(frozen=True)
class AesPhy:
    """A phy descriptor of the additional element status page (SAS, 28 bytes)."""

    device_type: int
    initiator_flags: int
    target_flags: int
    attached_sas_address: int
    sas_address: int
    phy_identifier: int


@dataclass(frozen=True)
class SlotAes:
    """Additional element status of an array device slot: its device slot number and phys."""

    element_index: int
    slot: int
    phys: tuple[AesPhy, ...]


@dataclass(frozen=True)
class ExpanderAes:
    """Additional element status of a SAS expander: per phy (connector, other) element index."""

    element_index: int
    sas_address: int
    phys: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class SesPageSet:
    """Everything `sg_ses` shows for one SES device across the cf, es, ed, aes and snic pages."""

    vendor: str
    product: str
    revision: str
    logical_id: int
    relative_process_id: int
    process_count: int
    types: tuple[ElementType, ...]
    slots: tuple[SlotAes, ...]
    expanders: tuple[ExpanderAes, ...]
    nickname: str
    generation: int = 0

    @property
    def summary_bits(self) -> int:
        """Byte 1 of the status page: UNRECOV (bit 0), CRIT (1), NON-CRIT (2) set when an
        individual element reports that status."""
        codes = {e.status[0] & 0x0F for t in self.types for e in t.elements}
        bits = 0
        for code, bit in (
            (STATUS_UNRECOVERABLE, 0x01),
            (STATUS_CRITICAL, 0x02),
            (STATUS_NONCRITICAL, 0x04),
        ):
            if code in codes:
                bits |= bit
        return bits


def _status(code: int, b1: int = 0, b2: int = 0, b3: int = 0) -> bytes:
    """A 4-byte status descriptor."""
    return bytes((code, b1, b2, b3))


def _overall(text: str) -> Element:
    """The overall element of a type: descriptor text, status unsupported."""
    return Element(text, _status(STATUS_UNSUPPORTED))


def _connector_status(mated: bool) -> bytes:
    """A SAS connector element: Mini SAS HD 4x receptacle, MATED and 'all phys' when cabled."""
    if mated:
        return _status(STATUS_OK, MINI_SAS_HD_4X_RECEPTACLE, 0xFF, 0x80)
    return _status(STATUS_OK, MINI_SAS_HD_4X_RECEPTACLE, 0x00, 0x00)


def _fan_status(enclosure: str, fan: int) -> bytes:
    """A running fan: actual speed in units of 10 rpm (11 bits) and speed code 3, requested on."""
    rpm_tens = 480 + name_hash("fan", enclosure, str(fan)) % 60
    return _status(STATUS_OK, (rpm_tens >> 8) & 0x07, rpm_tens & 0xFF, 0x20 | 0x03)


def _fault(
    enc: EnclosureFabric, element: str, number: int = 0, iom: str = ""
) -> ElementFaultSpec | None:
    """The spec's fault of one element, if it has one."""
    for fault in enc.spec.element_fault:
        if fault.element != element:
            continue
        if element in ("psu", "fan") and fault.number == number:
            return fault
        if element in ("temperature", "io_module") and fault.io_module == iom:
            return fault
    return None


def _psu(enc: EnclosureFabric, number: int) -> Element:
    """A power supply: on, or as its fault says (Fail and DC fail set when it failed)."""
    fault = _fault(enc, "psu", number)
    descriptor = f"PSU {number + 1}"
    if fault is None or fault.status == "ok":
        return Element(descriptor, _status(STATUS_OK, 0, 0, 0x20))
    code = STATUS_CODES[fault.status or "critical"]
    if code == STATUS_NOT_INSTALLED:
        return Element(descriptor, _status(code))
    fail = 0x40 | 0x01 if code in (STATUS_CRITICAL, STATUS_UNRECOVERABLE) else 0x02  # AC fail
    return Element(descriptor, _status(code, 0, 0, 0x20 | fail))


def _fan(enc: EnclosureFabric, number: int) -> Element:
    """A fan: running, or as its fault says (a failed fan is stopped with Fail set)."""
    fault = _fault(enc, "fan", number)
    descriptor = f"FAN {number + 1}"
    if fault is None or fault.status == "ok":
        return Element(descriptor, _fan_status(enc.name, number))
    code = STATUS_CODES[fault.status or "critical"]
    if code == STATUS_NOT_INSTALLED:
        return Element(descriptor, _status(code))
    if code == STATUS_NONCRITICAL:  # running slow
        return Element(descriptor, _status(code, 0, 120, 0x20 | 0x01))
    return Element(descriptor, _status(code, 0, 0, 0x40 | 0x20))


def _temperature_sensor(enc: EnclosureFabric, iom: str) -> Element:
    """An I/O module's temperature sensor with its limits; a fault sets the reading, and the
    status and OT bits the reading earns (unless the fault says the status)."""
    high_critical, high_warning = TEMPERATURE_LIMITS_C[:2]
    limits = bytes(v + TEMPERATURE_OFFSET for v in TEMPERATURE_LIMITS_C)
    descriptor = f"TEMP IOM {iom}"
    fault = _fault(enc, "temperature", iom=iom)
    reading = 26 + name_hash("temp", enc.name, iom) % 9
    if fault is not None and fault.temperature_c is not None:
        reading = fault.temperature_c
    if fault is not None and fault.status is not None:
        code = STATUS_CODES[fault.status]
    elif reading >= high_critical:
        code = STATUS_CRITICAL
    elif reading >= high_warning:
        code = STATUS_NONCRITICAL
    else:
        code = STATUS_OK
    if code == STATUS_NOT_INSTALLED:
        return Element(descriptor, _status(code), limits)
    bits = 0
    if reading >= high_critical:
        bits |= 0x08  # OT failure
    elif reading >= high_warning:
        bits |= 0x04  # OT warning
    return Element(descriptor, _status(code, 0, reading + TEMPERATURE_OFFSET, bits), limits)


def _expander_element(enc: EnclosureFabric, expander: Expander) -> Element:
    """A SAS expander of an I/O module: OK, or as the I/O module's fault says."""
    descriptor = f"EXPANDER {expander.io_module}{expander.ordinal}"
    fault = _fault(enc, "io_module", iom=expander.io_module or "A")
    if fault is None or fault.status == "ok":
        return Element(descriptor, _status(STATUS_OK))
    code = STATUS_CODES[fault.status or "critical"]
    fail = 0x40 if code in (STATUS_CRITICAL, STATUS_UNRECOVERABLE) else 0
    return Element(descriptor, _status(code, fail))


def _element_types(enc: EnclosureFabric) -> tuple[ElementType, ...]:
    """Every element type of the enclosure with its elements and their status."""
    spec = enc.spec
    slots = tuple(
        Element(
            slot_descriptor(
                spec.slot_descriptor, bay, enc.disks[bay].serial if bay in enc.disks else None
            ),
            _status(STATUS_OK if bay in enc.disks else STATUS_NOT_INSTALLED),
        )
        for bay in range(spec.bays)
    )
    psus = tuple(_psu(enc, i) for i in range(PSU_COUNT))
    fans = tuple(_fan(enc, i) for i in range(FAN_COUNT))
    temps = tuple(_temperature_sensor(enc, iom) for iom in spec.io_module_names)
    expanders = tuple(_expander_element(enc, e) for e in enc.all_expanders())
    connectors = tuple(
        Element(f"CONNECTOR {iom} {way.upper()}", _connector_status(iom in cabled))
        for iom in spec.io_module_names
        for way, cabled in (("in", enc.cabled_in), ("out", enc.cabled_out))
    )
    return (
        ElementType(ARRAY_DEVICE_SLOT, "Drive Slots", _overall("Drive Slots"), slots),
        ElementType(POWER_SUPPLY, "Power Supplies", _overall("Power Supplies"), psus),
        ElementType(COOLING, "Cooling Fans", _overall("Cooling Fans"), fans),
        ElementType(
            TEMPERATURE_SENSOR, "Temperature Sensors", _overall("Temperature Sensors"), temps
        ),
        ElementType(
            ENCLOSURE,
            "Enclosure",
            _overall("Enclosure"),
            (Element("ENCLOSURE", _status(STATUS_OK)),),
        ),
        ElementType(SAS_EXPANDER, "SAS Expanders", _overall("SAS Expanders"), expanders),
        ElementType(SAS_CONNECTOR, "SAS Connectors", _overall("SAS Connectors"), connectors),
    )


def _port_phy(port: DiskPort, attached: Expander) -> AesPhy:
    """How an I/O module reports one disk port: attached expander, port address."""
    if not port.linked:
        return AesPhy(DEVICE_TYPE_NONE, 0, 0, 0, 0, 0)
    target = TARGET_SSP if port.disk.spec.protocol == "sas" else TARGET_SATA
    return AesPhy(
        DEVICE_TYPE_END, 0, target, attached.sas_address, port.sas_address, port.phy_identifier
    )


def _slot_aes(enc: EnclosureFabric, io_module: str) -> tuple[SlotAes, ...]:
    """Additional element status of every slot, the asking I/O module's port first."""
    empty = (AesPhy(DEVICE_TYPE_NONE, 0, 0, 0, 0, 0),)
    slots = []
    for bay in range(enc.spec.bays):
        disk = enc.disks.get(bay)
        if disk is None:
            slots.append(SlotAes(bay, bay, empty))
            continue
        ports = sorted(disk.ports, key=lambda p: (p.io_module != io_module, p.phy_identifier))
        phys = tuple(
            _port_phy(p, next(e for e in enc.expanders[p.io_module] if bay in e.bay_phys))
            for p in ports
        )
        slots.append(SlotAes(bay, bay, phys))
    return tuple(slots)


def _expander_aes(enc: EnclosureFabric, first_index: int) -> tuple[ExpanderAes, ...]:
    """Per expander phy: the SAS connector or the other element (slot, expander) it reaches."""
    bays = enc.spec.bays
    expanders = enc.all_expanders()
    ordinal = {id(e): bays + i for i, e in enumerate(expanders)}  # index among AES-type elements
    result = []
    for i, expander in enumerate(expanders):
        iom_index = enc.spec.io_module_names.index(expander.io_module or "A")
        pairs = [(NO_ELEMENT, NO_ELEMENT)] * expander.phy_count
        if expander.ordinal == 0:
            for p in range(4):
                pairs[p] = (2 * iom_index, NO_ELEMENT)
                pairs[4 + p] = (2 * iom_index + 1, NO_ELEMENT)
            for sub_ordinal, link in expander.sub_link_phys.items():
                sub = enc.expanders[expander.io_module or "A"][sub_ordinal]
                for p in link:
                    pairs[p] = (NO_ELEMENT, ordinal[id(sub)])
        else:
            main = enc.main_expander(expander.io_module or "A")
            for p in expander.upstream_phys:
                pairs[p] = (NO_ELEMENT, ordinal[id(main)])
        for bay, p in expander.bay_phys.items():
            pairs[p] = (NO_ELEMENT, bay)
        result.append(ExpanderAes(first_index + i, expander.sas_address, tuple(pairs)))
    return tuple(result)


def ses_page_set(ses: SesTarget) -> SesPageSet:
    """The pages the SES device of one I/O module returns."""
    enc = ses.enclosure
    spec = enc.spec
    types = _element_types(enc)
    first_expander = sum(
        len(t.elements) for t in types if t.code != SAS_EXPANDER and t.code != SAS_CONNECTOR
    )
    return SesPageSet(
        vendor=spec.vendor,
        product=spec.product,
        revision=spec.revision,
        logical_id=enc.logical_id,
        relative_process_id=spec.io_module_names.index(ses.io_module) + 1,
        process_count=spec.io_modules,
        types=types,
        slots=_slot_aes(enc, ses.io_module),
        expanders=_expander_aes(enc, first_expander),
        nickname=spec.name,
    )


def phy0_address(pages: SesPageSet, slot: int) -> int:
    """The SAS address the kernel's ses driver keeps for a slot: its first phy's."""
    return pages.slots[slot].phys[0].sas_address
