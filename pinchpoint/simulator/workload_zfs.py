"""`zpool iostat -wvHp` of a simulated workload: per-vdev latency histograms.

The layout follows OpenZFS 2.1 `print_vdev_stats` and `print_iostat_histo` in scripted (-H)
and parsable (-p) mode, without an interval (counts since the pool was imported): for every
vdev, pool first and then its children depth first, an empty line, the vdev's name, then one
line per bucket: the bucket's upper bound in ns (2^(j+1) - 1, j = 0..36) and eleven
tab-separated counts — total_wait read, write; disk_wait read, write; syncq_wait read, write;
asyncq_wait read, write; scrub; trim; rebuild. Leaves are named as `zpool_vdev_name` names a
whole disk without -P: the by-id link's name without `-part1`. An interior vdev's counts are
the sum of its children's, as ZFS accumulates a leaf's stats into its parents.
"""

from __future__ import annotations

from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fabric import Disk
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.tree_writer import TreeWriter
from pinchpoint.simulator.workload import (
    HISTOGRAM_COLUMNS,
    ZFS_BUCKETS,
    LeafHistograms,
    WorkloadResult,
)
from pinchpoint.simulator.zfs import Node, PoolPlan, leaf_path, plan_pools, pool_tree

IOSTAT_W = "commands/zpool/iostat-w.txt"
Columns = list[list[int]]  # column -> bucket -> count


def _zero() -> Columns:
    return [[0] * ZFS_BUCKETS for _ in HISTOGRAM_COLUMNS]


def _leaf_columns(histograms: LeafHistograms | None) -> Columns:
    if histograms is None:
        return _zero()
    return [list(histograms.columns[c]) for c in HISTOGRAM_COLUMNS]


def _summed(parts: list[Columns]) -> Columns:
    total = _zero()
    for part in parts:
        for column, counts in zip(total, part, strict=True):
            for j, count in enumerate(counts):
                column[j] += count
    return total


def _block(name: str, columns: Columns) -> str:
    """One vdev: a blank line, its name, 37 bucket lines."""
    lines = ["", name]
    for j in range(ZFS_BUCKETS):
        values = "\t".join(str(column[j]) for column in columns)
        lines.append(f"{(1 << (j + 1)) - 1}\t{values}")
    return "\n".join(lines) + "\n"


def _leaf_name(node: Node) -> str:
    """`wwn-0x…` for a whole disk, the GUID for one that is missing."""
    name = node.name.rpartition("/")[2]
    return name.removesuffix("-part1")


def _node_columns(
    node: Node, by_path: dict[str, Disk], result: WorkloadResult | None
) -> tuple[Columns, list[str]]:
    """A vdev's summed columns and its printed blocks (itself, then its children)."""
    if not node.children:
        disk = by_path.get(node.name)
        histograms = result.leaf_histograms.get(disk) if (result and disk) else None
        columns = _leaf_columns(histograms)
        return columns, [_block(_leaf_name(node), columns)]
    parts = []
    blocks: list[str] = []
    for child in node.children:
        columns, child_blocks = _node_columns(child, by_path, result)
        parts.append(columns)
        blocks.extend(child_blocks)
    total = _summed(parts)
    return total, [_block(node.name, total), *blocks]


def pool_histograms_text(plan: PoolPlan, present: set[Disk], result: WorkloadResult | None) -> str:
    """One pool's part of `zpool iostat -wvHp`."""
    by_path = {leaf_path(d): d for d in plan.disks()}
    root, sections = pool_tree(plan, present)
    section = {s.name: s for s in sections}
    logs = section.get("logs")
    parts = []
    blocks: list[str] = []
    for child in root.children:
        columns, child_blocks = _node_columns(child, by_path, result)
        parts.append(columns)
        blocks.extend(child_blocks)
    log_blocks: list[str] = []
    for child in logs.children if logs else []:
        columns, child_blocks = _node_columns(child, by_path, result)
        parts.append(columns)
        log_blocks.extend(child_blocks)
    text = _block(root.name, _summed(parts)) + "".join(blocks)
    if logs is not None:
        text += "\n" + "".join(log_blocks)
    cache = section.get("cache")
    if cache is not None:
        text += "\n" + "".join(_node_columns(c, by_path, result)[1][0] for c in cache.children)
    return text


def write_iostat_w(
    w: TreeWriter, spec: HostSpec, view: KernelView, result: WorkloadResult | None
) -> None:
    """commands/zpool/iostat-w.txt for every pool of the spec (when it has pools)."""
    if spec.zfs is None or not spec.zfs.pool:
        return
    plans = plan_pools(spec.zfs, view)
    present = {
        dev.disk_port.disk for dev in view.disk_paths() if dev.disk_port is not None and dev.sd
    }
    text = "".join(pool_histograms_text(plan, present, result) for plan in plans)
    w.mkdir("commands/zpool")
    w.write(IOSTAT_W, text.encode())
