"""The whole inventory of one host, read through a `Source`: every collector, every problem.

A collector that fails is recorded as a problem ("not collected: why") and the rest of the
inventory stands; nothing a host or a snapshot holds can make this raise.

On a large host the block devices, disk health and ZFS pools (a third of the work: 2,000
devices, 1,000 smartctl reports, a pool of 960 disks) are read in a forked child process while
this one walks the SAS fabric, so both cores work; the GIL makes threads no faster here.
Small hosts, hosts read while other threads run (forking those is unsafe) and recording
sources stay in one process. The cyclic garbage collector is paused while the models are built
(`pinchpoint.performance`).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import traceback
from collections.abc import Callable
from datetime import datetime
from multiprocessing.connection import Connection
from typing import TypeVar

from pinchpoint.checks.collect.block import collect_block
from pinchpoint.checks.collect.enclosure_class import SesFacts
from pinchpoint.checks.collect.fc import collect_fc
from pinchpoint.checks.collect.multipath import collect_multipath
from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.collect.pcie import collect_pcie
from pinchpoint.checks.collect.sas_fabric import FabricBuilder
from pinchpoint.checks.collect.sas_sysfs import HostNode, SasSysfsWalker
from pinchpoint.checks.collect.ses import collect_ses_facts
from pinchpoint.checks.collect.smart import collect_health, health_devices
from pinchpoint.checks.collect.zfs import collect_zfs
from pinchpoint.checks.source import LiveSource, SnapshotSource, Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.block import BlockInventory
from pinchpoint.model.fc import FcInventory
from pinchpoint.model.health import DiskHealthInventory
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.multipath import MultipathInventory
from pinchpoint.model.network import Network
from pinchpoint.model.pcie import PcieInventory
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.sas import SasFabric
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.performance import gc_paused

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
T = TypeVar("T")
ChildResult = tuple[BlockInventory, DiskHealthInventory, ZfsInventory, ProblemLog]
PARALLEL_MIN_BLOCK_DEVICES = 256  # below this, a second process costs more than it saves


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


def _guarded(part: str, problems: ProblemLog, fallback: T, step: Callable[[], T]) -> T:
    """Run one collector step; an unexpected failure becomes a problem, not a crash."""
    try:
        return step()
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.debug("collector %s failed:\n%s", part, traceback.format_exc())
        problems.add(
            part, part, ProblemKind.FAILED, f"collector failed: {type(err).__name__}: {err}"
        )
        return fallback


def _join_health_to_disks(inventory: Inventory) -> None:
    """SMART results carry the disk's id when smartctl reports its WWN; where it reports only
    a serial, take the topology disk's id so both speak of one disk."""
    known = {d.id for d in inventory.sas.disks}
    by_serial = {d.serial: d.id for d in inventory.sas.disks if d.serial}
    for health in inventory.health.disks:
        if health.id not in known and health.serial in by_serial:
            health.id = by_serial[health.serial]


def _block_and_health(
    source: Source, problems: ProblemLog, say: Progress, read_health: bool = True
) -> tuple[BlockInventory, DiskHealthInventory]:
    """Block devices, then SMART health of the disks among them (smartctl needs their WWIDs);
    without `read_health`, no smartctl run and an empty health part (the caller has one)."""
    say("reading block devices")
    block = _guarded("block", problems, BlockInventory(), lambda: collect_block(source, problems))
    if not read_health:
        return block, DiskHealthInventory()
    say("reading disk health (smartctl)")
    devices: list[str] = []
    if source.kind is SourceKind.SNAPSHOT and not source.exists("/commands/smartctl"):
        # One line, not one per disk, when smartctl was not run at all at capture time.
        problems.add(
            "health",
            "commands/smartctl",
            ProblemKind.NOT_COLLECTED,
            "the snapshot holds no smartctl output at all: disk health was not captured",
        )
    else:
        wwids = {d.name: d.wwid for d in block.devices}
        devices = _guarded("health", problems, [], lambda: health_devices(source, problems, wwids))
    health = _guarded(
        "health",
        problems,
        DiskHealthInventory(),
        lambda: collect_health(
            source, devices, problems, progress=lambda done, total: say(f"smartctl {done}/{total}")
        ),
    )
    return block, health


def _child_parts(
    source: Source, problems: ProblemLog, say: Progress, read_health: bool = True
) -> tuple[BlockInventory, DiskHealthInventory, ZfsInventory]:
    """What the child reads, none of it needing the SAS walk: block devices and disk health,
    then ZFS pools (the SAS walk takes longer, so the child has the time)."""
    block, health = _block_and_health(source, problems, say, read_health)
    say("reading ZFS pools")
    zfs = _guarded("zfs", problems, ZfsInventory(), lambda: collect_zfs(source, problems))
    return block, health, zfs


def _worth_a_child(source: Source, parallel: bool | None) -> bool:
    """Fork only a plain live or snapshot source, with no other thread running, on a host with
    enough block devices (or when asked)."""
    if parallel is False or not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    if type(source) not in (LiveSource, SnapshotSource):
        return False  # a RecordingSource writes the snapshot: keep that in one process
    if parallel:
        return True
    try:
        return len(source.list_dir("/sys/block")) >= PARALLEL_MIN_BLOCK_DEVICES
    except SourceError:
        return False


class _ChildParts:
    """`_child_parts` in a forked child; its progress and result come back over a pipe."""

    def __init__(self, source: Source, read_health: bool = True) -> None:
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_child_main,
            args=(source, send, read_health),
            name="pinchpoint-block-health-zfs",
            daemon=True,
        )
        self._process.start()
        send.close()  # the child holds the other end; EOF here means it is gone

    def result(self, say: Progress) -> ChildResult | None:
        """The child's block inventory, health, ZFS pools and problems; None if it died (the
        caller then reads them itself, so a crashed child costs time, never facts)."""
        try:
            while True:
                kind, payload = self._receive.recv()
                if kind == "progress":
                    say(payload)
                else:
                    return payload  # type: ignore[no-any-return]
        except Exception:  # EOF, a broken pipe or an unpicklable result: fall back
            log.debug("block/health child failed:\n%s", traceback.format_exc())
            return None
        finally:
            self._receive.close()
            self._process.join(timeout=10)
            if self._process.is_alive():
                self._process.kill()


def _child_main(source: Source, send: Connection, read_health: bool = True) -> None:
    problems = ProblemLog()
    try:
        block, health, zfs = _child_parts(
            source, problems, lambda message: send.send(("progress", message)), read_health
        )
        send.send(("result", (block, health, zfs, problems)))
    finally:
        send.close()


@gc_paused()
def collect_inventory(
    source: Source,
    *,
    kind: SourceKind | None = None,
    progress: Progress | None = None,
    parallel: bool | None = None,
    known_health: DiskHealthInventory | None = None,
) -> Inventory:
    """Read everything the inventory holds from `source`; each part fails on its own.

    `parallel`: read block devices and disk health in a child process (None: when the host is
    large enough to gain from it). `known_health`: SMART health read recently (the service
    reads it hourly, not at every sweep): used as it is instead of running smartctl."""
    read_health = known_health is None
    problems = ProblemLog()
    say = progress or (lambda _msg: None)
    say("reading host identity")
    host = _guarded(
        "host", problems, HostInfo(source=kind or source.kind), lambda: host_info(source, kind)
    )
    background = _ChildParts(source, read_health) if _worth_a_child(source, parallel) else None
    say("walking the SAS transport tree")
    walker = SasSysfsWalker(source, problems)
    hosts: list[HostNode] = _guarded("sas", problems, [], walker.hosts)
    say("reading enclosures (sysfs and SES pages)")
    ses: dict[str, SesFacts] = _guarded(
        "ses", problems, {}, lambda: collect_ses_facts(source, hosts, problems)
    )
    say("joining the SAS fabric")
    fabric = _guarded("sas", problems, SasFabric(), lambda: FabricBuilder(hosts, ses).build())
    inventory = Inventory(host=host, sas=fabric)
    say("reading PCIe links")
    inventory.pcie = _guarded(
        "pcie", problems, PcieInventory(), lambda: collect_pcie(source, problems)
    )
    say("reading NICs and bonds")
    inventory.network = _guarded(
        "network", problems, Network(), lambda: collect_network(source, problems)
    )
    say("reading Fibre Channel ports")
    inventory.fc = _guarded("fc", problems, FcInventory(), lambda: collect_fc(source, problems))
    say("reading dm-multipath maps")
    inventory.multipath = _guarded(
        "multipath",
        problems,
        MultipathInventory(),
        lambda: collect_multipath(source, problems, fc=inventory.fc),
    )
    child = background.result(say) if background is not None else None
    if child is None:
        inventory.block, inventory.health, inventory.zfs = _child_parts(
            source, problems, say, read_health
        )
    else:
        inventory.block, inventory.health, inventory.zfs, child_problems = child
        problems.absorb(child_problems)
    if known_health is not None:
        inventory.health = known_health
    _join_health_to_disks(inventory)
    inventory.problems = [*source.open_problems, *problems.problems()]
    return inventory
