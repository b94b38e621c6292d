"""SAS fabric rules: paths, chains, links, ports and phys (field case 1)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from statistics import median

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import (
    AttachedKind,
    Chain,
    Disk,
    Enclosure,
    Hba,
    HbaPort,
    Phy,
    PhyErrorCounters,
)
from pinchpoint.naming import (
    chain_ref,
    disk_ref,
    enclosure_ref,
    expander_phy_ref,
    hba_phy_ref,
    hba_port_ref,
)
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold

CONNECTOR_LANES = 4  # phys of one external connector (SFF-8644, SFF-8088): one wide port


def _ports(inventory: Inventory) -> dict[str, tuple[Hba, HbaPort]]:
    """Every HBA port by id, with its HBA."""
    return {port.id: (hba, port) for hba in inventory.sas.hbas for port in hba.ports}


def _port_name(port_id: str, ports: dict[str, tuple[Hba, HbaPort]]) -> str:
    """What a technician calls an HBA port: board and connector; the raw id when unknown."""
    if port_id in ports:
        hba, port = ports[port_id]
        return hba_port_ref(hba, port).name
    adapter, _, route = port_id.partition("/")
    if route.startswith("target:"):  # a driver without SAS ports: the target it reaches
        return f"{adapter.removeprefix('hba:')} target {route.removeprefix('target:')}"
    return port_id


def _hba_of(port_id: str, ports: dict[str, tuple[Hba, HbaPort]]) -> str:
    """The HBA id a route goes through (`hba:…/target:…` routes where the driver shows no
    ports carry it before the slash)."""
    if port_id in ports:
        return ports[port_id][0].id
    return port_id.split("/", 1)[0]


def _enclosure_names(inventory: Inventory) -> dict[str, str]:
    return {e.id: e.name for e in inventory.sas.enclosures}


def _and(names: list[str]) -> str:
    """`A`, `A and B`, `A, B and C`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# --- enclosures and disks: paths ---------------------------------------------------------


def _daisy_chains(inventory: Inventory) -> list[list[Chain]]:
    """The port chains that reach the same enclosures, grouped: one group per cabled daisy
    chain (its A side and its B side), in inventory order."""
    groups: list[tuple[set[str], list[Chain]]] = []
    for chain in inventory.sas.chains:
        members = set(chain.enclosure_ids)
        joined = [g for g in groups if g[0] & members]
        for group in joined:
            groups.remove(group)
            members |= group[0]
        merged = [c for g in joined for c in g[1]] + [chain]
        groups.append((members, merged))
    order = {c.id: i for i, c in enumerate(inventory.sas.chains)}
    result = [sorted(g[1], key=lambda c: order[c.id]) for g in groups]
    return sorted(result, key=lambda chains: order[chains[0].id])


def _enclosures_of(chains: list[Chain]) -> list[str]:
    """The enclosures of one daisy chain in cabling order from its longest side."""
    longest = max(chains, key=lambda c: c.enclosure_count)
    rest = [e for c in chains for e in c.enclosure_ids if e not in longest.enclosure_ids]
    return list(dict.fromkeys([*longest.enclosure_ids, *rest]))


def _group_by_id(context: RuleContext, level: GroupLevel) -> dict[str, GroupFigures]:
    return {g.id: g for g in context.groups(level)}


def _queue_evidence(
    rule: str, enclosure: Enclosure, context: RuleContext, inventory: Inventory
) -> Evidence | None:
    """The enclosure's queue per disk and share of slow I/Os against the other enclosures'
    medians; None without statistics."""
    groups = _group_by_id(context, GroupLevel.ENCLOSURE)
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
        threshold_ms = context.slower_than_s * 1000
        peer_share = median(peer_shares)
        facts += [
            Fact(
                name=f"I/Os slower than {threshold_ms:g} ms", value=_pct(own.share_slower), unit="%"
            ),
            Fact(
                name=f"peers' median share slower than {threshold_ms:g} ms",
                value=_pct(peer_share),
                unit="%",
            ),
        ]
        summary += (
            f"; {_pct(own.share_slower):g} % of its I/Os took longer than {threshold_ms:g} ms "
            f"against {_pct(peer_share):g} %"
        )
    names = _enclosure_names(inventory)
    peer_refs = [
        EntityRef(kind=enclosure_ref(enclosure).kind, id=g.id, name=names.get(g.id, g.name))
        for g in peers
    ]
    return Evidence(rule=rule, summary=summary, facts=facts, peers=peer_refs)


def _pct(share: float) -> float:
    return round(share * 100, 1)


def single_path_enclosures(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures reached through fewer HBA ports than their I/O modules are built for."""
    inventory = context.inventory
    ports = _ports(inventory)
    chains = _daisy_chains(inventory)
    for enclosure in inventory.sas.enclosures:
        if enclosure.paths >= enclosure.paths_expected:
            continue
        ref = enclosure_ref(enclosure)
        chain_ports = [
            c.hba_port_id
            for group in chains
            if enclosure.id in _enclosures_of(group)
            for c in group
        ]
        missing = [p for p in dict.fromkeys(chain_ports) if p not in enclosure.hba_port_ids]
        present = [_port_name(p, ports) for p in enclosure.hba_port_ids]
        modules = len(enclosure.ses_devices)
        summary = (
            f"{enclosure.name} is reached through {enclosure.paths} of {enclosure.paths_expected} "
            f"expected HBA ports ({enclosure.paths_expected_reason})"
        )
        if present:
            summary += f"; only through {_and(present)}"
        if missing:
            summary += (
                f"; its chain's other side, {_and([_port_name(p, ports) for p in missing])}, "
                "does not reach it"
            )
        facts = [
            Fact(name="paths present", value=enclosure.paths, unit="HBA ports"),
            Fact(name="paths expected", value=enclosure.paths_expected, unit="HBA ports"),
            Fact(name="I/O modules answering", value=modules),
        ]
        facts += [
            Fact(name="reached through", value=_port_name(p, ports)) for p in enclosure.hba_port_ids
        ]
        facts += [Fact(name="not reached through", value=_port_name(p, ports)) for p in missing]
        peers = [
            enclosure_ref(e)
            for e in inventory.sas.enclosures
            if e.id != enclosure.id and e.paths >= e.paths_expected
        ]
        evidence = [
            Evidence(rule="sas.enclosure.single_path", summary=summary, facts=facts, peers=peers)
        ]
        queue = _queue_evidence("sas.enclosure.single_path", enclosure, context, inventory)
        if queue is not None:
            evidence.append(queue)
        yield Hit(
            entity=ref,
            title=f"{enclosure.name} has {enclosure.paths} of {enclosure.paths_expected} SAS paths",
            evidence=evidence,
        )


def same_hba_enclosures(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures with two paths or more, all through ports of one HBA."""
    inventory = context.inventory
    ports = _ports(inventory)
    hbas = {h.id: h for h in inventory.sas.hbas}
    for enclosure in inventory.sas.enclosures:
        if len(enclosure.hba_port_ids) < 2:
            continue
        adapters = {_hba_of(p, ports) for p in enclosure.hba_port_ids}
        if len(adapters) != 1:
            continue
        hba_id = adapters.pop()
        hba = hbas.get(hba_id)
        board = hba.label if hba is not None else hba_id
        routes = [_port_name(p, ports) for p in enclosure.hba_port_ids]
        others = [h for h in inventory.sas.hbas if h.id != hba_id]
        summary = (
            f"all {len(routes)} paths of {enclosure.name} run through one adapter, {board} "
            f"({_and(routes)}): if that HBA fails, the enclosure is lost"
        )
        if others:
            summary += f"; the host has {len(others)} other SAS HBA(s)"
        yield Hit(
            entity=enclosure_ref(enclosure),
            title=f"Both paths of {enclosure.name} go through one HBA ({board})",
            evidence=[
                Evidence(
                    rule="sas.enclosure.same_hba",
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=len(routes), unit="HBA ports"),
                        Fact(name="adapters", value=1, unit="HBAs"),
                        Fact(name="other SAS HBAs on the host", value=len(others), unit="HBAs"),
                        *[Fact(name="reached through", value=r) for r in routes],
                    ],
                )
            ],
        )


def disks_missing_a_path(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks reached through fewer HBA ports than the other disks of their enclosure that speak
    the same protocol (a SATA disk has one port: it is compared with SATA disks only)."""
    inventory = context.inventory
    ports = _ports(inventory)
    by_enclosure: dict[tuple[str, str | None], list[Disk]] = {}
    for disk in inventory.sas.disks:
        if disk.enclosure_id:
            by_enclosure.setdefault((disk.enclosure_id, disk.protocol), []).append(disk)
    for disk in inventory.sas.disks:
        if not disk.enclosure_id:
            continue
        alike = by_enclosure[(disk.enclosure_id, disk.protocol)]
        peers = [d for d in alike if d.id != disk.id]
        if not peers:
            continue
        expected = max(d.path_count for d in peers)
        if disk.path_count >= expected:
            continue
        own = {p.hba_port_id for p in disk.paths if p.hba_port_id}
        reached = {p.hba_port_id for d in peers for p in d.paths if p.hba_port_id}
        missing = sorted(reached - own)
        ref = disk_ref(disk, inventory)
        with_all = sum(1 for d in peers if d.path_count == expected)
        summary = (
            f"{ref.name} is reached through {disk.path_count} HBA port(s) where {with_all} other "
            f"disks of its enclosure have {expected}"
        )
        if missing:
            summary += f"; missing: {_and([_port_name(p, ports) for p in missing])}"
        yield Hit(
            entity=ref,
            title=f"{ref.name} has {disk.path_count} of {expected} paths",
            evidence=[
                Evidence(
                    rule="sas.disk.missing_path",
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=disk.path_count, unit="HBA ports"),
                        Fact(name="paths of its peers", value=expected, unit="HBA ports"),
                        Fact(name="disk ports", value=len(disk.port_sas_addresses)),
                        *[
                            Fact(name="not reached through", value=_port_name(p, ports))
                            for p in missing
                        ],
                    ],
                    peers=[disk_ref(d, inventory) for d in peers],
                )
            ],
        )


# --- chains ------------------------------------------------------------------------------


def chains_too_deep(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Chains (or branches behind a switch) holding more enclosures than the maximum."""
    inventory = context.inventory
    for chain in inventory.sas.chains:
        maximum = limits.number("max_enclosures", chain.id)
        if chain.depth <= maximum:
            continue
        ref = chain_ref(chain, inventory)
        yield Hit(
            entity=ref,
            title=f"{chain.depth} enclosures in one chain (at most {maximum:g})",
            evidence=[
                Evidence(
                    rule="sas.chain.too_deep",
                    summary=(
                        f"{ref.name}: {chain.depth} enclosures share one HBA port; every "
                        f"enclosure past the first crosses another expander and shares the "
                        f"port's bandwidth"
                    ),
                    facts=[
                        Fact(name="enclosures in the chain", value=chain.depth),
                        Fact(name="maximum", value=maximum),
                    ],
                )
            ],
        )


@dataclass(frozen=True)
class FreePort:
    """An HBA connector with nothing cabled to it."""

    hba: Hba
    connector: int

    @property
    def name(self) -> str:
        return f"{self.hba.label} connector {self.connector}"


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


def imbalanced_chains(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Daisy chains whose enclosure counts differ by more than the allowed difference, with
    the balanced layout for the HBA ports present and the moves that reach it."""
    inventory = context.inventory
    names = _enclosure_names(inventory)
    daisy = [(group, _enclosures_of(group)) for group in _daisy_chains(inventory)]
    if len(daisy) < 2:
        return
    sizes = [len(enclosures) for _, enclosures in daisy]
    allowed = limits.number("max_difference")
    if max(sizes) - min(sizes) <= allowed:
        return
    sides = max(len(group) for group, _ in daisy)
    free = _free_ports(inventory)
    ports_present = sum(len(group) for group, _ in daisy) + len(free)
    total = sum(sizes)
    chains_possible = max(1, min(ports_present // sides, total))
    balanced_max = -(-total // chains_possible)
    balanced = [
        total // chains_possible + (1 if i < total % chains_possible else 0)
        for i in range(chains_possible)
    ]
    layout = " + ".join(str(n) for n in balanced)
    groups = _group_by_id(context, GroupLevel.ENCLOSURE)
    queues = [_chain_queue(enclosures, groups) for _, enclosures in daisy]
    new_chains = _new_chain_ports(free, sides)
    short = [i for i, size in enumerate(sizes) if size < balanced_max]
    long = [i for i, size in enumerate(sizes) if size > balanced_max] or [sizes.index(max(sizes))]
    for index in long:
        group, enclosures = daisy[index]
        head = max(group, key=lambda c: c.enclosure_count)
        ref = chain_ref(head, inventory)
        surplus = enclosures[balanced_max:] if sizes[index] > balanced_max else enclosures[-1:]
        moves = _moves(surplus, new_chains, short, daisy, balanced_max, names, inventory)
        described = "; ".join(
            f"{len(e)} enclosure(s) on {_and([_chain_name(c, inventory) for c in g])}"
            for g, e in daisy
        )
        summary = (
            f"{sizes[index]} enclosures in this chain beside chains of "
            f"{', '.join(str(s) for i, s in enumerate(sizes) if i != index)} ({described}); "
            f"with {ports_present} HBA ports for chains of {sides} side(s) the balanced "
            f"layout is {chains_possible} chains: {layout}"
        )
        evidence = [
            Evidence(
                rule="sas.chain.imbalance",
                summary=summary,
                facts=[
                    Fact(name="enclosures in this chain", value=sizes[index]),
                    *[
                        Fact(
                            name="enclosures in chain",
                            value=len(e),
                            entity=chain_ref(max(g, key=lambda c: c.enclosure_count), inventory),
                        )
                        for i, (g, e) in enumerate(daisy)
                        if i != index
                    ],
                    Fact(name="HBA ports present", value=ports_present),
                    Fact(name="unused HBA connectors", value=len(free)),
                    Fact(name="balanced layout", value=layout, unit="enclosures per chain"),
                    *[Fact(name="move", value=m) for m in moves],
                ],
                peers=[
                    chain_ref(max(g, key=lambda c: c.enclosure_count), inventory)
                    for i, (g, _) in enumerate(daisy)
                    if i != index
                ],
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


def _chain_name(chain: Chain, inventory: Inventory) -> str:
    ports = _ports(inventory)
    return _port_name(chain.hba_port_id, ports)


def _moves(
    surplus: list[str],
    new_chains: list[list[FreePort]],
    short: list[int],
    daisy: list[tuple[list[Chain], list[str]]],
    balanced_max: int,
    names: dict[str, str],
    inventory: Inventory,
) -> list[str]:
    """Where each surplus enclosure goes: a new chain on unused connectors, else the end of a
    chain shorter than the balanced size."""
    moves = []
    left = list(surplus)
    for ports in new_chains:
        if not left:
            break
        taken, left = left[:balanced_max], left[balanced_max:]
        moves.append(
            f"move {_and([names.get(e, e) for e in taken])} to a new chain cabled from "
            f"{_and([p.name for p in ports])}"
        )
    for index in short:
        if not left:
            break
        group, enclosures = daisy[index]
        room = balanced_max - len(enclosures)
        taken, left = left[:room], left[room:]
        if taken:
            moves.append(
                f"move {_and([names.get(e, e) for e in taken])} to the end of the chain of "
                f"{_and([names.get(e, e) for e in enclosures])} "
                f"({_and([_chain_name(c, inventory) for c in group])})"
            )
    return moves


def _queue_comparison(
    index: int,
    daisy: list[tuple[list[Chain], list[str]]],
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
    enclosures = daisy[index][1]
    fast_enclosures = daisy[fastest][1]
    fast_names = _and([names.get(e, e) for e in fast_enclosures])
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
        g, e = daisy[i]
        facts.append(
            Fact(
                name=f"queue per disk in the chain of {len(e)}",
                value=round(queue or 0.0, 2),
                unit="I/Os",
                entity=chain_ref(max(g, key=lambda c: c.enclosure_count), inventory),
            )
        )
    return Evidence(rule="sas.chain.imbalance", summary=summary, facts=facts)


# --- links, ports and phys ---------------------------------------------------------------


def _phys_with_refs(inventory: Inventory) -> Iterator[tuple[Phy, EntityRef]]:
    """Every phy of the fabric (HBA ports, idle HBA phys, expanders) with its entity ref."""
    for hba in inventory.sas.hbas:
        for port in hba.ports:
            for phy in port.phys:
                yield phy, hba_phy_ref(hba, phy)
        for phy in hba.idle_phys:
            yield phy, hba_phy_ref(hba, phy)
    for expander in inventory.sas.expanders:
        for phy in expander.phys:
            yield phy, expander_phy_ref(expander, phy, inventory)


def downgraded_links(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Phys negotiated below what both ends support. A 12 G HBA phy on a 6 G expander runs
    at 6 G by design; where the far end's maximum is unknown nothing is concluded."""
    for phy, ref in _phys_with_refs(context.inventory):
        local = phy.maximum_hw_gbps or phy.maximum_gbps
        if phy.negotiated_gbps is None or local is None or phy.far_end_max_gbps is None:
            continue
        both = min(local, phy.far_end_max_gbps)
        if phy.negotiated_gbps >= both:
            continue
        yield Hit(
            entity=ref,
            title=f"{ref.name} runs at {phy.negotiated_gbps:g} of {both:g} Gbit/s",
            evidence=[
                Evidence(
                    rule="sas.link.downgraded",
                    summary=(
                        f"{ref.name} negotiated {phy.negotiated_gbps:g} Gbit/s; it can do "
                        f"{local:g} and its far end ({phy.far_end_max_source or 'unknown'}) "
                        f"{phy.far_end_max_gbps:g}: the lane lost speed, usually a damaged or "
                        f"loose cable"
                    ),
                    facts=[
                        Fact(name="negotiated", value=phy.negotiated_gbps, unit="Gbit/s"),
                        Fact(name="this end's maximum", value=local, unit="Gbit/s"),
                        Fact(name="far end's maximum", value=phy.far_end_max_gbps, unit="Gbit/s"),
                        Fact(name="far end", value=phy.attached_id),
                    ],
                )
            ],
        )


def _idle_lanes(hba: Hba, port: HbaPort) -> list[Phy]:
    """The phys of the port's connector (lowest phy id ÷ 4) that are in no port and have no
    link: lanes of its cable the driver left out of the port when it found no link there."""
    return [
        p
        for p in hba.idle_phys
        if p.phy_identifier // CONNECTOR_LANES == port.connector and not p.link_up
    ]


def degraded_ports(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Wide HBA ports with fewer phys linked than their width, than the lanes of their
    connector, or than the other ports of the host cabled to expanders (a phy that lost its
    link stays in its port with no rate, or is left out of the port when it is found so)."""
    inventory = context.inventory
    wide = [
        (hba, port)
        for hba in inventory.sas.hbas
        for port in hba.ports
        if port.attached_kind is AttachedKind.EXPANDER
    ]
    for hba, port in wide:
        peers = [(h, p) for h, p in wide if p.id != port.id]
        peer_width = max((p.width for _, p in peers), default=port.width)
        idle = _idle_lanes(hba, port)
        lanes = port.width + len(idle)
        expected = max(lanes, peer_width)
        if port.phys_up >= expected:
            continue
        ref = hba_port_ref(hba, port)
        down = [p for p in port.phys if not p.link_up] + idle
        summary = (
            f"{ref.name} has {port.phys_up} phys linked of {expected}: its width is "
            f"{port.width}, its connector has {lanes} lanes, and {len(peers)} other "
            f"expander-facing ports here are up to {peer_width} wide"
        )
        if down:
            states = ", ".join(
                f"{p.phy_identifier} ({p.negotiated_text or 'no rate'}"
                f"{', not in the port' if p in idle else ''})"
                for p in sorted(down, key=lambda p: p.phy_identifier)
            )
            summary += f"; phys without link: {states}"
        yield Hit(
            entity=ref,
            title=f"{ref.name}: {port.phys_up} of {expected} phys up",
            evidence=[
                Evidence(
                    rule="sas.port.degraded",
                    summary=summary,
                    facts=[
                        Fact(name="phys up", value=port.phys_up),
                        Fact(name="port width", value=port.width),
                        Fact(name="connector lanes", value=lanes),
                        Fact(name="peers' width", value=peer_width),
                        Fact(
                            name="bandwidth lost",
                            value=round(100 * (1 - port.phys_up / expected), 1),
                            unit="%",
                        ),
                        *(
                            Fact(name=f"phy {p.phy_identifier}", value=p.negotiated_text or None)
                            for p in sorted(down, key=lambda p: p.phy_identifier)
                        ),
                    ],
                    peers=[hba_port_ref(h, p) for h, p in peers],
                )
            ],
        )


ERROR_COUNTERS = tuple(PhyErrorCounters.model_fields)


def rising_phy_errors(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Phys whose error counters rose since the previous sweep (a counter that went back
    was reset by a link reset or reboot and says nothing)."""
    if context.previous is None:
        return
    before = {phy.id: phy for phy, _ in _phys_with_refs(context.previous)}
    for phy, ref in _phys_with_refs(context.inventory):
        old = before.get(phy.id)
        if old is None:
            continue
        rises = {}
        for name in ERROR_COUNTERS:
            now, then = getattr(phy.errors, name), getattr(old.errors, name)
            if now is not None and then is not None and now > then:
                rises[name] = now - then
        minimum = limits.number("min_increase", phy.id)
        if sum(rises.values()) < minimum or not rises:
            continue
        words = ", ".join(f"{n.replace('_', ' ')} +{v}" for n, v in rises.items())
        yield Hit(
            entity=ref,
            title=f"{ref.name}: {sum(rises.values())} new phy errors since the last sweep",
            evidence=[
                Evidence(
                    rule="sas.phy.errors",
                    summary=f"{ref.name}: {words} since the previous sweep",
                    facts=[
                        Fact(name=n.replace("_", " "), value=v, unit="errors")
                        for n, v in rises.items()
                    ]
                    + [Fact(name="minimum rise", value=minimum, unit="errors")],
                )
            ],
        )


ENCLOSURE_SINGLE_PATH = Rule(
    id="sas.enclosure.single_path",
    title="Enclosure reached through fewer HBA ports than expected",
    category="sas",
    severity=Severity.CRITICAL,
    needs=(Input.SAS,),
    uses=(Input.DISK_STATS, Input.HISTOGRAMS),
    remediation=(
        "Cable the enclosure's other I/O module to the HBA port its chain's other side uses "
        "(check the cable and the SFF-8644 connectors at both ends; reseat or replace it), then "
        "rescan and confirm every disk shows two paths."
    ),
    check=single_path_enclosures,
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

ENCLOSURE_SAME_HBA = Rule(
    id="sas.enclosure.same_hba",
    title="Both paths of an enclosure through one HBA",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Move one I/O module's cable to a port of another HBA (or add a second HBA), so that "
        "an adapter failure leaves every enclosure one path."
    ),
    check=same_hba_enclosures,
    doc=(
        "Two paths protect against a cable or I/O module failure, but not against an adapter "
        "failure when both end on the same HBA. An expert cables the A and B sides of each "
        "chain to different HBAs (ideally on different PCIe root ports)."
    ),
    role=Role.CAUSE,
)

DISK_MISSING_PATH = Rule(
    id="sas.disk.missing_path",
    title="A disk with fewer paths than the other disks of its enclosure",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Reseat the disk in its bay; if the path does not return, the disk's second port or "
        "the bay's connection to that I/O module is faulty: replace the disk, then the I/O "
        "module."
    ),
    check=disks_missing_a_path,
    doc=(
        "When the enclosure's other disks are reached through two HBA ports and one disk "
        "through one, that disk's port, its bay connector or the I/O module's lane to it "
        "failed. Disks are compared with disks of the same protocol in the same enclosure "
        "(a SATA disk has one port)."
    ),
    role=Role.CAUSE,
)

CHAIN_IMBALANCE = Rule(
    id="sas.chain.imbalance",
    title="Chains with enclosure counts that differ by more than one",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    uses=(Input.DISK_STATS, Input.HISTOGRAMS),
    remediation=(
        "Recable into the balanced layout: move enclosures from the end of the long chain to "
        "unused HBA connectors (or to the shortest chains), cabling each chain's two I/O "
        "modules to two different HBAs."
    ),
    check=imbalanced_chains,
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

CHAIN_TOO_DEEP = Rule(
    id="sas.chain.too_deep",
    title="More enclosures in a chain than the maximum",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Move enclosures from the end of the chain to an unused HBA port (or a new HBA) so "
        "that no chain is longer than the maximum; cable each new chain's I/O modules A and B "
        "to two different HBAs."
    ),
    check=chains_too_deep,
    doc=(
        "Every enclosure in a daisy chain shares the HBA port's wide link with the enclosures "
        "behind it and adds an expander hop. Vendors support chains of 4 to 10 enclosures, "
        "but bandwidth per disk falls with every enclosure added: field case 1's chain of 4 "
        "queued 260–270 I/Os per disk where a chain of 2 queued 197."
    ),
    thresholds={
        "max_enclosures": Threshold(4, "Most enclosures a chain may hold.", "enclosures"),
    },
)

LINK_DOWNGRADED = Rule(
    id="sas.link.downgraded",
    title="A SAS phy negotiated below what both its ends support",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Reseat the cable at both ends; if the lane stays slow, replace the cable, then try "
        "another port on the HBA or I/O module to tell a bad cable from a bad port."
    ),
    check=downgraded_links,
    doc=(
        "A lane that negotiates below the speed both its ends can do has lost signal quality "
        "(a damaged cable, a dirty or loose connector). A rate below this end's maximum alone "
        "is not a fault: a 12 Gbit/s HBA phy on a 6 Gbit/s expander runs at 6 Gbit/s by design "
        "(the real capture of a SAS9400 behind an LSI SAS2X36 shows exactly that). The far "
        "end's maximum comes from the expander's phys or its product; where it is unknown the "
        "phy is not judged."
    ),
)

PORT_DEGRADED = Rule(
    id="sas.port.degraded",
    title="A wide SAS port with fewer phys up than its peers or its width",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Reseat the cable of that HBA connector at both ends and check the phys come back; "
        "replace the cable if they do not. Every lane lost is a quarter of a 4-wide port's "
        "bandwidth."
    ),
    check=degraded_ports,
    doc=(
        "An external SAS connector carries 4 lanes in one wide port. When a lane loses its "
        "link the port keeps working on the rest, silently, with less bandwidth: only the "
        "width (`sas_port/*/num_phys`) and the phys' link state show it. A lane lost while "
        'running stays in its port with `negotiated_linkrate` "Unknown" (or "Phy '
        'disabled"); a lane found without link when the driver built the port (at boot, '
        "after a reset) is left out of it — the port is narrower and the phy idle. Ports "
        "facing expanders are compared with their width, with the lanes of their connector "
        "(its phys, lowest phy id ÷ 4, in no port and without link count as lanes down) and "
        "with each other."
    ),
)

PHY_ERRORS = Rule(
    id="sas.phy.errors",
    title="SAS phy error counters rising between two sweeps",
    category="sas",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.PREVIOUS),
    remediation=(
        "Replace the cable on that phy's link (the errors are usually signal quality); if "
        "they keep rising, move the cable to another port to tell the cable from the port."
    ),
    check=rising_phy_errors,
    doc=(
        "Invalid dwords, running disparity errors, loss of dword sync and phy reset problems "
        "(`sas_phy/*/…_count`) count signal-quality trouble on a lane. The totals since boot "
        "say little; a rise between two sweeps says the link is failing now. A counter that "
        "went down was reset and is not judged."
    ),
    thresholds={
        "min_increase": Threshold(
            1, "Fewest new errors on one phy between two sweeps that is reported.", "errors"
        ),
    },
)

RULES: tuple[Rule, ...] = (
    ENCLOSURE_SINGLE_PATH,
    ENCLOSURE_SAME_HBA,
    DISK_MISSING_PATH,
    CHAIN_IMBALANCE,
    CHAIN_TOO_DEEP,
    LINK_DOWNGRADED,
    PORT_DEGRADED,
    PHY_ERRORS,
)
