"""`sg_ses --page=PG /dev/sgN` output text (sg3_utils 1.46) for pages cf, es, ed, aes, snic, th.

Live sg_ses prints the device's INQUIRY identity first (`  VENDOR    PRODUCT           REV`),
then the decoded page; for aes it also prints the primary enclosure logical identifier.
Status bits are decoded from the raw bytes in `SesPageSet`, field names and line breaks as
sg_ses prints them (checked against the real sg_ses decoding the same pages in the tests).
"""

from __future__ import annotations

from collections.abc import Callable

from pinchpoint.simulator.naming import padded
from pinchpoint.simulator.ses_pages import (
    ARRAY_DEVICE_SLOT,
    COOLING,
    DEVICE_TYPE_END,
    DEVICE_TYPE_EXPANDER,
    ENCLOSURE,
    NO_ELEMENT,
    POWER_SUPPLY,
    SAS_CONNECTOR,
    SAS_EXPANDER,
    TEMPERATURE_OFFSET,
    TEMPERATURE_SENSOR,
    AesPhy,
    Element,
    SesPageSet,
)

PAGES = ("cf", "es", "ed", "aes", "snic", "th")

_TYPE_NAMES = {
    0x01: "Device slot",
    POWER_SUPPLY: "Power supply",
    COOLING: "Cooling",
    TEMPERATURE_SENSOR: "Temperature sensor",
    ENCLOSURE: "Enclosure",
    ARRAY_DEVICE_SLOT: "Array device slot",
    SAS_EXPANDER: "SAS expander",
    SAS_CONNECTOR: "SAS connector",
}
_STATUS_NAMES = (
    "Unsupported",
    "OK",
    "Critical",
    "Noncritical",
    "Unrecoverable",
    "Not installed",
    "Unknown",
    "Not available",
    "No access allowed",
)
_FAN_SPEEDS = (
    "Fan stopped",
    "Fan at lowest speed",
    "Fan at second lowest speed",
    "Fan at third lowest speed",
    "Fan at intermediate speed",
    "Fan at third highest speed",
    "Fan at second highest speed",
    "Fan at highest speed",
)
_CONNECTOR_TYPES = {
    0x00: "No information",
    0x01: "SAS 4x receptacle (SFF-8470) [max 4 phys]",
    0x02: "Mini SAS 4x receptacle (SFF-8088) [max 4 phys]",
    0x03: "QSFP+ receptacle (SFF-8436) [max 4 phys]",
    0x04: "Mini SAS 4x active receptacle (SFF-8088) [max 4 phys]",
    0x05: "Mini SAS HD 4x receptacle (SFF-8644) [max 4 phys]",
    0x06: "Mini SAS HD 8x receptacle (SFF-8644) [max 8 phys]",
    0x07: "Mini SAS HD 16x receptacle (SFF-8644) [max 16 phys]",
}
_DEVICE_TYPES = {
    0: "no SAS device attached",
    DEVICE_TYPE_END: "end device",
    DEVICE_TYPE_EXPANDER: "expander device",
}
_INITIATOR_FLAGS = ((0x02, "SMP"), (0x04, "STP"), (0x08, "SSP"))
_TARGET_FLAGS = ((0x01, "SATA_device"), (0x02, "SMP"), (0x04, "STP"), (0x08, "SSP"))


def _bit(byte: int, bit: int) -> int:
    """Bit `bit` of `byte` (0 or 1)."""
    return (byte >> bit) & 1


def _common(status: bytes) -> str:
    """The line every status descriptor starts with."""
    b0 = status[0]
    code = b0 & 0x0F
    name = _STATUS_NAMES[code] if code < len(_STATUS_NAMES) else f"reserved [{code}]"
    return (
        f"Predicted failure={_bit(b0, 6)}, Disabled={_bit(b0, 5)}, Swap={_bit(b0, 4)}, "
        f"status: {name}"
    )


def _array_slot(s: bytes) -> list[str]:
    """Array device slot status bits, 4 to a line as sg_ses prints them."""
    b1, b2, b3 = s[1], s[2], s[3]
    return [
        f"OK={_bit(b1, 7)}, Reserved device={_bit(b1, 6)}, Hot spare={_bit(b1, 5)}, "
        f"Cons check={_bit(b1, 4)}",
        f"In crit array={_bit(b1, 3)}, In failed array={_bit(b1, 2)}, "
        f"Rebuild/remap={_bit(b1, 1)}, R/R abort={_bit(b1, 0)}",
        f"App client bypass A={_bit(b2, 7)}, Do not remove={_bit(b2, 6)}, "
        f"Enc bypass A={_bit(b2, 5)}, Enc bypass B={_bit(b2, 4)}",
        f"Ready to insert={_bit(b2, 3)}, RMV={_bit(b2, 2)}, Ident={_bit(b2, 1)}, "
        f"Report={_bit(b2, 0)}",
        f"App client bypass B={_bit(b3, 7)}, Fault sensed={_bit(b3, 6)}, "
        f"Fault reqstd={_bit(b3, 5)}, Device off={_bit(b3, 4)}",
        f"Bypassed A={_bit(b3, 3)}, Bypassed B={_bit(b3, 2)}, Dev bypassed A={_bit(b3, 1)}, "
        f"Dev bypassed B={_bit(b3, 0)}",
    ]


def _power_supply(s: bytes) -> list[str]:
    """Power supply status bits."""
    b1, b2, b3 = s[1], s[2], s[3]
    return [
        f"Ident={_bit(b1, 7)}, Do not remove={_bit(b1, 6)}, DC overvoltage={_bit(b2, 3)}, "
        f"DC undervoltage={_bit(b2, 2)}",
        f"DC overcurrent={_bit(b2, 1)}, Hot swap={_bit(b3, 7)}, Fail={_bit(b3, 6)}, "
        f"Requested on={_bit(b3, 5)}, Off={_bit(b3, 4)}",
        f"Overtmp fail={_bit(b3, 3)}, Temperature warn={_bit(b3, 2)}, AC fail={_bit(b3, 1)}, "
        f"DC fail={_bit(b3, 0)}",
    ]


def _cooling(s: bytes) -> list[str]:
    """Cooling element status: flags, actual speed and speed code."""
    b1, b2, b3 = s[1], s[2], s[3]
    rpm = (((b1 & 0x07) << 8) | b2) * 10
    return [
        f"Ident={_bit(b1, 7)}, Do not remove={_bit(b1, 6)}, Hot swap={_bit(b3, 7)}, "
        f"Fail={_bit(b3, 6)}, Requested on={_bit(b3, 5)}",
        f"Off={_bit(b3, 4)}, Actual speed={rpm} rpm, {_FAN_SPEEDS[b3 & 0x07]}",
    ]


def _temperature(s: bytes) -> list[str]:
    """Temperature sensor status and reading."""
    b1, b2, b3 = s[1], s[2], s[3]
    reading = f"Temperature={b2 - TEMPERATURE_OFFSET} C" if b2 else "Temperature: <reserved>"
    return [
        f"Ident={_bit(b1, 7)}, Fail={_bit(b1, 6)}, OT failure={_bit(b3, 3)}, "
        f"OT warning={_bit(b3, 2)}, UT failure={_bit(b3, 1)}",
        f"UT warning={_bit(b3, 0)}",
        reading,
    ]


def _enclosure(s: bytes) -> list[str]:
    """Enclosure element status."""
    b1, b2, b3 = s[1], s[2], s[3]
    return [
        f"Ident={_bit(b1, 7)}, Time until power cycle={b2 >> 2}, Failure indication={_bit(b2, 1)}",
        f"Warning indication={_bit(b2, 0)}, Requested power off duration={b3 >> 2}",
        f"Failure requested={_bit(b3, 1)}, Warning requested={_bit(b3, 0)}",
    ]


def _sas_expander(s: bytes) -> list[str]:
    """SAS expander element status."""
    return [f"Ident={_bit(s[1], 7)}, Fail={_bit(s[1], 6)}"]


def _sas_connector(s: bytes) -> list[str]:
    """SAS connector status: type, physical link, mated."""
    b1, b2, b3 = s[1], s[2], s[3]
    kind = _CONNECTOR_TYPES.get(b1 & 0x7F, f"unknown connector type [0x{b1 & 0x7F:x}]")
    return [
        f"Ident={_bit(b1, 7)}, {kind}",
        f"Connector physical link=0x{b2:x}, Mated={_bit(b3, 7)}, Fail={_bit(b3, 6)}, "
        f"OC={_bit(b3, 5)}",
    ]


_DECODERS: dict[int, Callable[[bytes], list[str]]] = {
    ARRAY_DEVICE_SLOT: _array_slot,
    POWER_SUPPLY: _power_supply,
    COOLING: _cooling,
    TEMPERATURE_SENSOR: _temperature,
    ENCLOSURE: _enclosure,
    SAS_EXPANDER: _sas_expander,
    SAS_CONNECTOR: _sas_connector,
}


def inquiry_line(pages: SesPageSet) -> str:
    """The identity line live sg_ses prints before any page: vendor, product, revision."""
    return f"  {padded(pages.vendor, 8)}  {padded(pages.product, 16)}  {padded(pages.revision, 4)}"


def _type_line(code: int, index: int | None = None) -> str:
    """The `Element type: …` header of a type, with `[ti=N]` where sg_ses adds it."""
    suffix = "" if index is None else f" [ti={index}]"
    return f"    Element type: {_TYPE_NAMES.get(code, f'[0x{code:x}]')}, subenclosure id: 0{suffix}"


def configuration_text(pages: SesPageSet) -> list[str]:
    """The Configuration diagnostic page (0x1), as `--page=cf` decodes it."""
    lines = [
        "Configuration diagnostic page:",
        "  number of secondary subenclosures: 0",
        f"  generation code: 0x{pages.generation:x}",
        "  enclosure descriptor list",
        "    Subenclosure identifier: 0 [primary]",
        f"      relative ES process id: {pages.relative_process_id}, "
        f"number of ES processes: {pages.process_count}",
        f"      number of type descriptor headers: {len(pages.types)}",
        f"      enclosure logical identifier (hex): {pages.logical_id:016x}",
        f"      enclosure vendor: {padded(pages.vendor, 8)}  product: "
        f"{padded(pages.product, 16)}  rev: {padded(pages.revision, 4)}",
        "  type descriptor header and text list",
    ]
    for element_type in pages.types:
        lines.append(_type_line(element_type.code))
        lines.append(f"      number of possible elements: {len(element_type.elements)}")
        lines.append(f"      text: {element_type.text}")
    return lines


def _status_lines(code: int, element: Element) -> list[str]:
    """The decoded lines of one status descriptor."""
    decoder = _DECODERS.get(code)
    extra = decoder(element.status) if decoder else []
    return ["        " + line for line in [_common(element.status), *extra]]


def enclosure_status_text(pages: SesPageSet) -> list[str]:
    """The Enclosure Status diagnostic page (0x2), as `--page=es` decodes it."""
    bits = pages.summary_bits
    lines = [
        "Enclosure Status diagnostic page:",
        f"  INVOP=0, INFO=0, NON-CRIT={_bit(bits, 2)}, CRIT={_bit(bits, 1)}, "
        f"UNRECOV={_bit(bits, 0)}",
        f"  generation code: 0x{pages.generation:x}",
        "  status descriptor list",
    ]
    for index, element_type in enumerate(pages.types):
        lines.append(_type_line(element_type.code, index))
        lines.append("      Overall descriptor:")
        lines.extend(_status_lines(element_type.code, element_type.overall))
        for number, element in enumerate(element_type.elements):
            lines.append(f"      Element {number} descriptor:")
            lines.extend(_status_lines(element_type.code, element))
    return lines


def element_descriptor_text(pages: SesPageSet) -> list[str]:
    """The Element Descriptor diagnostic page (0x7), as `--page=ed` decodes it."""
    lines = [
        "Element Descriptor In diagnostic page:",
        f"  generation code: 0x{pages.generation:x}",
        "  element descriptor list (grouped by type):",
    ]
    for index, element_type in enumerate(pages.types):
        lines.append(_type_line(element_type.code, index))
        lines.append(f"      Overall descriptor: {element_type.overall.descriptor}")
        for number, element in enumerate(element_type.elements):
            lines.append(f"      Element {number} descriptor: {element.descriptor}")
    return lines


def _flags(value: int, names: tuple[tuple[int, str], ...]) -> str:
    """The names of the protocol bits set in `value`."""
    return "".join(f" {name}" for bit, name in names if value & bit)


def _aes_phy_lines(index: int, phy: AesPhy) -> list[str]:
    """One phy descriptor of the additional element status page."""
    return [
        f"        phy index: {index}",
        f"          SAS device type: {_DEVICE_TYPES.get(phy.device_type, 'reserved')}",
        f"          initiator port for:{_flags(phy.initiator_flags, _INITIATOR_FLAGS)}",
        f"          target port for:{_flags(phy.target_flags, _TARGET_FLAGS)}",
        f"          attached SAS address: 0x{phy.attached_sas_address:x}",
        f"          SAS address: 0x{phy.sas_address:x}",
        f"          phy identifier: 0x{phy.phy_identifier:x}",
    ]


def additional_status_text(pages: SesPageSet) -> list[str]:
    """The Additional Element Status diagnostic page (0xa), as `--page=aes` decodes it."""
    lines = [
        f"  Primary enclosure logical identifier (hex): {pages.logical_id:016x}",
        "Additional element status diagnostic page:",
        f"  generation code: 0x{pages.generation:x}",
        "  additional element status descriptor list",
    ]
    for index, element_type in enumerate(pages.types):
        if element_type.code == ARRAY_DEVICE_SLOT and pages.slots:
            lines.append(_type_line(element_type.code, index))
            for slot in pages.slots:
                lines.append(f"      Element index: {slot.element_index}  eiioe=0")
                lines.append("        Transport protocol: SAS")
                lines.append(
                    f"        number of phys: {len(slot.phys)}, not all phys: 0, "
                    f"device slot number: {slot.slot}"
                )
                for phy_index, phy in enumerate(slot.phys):
                    lines.extend(_aes_phy_lines(phy_index, phy))
        elif element_type.code == SAS_EXPANDER and pages.expanders:
            lines.append(_type_line(element_type.code, index))
            for expander in pages.expanders:
                lines.append(f"      Element index: {expander.element_index}  eiioe=0")
                lines.append("        Transport protocol: SAS")
                lines.append(f"        number of phys: {len(expander.phys)}")
                lines.append(f"        SAS address: 0x{expander.sas_address:x}")
                lines.append("        Attached connector; other_element pairs:")
                for phy_index, (connector, other) in enumerate(expander.phys):
                    lines.append(f"          [{phy_index}] {_pair_text(connector, other)}")
    return lines


def _pair_text(connector: int, other: int) -> str:
    """An expander phy's connector / other element indexes, as sg_ses words them."""
    if connector != NO_ELEMENT:
        text = f"connector ei: {connector}"
        return text if other == NO_ELEMENT else f"{text}; other ei: {other}"
    return "no connector" if other == NO_ELEMENT else f"no connector; other ei: {other}"


def nickname_text(pages: SesPageSet) -> list[str]:
    """The Subenclosure Nickname Status diagnostic page (0xf), as `--page=snic` decodes it."""
    return [
        "Subenclosure nickname status diagnostic page:",
        "  number of secondary subenclosures: 0",
        f"  generation code: 0x{pages.generation:x}",
        "   subenclosure identifier: 0",
        "   nickname status: 0x0",
        "   nickname additional status: 0x0",
        "   nickname language code: ",
        f"   nickname: {pages.nickname[:32]}",
    ]


def _temperature_limit(value: int) -> str:
    """One temperature limit as sg_ses prints it: °C, or <res> for a zero byte."""
    return "<res>" if value == 0 else str(value - TEMPERATURE_OFFSET)


def threshold_text(pages: SesPageSet) -> list[str]:
    """The Threshold In diagnostic page (0x5), as `--page=th` decodes it: limits of the
    temperature sensors, headings only for the types without limits."""
    lines = [
        "Threshold In diagnostic page:",
        "  INVOP=0",
        f"  generation code: 0x{pages.generation:x}",
        "  Threshold status descriptor list",
    ]
    for index, element_type in enumerate(pages.types):
        lines.append(_type_line(element_type.code, index))
        if element_type.code != TEMPERATURE_SENSOR:
            continue
        labelled = [("Overall descriptor:", element_type.overall)] + [
            (f"Element {n} descriptor:", e) for n, e in enumerate(element_type.elements)
        ]
        for label, element in labelled:
            hc, hw, lw, lc = (_temperature_limit(v) for v in element.threshold)
            lines.append(f"      {label}")
            lines.append(f"        high critical={hc}, high warning={hw}")
            lines.append(f"        low warning={lw}, low critical={lc} (in Celsius)")
    return lines


_RENDERERS: dict[str, Callable[[SesPageSet], list[str]]] = {
    "cf": configuration_text,
    "es": enclosure_status_text,
    "ed": element_descriptor_text,
    "aes": additional_status_text,
    "snic": nickname_text,
    "th": threshold_text,
}


def page_text(pages: SesPageSet, page: str, live: bool = True) -> str:
    """One page as `sg_ses --page=PAGE` prints it; `live` adds the INQUIRY line of a device."""
    lines = _RENDERERS[page](pages)
    if live:
        lines = [inquiry_line(pages), *lines]
    return "\n".join(lines) + "\n"
