"""The disks outside the SAS fabric and the SAN (AHCI/SATA, NVMe, virtio, other SCSI hosts)
that the queue and latency rules judge beside the SAS disks, the stacked devices (md, LVM,
dm-crypt) the latency rules judge as what they are, and their figures."""

from __future__ import annotations

from pinchpoint.model.block import BlockDevice
from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.block_disks import (
    StackedDevice,
    other_disks,
    pool_disk_ids,
    stacked_devices,
)
from pinchpoint.stats.latency import DeviceLatency, device_latencies, owned_latencies


def controller_disks(context: RuleContext) -> list[BlockDevice]:
    """Every disk of the host outside the SAS fabric and the SAN, each once (a dm or md
    device is not a disk: see `stacked`)."""
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


def stacked(context: RuleContext) -> list[StackedDevice]:
    """The host's md arrays and dm devices other than multipath maps, with their members."""
    return stacked_devices(context.inventory)


def stacked_latencies(context: RuleContext) -> dict[str, DeviceLatency]:
    """The reads and writes of each stacked device and of each of its members (a partition
    by its own line), by kernel name (none without diskstats samples or stacked devices)."""
    names = {
        name
        for stack in context.derived(stacked)
        for name in (stack.device.name, *(m.name for m in stack.members))
    }
    return device_latencies({name: name for name in names}, context.intervals)
