"""Which inventory entity a statistic is about: kernel names and tool names → stable ids.

Statistics arrive under the names of the moment: `sdv`, `dm-3`, `nvme0n1` in `/proc/diskstats`,
`/dev/disk/by-id/wwn-0x5000…-part1` or `/dev/sdb1` in `zpool iostat`, `mpatha` in iostat, `H:`
in a Windows PerfMon log. This module maps each to the topology:

- a SAS disk (`Disk.id`) through the block device of one of its paths (`DiskPath.block_device`),
  else through that device's WWID (`inventory.block`); a partition (`sdb1`) counts as its disk;
- a LUN (`mpath:<WWID>`) through the multipath map's name or dm device, and each of its paths
  through the map's members or the FC inventory (`FcLun.block_device`);
- a ZFS leaf through the kernel name `inventory.zfs` resolved for it, else the WWN or device
  name inside the path itself.

A name that matches nothing stays standalone (a Windows host imported without an inventory) and
is listed, never dropped silently.
"""

from __future__ import annotations

import posixpath
import re
from enum import StrEnum

from pydantic import BaseModel, Field

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.multipath import MultipathMap


class AttachedKind(StrEnum):
    """What a name attached to."""

    DISK = "disk"  # a SAS disk of the fabric (`Disk.id`)
    LUN = "lun"  # a multipath map (`mpath:<WWID>`) or a single-path FC LUN (`FcLun.id`)
    BLOCK_DEVICE = "block_device"  # a block device with no place in the topology (`BlockDevice.id`)


class DeviceRole(StrEnum):
    """How a kernel device stands to the entity, which decides how its figures are summed."""

    PATH = "path"  # one path of several (sdX of a dual-pathed disk): paths are summed
    WHOLE = "whole"  # the entity itself (a dm multipath map, a single-path device)
    PARTITION = "partition"  # part of it: already counted in the whole device's diskstats


class Attachment(BaseModel):
    """One name and the entity it is about."""

    name: str  # as the source printed it
    kind: AttachedKind
    entity_id: str
    role: DeviceRole
    block_device: str | None = None  # the kernel name it came down to, when it did
    path_id: str | None = None  # the disk path (`DiskPath.id`) a per-path device is
    hba_port_id: str | None = None  # where a path leaves the host: a SAS HBA port …
    hba_id: str | None = None
    fc_port_id: str | None = None  # … or an FC port
    via: str  # how the match was made, in words


class AttachResult(BaseModel):
    """Every name that matched, and every one that did not."""

    attached: dict[str, Attachment] = Field(default_factory=dict)
    unmatched: list[str] = Field(default_factory=list)


_WWN_BY_ID = re.compile(r"^(?:wwn-0x|scsi-3|scsi-naa\.|naa\.|0x)(?P<hex>[0-9a-f]{16,32})$")
_PARTITION = re.compile(r"^(?P<disk>(?:sd|vd|xvd|hd)[a-z]+|nvme\d+n\d+p?|mmcblk\d+p?)(?P<n>\d+)$")
_BY_ID_PARTITION = re.compile(r"-part\d+$")


def wwid_key(value: str) -> str:
    """A WWID as it compares across tools: `naa.5000CCA5…`, `0x5000cca5…`, `wwn-0x5000cca5…`
    and multipath's `35000cca5…` (the SCSI designator type 3 in front) all give `5000cca5…`."""
    text = value.strip().lower()
    for prefix in ("wwn-0x", "naa.", "0x", "scsi-"):
        text = text.removeprefix(prefix)
    hexadecimal = not text.strip("0123456789abcdef")
    if hexadecimal and text.startswith("3") and len(text) in (17, 33):
        text = text[1:]
    return text


def _kernel_name(name: str) -> str:
    """`/dev/sdb1` → `sdb1`, `/dev/mapper/mpatha` → `mpatha`; other names unchanged."""
    return posixpath.basename(name) if name.startswith("/dev/") else name


class EntityIndex:
    """Every kernel name, map name and WWID of one inventory, to look names up in."""

    def __init__(self, inventory: Inventory) -> None:
        self.by_device: dict[str, Attachment] = {}  # whole devices, paths and maps
        self.partitions: dict[str, str] = {}  # a listed partition -> its device's kernel name
        self.by_wwid: dict[str, Attachment] = {}
        self.by_serial: dict[str, str] = {}
        self.zfs_leaves: dict[str, str] = {}
        self._sas_paths(inventory)
        self._multipath(inventory)
        self._fc(inventory)
        self._block(inventory)
        for pool in inventory.zfs.pools:
            for leaf in pool.leaves():
                if leaf.device_path and leaf.block_device:
                    self.zfs_leaves[leaf.device_path] = leaf.block_device
                    self.zfs_leaves[leaf.name] = leaf.block_device

    def _sas_paths(self, inventory: Inventory) -> None:
        for disk in inventory.sas.disks:
            whole = Attachment(
                name="",
                kind=AttachedKind.DISK,
                entity_id=disk.id,
                role=DeviceRole.WHOLE,
                via=f"WWID {disk.wwid}",
            )
            if disk.wwid:
                self.by_wwid[wwid_key(disk.wwid)] = whole
            if disk.serial:
                self.by_serial[disk.serial.lower()] = disk.id
            for path in disk.paths:
                if path.block_device:
                    self.by_device[path.block_device] = Attachment(
                        name=path.block_device,
                        kind=AttachedKind.DISK,
                        entity_id=disk.id,
                        role=DeviceRole.PATH if len(disk.paths) > 1 else DeviceRole.WHOLE,
                        block_device=path.block_device,
                        path_id=path.id,
                        hba_port_id=path.hba_port_id,
                        hba_id=path.hba_id,
                        via=f"path {path.hctl} of the disk",
                    )

    def _map_entity(self, found: MultipathMap) -> tuple[AttachedKind, str]:
        """A map over a SAS disk of the fabric is that disk; any other map is a LUN."""
        disk = self.by_wwid.get(wwid_key(found.wwid))
        if disk is not None:
            return AttachedKind.DISK, disk.entity_id
        return AttachedKind.LUN, found.id

    def _multipath(self, inventory: Inventory) -> None:
        for found in inventory.multipath.maps:
            kind, entity = self._map_entity(found)
            whole = Attachment(
                name="",
                kind=kind,
                entity_id=entity,
                role=DeviceRole.WHOLE,
                block_device=found.dm_device,
                via=f"multipath map {found.name or found.wwid}",
            )
            for name in (found.dm_device, found.name):
                if name:
                    self.by_device[name] = whole.model_copy(update={"name": name})
            if kind is AttachedKind.LUN:
                self.by_wwid.setdefault(wwid_key(found.wwid), whole)
            for path in found.paths:
                if path.device and path.device not in self.by_device:
                    self.by_device[path.device] = Attachment(
                        name=path.device,
                        kind=kind,
                        entity_id=entity,
                        role=DeviceRole.PATH,
                        block_device=path.device,
                        hba_id=f"hba:{path.pci_address}" if path.pci_address else None,
                        fc_port_id=path.fc_port_id,
                        via=f"path {path.hctl or path.device} of multipath map "
                        f"{found.name or found.wwid}",
                    )

    def _fc(self, inventory: Inventory) -> None:
        for port in inventory.fc.ports:
            for lun in port.luns:
                if not lun.block_device:
                    continue
                known = self.by_device.get(lun.block_device)
                if known is not None:  # a multipath member: add the FC port it runs through
                    known.fc_port_id = known.fc_port_id or port.id
                    known.hba_id = known.hba_id or port.adapter_id
                    continue
                in_map = self.by_wwid.get(wwid_key(lun.wwid)) if lun.wwid else None
                self.by_device[lun.block_device] = Attachment(
                    name=lun.block_device,
                    kind=AttachedKind.LUN,
                    entity_id=in_map.entity_id if in_map else lun.id,
                    role=DeviceRole.PATH if in_map else DeviceRole.WHOLE,
                    block_device=lun.block_device,
                    hba_id=port.adapter_id,
                    fc_port_id=port.id,
                    via=f"LUN {lun.lun} through FC port {port.port_name or port.scsi_host}",
                )

    def _block(self, inventory: Inventory) -> None:
        """Devices the fabric did not name: by WWID, else the block device itself; and the
        partitions of every device, whose attachments are made when one is asked for (most
        statistics leave partitions out: 3,840 of 5,760 devices on the benchmark host)."""
        for device in inventory.block.devices:
            found = self.by_device.get(device.name)
            if found is None and device.wwid:
                same = self.by_wwid.get(wwid_key(device.wwid))
                if same is not None:
                    found = same.model_copy(
                        update={
                            "name": device.name,
                            "block_device": device.name,
                            "role": DeviceRole.PATH,
                            "via": f"WWID {device.wwid} of /sys/block/{device.name}",
                        }
                    )
            if found is None:
                found = Attachment(
                    name=device.name,
                    kind=AttachedKind.BLOCK_DEVICE,
                    entity_id=device.id,
                    role=DeviceRole.WHOLE,
                    block_device=device.name,
                    via=f"/sys/block/{device.name} (no place in the topology)",
                )
            self.by_device[device.name] = found
            for partition in device.partitions:
                self.by_device.pop(partition.name, None)  # the inventory's partition wins
                self.partitions[partition.name] = device.name

    def _listed_partition(self, name: str, device: str) -> Attachment:
        """The attachment of a partition the block inventory lists: its device's entity."""
        found = self.by_device[device]
        return found.model_copy(
            update={
                "name": name,
                "role": DeviceRole.PARTITION,
                "block_device": name,
                "via": f"partition of {device}, {found.via}",
            }
        )

    def device(self, name: str) -> Attachment | None:
        """A kernel name (`sdb`, `sdb1`, `dm-3`, `mpatha`, `/dev/sdb1`) → its entity; the
        index's own attachment (not a copy: do not change it) when one is kept for the name."""
        kernel = _kernel_name(name)
        found = self.by_device.get(kernel)
        if found is not None:
            return found
        listed = self.partitions.get(kernel)
        if listed is not None:
            return self._listed_partition(kernel, listed)
        partition = _PARTITION.match(kernel)
        if partition is not None:
            parent = self.by_device.get(partition["disk"].removesuffix("p"))
            if parent is not None:
                return parent.model_copy(
                    update={"role": DeviceRole.PARTITION, "via": f"partition, {parent.via}"}
                )
        return None

    def by_id_name(self, name: str) -> Attachment | None:
        """A `/dev/disk/by-id/…` name → the disk or LUN whose WWN (or serial) it carries."""
        base = _BY_ID_PARTITION.sub("", posixpath.basename(name)).lower()
        wwn = _WWN_BY_ID.match(base)
        if wwn is not None:
            return self.by_wwid.get(wwid_key(wwn["hex"]))
        serial = base.rsplit("_", 1)[-1] if "_" in base else None
        disk = self.by_serial.get(serial) if serial else None
        if disk is None:
            return None
        return Attachment(
            name=name,
            kind=AttachedKind.DISK,
            entity_id=disk,
            role=DeviceRole.WHOLE,
            via=f"serial {serial} in the by-id name",
        )

    def attach(self, name: str) -> Attachment | None:
        """Whatever entity `name` is about, or None. Copied only where it differs from the
        index's own attachment (a kernel name is usually asked for as the index holds it);
        what is returned may be shared: do not change it."""
        leaf_device = self.zfs_leaves.get(name)
        found = self.device(leaf_device) if leaf_device else None
        if found is not None:
            via = f"ZFS leaf on {leaf_device}, {found.via}"
            return found.model_copy(update={"name": name, "via": via})
        found = self.device(name)
        by_id = "/by-id/" in name or name.startswith(("wwn-", "scsi-", "naa."))
        if found is None and by_id:
            found = self.by_id_name(name)
            if found is not None and _BY_ID_PARTITION.search(name) is not None:
                return found.model_copy(update={"name": name, "role": DeviceRole.PARTITION})
        if found is None or found.name == name:
            return found
        return found.model_copy(update={"name": name})


def attach_names(inventory: Inventory, names: list[str]) -> AttachResult:
    """Attach every name; those matching nothing are listed in `unmatched`, in order."""
    index = EntityIndex(inventory)
    result = AttachResult()
    for name in names:
        if name in result.attached or name in result.unmatched:
            continue
        found = index.attach(name)
        if found is None:
            result.unmatched.append(name)
        else:
            result.attached[name] = found
    return result
