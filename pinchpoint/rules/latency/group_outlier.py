"""`latency.group.outlier`: an enclosure, chain, HBA port or HBA whose disks queue or wait more
than their peers' with the same work (field case 1)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import group_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.latency.standouts import (
    OUTLIER_THRESHOLDS,
    Measure,
    Standout,
    comparable,
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
    """Enclosures, chains, HBA ports and HBAs whose disks queue or wait more than their peers'.

    The lowest level that stands out is reported; a chain or HBA is left out when it stands
    out only because it holds an enclosure already reported."""
    inventory = context.inventory
    covered: set[str] = set()
    for level in (GroupLevel.ENCLOSURE, GroupLevel.CHAIN, GroupLevel.HBA_PORT, GroupLevel.HBA):
        peers = comparable(group_figures(context, level), limits)
        if len(peers) < limits.number("min_peers"):
            continue
        load = statistics.median(per_member_iops(g) for g in peers)
        flagged: set[str] = set()
        for group in peers:
            enclosures = _enclosures_of(level, group.id, inventory)
            if enclosures & covered:
                continue
            if per_member_iops(group) > limits.number("max_load_ratio", group.id) * load:
                continue  # more work per disk explains more queue
            found = standouts(group, peers, GROUP_MEASURES, limits)
            if not found:
                continue
            flagged |= enclosures
            yield _group_hit(group, peers, found, load)
        covered |= flagged


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
        title=f"{ref.name} queues and waits more than its peers",
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}{topology}: {standout_sentence(found)}, with the same work per "
                    f"disk ({per_member_iops(group):.0f} against {load:.0f} IOPS) as its "
                    f"{len(others)} peers"
                ),
                facts=facts,
                peers=[group_ref(g) for g in others],
            )
        ],
    )


RULE = Rule(
    id="latency.group.outlier",
    title="Enclosure, chain or HBA whose disks queue or wait more than their peers'",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.DISK_STATS),
    uses=(Input.HISTOGRAMS,),
    derived=(breakdown,),
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
        "`sas.enclosure.single_path` takes this finding as its proof."
    ),
    thresholds=OUTLIER_THRESHOLDS,
    role=Role.SYMPTOM,
)
