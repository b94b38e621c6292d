"""`net.link.half_duplex`: a physical NIC whose link is up at half duplex."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.network import Duplex
from pinchpoint.naming import nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.net.links import link_up
from pinchpoint.units import link_speed_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Physical NICs whose link is up at half duplex."""
    inventory = context.inventory
    for nic in inventory.network.nics:
        duplex = nic.duplex or (nic.settings.duplex if nic.settings else None)
        if not link_up(nic) or duplex is not Duplex.HALF:
            continue
        settings = nic.settings
        autoneg = settings.autoneg if settings else None
        partner_full = (
            [m for m in (settings.partner_link_modes or []) if m.endswith("/Full")]
            if settings
            else []
        )
        if autoneg is False:
            cause = "auto-negotiation is off: a forced half-duplex setting, or a duplex mismatch"
        elif partner_full:
            cause = "the link partner advertises full-duplex modes: suspect a duplex mismatch"
        else:
            cause = "the link partner offers only half duplex (a hub or a misconfigured port)"
        ref = nic_ref(nic, inventory)
        speed = nic.speed_mbps
        yield Hit(
            entity=ref,
            title=f"{nic.name} runs at half duplex",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} negotiated half duplex"
                        f"{f' at {link_speed_text(speed)}' if speed else ''}: it cannot send and "
                        "receive at "
                        f"once and collides; {cause}"
                    ),
                    facts=[
                        Fact(name="duplex", value=duplex.value),
                        Fact(name="running speed", value=speed, unit="Mb/s"),
                        Fact(name="auto-negotiation", value=autoneg),
                        Fact(
                            name="link partner's full-duplex modes",
                            value=", ".join(partner_full) or None,
                        ),
                    ],
                )
            ],
        )


RULE = Rule(
    id="net.link.half_duplex",
    title="NIC at half duplex",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    role=Role.CAUSE,
    remediation=(
        "Set both ends to auto-negotiation (`ethtool -s IF autoneg on` and the switch port), "
        "or force full duplex on both; replace the cable if the link still comes up half duplex."
    ),
    judge=judge,
    doc=(
        "A switched Ethernet link should run full duplex. Half duplex means collisions and "
        "retransmissions; it usually comes from one end forced to a speed with "
        "auto-negotiation off while the other negotiates (a duplex mismatch), or from a hub. "
        "Physical NICs with their link up only."
    ),
)
