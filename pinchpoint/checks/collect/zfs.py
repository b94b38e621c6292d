"""ZFS on a host: pools and vdev trees from `zpool status -P`, vdev queue module parameters.

A host without ZFS (no `/sys/module/zfs`, and no usable `zpool`) gives an empty inventory with
one note, not a list of problems. With ZFS loaded, a missing, failing, hung or garbled `zpool`
is reported ("not collected: why") and the module parameters still stand.

Leaves keep the path `zpool status -P` prints; where that path is a link (`/dev/disk/by-id/…`)
the kernel name it leads to is resolved through the source, so a leaf joins `/sys/block`.
"""

from __future__ import annotations

import posixpath
import re

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.zpool_status import ZpoolStatusParseError, parse_zpool_status
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.zfs import Pool, Vdev, ZfsInventory

__all__ = ["ZPOOL_STATUS", "collect_zfs", "is_vdev_queue_parameter"]

PART = "zfs"
MODULE = "/sys/module/zfs"
PARAMETERS = f"{MODULE}/parameters"
ZPOOL_TIMEOUT_S = 30.0  # a pool with a dead device can make `zpool status` wait on I/O
ZPOOL_STATUS = Command(argv=("zpool", "status", "-P"), key="zpool/status.txt")

# The per-device queue knobs: zfs_vdev_{sync,async}_{read,write}_max_active,
# zfs_vdev_{scrub,removal,initializing,trim,rebuild}_max_active, zfs_vdev_max_active.
_MAX_ACTIVE = re.compile(r"^zfs_vdev_\w*max_active\w*$")
_OTHER_QUEUE_PARAMETERS = frozenset({"zfs_vdev_max_pending", "zfs_vdev_queue_depth_pct"})


def is_vdev_queue_parameter(name: str) -> bool:
    """Whether a `/sys/module/zfs/parameters` entry is one of the vdev queue depth knobs."""
    return bool(_MAX_ACTIVE.match(name)) or name in _OTHER_QUEUE_PARAMETERS


def _queue_parameters(read: SysfsReader) -> dict[str, int]:
    found = {}
    for name in read.entries(PARAMETERS):
        if is_vdev_queue_parameter(name):
            value = read.integer(f"{PARAMETERS}/{name}")
            if value is not None:
                found[name] = value
    return found


def _block_device(source: Source, path: str) -> str | None:
    """The kernel name a leaf's `/dev/…` path leads to: `/dev/disk/by-id/wwn-…-part1` -> `sdb1`."""
    if not path.startswith("/dev/"):
        return None
    if posixpath.dirname(path) == "/dev":
        return posixpath.basename(path)
    if not source.is_link(path):
        return None  # not captured, or not a link
    try:
        resolved = source.resolve(path)
    except SourceError:
        return None
    return posixpath.basename(resolved) if posixpath.dirname(resolved) == "/dev" else None


def _resolve_leaves(source: Source, pools: list[Pool]) -> None:
    for pool in pools:
        leaves: list[Vdev] = pool.leaves()
        for leaf in leaves:
            if leaf.device_path and leaf.device_path == leaf.name:  # not a missing one's "was"
                leaf.block_device = _block_device(source, leaf.device_path)


def _absent_note(result: CommandResult) -> str:
    """The one line said of a host without ZFS."""
    if result.status is CommandStatus.TOOL_MISSING:
        return f"ZFS not present: no {MODULE} and no zpool command"
    if result.status is CommandStatus.NOT_COLLECTED:
        return f"ZFS not present in this snapshot: no {MODULE} and no `{result.command.line}`"
    return f"ZFS not present: no {MODULE} (module not loaded); {result.reason()}"


def collect_zfs(source: Source, log: ProblemLog) -> ZfsInventory:
    """Pools, vdevs and leaves, and the vdev queue parameters; never raises."""
    read = SysfsReader(source, PART, log)
    module = source.is_dir(MODULE)
    result = source.run(
        Command(argv=ZPOOL_STATUS.argv, key=ZPOOL_STATUS.key, timeout_s=ZPOOL_TIMEOUT_S)
    )
    if not module and not result.ok:
        return ZfsInventory(present=False, note=_absent_note(result))
    inventory = ZfsInventory()
    if module:
        inventory.module_version = read.value(f"{MODULE}/version")
        inventory.vdev_queue_parameters = _queue_parameters(read)
    subject = result.command.line
    if not result.ok:
        log.add(PART, subject, result.problem_kind, f"pools not collected: {result.reason()}")
        return inventory
    try:
        status = parse_zpool_status(result.stdout)
    except ZpoolStatusParseError as err:
        log.add(PART, subject, ProblemKind.GARBLED, f"pools not collected: {err}")
        return inventory
    for warning in status.warnings:
        log.add(PART, subject, ProblemKind.GARBLED, warning)
    _resolve_leaves(source, status.pools)
    inventory.pools = status.pools
    return inventory


def read_zfs(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The ZFS part of the inventory: pools, their vdevs and the module's queue settings."""
    inventory.zfs = collect_zfs(source, problems)


COLLECTOR = Collector(part=PART, says="reading ZFS pools", read=read_zfs)
