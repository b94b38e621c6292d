"""`net.throughput.impossible`: a NIC or bond whose measured traffic exceeds what its
negotiated speed carries — a measuring error, not a result (field case 5)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.network import NicKind
from pinchpoint.naming import bond_ref, nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.nics import PARAVIRTUAL_DRIVERS, measured_links, nic_driver
from pinchpoint.rules.net.links import traffic_facts
from pinchpoint.units import link_speed_text, mb_s_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs and bonds whose measured traffic exceeds what their negotiated speed carries."""
    inventory = context.inventory
    nics = {n.id: n for n in inventory.network.nics}
    bonds = {b.id: b for b in inventory.network.bonds}
    for link_id, link in context.derived(measured_links).items():
        nic, bond = nics.get(link_id), bonds.get(link_id)
        if nic is not None:
            if nic.kind is not NicKind.PHYSICAL or nic_driver(nic) in PARAVIRTUAL_DRIVERS:
                continue
            ref = nic_ref(nic, inventory)
        elif bond is not None:
            member_drivers = {nic_driver(n) for n in inventory.network.nics if n.bond == bond.name}
            if member_drivers & PARAVIRTUAL_DRIVERS:
                continue
            ref = bond_ref(bond, inventory)
        else:
            continue
        limit = limits.number("above_capacity_pct", link_id)
        peak, speed = link.peak_util_pct, link.speed_mbps
        if peak is None or speed is None or peak <= limit:
            continue
        capacity = speed / 8
        yield Hit(
            entity=ref,
            title=f"{link.name} measured at {peak:.0f} % of its {link_speed_text(speed)} link",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} negotiated {link_speed_text(speed)}, at most "
                        f"{mb_s_text(capacity)} each way, "
                        f"yet its busiest interval counted {peak:.0f} % of that (on average "
                        f"{link.util_pct or 0:.0f} %): more than the link can carry, so the "
                        "figure is a measuring error, not a result"
                    ),
                    facts=[
                        Fact(name="negotiated speed", value=speed, unit="Mb/s"),
                        Fact(name="most the link carries", value=capacity, unit="MB/s"),
                        Fact(name="peak utilisation", value=round(peak, 1), unit="%"),
                        Fact(name="limit", value=limit, unit="%"),
                        *traffic_facts(link),
                    ],
                )
            ],
        )


RULE = Rule(
    id="net.throughput.impossible",
    title="Measured throughput above the capacity of the link",
    severity=Severity.WARNING,
    needs=(Input.NETWORK, Input.NET_STATS),
    derived=(measured_links,),
    remediation=(
        "Do not trust these figures. Check the speed the kernel reports (`ethtool IF`: a "
        "driver that reports a wrong speed), whether the counters include traffic that did not "
        "cross this cable (offloads, virtual functions, a bridge), and the samples' clock."
    ),
    judge=judge,
    doc=(
        "Field case 5: 1 GbE carries at most about 120 MB/s, so 20,000 × 8 KB reads per second "
        "(156 MB/s plus headers) cannot have crossed it; a figure above the capacity of the "
        "link it crossed is a measuring error, not a result. `/proc/net/dev` counts bytes "
        "including the Ethernet header but not the preamble, gap or FCS, so a correct count "
        "stays below the negotiated speed. Some drivers update their counters every few "
        "seconds, which can push one interval a little past 100 %: the limit (default 110 % "
        "in the busiest interval) leaves room for that. Paravirtual NICs (virtio, vmxnet3 …), "
        "whose reported speed is nominal, and virtual interfaces are not judged."
    ),
    thresholds={
        "above_capacity_pct": Threshold(
            110, "Busiest interval's utilisation above which a figure is impossible.", "%"
        ),
    },
)
