"""The Device Identification VPD page (0x83) as sysfs keeps it (`device/vpd_pg83`, binary).

A 4-byte header (peripheral byte, page code 0x83, page length) and then designation
descriptors, each `code set, PIV|association|type, reserved, length` and its bytes (SPC-4
7.8.6). `lun_identity` picks the logical unit's identity as the kernel's `scsi_vpd_lun_id`
does (so the result equals the `device/wwid` attribute of kernels that have one): only
designators of the addressed logical unit; a longer one wins; at one length NAA wins over
EUI-64, anything wins over a T10 vendor id; formatted `naa.<hex>`, `eui.<hex>`, `t10.<text>`
or the SCSI name string itself. Pure: bytes in, facts out; never raises on bad bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PAGE_CODE = 0x83
HEADER = 4
MAX_ID = 256  # the kernel's wwid buffer; longer designators are cut to it

# Designator types (byte 1, low nibble) and associations (byte 1, bits 4-5).
T10_VENDOR = 0x1
EUI64 = 0x2
NAA = 0x3
RELATIVE_PORT = 0x4
TARGET_PORT_GROUP = 0x5
SCSI_NAME = 0x8
ASSOCIATION_LU = 0
ASSOCIATION_PORT = 1
ASSOCIATION_TARGET = 2

TYPE_NAMES = {
    0x0: "vendor specific",
    T10_VENDOR: "T10 vendor id",
    EUI64: "EUI-64",
    NAA: "NAA",
    RELATIVE_PORT: "relative target port",
    TARGET_PORT_GROUP: "target port group",
    0x6: "logical unit group",
    0x7: "MD5 logical unit id",
    SCSI_NAME: "SCSI name string",
    0x9: "protocol specific port id",
    0xA: "UUID",
}
ASSOCIATION_NAMES = {
    ASSOCIATION_LU: "logical unit",
    ASSOCIATION_PORT: "target port",
    ASSOCIATION_TARGET: "target device",
}


@dataclass(frozen=True)
class Designator:
    """One designation descriptor: what it designates, its type and its bytes."""

    association: int
    kind: int
    code_set: int
    value: bytes

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.kind, f"type {self.kind:#x}")

    @property
    def association_name(self) -> str:
        return ASSOCIATION_NAMES.get(self.association, "reserved")

    def text(self) -> str:
        """The designator as people read it: hex for binary ones, printable text otherwise."""
        if self.kind in (NAA, EUI64) or self.code_set == 1:
            return self.value.hex()
        return _printable(self.value)


@dataclass
class DeviceIdentification:
    """What one page held: its designators, the LU identity chosen, and what was wrong."""

    designators: list[Designator] = field(default_factory=list)
    lun_id: str | None = None  # "naa.6001405…" as the kernel's `wwid` reads; None: none usable
    problems: list[str] = field(default_factory=list)


def _printable(raw: bytes) -> str:
    """Text of a designator: NULs and padding stripped, anything not printable ASCII escaped
    (a name from a host never reaches a terminal raw)."""
    text = raw.rstrip(b"\x00 ").decode("ascii", errors="backslashreplace")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def parse_vpd_pg83(page: bytes) -> DeviceIdentification:
    """The designators of one page. A page that is not 0x83, or whose header promises more
    than was read, yields what could be read and a problem saying why."""
    found = DeviceIdentification()
    if len(page) < HEADER:
        found.problems.append(f"{len(page)} bytes: shorter than the 4-byte page header")
        return found
    if page[1] != PAGE_CODE:
        found.problems.append(f"page code {page[1]:#04x}, not 0x83 (the bytes are garbled)")
        return found
    length = int.from_bytes(page[2:4], "big")
    end = HEADER + length
    if end > len(page):
        found.problems.append(f"the page says {length} bytes follow its header, {len(page) - 4} do")
        end = len(page)
    offset = HEADER
    while offset + 4 <= end:
        head = page[offset : offset + 4]
        size = head[3]
        if offset + 4 + size > end:
            found.problems.append(f"a designator at byte {offset} runs past the page's end")
            break
        found.designators.append(
            Designator(
                association=(head[1] >> 4) & 0x3,
                kind=head[1] & 0xF,
                code_set=head[0] & 0xF,
                value=bytes(page[offset + 4 : offset + 4 + size]),
            )
        )
        offset += 4 + size
    found.lun_id = lun_identity(found.designators)
    return found


def _formatted(designator: Designator) -> str | None:
    value = designator.value[: MAX_ID - 4]
    if designator.kind == T10_VENDOR:
        text = _printable(value)
        return f"t10.{text}" if text else None
    if designator.kind == EUI64:
        return f"eui.{value.hex()}" if len(value) in (8, 12, 16) else None
    if designator.kind == NAA:
        return f"naa.{value.hex()}" if len(value) in (8, 16) else None
    if designator.kind == SCSI_NAME:
        return _printable(designator.value[: MAX_ID - 1]) or None
    return None


def lun_identity(designators: list[Designator]) -> str | None:
    """The logical unit's identity by the kernel's order of preference (`scsi_vpd_lun_id`)."""
    best: str | None = None
    best_size = 0
    best_kind: int | None = None
    for designator in designators:
        if designator.association != ASSOCIATION_LU:
            continue
        size = len(designator.value)
        kind = designator.kind
        if kind not in (T10_VENDOR, EUI64, NAA, SCSI_NAME) or best_size > size:
            continue
        if kind == T10_VENDOR and best_kind is not None and best_kind != T10_VENDOR:
            continue  # anything is better than a vendor id
        if kind == EUI64 and best_kind == NAA and best_size == size:
            continue  # NAA IEEE Registered Extended over EUI-64 of its length
        text = _formatted(designator)
        if text is None:
            continue
        best, best_size, best_kind = text, size, kind
    return best
