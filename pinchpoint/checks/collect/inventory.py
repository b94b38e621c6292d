"""The whole inventory of one host, read through a `Source`: every collector, every problem.

Each domain is one `Collector` (`pinchpoint.checks.collect.collector`), run in the order of the
lists below; a collector that fails is recorded as a problem ("not collected: why") and the
rest of the inventory stands: nothing a host or a snapshot holds can make this raise.

On a large host the block devices, disk health and ZFS pools (a third of the work: 2,000
devices, 1,000 smartctl reports, a pool of 960 disks) are read in a forked child process while
this one walks the SAS fabric, so both cores work (`pinchpoint.performance.start_forked` says
why). Small hosts and recording sources stay in one process. The cyclic garbage collector is
paused while the models are built (`pinchpoint.performance.gc_paused`). After its parts, the
child does the caller's `ReadBeside` work (`check`: a snapshot's diskstats samples), and its
result comes back with theirs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any, Generic, TypeVar

from pinchpoint.checks.collect import block, fc, multipath, network, pcie, sas, smart, zfs
from pinchpoint.checks.collect.collector import Collector, Progress, guarded, run_collectors
from pinchpoint.checks.collect.iscsi import COLLECTOR as ISCSI_COLLECTOR
from pinchpoint.checks.collect.nvme import COLLECTOR as NVME_COLLECTOR
from pinchpoint.checks.collect.sas.walk import PART as SAS_PART
from pinchpoint.checks.source import LiveSource, SnapshotSource, Source, SourceError
from pinchpoint.checks.source.base import ReadOnce
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader, read_once
from pinchpoint.model.block import BlockInventory
from pinchpoint.model.health import DiskHealthInventory
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.performance import gc_paused, start_forked

__all__ = ["BESIDE", "IN_TURN", "ReadBeside", "collect_inventory", "host_info"]

# Read one after another, in this process.
IN_TURN: tuple[Collector, ...] = (
    sas.COLLECTOR,
    pcie.COLLECTOR,
    network.COLLECTOR,
    fc.COLLECTOR,
    multipath.COLLECTOR,  # after fc: its paths name the FC ports
    NVME_COLLECTOR,
    ISCSI_COLLECTOR,
)
# Read after those, or in a child process beside them on a large host: none needs the SAS walk,
# which takes longer, so the child has the time.
BESIDE: tuple[Collector, ...] = (
    block.COLLECTOR,
    smart.COLLECTOR,  # after block: smartctl is asked about the disks among the block devices
    zfs.COLLECTOR,
)
PARALLEL_MIN_BLOCK_DEVICES = 256  # below this, a second process costs more than it saves

T = TypeVar("T")


class ReadBeside(Generic[T]):
    """More reading of the host that needs none of the inventory (a snapshot's diskstats
    samples), given to `collect_inventory`: the forked child reads it after its own collectors,
    when there is a child (on the 1,920-path host the child finishes before the SAS walk, and
    its core then idles), and its result comes back with the child's; else it is read in this
    process when first asked for (`result`). Nothing is kept beyond the object."""

    def __init__(self, work: Callable[[Source], T]) -> None:
        self._work = work
        self._done: tuple[T] | None = None  # the result, once read (by the child or here)

    def in_child(self, source: Source) -> tuple[T] | None:
        """The work done in the child: its result, None when it raised (then read again in
        this process when asked, where it raises as it would have)."""
        try:
            return (self._work(source),)
        except Exception:
            return None

    def take(self, done: tuple[T] | None) -> None:
        """The child's result."""
        self._done = done

    def result(self, source: Source) -> T:
        """What the work read: the child's result, else read now through `source`."""
        if self._done is None:
            self._done = (self._work(source),)
        return self._done[0]


ChildResult = tuple[
    BlockInventory, DiskHealthInventory, ZfsInventory, ProblemLog, tuple[object] | None
]


def _first_line(source: Source, path: str) -> str | None:
    try:
        text = source.read_text(path).strip()
    except SourceError:
        return None
    return text.splitlines()[0] if text else None


def host_info(source: Source, kind: SourceKind | None = None) -> HostInfo:
    """Host name, kernel and capture time: from the manifest, else from /proc."""
    manifest = source.manifest()
    info = HostInfo(
        source=kind or source.kind,
        source_location=source.location,
        hostname=_first_line(source, "/proc/sys/kernel/hostname"),
        kernel=_first_line(source, "/proc/sys/kernel/osrelease"),
    )
    if manifest is not None:
        info.hostname = manifest.hostname or info.hostname
        info.kernel = manifest.kernel or info.kernel
        info.captured_at = manifest.captured_at
        info.tools = dict(manifest.tools)
    elif source.kind is SourceKind.LIVE:
        info.captured_at = datetime.now().astimezone()
    return info


def _join_health_to_disks(inventory: Inventory) -> None:
    """SMART results carry the disk's id when smartctl reports its WWN; where it reports only
    a serial, take the topology disk's id so both speak of one disk."""
    known = {d.id for d in inventory.sas.disks}
    by_serial = {d.serial: d.id for d in inventory.sas.disks if d.serial}
    for health in inventory.health.disks:
        if health.id not in known and health.serial in by_serial:
            health.id = by_serial[health.serial]


def _join_block_to_disks(
    source: Source, inventory: Inventory, run: ReadOnce, problems: ProblemLog
) -> None:
    """A SAS disk's size and rotation, and each of its paths' queue depth, from its block
    devices, when the SAS walk left them to the block devices read beside it
    (`sysfs.block_beside`); read here, from where the SAS walk found them, when the block
    devices did not list one (each attribute read once either way)."""
    left, depths = run.left_to_block, run.queue_depth_left
    devices = {device.name: device for device in inventory.block.devices}
    read = SysfsReader(source, SAS_PART, problems)
    for disk in inventory.sas.disks:
        for path in disk.paths:
            if path.block_device is None or path.block_device not in depths:
                continue
            device = devices.get(path.block_device)
            if device is not None:
                path.queue_depth = device.queue_depth
            else:
                path.queue_depth = read.integer(f"{depths[path.block_device]}/queue_depth")
        name = next((p.block_device for p in disk.paths if p.block_device in left), None)
        if name is None or disk.size_bytes is not None or disk.rotational is not None:
            continue
        if name in devices:
            disk.size_bytes, disk.rotational = devices[name].size_bytes, devices[name].rotational
            continue
        sectors = read.integer(f"{left[name]}/size")
        disk.size_bytes = sectors * 512 if sectors is not None else None
        rotational = read.value(f"{left[name]}/queue/rotational")
        disk.rotational = None if rotational is None else rotational == "1"


def _worth_a_child(source: Source, parallel: bool | None) -> bool:
    """Fork only for a plain live or snapshot source, on a host with enough block devices (or
    when asked); `start_forked` still refuses where forking is unsafe."""
    if parallel is False or not hasattr(os, "fork"):
        return False
    if type(source) not in (LiveSource, SnapshotSource):
        return False  # a RecordingSource writes the snapshot: keep that in one process
    if parallel:
        return True
    try:
        return len(source.list_dir("/sys/block")) >= PARALLEL_MIN_BLOCK_DEVICES
    except SourceError:
        return False


def _read_beside(
    source: Source,
    inventory: Inventory,
    collectors: tuple[Collector, ...],
    also: ReadBeside[object] | None,
    say: Progress,
) -> ChildResult:
    """What the child process reads: the parts of `collectors` (in its copy of `inventory`),
    the problems met, and then `also`'s result."""
    problems = ProblemLog()
    run_collectors(collectors, source, problems, inventory, say)
    more = also.in_child(source) if also is not None else None
    return inventory.block, inventory.health, inventory.zfs, problems, more


@gc_paused()
def collect_inventory(
    source: Source,
    *,
    kind: SourceKind | None = None,
    progress: Progress | None = None,
    parallel: bool | None = None,
    known_health: DiskHealthInventory | None = None,
    also: ReadBeside[Any] | None = None,
) -> Inventory:
    """Read everything the inventory holds from `source`; each part fails on its own.

    `parallel`: read block devices and disk health in a child process (None: when the host is
    large enough to gain from it). `known_health`: SMART health read recently (the service
    reads it hourly, not at every sweep): used as it is instead of running smartctl. `also`:
    more reading for the child, if there is one, once it has read its parts (`ReadBeside`)."""
    problems = ProblemLog()
    say = progress or (lambda _msg: None)
    say("reading host identity")
    host = guarded(
        "host", problems, HostInfo(source=kind or source.kind), lambda: host_info(source, kind)
    )
    inventory = Inventory(host=host)
    beside = BESIDE
    if known_health is not None:  # health read recently is used as it is: no smartctl run
        beside = tuple(c for c in BESIDE if c is not smart.COLLECTOR)
    with read_once(source) as run:  # each attribute read once, by whichever part asks first
        child = None
        if _worth_a_child(source, parallel):
            block.read_device_mapper_first(source)  # the multipath maps need them too
            work = partial(_read_beside, source, inventory, beside, also)
            child = start_forked(work, name="pinchpoint-block-health-zfs")
        # the child reads the block devices: the SAS walk leaves their attributes to it
        run.block_beside = child is not None
        run_collectors(IN_TURN, source, problems, inventory, say)
        parts = child.result(say) if child is not None else None
        run.block_beside = False
        if parts is None:
            run_collectors(beside, source, problems, inventory, say)
        else:
            inventory.block, inventory.health, inventory.zfs, child_problems, more = parts
            problems.absorb(child_problems)
            if also is not None:
                also.take(more)
        _join_block_to_disks(source, inventory, run, problems)
    if known_health is not None:
        inventory.health = known_health
    _join_health_to_disks(inventory)
    inventory.problems = [*source.open_problems, *problems.problems()]
    return inventory
