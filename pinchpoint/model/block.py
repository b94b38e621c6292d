"""Block devices as the I/O scheduler sees them: queue settings, sizes, stacking and alignment.

The per-device queue is a knob experts check first on a slow pool (HDDs with 32 I/Os queued
wait hundreds of ms; 1–4 is the rule of thumb): `device/queue_depth` is what the SCSI layer
sends to the device at once, `queue/nr_requests` what the block layer holds before it. Device
stacking (`holders/`, `slaves/`) ties disks to dm-multipath maps, LVM volumes and md arrays;
partition starts show misaligned partitions (a start not on a 1 MiB or 64 KiB boundary).

Ids come from hardware or volume identity, never the kernel name alone where one exists:
`block:<wwid>` for a disk or NVMe namespace (a SCSI disk seen through several paths adds each
path's `H:C:T:L`), `block:dm:<dm uuid>`, `block:md:<md uuid>`, and `block:name:<name>` only for
a device that has no identity; a partition is `<disk id>/part:<number>`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

SECTOR_BYTES = 512  # `size` and `start` count 512-byte sectors whatever the block size
MIB = 1024 * 1024
KIB_64 = 64 * 1024


class BlockKind(StrEnum):
    """What a `/sys/block` entry is, from its kernel name."""

    SCSI_DISK = "scsi_disk"  # sd*: SAS, SATA, FC, iSCSI, USB disks and array LUNs (one per path)
    NVME = "nvme"  # nvme*n*: an NVMe namespace
    DEVICE_MAPPER = "device_mapper"  # dm-*: multipath maps, LVM volumes, crypt …
    MD = "md"  # md*: Linux software RAID
    OTHER = "other"  # vd*, xvd*, rbd*, bcache* …


class ControllerKind(StrEnum):
    """The kind of controller a disk outside the SAS fabric hangs from, read from where its
    device sits in the device tree."""

    ATA = "ata"  # an AHCI (or other libata) controller: `…/0000:00:1f.2/ata3/host2/…`
    NVME = "nvme"  # an NVMe controller: `…/0000:3b:00.0/nvme/nvme0/nvme0n1`
    VIRTIO = "virtio"  # a virtio block device: `…/0000:00:05.0/virtio2/block/vda`
    SCSI = "scsi"  # any other SCSI host: RAID, virtio-scsi, USB, iSCSI (`…/host4/…`)
    OTHER = "other"  # none of these (xen, rbd, mmc …)


class BlockController(BaseModel):
    """Where a disk outside the SAS fabric hangs: its controller (a PCI function where it
    has one) and the port of that controller it is on. The hierarchy its statistics are
    grouped by: controller → port → disk."""

    kind: ControllerKind
    pci_address: str | None = None  # the controller's PCI function, "0000:00:1f.2"
    driver: str | None = None  # the PCI function's driver: "ahci", "nvme", "virtio-pci"
    port: str | None = None  # "ata3" (ATA port), "nvme0" (NVMe controller), "host4" (SCSI)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def id(self) -> str:
        """`controller:0000:00:1f.2`, or by port where no PCI function is known."""
        return f"controller:{self.pci_address or self.port or self.kind.value}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def port_id(self) -> str:
        """`controller:0000:00:1f.2/ata3`: the port below its controller."""
        return f"{self.id}/{self.port}" if self.port else self.id


class BlockPartition(BaseModel):
    """A partition of a disk, with its start and whether that start is aligned."""

    id: str
    name: str  # kernel name, e.g. "sda1", "nvme0n1p3"
    number: int | None = None  # `partition`: 1, 2 …
    start_sectors: int | None = None  # `start`, in 512-byte sectors; None when not collected
    size_bytes: int | None = None
    holders: list[str] = Field(default_factory=list)  # e.g. ["dm-0"] for an LVM PV

    @computed_field  # type: ignore[prop-decorator]
    @property
    def start_bytes(self) -> int | None:
        """The byte offset of the partition on its disk."""
        return None if self.start_sectors is None else self.start_sectors * SECTOR_BYTES

    @computed_field  # type: ignore[prop-decorator]
    @property
    def aligned_1mib(self) -> bool | None:
        """The start is a multiple of 1 MiB (what current partitioners use); None: unknown."""
        start = self.start_bytes
        return None if start is None else start % MIB == 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def aligned_64kib(self) -> bool | None:
        """The start is a multiple of 64 KiB (an array's usual stripe unit); None: unknown."""
        start = self.start_bytes
        return None if start is None else start % KIB_64 == 0


class BlockDevice(BaseModel):
    """One `/sys/block` entry: a whole disk, namespace, map or array."""

    id: str
    name: str  # kernel name, e.g. "sdv", "nvme0n1", "dm-1", "md0"
    kind: BlockKind
    device_path: str | None = None  # the resolved sysfs directory ("/sys/devices/…/block/sdv")
    hctl: str | None = None  # SCSI address "11:0:7:0" (a SCSI disk's path), from `device`
    wwid: str | None = None  # `device/wwid` (SCSI) or `wwid` (NVMe), e.g. "naa.5000c500b32d1a9c"
    dm_name: str | None = None  # `dm/name`, e.g. "mpatha", "vg0-root"
    dm_uuid: str | None = None  # `dm/uuid`, e.g. "mpath-3600…" (multipath), "LVM-…"
    md_uuid: str | None = None  # `md/uuid` of a software RAID array
    md_level: str | None = None  # `md/level`: "raid1", "raid10", "raid6", "linear" …
    md_sync_action: str | None = None  # `md/sync_action`: "idle", "resync", "recover", "check"
    md_members: list[str] = Field(default_factory=list)  # `md/dev-<name>` entries: "sdb", "sdc1"
    rotational: bool | None = None  # `queue/rotational`: True for spinning disks
    queue_depth: int | None = None  # `device/queue_depth`: commands sent to the device at once
    nr_requests: int | None = None  # `queue/nr_requests`: requests the block layer queues
    scheduler: str | None = None  # the active I/O scheduler: "mq-deadline", "bfq", "none"
    schedulers: list[str] = Field(default_factory=list)  # every one the kernel offers
    logical_block_size_bytes: int | None = None  # `queue/logical_block_size`
    physical_block_size_bytes: int | None = None  # `queue/physical_block_size`
    size_bytes: int | None = None  # `size` × 512
    holders: list[str] = Field(default_factory=list)  # devices built on this one ("dm-3")
    slaves: list[str] = Field(default_factory=list)  # devices this one is built on ("sdb")
    partitions: list[BlockPartition] = Field(default_factory=list)
    controller: BlockController | None = None  # where it hangs (a disk or namespace)


class StackLayer(StrEnum):
    """What a stacked device (`dm-N`, `mdN`) adds between its I/O and its members', from its
    `dm/uuid` prefix (the subsystem that created the map writes it) or its md-ness."""

    MD = "md"  # Linux software RAID: striping, mirroring, parity, resync, the write-intent bitmap
    LVM = "lvm"  # an LVM logical volume (`LVM-…`): a linear or striped mapping, or a thin volume
    LVM_THIN_POOL = "lvm_thin_pool"  # an LVM thin pool (`LVM-…-tpool`): block allocation, metadata
    CRYPT = "crypt"  # dm-crypt / LUKS (`CRYPT-…`): every block encrypted and decrypted
    MULTIPATH = "multipath"  # a dm-multipath map (`mpath-…`): a LUN, judged as one
    DM = "dm"  # any other device-mapper target (VDO, cache, kpartx partitions …)


def stack_layer(device: BlockDevice) -> StackLayer | None:
    """The layer a `dm-N` or `mdN` device is; None for any other device."""
    if device.kind is BlockKind.MD:
        return StackLayer.MD
    if device.kind is not BlockKind.DEVICE_MAPPER:
        return None
    uuid = device.dm_uuid or ""
    if uuid.startswith("mpath-"):
        return StackLayer.MULTIPATH
    if uuid.startswith("CRYPT-"):
        return StackLayer.CRYPT
    if uuid.startswith("LVM-"):
        return StackLayer.LVM_THIN_POOL if uuid.endswith("-tpool") else StackLayer.LVM
    return StackLayer.DM


class BlockInventory(BaseModel):
    """Every block device of the host (loop, ram, zram and sr left out unless asked)."""

    devices: list[BlockDevice] = Field(default_factory=list)

    def by_name(self, name: str) -> BlockDevice | None:
        """The device with kernel name `name`, if collected."""
        return next((d for d in self.devices if d.name == name), None)
