"""NICs: what makes two NICs identical (on one host or across a fleet), the groups of
identical NICs of a host, and the links measured in `/proc/net/dev` samples."""

from __future__ import annotations

from pinchpoint.model.breakdown import LinkFigures
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Nic, NicKind
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.derived.breakdown import breakdown

# Paravirtual drivers report a nominal speed, not a line rate: traffic may exceed it.
PARAVIRTUAL_DRIVERS = frozenset({"virtio_net", "vmxnet3", "hv_netvsc", "xen-netfront", "veth"})


def nic_driver(nic: Nic) -> str | None:
    return nic.driver.driver if nic.driver else None


def nic_model_key(nic: Nic, inventory: Inventory) -> tuple[str, str] | None:
    """What makes two NICs identical, on one host or across a fleet: the driver and the PCI
    model (vendor:device ids), else the fastest speed it supports. None for virtual NICs."""
    driver = nic_driver(nic)
    if nic.kind is not NicKind.PHYSICAL or driver is None or driver in PARAVIRTUAL_DRIVERS:
        return None
    function = inventory.pcie.by_address(nic.pci_address) if nic.pci_address else None
    if function is not None and function.vendor_id and function.device_id:
        return driver, f"{function.vendor_id}:{function.device_id}"
    return driver, f"fastest {nic.max_supported_speed_mbps} Mb/s"


def identical_nics(context: RuleContext) -> list[list[Nic]]:
    """Groups of two or more physical NICs of the host with the same driver and model."""
    groups: dict[tuple[str, str], list[Nic]] = {}
    for nic in context.inventory.network.nics:
        key = nic_model_key(nic, context.inventory)
        if key is not None:
            groups.setdefault(key, []).append(nic)
    return [group for group in groups.values() if len(group) >= 2]


def measured_links(context: RuleContext) -> dict[str, LinkFigures]:
    """Each measured NIC and bond by id (empty without /proc/net/dev samples)."""
    if not any(i.interfaces for i in context.net_intervals):
        return {}
    found: dict[str, LinkFigures] = {}
    for level in context.derived(breakdown).network:
        for link in level.links:
            if link.measured_s > 0:
                found.setdefault(link.id, link)
    return found
