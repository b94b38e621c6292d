"""The disks outside the SAS fabric and the SAN (AHCI/SATA, NVMe, virtio, other SCSI hosts)
that the queue and latency rules judge beside the SAS disks, and their figures."""

from __future__ import annotations

from pinchpoint.model.block import BlockDevice
from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.block_disks import other_disks, pool_disk_ids
from pinchpoint.stats.latency import DeviceLatency, owned_latencies


def controller_disks(context: RuleContext) -> list[BlockDevice]:
    """Every disk of the host outside the SAS fabric and the SAN, each once (a dm or md
    device is judged through its members)."""
    return other_disks(context.inventory)


def controller_disk_latencies(context: RuleContext) -> dict[str, DeviceLatency]:
    """Each such disk's reads and writes over the measured intervals, by its block device id
    (none without diskstats samples)."""
    disks = context.derived(controller_disks)
    return owned_latencies({d.name: d.id for d in disks}, context.intervals)


def pool_disks(context: RuleContext) -> frozenset[str]:
    """The entity ids of the devices of the host's ZFS pools, on any controller; looked up
    only where there are disks off the SAS fabric to ask about (the SAS disks' allowance
    takes ZFS's cap as it always has)."""
    if not context.derived(controller_disks):
        return frozenset()
    return pool_disk_ids(context.inventory)
