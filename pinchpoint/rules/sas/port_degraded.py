"""`sas.port.degraded`: a wide HBA port with fewer phys linked than its width, the lanes of its
connector, or the other ports of the host cabled to expanders."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.sas import AttachedKind, Hba, HbaPort, Phy
from pinchpoint.naming import hba_port_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext

CONNECTOR_LANES = 4  # phys of one external connector (SFF-8644, SFF-8088): one wide port


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
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


def _idle_lanes(hba: Hba, port: HbaPort) -> list[Phy]:
    """The phys of the port's connector (lowest phy id ÷ 4) that are in no port and have no
    link: lanes of its cable the driver left out of the port when it found no link there."""
    return [
        p
        for p in hba.idle_phys
        if p.phy_identifier // CONNECTOR_LANES == port.connector and not p.link_up
    ]


RULE = Rule(
    id="sas.port.degraded",
    title="A wide SAS port with fewer phys up than its peers or its width",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Reseat the cable of that HBA connector at both ends and check the phys come back; "
        "replace the cable if they do not. Every lane lost is a quarter of a 4-wide port's "
        "bandwidth."
    ),
    judge=judge,
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
