"""`sas.chain.imbalance`: daisy chains whose enclosure counts differ by more than one, with the
balanced layout for the HBA connectors present and the moves that reach it (field case 1)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import AttachedKind, Hba
from pinchpoint.naming import chain_ref, hba_connector_name
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.derived.chains import DaisyChain, daisy_chains
from pinchpoint.rules.derived.hba_ports import HbaPorts, hba_ports
from pinchpoint.rules.sas.wording import and_join


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Daisy chains whose enclosure counts differ by more than the allowed difference, with
    the balanced layout for the HBA ports present and the moves that reach it."""
    inventory = context.inventory
    names = {e.id: e.name for e in inventory.sas.enclosures}
    ports = context.derived(hba_ports)
    daisy = context.derived(daisy_chains)
    if len(daisy) < 2:
        return
    sizes = [len(chain.enclosure_ids) for chain in daisy]
    allowed = limits.number("max_difference")
    if max(sizes) - min(sizes) <= allowed:
        return
    sides = max(len(chain.sides) for chain in daisy)
    free = _free_ports(inventory)
    ports_present = sum(len(chain.sides) for chain in daisy) + len(free)
    total = sum(sizes)
    chains_possible = max(1, min(ports_present // sides, total))
    balanced_max = -(-total // chains_possible)
    balanced = [
        total // chains_possible + (1 if i < total % chains_possible else 0)
        for i in range(chains_possible)
    ]
    layout = " + ".join(str(n) for n in balanced)
    groups = {g.id: g for g in group_figures(context, GroupLevel.ENCLOSURE)}
    queues = [_chain_queue(chain.enclosure_ids, groups) for chain in daisy]
    new_chains = _new_chain_ports(free, sides)
    short = [i for i, size in enumerate(sizes) if size < balanced_max]
    long = [i for i, size in enumerate(sizes) if size > balanced_max] or [sizes.index(max(sizes))]
    for index in long:
        chain = daisy[index]
        enclosures = chain.enclosure_ids
        ref = chain_ref(chain.head, inventory)
        surplus = enclosures[balanced_max:] if sizes[index] > balanced_max else enclosures[-1:]
        moves = _moves(surplus, new_chains, short, daisy, balanced_max, names, ports)
        described = "; ".join(
            f"{plural(len(c.enclosure_ids), 'enclosure')} on "
            f"{and_join([ports.name(s.hba_port_id) for s in c.sides])}"
            for c in daisy
        )
        summary = (
            f"{sizes[index]} enclosures in this chain beside chains of "
            f"{', '.join(str(s) for i, s in enumerate(sizes) if i != index)} ({described}); "
            f"with {plural(ports_present, 'HBA port')} for chains of {plural(sides, 'side')} "
            f"the balanced layout is {chains_possible} chains: {layout}"
        )
        evidence = [
            Evidence(
                summary=summary,
                facts=[
                    Fact(name="enclosures in this chain", value=sizes[index]),
                    *[
                        Fact(
                            name="enclosures in chain",
                            value=len(c.enclosure_ids),
                            entity=chain_ref(c.head, inventory),
                        )
                        for i, c in enumerate(daisy)
                        if i != index
                    ],
                    Fact(name="HBA ports present", value=ports_present),
                    Fact(name="unused HBA connectors", value=len(free)),
                    Fact(name="balanced layout", value=layout, unit="enclosures per chain"),
                    *[Fact(name="move", value=m) for m in moves],
                ],
                peers=[chain_ref(c.head, inventory) for i, c in enumerate(daisy) if i != index],
            )
        ]
        measured = _queue_comparison(index, daisy, queues, names, inventory)
        if measured is not None:
            evidence.append(measured)
        yield Hit(
            entity=ref,
            title=(
                f"Chains of {' + '.join(str(s) for s in sorted(sizes, reverse=True))} enclosures; "
                f"balanced: {layout}"
            ),
            evidence=evidence,
            remediation=(
                f"Recable to {chains_possible} chains of {layout} enclosures: "
                + "; ".join(moves)
                + ". Cable each chain's two I/O modules to two different HBAs."
                if moves
                else None
            ),
        )


@dataclass(frozen=True)
class FreePort:
    """An HBA connector with nothing cabled to it."""

    hba: Hba
    connector: int

    @property
    def name(self) -> str:
        return hba_connector_name(self.hba, self.connector)


def _free_ports(inventory: Inventory) -> list[FreePort]:
    """HBA connectors (groups of 4 phys) that carry no chain, in HBA order."""
    used = {c.hba_port_id for c in inventory.sas.chains}
    free = []
    for hba in inventory.sas.hbas:
        phys = [p for port in hba.ports for p in port.phys] + list(hba.idle_phys)
        in_use = {port.connector for port in hba.ports if port.id in used}
        in_use |= {
            port.connector for port in hba.ports if port.attached_kind is not AttachedKind.NOTHING
        }
        connectors = sorted({p.phy_identifier // 4 for p in phys} - in_use)
        free += [FreePort(hba, c) for c in connectors]
    return free


def _new_chain_ports(free: list[FreePort], sides: int) -> list[list[FreePort]]:
    """Free connectors grouped `sides` at a time, each group on as many different HBAs as
    possible (a chain's I/O modules belong on different adapters)."""
    left = list(free)
    groups = []
    while len(left) >= sides:
        group: list[FreePort] = []
        for port in list(left):
            if len(group) < sides and all(p.hba.id != port.hba.id for p in group):
                group.append(port)
                left.remove(port)
        for port in list(left):
            if len(group) < sides:
                group.append(port)
                left.remove(port)
        groups.append(group)
    return groups


def _chain_queue(enclosure_ids: list[str], groups: dict[str, GroupFigures]) -> float | None:
    """Mean queue per disk over a daisy chain's measured enclosures; None without figures."""
    total = 0.0
    disks = 0
    for enclosure_id in enclosure_ids:
        group = groups.get(enclosure_id)
        if group is None or group.queue_per_member is None or not group.measured:
            continue
        total += group.queue_per_member * group.measured
        disks += group.measured
    return total / disks if disks else None


def _moves(
    surplus: list[str],
    new_chains: list[list[FreePort]],
    short: list[int],
    daisy: list[DaisyChain],
    balanced_max: int,
    names: dict[str, str],
    ports: HbaPorts,
) -> list[str]:
    """Where each surplus enclosure goes: a new chain on unused connectors, else the end of a
    chain shorter than the balanced size."""
    moves = []
    left = list(surplus)
    for free in new_chains:
        if not left:
            break
        taken, left = left[:balanced_max], left[balanced_max:]
        moves.append(
            f"move {and_join([names.get(e, e) for e in taken])} to a new chain cabled from "
            f"{and_join([p.name for p in free])}"
        )
    for index in short:
        if not left:
            break
        chain = daisy[index]
        room = balanced_max - len(chain.enclosure_ids)
        taken, left = left[:room], left[room:]
        if taken:
            moves.append(
                f"move {and_join([names.get(e, e) for e in taken])} to the end of the chain of "
                f"{and_join([names.get(e, e) for e in chain.enclosure_ids])} "
                f"({and_join([ports.name(s.hba_port_id) for s in chain.sides])})"
            )
    return moves


def _queue_comparison(
    index: int,
    daisy: list[DaisyChain],
    queues: list[float | None],
    names: dict[str, str],
    inventory: Inventory,
) -> Evidence | None:
    """The measured queue per disk of this chain against the others: the enclosures of the
    shortest chain are the faster ones when the imbalance costs anything."""
    own = queues[index]
    if own is None:
        return None
    others = [(i, q) for i, q in enumerate(queues) if i != index and q is not None]
    if not others:
        return None
    fastest, fastest_queue = min(others, key=lambda item: item[1] or 0.0)
    enclosures = daisy[index].enclosure_ids
    fast_enclosures = daisy[fastest].enclosure_ids
    fast_names = and_join([names.get(e, e) for e in fast_enclosures])
    if fastest_queue is not None and fastest_queue < own:
        summary = (
            f"the {len(enclosures)} enclosures of this chain queue {own:.1f} I/Os per disk; "
            f"{fast_names} in the chain of {len(fast_enclosures)} queue {fastest_queue:.1f}: "
            f"they are the faster ones under the same workload"
        )
    else:
        summary = (
            f"the enclosures of this chain queue {own:.1f} I/Os per disk, those of the chain "
            f"of {len(fast_enclosures)} ({fast_names}) {fastest_queue:.1f}: no cost measured yet"
        )
    facts = [Fact(name="queue per disk in this chain", value=round(own, 2), unit="I/Os")]
    for i, queue in others:
        chain = daisy[i]
        facts.append(
            Fact(
                name=f"queue per disk in the chain of {len(chain.enclosure_ids)}",
                value=round(queue or 0.0, 2),
                unit="I/Os",
                entity=chain_ref(chain.head, inventory),
            )
        )
    return Evidence(summary=summary, facts=facts)


RULE = Rule(
    id="sas.chain.imbalance",
    title="Chains with enclosure counts that differ by more than one",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    uses=(Input.DISK_STATS, Input.HISTOGRAMS),
    derived=(hba_ports, daisy_chains, breakdown),
    remediation=(
        "Recable into the balanced layout: move enclosures from the end of the long chain to "
        "unused HBA connectors (or to the shortest chains), cabling each chain's two I/O "
        "modules to two different HBAs."
    ),
    judge=judge,
    doc=(
        "Enclosures in a long chain share one HBA port among more disks than those in a "
        "short chain, so under the same workload they queue more and the pool runs at the "
        "pace of the slowest. Field case 1 after recabling: JBODs 002 and 00B in a chain of 2 "
        "averaged about 197 queued I/Os against 260–270 for the JBODs in chains of 4; with 3 "
        "HBAs the balanced layout is 3 chains of 2. The finding gives the balanced layout for "
        "the HBA connectors present and which enclosures to move where; with statistics, "
        "the queue per disk of each chain."
    ),
    thresholds={
        "max_difference": Threshold(
            1,
            "Largest difference in enclosure count between chains that is accepted.",
            "enclosures",
        ),
    },
    role=Role.CAUSE,
)
