"""An NVMe controller's `address` attribute: where its connection goes and leaves from.

The kernel writes a fabrics controller's address as comma-separated `key=value` pairs
(`traddr=192.168.154.10,trsvcid=4420,src_addr=192.168.154.1`; NVMe/FC:
`traddr=nn-0x…:pn-0x…,host_traddr=nn-0x…:pn-0x…`; newer kernels add `host_iface=eth1`) and a
PCIe controller's as its PCI function (`0000:3d:00.0`; `052e:78:00.0` on the POWER host of
the real capture).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NvmeAddress", "parse_nvme_address"]

_KEY = re.compile(r"^[a-z_]{1,32}$")
_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_FC = re.compile(r"^nn-0x[0-9a-f]{16}:pn-0x[0-9a-f]{16}$")  # an FC port by node and port name
MAX_VALUE = 256  # a value longer than this is not an address


@dataclass(frozen=True)
class NvmeAddress:
    """What an address says; every part None when absent. `garbled` lists what was dropped."""

    traddr: str | None = None
    trsvcid: str | None = None
    host_traddr: str | None = None
    host_iface: str | None = None
    src_addr: str | None = None
    pci_address: str | None = None
    garbled: tuple[str, ...] = ()


def _clean(value: str) -> str | None:
    value = value.strip()
    if not value or len(value) > MAX_VALUE or not value.isprintable() or " " in value:
        return None
    return value


def parse_nvme_address(text: str) -> NvmeAddress:
    """The parts of an `address` attribute; an empty or unreadable one gives an empty result."""
    text = text.strip()
    if not text:
        return NvmeAddress()
    if "=" not in text:
        if _PCI.match(text.lower()):
            return NvmeAddress(pci_address=text.lower())
        if _FC.match(text.lower()):  # a bare FC traddr, as prometheus/procfs's fixture has it
            return NvmeAddress(traddr=text.lower())
        return NvmeAddress(garbled=(text[:80],))
    found: dict[str, str] = {}
    garbled: list[str] = []
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        clean = _clean(value) if sep else None
        if not sep or not _KEY.match(key) or clean is None:
            if part.strip():
                garbled.append(part.strip()[:80])
            continue
        found.setdefault(key, clean)
    return NvmeAddress(
        traddr=found.get("traddr"),
        trsvcid=found.get("trsvcid"),
        host_traddr=found.get("host_traddr"),
        host_iface=found.get("host_iface"),
        src_addr=found.get("src_addr"),
        garbled=tuple(garbled),
    )
