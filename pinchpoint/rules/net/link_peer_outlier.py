"""`net.link.peer_outlier`: a NIC running slower than the speed most of its identical peers on
the host run at (field case 3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import nic_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.nics import identical_nics, measured_links, nic_driver
from pinchpoint.rules.net.links import busier_mb_s, link_up, traffic_facts
from pinchpoint.units import link_speed_text, mb_s_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs running slower than the speed most of their identical peers run at."""
    inventory = context.inventory
    measured = context.derived(measured_links)
    for group in context.derived(identical_nics):
        running = [n for n in group if link_up(n) and n.speed_mbps]
        if len(running) < 2:
            continue
        usual = _usual_speed([n.speed_mbps or 0 for n in running])
        peers = [n for n in running if n.speed_mbps == usual]
        for nic in running:
            speed = nic.speed_mbps or 0
            if speed >= usual:
                continue
            ref = nic_ref(nic, inventory)
            link = measured.get(nic.id)
            peer_links = [measured[p.id] for p in peers if p.id in measured]
            facts = [
                Fact(name="running speed", value=speed, unit="Mb/s"),
                Fact(name="peers' speed", value=usual, unit="Mb/s"),
                Fact(name="identical peers at that speed", value=len(peers)),
                *traffic_facts(link),
            ]
            carried = ""
            if link is not None and peer_links:
                peer_mb_s = sorted(busier_mb_s(p) for p in peer_links)[len(peer_links) // 2]
                facts.append(
                    Fact(
                        name="peers' median traffic (busier direction)",
                        value=round(peer_mb_s, 2),
                        unit="MB/s",
                    )
                )
                carried = (
                    f"; it carried {mb_s_text(busier_mb_s(link))} where its peers carried "
                    f"{mb_s_text(peer_mb_s)}"
                )
            yield Hit(
                entity=ref,
                title=(
                    f"{nic.name} runs at {link_speed_text(speed)}, its identical peers at "
                    f"{link_speed_text(usual)}"
                ),
                evidence=[
                    Evidence(
                        summary=(
                            f"{ref.name} ({nic_driver(nic)}) negotiated "
                            f"{link_speed_text(speed)} while "
                            f"{plural(len(peers), 'identical NIC')} run at "
                            f"{link_speed_text(usual)}{carried}"
                        ),
                        facts=facts,
                        peers=[nic_ref(p, inventory) for p in peers],
                    )
                ],
            )


def _usual_speed(speeds: list[int]) -> int:
    """The speed most NICs of a group run at (a tie goes to the faster)."""
    counts = Counter(speeds)
    return max(counts, key=lambda s: (counts[s], s))


RULE = Rule(
    id="net.link.peer_outlier",
    title="NIC slower than identical NICs on the host",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    uses=(Input.NET_STATS,),
    derived=(identical_nics, measured_links),
    role=Role.SYMPTOM,
    remediation=(
        "Compare the slower port's cable, transceiver and switch port with those of its peers "
        "(speed setting, port errors); replace the cable or move it to a port configured like "
        "the others."
    ),
    judge=judge,
    doc=(
        "Field case 3 was found by comparing identical clients: one did 90 ops/s where the "
        "others did 600+. NICs are identical when they have the same driver and the same PCI "
        "model (vendor and device ids; the fastest supported mode where the PCI function is not "
        "known). A NIC running slower than the speed most of its peers run at is named with "
        "the peers and, with `/proc/net/dev` samples, the traffic each carried. This also works "
        "where a driver reports no link modes, so `net.link.downgraded` cannot judge it; where "
        "both rules fire on one NIC, this evidence joins the downgrade finding."
    ),
)
