"""ZFS on the imagined host: `/sys/module/zfs`, `zpool status -P` and the disks' partitions.

Pools are built from enclosures' disks as the spec's `[[zfs.pool]]` says. `zpool status -P`
is laid out with the format strings of OpenZFS `print_status_config` (as the synthetic
fixture in tests/fixtures/zfs shows it): a tab, two columns per depth, names padded to the
widest (at least 10), `%-8s` state, `%5s` counts, spare lines without counts, trailing blanks
trimmed. Each leaf is `/dev/disk/by-id/wwn-0x<LU name>-part1`, a link to `../../sdX1` of the
disk's first path; every path of a pool disk has ZFS's whole-disk partitions 1 and 9.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.simulator.addresses import name_hash
from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fabric import Disk
from pinchpoint.simulator.naming import sd_devt, sd_name
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import ZfsDiskRef, ZfsFaultSpec, ZfsPoolSpec, ZfsSpec
from pinchpoint.simulator.tree_writer import TreeWriter

MODULE = "sys/module/zfs"
STATUS = "commands/zpool/status.txt"
SECTOR = 512
ALIGN = 2048  # sectors: 1 MiB
RESERVED_SECTORS = 16384  # partition 9: 8 MiB
GPT_BACKUP_SECTORS = 34
MIN_NAME_WIDTH = 10

# OpenZFS 2.1 defaults of the vdev queue parameters (module/zfs/vdev_queue.c).
DEFAULT_PARAMETERS: dict[str, int] = {
    "zfs_vdev_max_active": 1000,
    "zfs_vdev_sync_read_min_active": 10,
    "zfs_vdev_sync_read_max_active": 10,
    "zfs_vdev_sync_write_min_active": 10,
    "zfs_vdev_sync_write_max_active": 10,
    "zfs_vdev_async_read_min_active": 1,
    "zfs_vdev_async_read_max_active": 3,
    "zfs_vdev_async_write_min_active": 2,
    "zfs_vdev_async_write_max_active": 10,
    "zfs_vdev_scrub_min_active": 1,
    "zfs_vdev_scrub_max_active": 3,
    "zfs_vdev_removal_min_active": 1,
    "zfs_vdev_removal_max_active": 2,
    "zfs_vdev_initializing_min_active": 1,
    "zfs_vdev_initializing_max_active": 1,
    "zfs_vdev_trim_min_active": 1,
    "zfs_vdev_trim_max_active": 2,
    "zfs_vdev_rebuild_min_active": 1,
    "zfs_vdev_rebuild_max_active": 3,
    "zfs_vdev_queue_depth_pct": 1000,
    "zfs_vdev_aggregation_limit": 1048576,
    "zfs_vdev_async_write_active_min_dirty_percent": 30,
    "zfs_vdev_async_write_active_max_dirty_percent": 60,
}


@dataclass
class Node:
    """One line of the config tree: an interior vdev, a section header or a leaf."""

    name: str
    state: str | None = "ONLINE"
    note: str = ""
    children: list[Node] = field(default_factory=list)
    spare: bool = False  # a line of the spares section: state only
    errors: tuple[int, int, int] = (0, 0, 0)  # READ, WRITE, CKSUM


@dataclass
class PoolPlan:
    """A pool: its data vdevs and auxiliary devices, as disks of the fabric."""

    spec: ZfsPoolSpec
    data: list[list[Disk]]
    log: list[Disk]
    cache: list[Disk]
    spares: list[Disk]

    def disks(self) -> list[Disk]:
        """Every disk the pool uses."""
        return [d for group in self.data for d in group] + self.log + self.cache + self.spares


def _disks_by_bay(view: KernelView) -> dict[tuple[str, int], Disk]:
    return {(e.name, bay): d for e in view.fabric.enclosures for bay, d in e.disks.items()}


def plan_pools(spec: ZfsSpec, view: KernelView) -> list[PoolPlan]:
    """The pools of the spec, each disk taken once, in spec order."""
    disks = _disks_by_bay(view)
    taken: set[tuple[str, int]] = set()
    for pool in spec.pool:
        for ref in pool.log + pool.cache + pool.spares:
            taken.add((ref.enclosure, ref.bay))

    def refs(items: list[ZfsDiskRef]) -> list[Disk]:
        return [disks[(r.enclosure, r.bay)] for r in items if (r.enclosure, r.bay) in disks]

    plans = []
    for pool in spec.pool:
        enclosures = [e for e in view.fabric.enclosures if e.name in pool.enclosures]
        enclosures.sort(key=lambda e: pool.enclosures.index(e.name))
        bays = sorted({b for e in enclosures for b in e.disks})
        if pool.bays is not None:
            bays = [b for b in bays if b in pool.bays]
        if pool.order == "bay":
            keys = [(e.name, b) for b in bays for e in enclosures]
        else:
            keys = [(e.name, b) for e in enclosures for b in bays]
        free = [k for k in keys if k in disks and k not in taken]
        width = pool.group_width
        groups = [free[i : i + width] for i in range(0, len(free) - width + 1, width)]
        if pool.vdevs is not None:
            groups = groups[: pool.vdevs]
        for group in groups:
            taken.update(group)
        data = [[disks[k] for k in group] for group in groups]
        plans.append(PoolPlan(pool, data, refs(pool.log), refs(pool.cache), refs(pool.spares)))
    return plans


def leaf_path(disk: Disk, part: int = 1) -> str:
    """The by-id path `zpool status -P` prints for a whole-disk vdev."""
    return f"/dev/disk/by-id/wwn-0x{disk.lu_name:016x}-part{part}"


Faults = dict[tuple[str, int], ZfsFaultSpec]
NOT_SERVING = frozenset({"FAULTED", "OFFLINE", "UNAVAIL", "REMOVED"})  # a leaf that does no I/O
_NOTES = {"FAULTED": "too many errors", "UNAVAIL": "cannot open"}


def _leaf(disk: Disk, present: set[Disk], pool: str, faults: Faults) -> Node:
    if disk in present:
        fault = faults.get((disk.enclosure.name, disk.bay))
        if fault is None:
            return Node(leaf_path(disk))
        errors = (fault.read_errors, fault.write_errors, fault.checksum_errors)
        return Node(leaf_path(disk), fault.state, _NOTES.get(fault.state, ""), errors=errors)
    guid = name_hash("zfs-guid", pool, disk.enclosure.name, str(disk.bay)) >> 1
    return Node(str(guid), "UNAVAIL", f"was {leaf_path(disk)}")


def _interior(name: str, children: list[Node], parity: int) -> Node:
    """A mirror or raidz vdev whose state follows its children's."""
    missing = sum(1 for c in children if c.state in NOT_SERVING)
    if missing == 0 and any(c.state != "ONLINE" for c in children):
        return Node(name, "DEGRADED", children=children)
    if missing == 0:
        state = "ONLINE"
    elif (parity == 0 and missing < len(children)) or (parity and missing <= parity):
        state = "DEGRADED"
    else:
        state = "UNAVAIL"
    return Node(name, state, children=children)


def pool_tree(plan: PoolPlan, present: set[Disk]) -> tuple[Node, list[Node]]:
    """The pool's root line and its sections (logs, cache, spares)."""
    name = plan.spec.name
    faults = {(f.enclosure, f.bay): f for f in plan.spec.fault}
    layout = plan.spec.layout
    parity = {"raidz1": 1, "raidz2": 2, "raidz3": 3}.get(layout, 0)
    index = 0
    top: list[Node] = []
    for group in plan.data:
        leaves = [_leaf(d, present, name, faults) for d in group]
        if layout == "stripe":
            top.extend(leaves)
        else:
            top.append(_interior(f"{layout}-{index}", leaves, parity))
        index += 1
    sections: list[Node] = []
    if plan.log:
        leaves = [_leaf(d, present, name, faults) for d in plan.log]
        if len(leaves) > 1:
            leaves = [_interior(f"mirror-{index}", leaves, 0)]
        sections.append(Node("logs", None, children=leaves))
    if plan.cache:
        cache = [_leaf(d, present, name, faults) for d in plan.cache]
        sections.append(Node("cache", None, children=cache))
    if plan.spares:
        spares = []
        for disk in plan.spares:
            leaf = _leaf(disk, present, name, faults)
            spares.append(Node(leaf.name, "AVAIL" if disk in present else "UNAVAIL", spare=True))
        sections.append(Node("spares", None, children=spares))
    states = {n.state for n in top}
    if states & NOT_SERVING:
        state = "UNAVAIL"
    elif states - {"ONLINE"}:
        state = "DEGRADED"
    else:
        state = "ONLINE"
    if state == "ONLINE" and any(
        c.state not in ("ONLINE", "AVAIL") for s in sections for c in s.children
    ):
        state = "DEGRADED"
    return Node(name, state, children=top), sections


def _width(node: Node, depth: int) -> int:
    return max([len(node.name) + depth] + [_width(c, depth + 2) for c in node.children])


def _lines(node: Node, depth: int, width: int, out: list[str]) -> None:
    if node.state is None:
        out.append(f"\t{node.name}")
    else:
        line = f"\t{'':{depth}}{node.name:<{width - depth}}  {node.state:<8}"
        if not node.spare:
            line += "".join(f" {count:>5}" for count in node.errors)
        if node.note:
            line += f"  {node.note}"
        out.append(line.rstrip())
    for child in node.children:
        _lines(child, depth + 2, width, out)


_DEGRADED_STATUS = (
    "status: One or more devices could not be opened.  Sufficient replicas exist for\n"
    "\tthe pool to continue functioning in a degraded state.\n"
    "action: Attach the missing device and online it using 'zpool online'.\n"
    "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-2Q\n"
)
# What `zpool status` says first, by the worst thing in the pool (OpenZFS zpool_main.c).
_FAULTED_STATUS = (
    "status: One or more devices are faulted in response to persistent errors.\n"
    "\tSufficient replicas exist for the pool to continue functioning in a\n"
    "\tdegraded state.\n"
    "action: Replace the faulted device, or use 'zpool clear' to mark the device\n"
    "\trepaired.\n"
)
_OFFLINE_STATUS = (
    "status: One or more devices has been taken offline by the administrator.\n"
    "\tSufficient replicas exist for the pool to continue functioning in a\n"
    "\tdegraded state.\n"
    "action: Online the device using 'zpool online' or replace the device with\n"
    "\t'zpool replace'.\n"
)
_ERRORS_STATUS = (
    "status: One or more devices has experienced an unrecoverable error.  An\n"
    "\tattempt was made to correct the error.  Applications are unaffected.\n"
    "action: Determine if the device needs to be replaced, and clear the errors\n"
    "\tusing 'zpool clear' or replace the device with 'zpool replace'.\n"
    "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-9P\n"
)


def _leaves(node: Node) -> list[Node]:
    return [node] if not node.children else [x for c in node.children for x in _leaves(c)]


def _status(root: Node, sections: list[Node]) -> str:
    """The status and action paragraphs for the worst thing in the pool ("" for none)."""
    leaves = _leaves(root) + [x for s in sections for x in _leaves(s)]
    states = {leaf.state for leaf in leaves}
    if "FAULTED" in states:
        return _FAULTED_STATUS
    if states & {"UNAVAIL", "REMOVED"}:
        return _DEGRADED_STATUS
    if "OFFLINE" in states:
        return _OFFLINE_STATUS
    if root.state != "ONLINE":
        return _DEGRADED_STATUS
    if any(any(leaf.errors) for leaf in leaves):
        return _ERRORS_STATUS
    return ""


def status_text(plans: list[PoolPlan], present: set[Disk]) -> str:
    """`zpool status -P` of every pool, or "no pools available"."""
    if not plans:
        return "no pools available\n"
    texts = []
    for plan in plans:
        root, sections = pool_tree(plan, present)
        width = max(MIN_NAME_WIDTH, _width(root, 0), *(_width(s, 0) for s in sections))
        head = f"  pool: {root.name}\n state: {root.state}\n" + _status(root, sections)
        lines = [f"\t{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}"]
        _lines(root, 0, width, lines)
        for section in sections:
            _lines(section, 0, width, lines)
        config = "\n".join(lines)
        texts.append(f"{head}config:\n\n{config}\n\nerrors: No known data errors\n")
    return "\n".join(texts)


def partitions(size_bytes: int) -> list[tuple[int, int, int]]:
    """(number, start, size) in sectors of ZFS's whole-disk layout: data, then 8 MiB."""
    total = size_bytes // SECTOR
    end = (total - GPT_BACKUP_SECTORS) // ALIGN * ALIGN
    reserved = end - RESERVED_SECTORS
    return [(1, ALIGN, reserved - ALIGN), (9, reserved, RESERVED_SECTORS)]


def write_zfs(w: TreeWriter, view: KernelView, spec: HostSpec) -> None:
    """The module, its parameters, the pools' status and their disks' partitions and links."""
    zfs = spec.zfs
    if zfs is None:
        return
    w.attrs(MODULE, {"version": zfs.version})
    w.attrs(
        f"{MODULE}/parameters",
        {k: str(v) for k, v in (DEFAULT_PARAMETERS | zfs.parameters).items()},
    )
    plans = plan_pools(zfs, view)
    in_pools = {d for plan in plans for d in plan.disks()}
    first: dict[Disk, int] = {}
    for dev in view.disk_paths():
        if dev.disk_port is None or dev.sd_index is None or dev.sd is None:
            continue
        disk = dev.disk_port.disk
        if disk not in in_pools:
            continue
        if disk not in first or dev.sd_index < first[disk]:
            first[disk] = dev.sd_index
        block = f"sys/{dev.path}/block/{dev.sd}"
        major, minor = sd_devt(dev.sd_index)
        for number, start, size in partitions(disk.spec.size_bytes):
            part = f"{block}/{dev.sd}{number}"
            w.attrs(
                part,
                {
                    "dev": f"{major}:{minor + number}",
                    "partition": str(number),
                    "start": str(start),
                    "size": str(size),
                    "ro": "0",
                },
            )
            w.mkdir(f"{part}/holders")
            w.link(f"sys/class/block/{dev.sd}{number}", part)
    for disk, index in sorted(first.items(), key=lambda item: item[1]):
        name = sd_name(index)
        wwn = f"dev/disk/by-id/wwn-0x{disk.lu_name:016x}"
        w.link(wwn, f"dev/{name}")
        for number, _start, _size in partitions(disk.spec.size_bytes):
            w.link(f"{wwn}-part{number}", f"dev/{name}{number}")
    w.mkdir("commands/zpool")
    w.write(STATUS, status_text(plans, set(first)).encode())
