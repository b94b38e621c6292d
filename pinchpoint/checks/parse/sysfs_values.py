"""Values the kernel writes in sysfs that need reading, not just stripping: SAS and FC link
rates ("12.0 Gbit") and the PCI function above a SCSI host in a device path. Pure: text in,
value out."""

from __future__ import annotations

import re

__all__ = ["parse_linkrate", "pci_address_above"]

_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*Gbit", re.IGNORECASE)  # "12.0 Gbit"
_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")  # 0000:03:00.0


def parse_linkrate(text: str | None) -> float | None:
    """`12.0 Gbit` -> 12.0; `Unknown`, `Phy disabled`, empty -> None."""
    if not text:
        return None
    match = _RATE.match(text)
    return float(match.group(1)) if match else None


def pci_address_above(device_path: str, host_name: str) -> str | None:
    """The PCI function a SCSI host belongs to: the nearest PCI address above `hostN`.

    An NPIV port (`…/0000:04:00.0/host3/vport-3:0-0/host7`) belongs to its physical port's
    function; an FCoE port over a virtual interface has none.
    """
    parts = device_path.split("/")
    end = parts.index(host_name) if host_name in parts else len(parts)
    for component in reversed(parts[:end]):
        if _PCI_ADDRESS.match(component):
            return component
    return None
