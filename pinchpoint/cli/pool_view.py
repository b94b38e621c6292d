"""Each ZFS pool's vdev tree for a terminal (`report.pool_tree`): pool → top-level vdev →
device, a device's name, state and counts, note and place each on a line of its own, so a long
device path or bay name is never cut or split by a narrow terminal."""

from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

from pinchpoint.model.inventory import Inventory
from pinchpoint.report.pool_tree import NOT_FOUND, PoolNode, VdevNode, pool_trees


def _counts(node: VdevNode | PoolNode) -> str:
    counts = (node.read_errors, node.write_errors, node.checksum_errors)
    if all(count is None for count in counts):
        return "no counts"  # a spare: zpool prints none
    return " · ".join(
        f"{what} {count if count is not None else '—'}"
        for what, count in zip(("read", "write", "checksum"), counts, strict=True)
    )


def _label(node: VdevNode) -> Text:
    head = f"{node.section}: " if node.section else ""
    if not node.device:
        return Text(f"{head}{node.name} {node.state or '—'} · {_counts(node)}")
    lines = [f"{head}{node.name}", f"{node.state or '—'} · {_counts(node)}"]
    if node.note:
        lines.append(node.note)
    place = node.place or NOT_FOUND
    lines.append(place if place == NOT_FOUND else f"at {place}")
    return Text("\n".join(lines))


def _add(tree: Tree, node: VdevNode) -> None:
    branch = tree.add(_label(node))
    for child in node.children:
        _add(branch, child)


def pool_tree(pool: PoolNode) -> Tree:
    tree = Tree(Text(f"pool {pool.name} {pool.state or '—'} · {_counts(pool)}"))
    for vdev in pool.vdevs:
        _add(tree, vdev)
    return tree


def pool_tree_views(inventory: Inventory) -> list[Tree]:
    """Every pool's vdev tree, in `zpool status` order."""
    return [pool_tree(pool) for pool in pool_trees(inventory)]
