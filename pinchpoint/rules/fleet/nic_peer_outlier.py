"""`fleet.nic.peer_outlier`: a NIC running slower than most identical NICs across the fleet's
hosts (field case 3).

Ten identical clients, one of them with its NIC at 100 Mb/s: on that host alone the NIC may
have no identical peer to compare with; across the fleet it is one NIC of ten, and the nine
others say what it should run at. It judges the fleet facts (`model/fleet.py`) a central
service keeps per host when a report is pushed, never the inventories themselves; on one host
the rule is skipped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.fleet import FleetNic
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.units import link_speed_text

MIN_FLEET_PEERS = 3  # NICs of one model, across hosts, before one of them can stand out
SHOWN_PEERS = 10


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs running slower than most identical NICs across the fleet's hosts."""
    groups: dict[tuple[str, str], list[FleetNic]] = {}
    fleet = context.fleet.nics if context.fleet is not None else []
    for nic in sorted(fleet, key=lambda n: (n.host, n.position)):
        if _running(nic):
            groups.setdefault((nic.driver, nic.model), []).append(nic)
    for (driver, model), members in sorted(groups.items()):
        if len(members) < MIN_FLEET_PEERS:
            continue
        counts = Counter(nic.speed_mbps or 0 for nic in members)
        usual = max(counts, key=lambda s: (counts[s], s))
        peers = [n for n in members if n.speed_mbps == usual]
        if len(peers) < MIN_FLEET_PEERS - 1:
            continue
        for nic in members:
            speed = nic.speed_mbps or 0
            if speed >= usual:
                continue
            entity = nic.ref
            peer_hosts = sorted({n.host for n in peers})
            yield Hit(
                entity=entity,
                key=f"{nic.host}/{nic.id}",  # a MAC is the NIC's id on its host; the fleet adds it
                title=(
                    f"{entity.name} runs at {link_speed_text(speed)}; {len(peers)} identical NICs "
                    f"on {len(peer_hosts)} other hosts run at {link_speed_text(usual)}"
                ),
                evidence=[
                    Evidence(
                        summary=(
                            f"{driver} {model}: {len(peers)} of {len(members)} running NICs "
                            f"in the fleet are at {link_speed_text(usual)}, this one at "
                            f"{link_speed_text(speed)}"
                        ),
                        facts=[
                            Fact(name="negotiated speed", value=speed, unit="Mb/s"),
                            Fact(name="peers' speed", value=usual, unit="Mb/s"),
                            Fact(name="identical NICs at that speed", value=len(peers)),
                            Fact(name="host", value=nic.host),
                        ],
                        peers=[n.ref for n in peers[:SHOWN_PEERS]],
                    )
                ],
            )


def _running(nic: FleetNic) -> bool:
    return bool(nic.speed_mbps) and nic.operstate == "up" and nic.carrier is not False


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
