"""`zfs.vdev.mixed`: a vdev whose disks differ in kind (SSD and HDD), rotation rate or
capacity: the smallest disk sets its size, the slowest its pace."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping

from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.health import DiskHealth
from pinchpoint.model.zfs import Pool, Vdev
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.disk_names import disk_names
from pinchpoint.rules.zfs.devices import Device, devices
from pinchpoint.units import capacity_text


def _kind(device: Device, health_by_id: Mapping[str, DiskHealth]) -> str | None:
    """ "SSD", "HDD 7200 rpm" …: what a disk is, from SMART where read, else sysfs."""
    if device.disk is None:
        return None
    health = health_by_id.get(device.disk.id)
    rpm = health.rotation_rate_rpm if health is not None else None
    if rpm == 0 or device.disk.rotational is False:
        return "SSD"
    if rpm:
        return f"HDD {rpm} rpm"
    return "HDD" if device.disk.rotational else None


def _size_bytes(device: Device) -> int | None:
    size = device.disk.size_bytes if device.disk is not None else None
    return size or None


def _vdev_ref(pool: Pool, vdev: Vdev) -> EntityRef:
    return EntityRef(kind=EntityKind.VDEV, id=vdev.id, name=f"pool {pool.name} {vdev.name}")


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Top-level vdevs with children of different kinds, rotation rates or capacities."""
    inventory = context.inventory
    names = context.derived(disk_names)
    health_by_id: dict[str, DiskHealth] = {}
    for health in inventory.health.disks:
        health_by_id.setdefault(health.id, health)  # the first, as a search of the list finds
    for pool in inventory.zfs.pools:
        by_top: dict[str, list[Device]] = {}
        for device in devices(pool, inventory, names):
            by_top.setdefault(device.top.id, []).append(device)
        for top in pool.vdevs:
            members = by_top.get(top.id, [])
            if len(members) < 2:
                continue
            kinds = Counter(k for d in members if (k := _kind(d, health_by_id)))
            sizes = [s for d in members if (s := _size_bytes(d))]
            spread = (max(sizes) - min(sizes)) / max(sizes) * 100 if len(sizes) > 1 else 0.0
            mixed_kinds = len(kinds) > 1
            mixed_sizes = spread > limits.number("max_capacity_spread_pct", top.id)
            if not mixed_kinds and not mixed_sizes:
                continue
            parts = []
            facts = []
            if mixed_kinds:
                parts.append(", ".join(f"{n} × {k}" for k, n in kinds.most_common()))
                facts.append(Fact(name="kinds", value=len(kinds)))
            if mixed_sizes:
                parts.append(
                    f"capacities {capacity_text(min(sizes))} to {capacity_text(max(sizes))} "
                    f"({spread:.0f} % apart): the vdev holds only {capacity_text(min(sizes))} "
                    "per disk"
                )
                facts.append(Fact(name="capacity spread", value=round(spread, 1), unit="%"))
            facts += [
                Fact(
                    name="member",
                    value=f"{_kind(d, health_by_id) or 'unknown kind'}, "
                    + (capacity_text(s) if (s := _size_bytes(d)) else "size unknown"),
                    entity=d.ref,
                )
                for d in members
            ]
            ref = _vdev_ref(pool, top)
            yield Hit(
                entity=ref,
                title=f"{ref.name} mixes "
                + " and ".join(
                    w for w, on in (("disk kinds", mixed_kinds), ("capacities", mixed_sizes)) if on
                ),
                evidence=[Evidence(summary=f"{ref.name}: " + "; ".join(parts), facts=facts)],
            )


RULE = Rule(
    id="zfs.vdev.mixed",
    title="ZFS vdev mixing disk kinds or capacities",
    severity=Severity.WARNING,
    needs=(Input.ZFS,),
    derived=(disk_names,),
    remediation=(
        "Replace the odd disks with ones of the vdev's kind and capacity (`zpool replace`, one "
        "at a time, waiting for each resilver), or rebuild the pool with matched vdevs; keep "
        "SSDs for their own vdevs (special, log, cache) rather than beside HDDs."
    ),
    judge=judge,
    doc=(
        "A mirror or raidz vdev reads and writes its disks together: a mirror of an SSD and an "
        "HDD writes at the HDD's pace, a vdev of 4 TB and 12 TB disks holds 4 TB per disk, and "
        "disks of different rotation rates make the slower one the vdev's pace. The rule "
        "groups each top-level vdev's disks by kind (SSD, HDD and its rotation rate from SMART "
        "where read, else sysfs's `rotational`) and capacity, and names the odd ones by "
        "enclosure and slot."
    ),
    thresholds={
        "max_capacity_spread_pct": Threshold(
            5.0, "How far apart (of the largest) member capacities may be.", "%"
        ),
    },
)
