"""`net.mtu.mismatch`: bond members that differ in MTU, and identical ports where one differs
from most."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.naming import bond_ref, nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.nics import identical_nics


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Bonds whose members differ in MTU, and identical ports where one differs from most."""
    inventory = context.inventory
    nics = {n.name: n for n in inventory.network.nics}
    for bond in inventory.network.bonds:
        mtus: dict[str, int | None] = {bond.name: bond.mtu}
        mtus.update({m.name: nics[m.name].mtu for m in bond.members if m.name in nics})
        if len({v for v in mtus.values() if v is not None}) < 2:
            continue
        ref = bond_ref(bond, inventory)
        listed = ", ".join(f"{name} {mtu}" for name, mtu in mtus.items())
        yield _mtu_hit(
            ref,
            f"{bond.name} and its members differ in MTU",
            f"{ref.name}: MTUs differ ({listed}); frames larger than the smallest are dropped "
            "on the members that do not take them",
            mtus,
            [nic_ref(nics[m.name], inventory) for m in bond.members if m.name in nics],
            None,
        )
    for group in context.derived(identical_nics):
        single = [n for n in group if n.bond is None and n.mtu is not None]
        counts = Counter(n.mtu for n in single)
        if len(counts) < 2:
            continue
        (usual, most), (_, second) = counts.most_common(2)
        if most < 2 or most == second:
            continue  # no clear majority: different networks, not a mistake we can see
        peers = [n for n in single if n.mtu == usual]
        for nic in single:
            if nic.mtu == usual:
                continue
            ref = nic_ref(nic, inventory)
            yield _mtu_hit(
                ref,
                f"{nic.name} has MTU {nic.mtu}, its identical peers {usual}",
                f"{ref.name} uses MTU {nic.mtu} while {most} identical ports use {usual} "
                "(jumbo frames on some ports only?)",
                {nic.name: nic.mtu, **{p.name: p.mtu for p in peers}},
                [nic_ref(p, inventory) for p in peers],
                Severity.INFO,
            )


def _mtu_hit(
    entity: EntityRef,
    title: str,
    summary: str,
    mtus: dict[str, int | None],
    peers: list[EntityRef],
    severity: Severity | None,
) -> Hit:
    return Hit(
        entity=entity,
        title=title,
        severity=severity,
        evidence=[
            Evidence(
                summary=summary,
                facts=[
                    Fact(name=f"{name} MTU", value=mtu, unit="bytes") for name, mtu in mtus.items()
                ],
                peers=peers,
            )
        ],
    )


RULE = Rule(
    id="net.mtu.mismatch",
    title="Bond members or identical ports with different MTUs",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    derived=(identical_nics,),
    role=Role.CAUSE,
    remediation=(
        "Set one MTU on the bond and all its members (and on the switch ports and the peers on "
        "that network): `ip link set IF mtu N` and the same in the network configuration."
    ),
    judge=judge,
    doc=(
        "Jumbo frames work only when every hop takes them: a bond member with a smaller MTU "
        "than the bond drops large frames hashed to it, which shows as stalls on some flows "
        "only. Members of one bond must share the bond's MTU (warning). Identical ports not in "
        "a bond (same driver and model) where a clear majority uses one MTU and a port another "
        "get an `info` finding: they may serve different networks on purpose, so only a port "
        "that differs from at least two of its peers is named."
    ),
)
