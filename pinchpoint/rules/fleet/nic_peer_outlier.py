"""`fleet.nic.peer_outlier`: a NIC running slower than most identical NICs across the fleet's
hosts (field case 3).

Ten identical clients, one of them with its NIC at 100 Mb/s: on that host alone the NIC may
have no identical peer to compare with; across the fleet it is one NIC of ten, and the nine
others say what it should run at. It judges the fleet facts (`model/fleet.py`) a central
service keeps per host when a report is pushed, never the inventories themselves; on one host
the rule is skipped."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.fleet import FleetNic
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.fleet_baselines import (
    SHOWN_PEERS,
    nic_baseline,
    running,
    usual_speed,
)
from pinchpoint.units import link_speed_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs running slower than most identical NICs across the fleet's hosts (the NICs given,
    against their model's baseline when the context gives one, else against each other).

    A finding says the usual speed and names the first peers, never how many NICs the model
    has: its text then stays as it is while hosts join the group and the verdict holds, so a
    central service rewrites no standing finding when an unrelated host joins."""
    groups: dict[tuple[str, str], list[FleetNic]] = {}
    fleet = context.fleet
    for nic in sorted(fleet.nics if fleet else [], key=lambda n: (n.host, n.position)):
        if running(nic):
            groups.setdefault((nic.driver, nic.model), []).append(nic)
    for (driver, model), members in sorted(groups.items()):
        given = fleet.nic_baselines.get((driver, model)) if fleet else None
        baseline = given if given is not None else nic_baseline(members)
        usual = usual_speed(baseline)
        if usual is None:
            continue
        peers = baseline.speeds[usual]
        for nic in members:
            speed = nic.speed_mbps or 0
            if speed >= usual:
                continue
            entity = nic.ref
            yield Hit(
                entity=entity,
                key=f"{nic.host}/{nic.id}",  # a MAC is the NIC's id on its host; the fleet adds it
                title=(
                    f"{entity.name} runs at {link_speed_text(speed)}; most identical NICs in "
                    f"the fleet run at {link_speed_text(usual)}"
                ),
                evidence=[
                    Evidence(
                        summary=(
                            f"{driver} {model}: most running NICs of the model in the fleet are "
                            f"at {link_speed_text(usual)}, this one at {link_speed_text(speed)}"
                        ),
                        facts=[
                            Fact(name="negotiated speed", value=speed, unit="Mb/s"),
                            Fact(name="peers' speed", value=usual, unit="Mb/s"),
                            Fact(name="host", value=nic.host),
                        ],
                        peers=[peer.ref for peer in peers.first[:SHOWN_PEERS]],
                    )
                ],
            )


RULE = Rule(
    id="fleet.nic.peer_outlier",
    title="NIC slower than identical NICs on the fleet's other hosts",
    severity=Severity.WARNING,
    needs=(Input.FLEET,),
    remediation=(
        "Identical NICs on the other hosts negotiate faster: check this host's "
        "cable and switch port (speed/duplex forced, a damaged pair makes both "
        "ends fall back), then `ethtool -r` to renegotiate."
    ),
    judge=judge,
    doc=(
        "Field case 3: ten identical clients, one of them with its NIC at 100 Mb/s. On that "
        "host alone the NIC may have no identical peer to compare with; across the fleet it "
        "is one NIC of ten, and the nine others say what it should run at. NICs are identical "
        "when they have the same driver and PCI model (as for `net.link.peer_outlier`); among "
        "at least 3 running NICs of one model across the hosts, one slower than the speed most "
        "of them run at is named, with its host and its peers. A central service evaluates it "
        "on the NICs of the newest inventory of every host that pushes to it, when a push "
        "changes them, and serves the result (`GET /v1/fleet/findings`); on one host it is "
        "skipped."
    ),
)
