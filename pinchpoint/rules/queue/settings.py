"""What caps the I/Os a disk holds at once — its SCSI queue depth, the block layer's
`nr_requests`, ZFS's per-leaf allowance — and the measured disks grouped by enclosure: what the
queue rules share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pinchpoint.model.block import BlockDevice, ControllerKind
from pinchpoint.model.breakdown import GroupFigures
from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk
from pinchpoint.naming import block_disk_ref, controller_ref, disk_ref, enclosure_ref

# Controllers with one disk each: such a disk is judged by itself, not by its controller.
ONE_DISK_CONTROLLERS = (ControllerKind.NVME, ControllerKind.VIRTIO)

# The ZFS parameters that cap the I/Os in flight per leaf device (any one class may fill it).
ZFS_CLASS_LIMITS = (
    "zfs_vdev_sync_read_max_active",
    "zfs_vdev_sync_write_max_active",
    "zfs_vdev_async_read_max_active",
    "zfs_vdev_async_write_max_active",
)


def zfs_allowance(inventory: Inventory) -> int | None:
    """I/Os ZFS lets one leaf device hold at once: the largest class limit, capped by
    `zfs_vdev_max_active`; old ZFS: `zfs_vdev_max_pending`. None without ZFS parameters."""
    parameters = inventory.zfs.vdev_queue_parameters
    if "zfs_vdev_max_pending" in parameters:
        return parameters["zfs_vdev_max_pending"]
    classes = [parameters[name] for name in ZFS_CLASS_LIMITS if name in parameters]
    if not classes:
        return None
    allowed = max(classes)
    if "zfs_vdev_max_active" in parameters:
        allowed = min(allowed, parameters["zfs_vdev_max_active"])
    return allowed


@dataclass(frozen=True)
class QueueSettings:
    """The settings that cap the I/Os a disk holds, looked up once per host."""

    zfs_cap: int | None  # what ZFS lets one leaf device hold; None without a pool
    zfs_parameters: dict[str, int]  # the `zfs_vdev_*` parameters behind it
    nr_requests: dict[str, int]  # the block layer's queue, by kernel device name


def queue_settings(inventory: Inventory) -> QueueSettings:
    """The host's ZFS allowance and every block device's `nr_requests`."""
    cap = zfs_allowance(inventory) if inventory.zfs.pools else None
    parameters = {}
    if cap is not None:
        parameters = {
            name: value
            for name, value in inventory.zfs.vdev_queue_parameters.items()
            if name in ZFS_CLASS_LIMITS or name in ("zfs_vdev_max_active", "zfs_vdev_max_pending")
        }
    nr_requests = {d.name: d.nr_requests for d in inventory.block.devices if d.nr_requests}
    return QueueSettings(cap, parameters, nr_requests)


def allowed_in_flight(disk: Disk, host: QueueSettings) -> tuple[int | None, dict[str, int]]:
    """What the disk may hold at once (the smallest of its SCSI queue depth and ZFS's
    allowance), and the settings it comes from."""
    settings: dict[str, int] = {}
    depths = [p.queue_depth for p in disk.paths if p.queue_depth]
    if depths:
        settings["queue_depth"] = min(depths)
    for path in disk.paths:
        requests = host.nr_requests.get(path.block_device or "")
        if requests:
            settings["nr_requests"] = requests
            break
    settings.update(host.zfs_parameters)
    limits = [settings["queue_depth"]] if depths else []
    if host.zfs_cap is not None:
        limits.append(host.zfs_cap)
    return (min(limits) if limits else None), settings


def disks_by_place(
    inventory: Inventory, figures: Mapping[str, GroupFigures], rotational: bool
) -> dict[str, list[Disk]]:
    """The measured SAS disks that spin (or not), by enclosure (a disk outside any by itself).
    A disk whose `rotational` is unknown counts as spinning: the HDD rule is the safer guess."""
    found: dict[str, list[Disk]] = {}
    for disk in inventory.sas.disks:
        spins = disk.rotational is not False
        if spins is rotational and disk.id in figures:
            found.setdefault(disk.enclosure_id or disk.id, []).append(disk)
    return found


def place_ref(place: str, disks: list[Disk], inventory: Inventory) -> EntityRef:
    """The enclosure the disks sit in; a disk outside any enclosure by itself."""
    for enclosure in inventory.sas.enclosures:
        if enclosure.id == place:
            return enclosure_ref(enclosure)
    return disk_ref(disks[0], inventory)


# --- disks off the SAS fabric (AHCI/SATA, NVMe, virtio, SCSI): issue 15 --------------------


class Identified(Protocol):
    """A disk the queue rules judge: a SAS disk of the fabric or a block device off it."""

    @property
    def id(self) -> str: ...


def device_allowed_in_flight(
    device: BlockDevice, host: QueueSettings, pool_disks: frozenset[str]
) -> tuple[int | None, dict[str, int]]:
    """What a disk off the SAS fabric may hold at once: its SCSI `queue_depth` (an AHCI
    disk's NCQ depth), else — where the device takes no queue depth (NVMe, virtio) — the
    block layer's `nr_requests`; capped by ZFS's allowance when it is a pool's disk. With
    the settings it comes from."""
    settings: dict[str, int] = {}
    limits: list[int] = []
    if device.queue_depth:
        settings["queue_depth"] = device.queue_depth
        limits.append(device.queue_depth)
    if device.nr_requests:
        settings["nr_requests"] = device.nr_requests
        if not device.queue_depth:
            limits.append(device.nr_requests)
    if host.zfs_cap is not None and device.id in pool_disks:
        settings.update(host.zfs_parameters)
        limits.append(host.zfs_cap)
    return (min(limits) if limits else None), settings


def devices_by_place(
    devices: Sequence[BlockDevice], figures: Mapping[str, GroupFigures], rotational: bool
) -> dict[str, list[BlockDevice]]:
    """The measured disks off the SAS fabric that spin (or not), by controller; an NVMe
    namespace or a virtio disk (one per controller) by itself. Unknown `rotational` spins."""
    found: dict[str, list[BlockDevice]] = {}
    for device in devices:
        spins = device.rotational is not False
        if spins is not rotational or device.id not in figures:
            continue
        controller = device.controller
        if controller is None or controller.kind in ONE_DISK_CONTROLLERS:
            found.setdefault(device.id, []).append(device)
        else:
            found.setdefault(controller.id, []).append(device)
    return found


def device_place_ref(place: str, devices: list[BlockDevice]) -> EntityRef:
    """The controller the disks hang from; a disk by itself where the place is the disk."""
    first = devices[0]
    if first.controller is not None and place == first.controller.id:
        return controller_ref(first.controller)
    return block_disk_ref(first)


def device_knob(device: BlockDevice, settings: Mapping[str, int]) -> str:
    """The sysfs file that sets what the disk holds: `/sys/block/sdc/device/queue_depth`,
    else `/sys/block/nvme0n1/queue/nr_requests`."""
    if "queue_depth" in settings:
        return f"/sys/block/{device.name}/device/queue_depth"
    return f"/sys/block/{device.name}/queue/nr_requests"
