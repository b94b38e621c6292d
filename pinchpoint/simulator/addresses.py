"""Deterministic SAS addresses, WWNs and serial numbers, derived from spec names.

Every identity is a hash of names, never random, so the same spec always gives the same host.
Layouts follow real hardware: NAA 5 + the maker's OUI + vendor bits; a dual-ported SAS disk has
an LU name `…0` with ports `…1` (A) and `…2` (B); SATA disks behind an expander take the
expander's address base plus the phy number, as the HGST capture shows.
"""

from __future__ import annotations

import hashlib

NAA5 = 0x5 << 60
ENCLOSURE_LOGICAL_LOW = 0xFFF
EXPANDER_LOW = 0xFF
SES_LOW = 0xFE

_OUIS = {
    "HGST": 0x000CCA,
    "HITACHI": 0x000CCA,
    "WDC": 0x0014EE,
    "SEAGATE": 0x000C50,
    "TOSHIBA": 0x000039,
    "ASTEK": 0x001B4D,
    "LSI": 0x00605B,
    "BROADCOM": 0x00605B,
}
_DEFAULT_OUI = 0x000C50


def oui_of(vendor: str) -> int:
    """The IEEE OUI of a maker, by its SCSI vendor name (Seagate's for unknown makers)."""
    return _OUIS.get(vendor.strip().upper(), _DEFAULT_OUI)


def name_hash(*parts: str) -> int:
    """A stable 64-bit number from names (SHA-256, not Python's salted hash)."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def naa5(oui: int, vendor_bits: int) -> int:
    """An NAA type 5 identifier: 4-bit NAA, 24-bit OUI, 36 vendor bits."""
    return NAA5 | (oui << 36) | (vendor_bits & ((1 << 36) - 1))


def hex_address(value: int) -> str:
    """`0x` and 16 lower-case hex digits, as sysfs prints SAS addresses."""
    return f"0x{value:016x}"


class AddressBook:
    """Hands out identities and makes sure no two things share one (bumping deterministically)."""

    def __init__(self) -> None:
        self._taken: set[int] = set()
        self._blocks: set[int] = set()

    def _claim(self, value: int) -> bool:
        """Take `value` if nobody has it yet."""
        if value in self._taken:
            return False
        self._taken.add(value)
        return True

    def _claim_block(self, base: int) -> bool:
        """Reserve the 4096 addresses that share `base`'s upper 52 bits."""
        block = base >> 12
        if block in self._blocks:
            return False
        self._blocks.add(block)
        return True

    def enclosure_base(self, name: str, vendor: str) -> int:
        """The base of an enclosure's addresses; its low 12 bits are 0 and free for its parts."""
        bump = 0
        while True:
            bits = (name_hash("enclosure", name, str(bump)) & 0xFFFFF) << 12
            base = naa5(oui_of(vendor), (0xB << 32) | bits)
            if self._claim_block(base):
                return base
            bump += 1

    def switch_base(self, name: str, vendor: str) -> int:
        """The base of a SAS switch's addresses (low 12 bits free)."""
        bump = 0
        while True:
            bits = (name_hash("switch", name, str(bump)) & 0xFFFFFF) << 12
            base = naa5(oui_of(vendor), bits)
            if self._claim_block(base):
                return base
            bump += 1

    def hba_address(self, name: str) -> int:
        """An HBA's SAS address (all its phys share it), low nibble 0 as on Broadcom cards."""
        bump = 0
        while True:
            bits = (name_hash("hba", name, str(bump)) & 0xFFFFFFF) << 4
            value = naa5(oui_of("LSI"), bits)
            if self._claim(value):
                return value
            bump += 1

    def disk_lu(self, enclosure: str, bay: int, vendor: str) -> int:
        """A disk's LU name (its `wwid`); ports A and B are LU + 1 and LU + 2."""
        bump = 0
        while True:
            bits = (name_hash("disk", enclosure, str(bay), str(bump)) & 0x3FFFFFFFF) << 2
            lu = naa5(oui_of(vendor), bits)
            if all(self._claim(lu + k) for k in range(3)):
                return lu
            bump += 1


def serial_number(*parts: str) -> str:
    """An 8-character drive serial number, upper-case letters and digits."""
    alphabet = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
    number = name_hash("serial", *parts)
    chars = []
    for _ in range(8):
        number, digit = divmod(number, len(alphabet))
        chars.append(alphabet[digit])
    return "".join(chars)
