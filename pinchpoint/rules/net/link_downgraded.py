"""`net.link.downgraded`: a physical NIC whose link runs below the fastest mode it supports
(field case 3)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.network import Nic, fastest_mbps
from pinchpoint.naming import nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.nics import measured_links, nic_driver
from pinchpoint.rules.net.links import link_up, traffic_facts, traffic_words
from pinchpoint.units import link_speed_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Physical NICs whose link runs below the fastest mode they support (field case 3)."""
    inventory = context.inventory
    measured = context.derived(measured_links)
    for nic in inventory.network.nics:
        speed, top = nic.speed_mbps, nic.max_supported_speed_mbps
        if not link_up(nic) or speed is None or top is None or speed >= top:
            continue
        cause, severity, remediation = _downgrade_cause(nic, speed)
        settings = nic.settings
        partner = fastest_mbps(settings.partner_link_modes or []) if settings else None
        link = measured.get(nic.id)
        ref = nic_ref(nic, inventory)
        yield Hit(
            entity=ref,
            title=(
                f"{nic.name} runs at {link_speed_text(speed)}, it supports {link_speed_text(top)}"
            ),
            severity=severity,
            remediation=remediation,
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} ({nic_driver(nic) or 'driver unknown'}) negotiated "
                        f"{link_speed_text(speed)} of {link_speed_text(top)}; "
                        f"{cause}{traffic_words(link)}"
                    ),
                    facts=[
                        Fact(name="running speed", value=speed, unit="Mb/s"),
                        Fact(name="fastest supported", value=top, unit="Mb/s"),
                        Fact(
                            name="fastest advertised",
                            value=settings.max_advertised_speed_mbps if settings else None,
                            unit="Mb/s",
                        ),
                        Fact(
                            name="fastest the link partner advertises", value=partner, unit="Mb/s"
                        ),
                        Fact(
                            name="fastest both ends advertise",
                            value=nic.max_common_speed_mbps,
                            unit="Mb/s",
                        ),
                        *traffic_facts(link),
                    ],
                )
            ],
        )


def _downgrade_cause(nic: Nic, speed: int) -> tuple[str, Severity | None, str | None]:
    """Why the link runs slower, in words; a severity and a fix where they differ from the
    rule's."""
    settings = nic.settings
    if settings is not None and settings.autoneg is False:
        return (
            f"auto-negotiation is off: the speed was forced to {link_speed_text(speed)} on this "
            "host",
            None,
            "Turn auto-negotiation back on (`ethtool -s IF autoneg on`, and in the network "
            "configuration), or force the speed the NIC and the switch port both support.",
        )
    advertised = settings.max_advertised_speed_mbps if settings else None
    if advertised is not None and advertised <= speed:
        return (
            f"this host advertises no more than {link_speed_text(advertised)} (restricted with "
            "`ethtool -s "
            "… advertise`): the link runs at what it was allowed",
            Severity.INFO,
            "If the restriction is not deliberate, advertise every supported mode again "
            "(`ethtool -s IF advertise` with the full mask, and in the network configuration).",
        )
    common = nic.max_common_speed_mbps
    if common is None:
        why = nic.not_collected.get("max_common_speed_mbps", "not reported")
        return f"the link partner's advertised modes are unknown ({why})", None, None
    if common > speed:
        return (
            f"both ends advertise up to {link_speed_text(common)}, yet the link runs at "
            f"{link_speed_text(speed)}: "
            "suspect the cable (1000BASE-T and faster need all four pairs) or auto-negotiation",
            None,
            None,
        )
    partner = fastest_mbps(settings.partner_link_modes or []) if settings else None
    partner_words = link_speed_text(partner if partner is not None else common)
    return (
        f"the link partner advertises no more than {partner_words}: a slower switch port, or "
        "a damaged cable that made both ends fall back",
        None,
        None,
    )


RULE = Rule(
    id="net.link.downgraded",
    title="NIC running below its highest supported speed",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    uses=(Input.NET_STATS,),
    derived=(measured_links,),
    role=Role.CAUSE,
    remediation=(
        "If the link partner advertises the faster mode too, replace the patch cable (Cat 5e or "
        "better for 1 GbE, Cat 6a for 10GBASE-T; check every pair) and reseat both ends. If it "
        "does not, check the switch port's speed setting (left at 10/100, or a 100 Mb/s port) "
        "and its error counters; a damaged cable can also make both ends fall back."
    ),
    judge=judge,
    doc=(
        "Compares the speed a physical NIC negotiated (`/sys/class/net/IF/speed`) with the "
        'fastest mode it supports (`ethtool IF`, "Supported link modes"). Field case 3: one '
        "of ten identical clients did 90 ops/s against 600+ for the others; its 1 Gb/s NIC "
        "had negotiated 100 Mb/s over a bad cable and carried 11.3 MB/s. NetApp ONTAP raises "
        "the same condition as `netif.speedDowngraded`.\n\n"
        "The evidence says what the link partner advertises: if both ends advertise the faster "
        "mode the cable or auto-negotiation is at fault; if the partner offers no more, the "
        "switch port is slower or a damaged cable made both ends fall back. A host that "
        "restricted its own advertised modes gets an `info` finding (the link runs at what it "
        "was allowed); auto-negotiation turned off is named as the cause. NICs that report no "
        "link modes (virtio, veth) are not judged. With `/proc/net/dev` samples the evidence "
        "adds what the NIC carried and how full its link was."
    ),
)
