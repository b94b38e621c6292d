"""`sas.enclosure.single_path`: an enclosure reached through fewer HBA ports than its I/O
modules are built for (field case 1)."""

from __future__ import annotations

from collections.abc import Iterator
from statistics import median

from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.sas import Enclosure
from pinchpoint.naming import enclosure_ref, group_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.derived.chains import daisy_chains
from pinchpoint.rules.derived.hba_ports import hba_ports
from pinchpoint.rules.sas.wording import and_join
from pinchpoint.units import latency_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures reached through fewer HBA ports than their I/O modules are built for."""
    inventory = context.inventory
    ports = context.derived(hba_ports)
    chains = context.derived(daisy_chains)
    for enclosure in inventory.sas.enclosures:
        if enclosure.hba_ports >= enclosure.hba_ports_expected:
            continue
        ref = enclosure_ref(enclosure)
        chain_ports = [
            side.hba_port_id
            for chain in chains
            if enclosure.id in chain.enclosure_ids
            for side in chain.sides
        ]
        missing = [p for p in dict.fromkeys(chain_ports) if p not in enclosure.hba_port_ids]
        present = [ports.name(p) for p in enclosure.hba_port_ids]
        modules = len(enclosure.ses_devices)
        summary = (
            f"{enclosure.name} is reached through {enclosure.hba_ports} of "
            f"{enclosure.hba_ports_expected} expected HBA ports "
            f"({enclosure.hba_ports_expected_reason})"
        )
        if present:
            summary += f"; only through {and_join(present)}"
        if missing:
            summary += (
                f"; its chain's other side, {and_join([ports.name(p) for p in missing])}, "
                "does not reach it"
            )
        facts = [
            Fact(name="paths present", value=enclosure.hba_ports, unit="HBA ports"),
            Fact(name="paths expected", value=enclosure.hba_ports_expected, unit="HBA ports"),
            Fact(name="I/O modules answering", value=modules),
        ]
        facts += [Fact(name="reached through", value=ports.name(p)) for p in enclosure.hba_port_ids]
        facts += [Fact(name="not reached through", value=ports.name(p)) for p in missing]
        peers = [
            enclosure_ref(e)
            for e in inventory.sas.enclosures
            if e.id != enclosure.id and e.hba_ports >= e.hba_ports_expected
        ]
        evidence = [Evidence(summary=summary, facts=facts, peers=peers)]
        queue = _queue_evidence(enclosure, context)
        if queue is not None:
            evidence.append(queue)
        yield Hit(
            entity=ref,
            title=(
                f"{enclosure.name} has {enclosure.hba_ports} of {enclosure.hba_ports_expected} "
                "SAS paths"
            ),
            evidence=evidence,
        )


def _queue_evidence(enclosure: Enclosure, context: RuleContext) -> Evidence | None:
    """The enclosure's queue per disk and share of slow I/Os against the other enclosures'
    medians; None without statistics."""
    groups = {g.id: g for g in group_figures(context, GroupLevel.ENCLOSURE)}
    own = groups.get(enclosure.id)
    if own is None or own.queue_per_member is None:
        return None
    peers = [g for g in groups.values() if g.id != enclosure.id and g.queue_per_member is not None]
    if not peers:
        return None
    peer_queue = median(g.queue_per_member for g in peers if g.queue_per_member is not None)
    facts = [
        Fact(name="queue per disk", value=round(own.queue_per_member, 2), unit="I/Os"),
        Fact(name="peers' median queue per disk", value=round(peer_queue, 2), unit="I/Os"),
    ]
    summary = (
        f"{enclosure.name}'s disks hold {own.queue_per_member:.1f} I/Os each (active plus "
        f"waiting) against a median of {peer_queue:.1f} on {len(peers)} other enclosures"
    )
    peer_shares = [g.share_slower for g in peers if g.share_slower is not None]
    if own.share_slower is not None and peer_shares:
        threshold = latency_text(context.slower_than_s)
        peer_share = median(peer_shares)
        facts += [
            Fact(name=f"I/Os slower than {threshold}", value=_pct(own.share_slower), unit="%"),
            Fact(
                name=f"peers' median share slower than {threshold}",
                value=_pct(peer_share),
                unit="%",
            ),
        ]
        summary += (
            f"; {_pct(own.share_slower):g} % of its I/Os took longer than {threshold} "
            f"against {_pct(peer_share):g} %"
        )
    enclosures = {e.id: e for e in context.inventory.sas.enclosures}
    peer_refs = [
        enclosure_ref(enclosures[g.id]) if g.id in enclosures else group_ref(g) for g in peers
    ]
    return Evidence(summary=summary, facts=facts, peers=peer_refs)


def _pct(share: float) -> float:
    return round(share * 100, 1)


RULE = Rule(
    id="sas.enclosure.single_path",
    title="Enclosure reached through fewer HBA ports than expected",
    severity=Severity.CRITICAL,
    needs=(Input.SAS,),
    uses=(Input.DISK_STATS, Input.HISTOGRAMS),
    derived=(hba_ports, daisy_chains, breakdown),
    remediation=(
        "Cable the enclosure's other I/O module to the HBA port its chain's other side uses "
        "(check the cable and the SFF-8644 connectors at both ends; reseat or replace it), then "
        "rescan and confirm every disk shows two paths."
    ),
    judge=judge,
    doc=(
        "An enclosure with two I/O modules (or dual-ported disks) is built to be reached "
        "through two HBA ports. With one cabled, all its disks share one wide port: no "
        "redundancy, and under load its disks queue more than their peers. Field case 1: "
        "JBODs 003 and 012 had one SAS path; grouped by JBOD their share of I/Os slower than "
        "220 ms and their queue per disk stood out. NetApp calls it `config.NotMultiPath`. "
        "With statistics the evidence adds the enclosure's queue per disk and share of slow "
        "I/Os against the other enclosures."
    ),
    role=Role.CAUSE,
)
