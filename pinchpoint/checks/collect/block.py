"""Block devices read from `/sys/block`: queue settings, sizes, stacking and partition starts.

Each `/sys/block/<name>` is a link into the device tree (`../devices/…/11:0:7:0/block/sdv`);
attributes are read below the resolved directory. Per disk that is about a dozen small reads,
so a 1,000-disk host costs some 12,000 — loop, ram, zram and CD-ROM devices are skipped unless
asked for. A dangling link, a garbled attribute or a partition without its start is reported
and the rest of the device (and of the host) stands.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.block_path import controller_of
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.block import (
    SECTOR_BYTES,
    BlockController,
    BlockDevice,
    BlockInventory,
    BlockKind,
    BlockPartition,
)
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.problems import ProblemKind

__all__ = [
    "DEFAULT_SKIP",
    "BlockParseError",
    "collect_block",
    "kind_of_name",
    "parse_scheduler",
]

PART = "block"
SYS_BLOCK = "/sys/block"
DEFAULT_SKIP = ("loop", "ram", "zram", "sr")  # name prefixes of devices no storage path uses

_SCSI_DISK = re.compile(r"^sd[a-z]+$")  # "sda", "sdaa"
_NVME = re.compile(r"^nvme\d+(?:c\d+)?n\d+$")  # "nvme0n1"; "nvme0c1n1" is a hidden path
_DEVICE_MAPPER = re.compile(r"^dm-\d+$")  # "dm-0"
_MD = re.compile(r"^md(?:\d+|_\w+)$")  # "md0", "md127", "md_d0"
_HCTL = re.compile(r"^\d+:\d+:\d+:\d+$")  # "11:0:7:0", the name the `device` link leads to
_PARTITION_SUFFIX = re.compile(r"^p?(\d+)$")  # "1" of "sda1", "p3" of "nvme0n1p3"
# `queue/scheduler`: "mq-deadline kyber [bfq] none" -> the bracketed name is the active one.
_ACTIVE_SCHEDULER = re.compile(r"^\[([^\[\]\s]+)\]$")
_SPACES = re.compile(r"\s+")


class BlockParseError(ValueError):
    """A block attribute does not read as the kernel writes it; the message says what was found."""


def parse_scheduler(text: str) -> tuple[str, list[str]]:
    """`[mq-deadline] kyber none` -> (`mq-deadline`, [`mq-deadline`, `kyber`, `none`]).

    A device that takes no scheduler (bio-based device-mapper) prints a bare `none`.
    """
    words = text.split()
    if words == ["none"]:
        return "none", ["none"]
    active = [m.group(1) for m in map(_ACTIVE_SCHEDULER.match, words) if m]
    if len(active) != 1:
        raise BlockParseError(
            "expected the schedulers with the active one in brackets, like "
            f"'[mq-deadline] kyber none', found {text.strip()!r}"
        )
    return active[0], [w.strip("[]") for w in words]


def kind_of_name(name: str) -> BlockKind:
    """The kind of block device a kernel name (`sdv`, `nvme0n1`, `dm-1`, `md0`) is."""
    if _SCSI_DISK.match(name):
        return BlockKind.SCSI_DISK
    if _NVME.match(name):
        return BlockKind.NVME
    if _DEVICE_MAPPER.match(name):
        return BlockKind.DEVICE_MAPPER
    if _MD.match(name):
        return BlockKind.MD
    return BlockKind.OTHER


def _identity(text: str | None) -> str | None:
    """A WWID or UUID fit for an id: white space inside (`t10.ATA  ST3000…`) becomes `_`."""
    if not text:
        return None
    return _SPACES.sub("_", text.strip())


def scsi_device_dir(path: str, name: str, hctl: str | None) -> str:
    """Where a SCSI disk's own attributes (`queue_depth`, `wwid`) are read: the SCSI device's
    directory, which holds `block/<name>` in sysfs's layout and which `device` links to, by its
    own name; else `<path>/device`. By that name they are the files the SAS walk reads, so that
    in one process each is read once (`sysfs.read_once` remembers attributes by path)."""
    parent = path.removesuffix(f"/block/{name}")
    if hctl is not None and parent != path and posixpath.basename(parent) == hctl:
        return parent
    return f"{path}/device"


class BlockWalker:
    """Reads `/sys/block` entries of one source into `BlockDevice`s."""

    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.read = SysfsReader(source, PART, log)
        self._drivers: dict[str, str | None] = {}  # PCI address -> its driver, read once

    def device_dir(self, name: str) -> str | None:
        """The directory `/sys/block/<name>` leads to; None (and a problem) if it leads nowhere."""
        return self.read.directory(
            f"{SYS_BLOCK}/{name}",
            "dangling symlink to {path} (the device was removed while it was read, or the "
            "capture is partial)",
        )

    def device(self, name: str, path: str) -> BlockDevice:
        """Every fact of one device read below its directory `path`."""
        read = self.read
        kind = kind_of_name(name)
        device = BlockDevice(id="", name=name, kind=kind, device_path=path)
        rotational = read.value(f"{path}/queue/rotational")
        device.rotational = None if rotational is None else rotational == "1"
        device.nr_requests = read.integer(f"{path}/queue/nr_requests")
        device.scheduler, device.schedulers = self._scheduler(f"{path}/queue/scheduler")
        device.logical_block_size_bytes = read.integer(f"{path}/queue/logical_block_size")
        device.physical_block_size_bytes = read.integer(f"{path}/queue/physical_block_size")
        size = self._sectors(f"{path}/size", "size")
        device.size_bytes = None if size is None else size * SECTOR_BYTES
        if kind is BlockKind.SCSI_DISK:
            if self.source.is_link(f"{path}/device"):
                target = read.link_name(f"{path}/device")
                device.hctl = target if target and _HCTL.match(target) else None
            scsi = scsi_device_dir(path, name, device.hctl)
            device.queue_depth = read.integer(f"{scsi}/queue_depth")
            device.wwid = read.value(f"{scsi}/wwid")
        elif kind is BlockKind.NVME:
            device.wwid = read.value(f"{path}/wwid")
        elif kind is BlockKind.DEVICE_MAPPER:
            device.dm_name = read.value(f"{path}/dm/name")
            device.dm_uuid = read.value(f"{path}/dm/uuid")
        elif kind is BlockKind.MD:
            device.md_uuid = read.value(f"{path}/md/uuid")
            device.md_level = read.value(f"{path}/md/level")
            device.md_sync_action = read.value(f"{path}/md/sync_action")  # none on raid0
            members = read.entries(f"{path}/md")
            device.md_members = [e.removeprefix("dev-") for e in members if e.startswith("dev-")]
        device.holders = read.entries(f"{path}/holders")
        device.slaves = read.entries(f"{path}/slaves")
        device.partitions = self._partitions(name, path)
        if kind not in (BlockKind.DEVICE_MAPPER, BlockKind.MD):
            device.controller = self._controller(path)
        return device

    def _controller(self, path: str) -> BlockController | None:
        """Where the device hangs (`controller_of`), with its PCI function's driver."""
        found = controller_of(path)
        address = found.pci_address if found is not None else None
        if found is None or address is None:
            return found
        if address not in self._drivers:
            link = f"/sys/bus/pci/devices/{address}/driver"
            exists = self.source.is_link(link)
            self._drivers[address] = self.read.link_name(link) if exists else None
        found.driver = self._drivers[address]
        return found

    def _scheduler(self, attribute: str) -> tuple[str | None, list[str]]:
        text = self.read.value(attribute)
        if text is None:
            return None, []
        try:
            return parse_scheduler(text)
        except BlockParseError as err:
            self.log.add(PART, attribute, ProblemKind.GARBLED, f"scheduler not collected: {err}")
            return None, []

    def _sectors(self, attribute: str, what: str, *, required: bool = False) -> int | None:
        """A count of 512-byte sectors; a missing one is reported only when `required`."""
        text = self.read.text(attribute)
        if text is None:
            if required and not self.source.exists(attribute):
                self.log.add(
                    PART,
                    attribute,
                    ProblemKind.MISSING,
                    f"{what} not collected: the attribute is absent, so the partition's "
                    "alignment is not known",
                )
            return None
        if not text.isdigit():
            self.log.add(
                PART,
                attribute,
                ProblemKind.GARBLED,
                f"{what} not collected: expected a number of 512-byte sectors, found {text!r}",
            )
            return None
        return int(text)

    def _partitions(self, disk: str, path: str) -> list[BlockPartition]:
        """The partitions of a disk: the entries named after it plus a number (`sda1`)."""
        found = []
        for entry in self.read.entries(path):
            if not entry.startswith(disk) or entry == disk:
                continue
            suffix = _PARTITION_SUFFIX.match(entry[len(disk) :])
            if suffix is None or not self.source.is_dir(f"{path}/{entry}"):
                continue
            part_dir = f"{path}/{entry}"
            size = self._sectors(f"{part_dir}/size", "partition size")
            number = self.read.integer(f"{part_dir}/partition")
            found.append(
                BlockPartition(
                    id="",
                    name=entry,
                    number=number if number is not None else int(suffix.group(1)),
                    start_sectors=self._sectors(
                        f"{part_dir}/start", "partition start", required=True
                    ),
                    size_bytes=None if size is None else size * SECTOR_BYTES,
                    holders=self.read.entries(f"{part_dir}/holders"),
                )
            )
        found.sort(key=lambda p: (p.number or 0, p.name))
        return found


def device_mapper_dir(source: Source, name: str) -> str:
    """The directory `/sys/block/<dm-N>` leads to, as the block devices read it (so that the
    multipath maps read the same attribute paths, each once per inventory); the entry itself
    when it leads nowhere."""
    return BlockWalker(source, ProblemLog()).device_dir(name) or f"{SYS_BLOCK}/{name}"


def read_device_mapper_first(source: Source) -> None:
    """Read the device-mapper attributes the block devices and the multipath maps both need
    (`dm/uuid`, `dm/name`, `size`) into the run's read-once cache before the block devices are
    read in a forked child, which inherits them: each is then read once for both processes.
    Problems are recorded by the collectors when they ask."""
    walker = BlockWalker(source, ProblemLog())
    try:
        names = source.list_dir(SYS_BLOCK)
    except SourceError:
        return
    for name in names:
        if _DEVICE_MAPPER.match(name) and (path := walker.device_dir(name)) is not None:
            for attribute in ("dm/uuid", "dm/name", "size"):
                walker.read.text(f"{path}/{attribute}")


def _assign_ids(devices: list[BlockDevice]) -> None:
    """Ids from identity: a WWID shared by several SCSI paths adds each path's H:C:T:L."""
    paths = Counter(_identity(d.wwid) for d in devices if d.kind is BlockKind.SCSI_DISK and d.wwid)
    for device in devices:
        wwid = _identity(device.wwid)
        if device.kind is BlockKind.DEVICE_MAPPER and device.dm_uuid:
            device.id = f"block:dm:{_identity(device.dm_uuid)}"
        elif device.kind is BlockKind.MD and device.md_uuid:
            device.id = f"block:md:{_identity(device.md_uuid)}"
        elif wwid and device.kind is BlockKind.SCSI_DISK and paths[wwid] > 1:
            device.id = f"block:{wwid}/path:{device.hctl or device.name}"
        elif wwid:
            device.id = f"block:{wwid}"
        else:
            device.id = f"block:name:{device.name}"
        for partition in device.partitions:
            partition.id = f"{device.id}/part:{partition.number}"


def collect_block(
    source: Source, log: ProblemLog, *, skip: Iterable[str] = DEFAULT_SKIP
) -> BlockInventory:
    """Every `/sys/block` device whose name starts with none of `skip`, sorted by name."""
    if not source.exists(SYS_BLOCK):
        log.add(PART, SYS_BLOCK, ProblemKind.MISSING, "not collected: no /sys/block")
        return BlockInventory()
    prefixes = tuple(skip)
    walker = BlockWalker(source, log)
    devices = []
    for name in walker.read.entries(SYS_BLOCK):
        if prefixes and name.startswith(prefixes):
            continue
        path = walker.device_dir(name)
        if path is not None:
            devices.append(walker.device(name, path))
    _assign_ids(devices)
    return BlockInventory(devices=devices)


def read_block(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The block device part of the inventory: every `/sys/block` device and its partitions."""
    inventory.block = collect_block(source, problems)


COLLECTOR = Collector(part=PART, says="reading block devices", read=read_block)
