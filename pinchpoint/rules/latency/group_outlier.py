"""`latency.group.outlier`: an enclosure, chain, HBA port or HBA — or a controller outside the
SAS fabric — whose disks queue or wait more than their peers' with the same work (field case
1)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence

from pinchpoint.model.block import BlockDevice
from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import group_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.block_disks import controller_disks
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.latency.standouts import (
    OUTLIER_THRESHOLDS,
    Measure,
    Standout,
    comparable,
    peer_figures,
    per_member_iops,
    standout_facts,
    standout_sentence,
    standouts,
)

GROUP_MEASURES = (
    Measure("queue per disk", "I/Os", lambda g: g.queue_per_member, "min_queue_difference"),
    Measure("mean wait", "ms", lambda g: g.await_ms, "min_wait_difference_ms"),
    Measure("p99 latency", "ms", lambda g: g.p99_ms, "min_p99_difference_ms"),
    Measure(
        "share of slow I/Os",
        "%",
        lambda g: None if g.share_slower is None else 100.0 * g.share_slower,
        "min_share_difference_pct",
    ),
)


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures, chains, HBA ports and HBAs (then disk controllers outside the SAS fabric)
    whose disks queue or wait more than their peers'.

    The lowest level that stands out is reported; a chain or HBA is left out when it stands
    out only because it holds an enclosure already reported."""
    inventory = context.inventory
    covered: set[str] = set()
    levels = (
        GroupLevel.ENCLOSURE,
        GroupLevel.CHAIN,
        GroupLevel.HBA_PORT,
        GroupLevel.HBA,
        GroupLevel.CONTROLLER,
    )
    for level in levels:
        groups = group_figures(context, level)
        if level is GroupLevel.CONTROLLER:
            sets = _alike_controllers(groups, context.derived(controller_disks))
        else:
            sets = [groups]
        for alike in sets:
            peers = comparable(alike, limits)
            if len(peers) < limits.number("min_peers"):
                continue
            load = statistics.median(per_member_iops(g) for g in peers)
            flagged: set[str] = set()
            among = peer_figures(peers, GROUP_MEASURES)
            for group in peers:
                enclosures = _enclosures_of(level, group.id, inventory)
                if enclosures & covered:
                    continue
                if per_member_iops(group) > limits.number("max_load_ratio", group.id) * load:
                    continue  # more work per disk explains more queue
                found = standouts(group, peers, GROUP_MEASURES, limits, among)
                if not found:
                    continue
                flagged |= enclosures
                yield _group_hit(group, peers, found, load)
            covered |= flagged


CONTROLLER_REMEDIATION = (
    "Find why this controller's disks wait longer with the same work: check its PCIe link "
    "(`pinchpoint inventory`: a card trained at fewer lanes or a lower speed), its driver and "
    "firmware against its peers', its disks' SMART data and queue settings "
    "(`/sys/block/X/queue/nr_requests`, `/sys/block/X/device/queue_depth`); for a virtio "
    "disk, the storage behind it on the hypervisor. Spread the load over the controllers."
)


def _alike_controllers(
    groups: Sequence[GroupFigures], disks: Sequence[BlockDevice]
) -> list[list[GroupFigures]]:
    """Controllers outside the SAS fabric that can be compared: of one kind (AHCI with AHCI)
    and holding the same kind of disks (spinning or flash). A controller of one disk (an
    NVMe drive, a virtio disk) is that disk, which `latency.disk.outlier` judges."""
    by_id = {d.id: d for d in disks}
    sets: dict[tuple[str, str], list[GroupFigures]] = {}
    for group in groups:
        if group.members < 2:
            continue
        members = [by_id[m] for m in group.member_ids if m in by_id]
        controllers = {m.controller.kind.value for m in members if m.controller is not None}
        spins = {str(m.rotational) for m in members}
        key = ("/".join(sorted(controllers)), "/".join(sorted(spins)))
        sets.setdefault(key, []).append(group)
    return list(sets.values())


def _enclosures_of(level: GroupLevel, group_id: str, inventory: Inventory) -> set[str]:
    """The enclosures a group of `level` holds (itself for an enclosure)."""
    if level is GroupLevel.ENCLOSURE:
        return {group_id}
    found: set[str] = set()
    for chain in inventory.sas.chains:
        if group_id in (chain.id, chain.hba_port_id, chain.hba_id):
            found.update(chain.enclosure_ids)
    return found


def _group_hit(
    group: GroupFigures, peers: Sequence[GroupFigures], found: Sequence[Standout], load: float
) -> Hit:
    ref = group_ref(group)
    topology = f" ({group.detail})" if group.detail else ""
    others = [g for g in peers if g.id != group.id]
    facts = [
        *standout_facts(found),
        Fact(name="IOPS per disk", value=round(per_member_iops(group), 1)),
        Fact(name="peers' median IOPS per disk", value=round(load, 1)),
        Fact(name="disks measured", value=group.measured),
    ]
    if group.detail:
        facts.append(Fact(name="topology", value=group.detail))
    facts += [
        Fact(
            name="peer queue per disk",
            value=round(g.queue_per_member or 0.0, 2),
            unit="I/Os",
            entity=group_ref(g),
        )
        for g in others
    ]
    return Hit(
        entity=ref,
        remediation=CONTROLLER_REMEDIATION if group.level is GroupLevel.CONTROLLER else None,
        title=f"{ref.name} queues and waits more than its peers",
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}{topology}: {standout_sentence(found)}, with the same work per "
                    f"disk ({per_member_iops(group):.0f} against {load:.0f} IOPS) as its "
                    f"{plural(len(others), 'peer')}"
                ),
                facts=facts,
                peers=[group_ref(g) for g in others],
            )
        ],
    )


RULE = Rule(
    id="latency.group.outlier",
    title="Enclosure, chain, HBA or controller whose disks queue or wait more than their peers'",
    severity=Severity.WARNING,
    needs=(Input.DISK_STATS,),
    uses=(Input.SAS, Input.BLOCK, Input.HISTOGRAMS),
    derived=(breakdown, controller_disks),
    remediation=(
        "Find why this group's disks wait longer with the same work: count its SAS paths "
        "(`pinchpoint inventory`), compare its chain depth with the others, check its "
        "phys for downgraded links and errors; recable so that every group has the same "
        "paths and chain depth."
    ),
    judge=judge,
    doc=(
        "Field case 1: per disk, the slow I/Os were spread evenly over all 144 disks; grouped "
        "by JBOD, two JBODs stood out with a higher share of slow I/Os and more I/Os queued "
        "per disk although every JBOD got the same work. They had one SAS path instead of "
        "two. The rule compares each enclosure (then chain, HBA port and HBA) with its peers "
        "on queue per disk, mean wait, p99 and the share of I/Os slower than the breakdown's "
        "line, with robust statistics — at least 1.5× the peers' median, 3.5 scaled median "
        "absolute deviations above it, and a minimum difference — so healthy noise never "
        "fires. Groups doing much more work per disk are not judged. The group's topology "
        "(paths present, chain depth) is in the evidence, and a missing path found by "
        "`sas.enclosure.single_path` takes this finding as its proof. Disks outside the SAS "
        "fabric are grouped by their controller (`AHCI 0000:00:1f.2`, `NVMe nvme0 "
        "(0000:3b:00.0)`, `virtio 0000:00:05.0`), and controllers of one kind holding the "
        "same kind of disks are compared the same way."
    ),
    thresholds=OUTLIER_THRESHOLDS,
    role=Role.SYMPTOM,
)
