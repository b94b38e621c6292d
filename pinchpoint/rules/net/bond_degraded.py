"""`net.bond.degraded`: a bond with members down, vanished, at different speeds or outside the
LACP aggregator."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.network import Bond, Nic
from pinchpoint.naming import bond_ref, nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.units import link_speed_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Bonds with members down, vanished, at different speeds or outside the LACP aggregator."""
    inventory = context.inventory
    nics = {n.name: n for n in inventory.network.nics}
    for bond in inventory.network.bonds:
        if not bond.members:
            continue  # an unused bond (e.g. the bond0 the module creates): nothing to degrade
        vanished = [m.name for m in bond.members if not m.present]
        down = [m.name for m in bond.members if m.present and m.mii_status not in ("up", None)]
        up = [m.name for m in bond.members if m.present and m.mii_status == "up"]
        speeds = {name: _member_speed(bond, name, nics) for name in up}
        known = [s for s in speeds.values() if s]
        fastest = max(known, default=None)
        slower = [name for name, s in speeds.items() if s and fastest and s < fastest]
        outside: list[str] = []
        if bond.active_aggregator_id is not None:
            outside = [
                m.name
                for m in bond.members
                if m.name in up
                and m.aggregator_id is not None
                and m.aggregator_id != bond.active_aggregator_id
            ]
        if not (vanished or down or slower or outside):
            continue
        problems = []
        if down:
            problems.append(f"{', '.join(down)} down")
        if vanished:
            problems.append(f"{', '.join(vanished)} listed but no longer present")
        if slower:
            problems.append(
                f"{', '.join(f'{n} at {link_speed_text(speeds[n])}' for n in slower)} against "
                f"{link_speed_text(fastest)}"
            )
        if outside:
            problems.append(
                f"{', '.join(outside)} outside the active LACP aggregator "
                f"{bond.active_aggregator_id} (carrying no traffic: the switch ports are not "
                "in one LACP group)"
            )
        working = len(up) - len(outside)
        ref = bond_ref(bond, inventory)
        yield Hit(
            entity=ref,
            title=f"{bond.name}: {working} of {len(bond.members)} members working",
            severity=Severity.CRITICAL if working <= 0 else None,
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} ({bond.mode.value if bond.mode else 'mode unknown'}): "
                        f"{'; '.join(problems)}"
                    ),
                    facts=[
                        Fact(name="members", value=len(bond.members)),
                        Fact(name="members up", value=len(up)),
                        Fact(name="members down", value=", ".join(down) or None),
                        Fact(name="members vanished", value=", ".join(vanished) or None),
                        *(
                            Fact(name=f"{name} speed", value=speed, unit="Mb/s")
                            for name, speed in speeds.items()
                        ),
                    ],
                    peers=[nic_ref(nics[n], inventory) for n in up if n in nics],
                )
            ],
        )


def _member_speed(bond: Bond, name: str, nics: dict[str, Nic]) -> int | None:
    member = next(m for m in bond.members if m.name == name)
    nic = nics.get(name)
    return member.speed_mbps or (nic.speed_mbps if nic else None)


RULE = Rule(
    id="net.bond.degraded",
    title="Bond with members down or at different speeds",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    role=Role.CAUSE,
    remediation=(
        "Bring the missing member back: check its cable, transceiver and switch port (`ip link`, "
        "`ethtool IF`); a member that vanished lost its driver or was renamed — fix the network "
        "configuration. A slower member: see its link (cable, switch port speed). A member "
        "outside the LACP aggregator: put its switch port in the same port channel as the others."
    ),
    judge=judge,
    doc=(
        "A bond is redundant and fast only while every member is up, present, at one speed and "
        "(802.3ad) in the active aggregator. The Linux node alerts call a bond with fewer "
        "active members than members degraded. From `/proc/net/bonding/NAME`: members whose MII "
        "status is not up, members listed that no longer exist, members up at a slower speed "
        "than the fastest (traffic hashed to them is capped; field case 3's downgraded link "
        "inside a bond), and 802.3ad members in another aggregator than the active one. "
        "Critical when no member works. A bond without members is not judged."
    ),
)
