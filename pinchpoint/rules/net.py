"""Network rules: downgraded links, half duplex, slower-than-peer NICs, degraded bonds, MTU
mismatches and impossible throughput (field cases 3 and 5).

Only physical NICs are judged: a veth, bridge or VLAN has no cable and no link partner, and a
virtio NIC reports no link modes, so none of them can be "downgraded".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.breakdown import LinkFigures
from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Bond, Duplex, Nic, NicKind, fastest_mbps
from pinchpoint.naming import bond_ref, nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold

# Paravirtual drivers report a nominal speed, not a line rate: traffic may exceed it.
PARAVIRTUAL_DRIVERS = frozenset({"virtio_net", "vmxnet3", "hv_netvsc", "xen-netfront", "veth"})


def _link_up(nic: Nic) -> bool:
    """A physical NIC whose link is up (carrier, or operstate up where carrier is unknown)."""
    if nic.kind is not NicKind.PHYSICAL:
        return False
    if nic.carrier is not None:
        return nic.carrier
    return nic.operstate == "up"


def _driver(nic: Nic) -> str | None:
    return nic.driver.driver if nic.driver else None


def measured_links(context: RuleContext) -> dict[str, LinkFigures]:
    """Each measured NIC and bond by id (empty without /proc/net/dev samples)."""
    if not any(i.interfaces for i in context.net_intervals):
        return {}
    found: dict[str, LinkFigures] = {}
    for level in context.breakdown.network:
        for link in level.links:
            if link.measured_s > 0:
                found.setdefault(link.id, link)
    return found


def traffic_facts(link: LinkFigures | None) -> list[Fact]:
    """What a link carried over the measured time, when it was measured."""
    if link is None:
        return []
    facts = [
        Fact(name="received", value=round(link.rx_mb_s, 2), unit="MB/s"),
        Fact(name="sent", value=round(link.tx_mb_s, 2), unit="MB/s"),
    ]
    if link.util_pct is not None:
        facts.append(
            Fact(name="utilisation (busier direction)", value=round(link.util_pct, 1), unit="%")
        )
    return facts


def busier_mb_s(link: LinkFigures) -> float:
    """MB/s of the busier direction: what fills a full-duplex link."""
    return max(link.rx_mb_s, link.tx_mb_s)


def _traffic_words(link: LinkFigures | None) -> str:
    if link is None or link.util_pct is None:
        return ""
    return (
        f"; it carried {busier_mb_s(link):.2f} MB/s, {link.util_pct:.0f} % of what its link allows"
    )


def _downgrade_cause(nic: Nic, speed: int) -> tuple[str, Severity | None, str | None]:
    """Why the link runs slower, in words; a severity and a fix where they differ from the
    rule's."""
    settings = nic.settings
    if settings is not None and settings.autoneg is False:
        return (
            f"auto-negotiation is off: the speed was forced to {speed} Mb/s on this host",
            None,
            "Turn auto-negotiation back on (`ethtool -s IF autoneg on`, and in the network "
            "configuration), or force the speed the NIC and the switch port both support.",
        )
    advertised = settings.max_advertised_speed_mbps if settings else None
    if advertised is not None and advertised <= speed:
        return (
            f"this host advertises no more than {advertised} Mb/s (restricted with `ethtool -s "
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
            f"both ends advertise up to {common} Mb/s, yet the link runs at {speed} Mb/s: "
            "suspect the cable (1000BASE-T and faster need all four pairs) or auto-negotiation",
            None,
            None,
        )
    partner = fastest_mbps(settings.partner_link_modes or []) if settings else None
    partner_words = f"{partner} Mb/s" if partner is not None else f"{common} Mb/s"
    return (
        f"the link partner advertises no more than {partner_words}: a slower switch port, or "
        "a damaged cable that made both ends fall back",
        None,
        None,
    )


def downgraded_links(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Physical NICs whose link runs below the fastest mode they support (field case 3)."""
    inventory = context.inventory
    measured = measured_links(context)
    for nic in inventory.network.nics:
        speed, top = nic.speed_mbps, nic.max_supported_speed_mbps
        if not _link_up(nic) or speed is None or top is None or speed >= top:
            continue
        cause, severity, remediation = _downgrade_cause(nic, speed)
        settings = nic.settings
        partner = fastest_mbps(settings.partner_link_modes or []) if settings else None
        link = measured.get(nic.id)
        ref = nic_ref(nic, inventory)
        yield Hit(
            entity=ref,
            title=f"{nic.name} runs at {speed} Mb/s, it supports {top} Mb/s",
            severity=severity,
            remediation=remediation,
            evidence=[
                Evidence(
                    rule="net.link.downgraded",
                    summary=(
                        f"{ref.name} ({_driver(nic) or 'driver unknown'}) negotiated {speed} of "
                        f"{top} Mb/s; {cause}{_traffic_words(link)}"
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


LINK_DOWNGRADED = Rule(
    id="net.link.downgraded",
    title="NIC running below its highest supported speed",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    uses=(Input.NET_STATS,),
    role=Role.CAUSE,
    remediation=(
        "If the link partner advertises the faster mode too, replace the patch cable (Cat 5e or "
        "better for 1 GbE, Cat 6a for 10GBASE-T; check every pair) and reseat both ends. If it "
        "does not, check the switch port's speed setting (left at 10/100, or a 100 Mb/s port) "
        "and its error counters; a damaged cable can also make both ends fall back."
    ),
    check=downgraded_links,
    doc=(
        "Compares the speed a physical NIC negotiated (`/sys/class/net/IF/speed`) with the "
        'fastest mode it supports (`ethtool IF`, "Supported link modes"). Field case 3: one '
        "of ten identical clients did 90 ops/s against 600+ for the others; its 1 Gbit/s NIC "
        "had negotiated 100 Mbit/s over a bad cable and carried 11.3 MB/s. NetApp ONTAP raises "
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


def half_duplex_links(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Physical NICs whose link is up at half duplex."""
    inventory = context.inventory
    for nic in inventory.network.nics:
        duplex = nic.duplex or (nic.settings.duplex if nic.settings else None)
        if not _link_up(nic) or duplex is not Duplex.HALF:
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
                    rule="net.link.half_duplex",
                    summary=(
                        f"{ref.name} negotiated half duplex"
                        f"{f' at {speed} Mb/s' if speed else ''}: it cannot send and receive at "
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


HALF_DUPLEX = Rule(
    id="net.link.half_duplex",
    title="NIC at half duplex",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    role=Role.CAUSE,
    remediation=(
        "Set both ends to auto-negotiation (`ethtool -s IF autoneg on` and the switch port), "
        "or force full duplex on both; replace the cable if the link still comes up half duplex."
    ),
    check=half_duplex_links,
    doc=(
        "A switched Ethernet link should run full duplex. Half duplex means collisions and "
        "retransmissions; it usually comes from one end forced to a speed with "
        "auto-negotiation off while the other negotiates (a duplex mismatch), or from a hub. "
        "Physical NICs with their link up only."
    ),
)


def nic_model_key(nic: Nic, inventory: Inventory) -> tuple[str, str] | None:
    """What makes two NICs identical, on one host or across a fleet: the driver and the PCI
    model (vendor:device ids), else the fastest speed it supports. None for virtual NICs."""
    driver = _driver(nic)
    if nic.kind is not NicKind.PHYSICAL or driver is None or driver in PARAVIRTUAL_DRIVERS:
        return None
    function = inventory.pcie.by_address(nic.pci_address) if nic.pci_address else None
    if function is not None and function.vendor_id and function.device_id:
        return driver, f"{function.vendor_id}:{function.device_id}"
    return driver, f"fastest {nic.max_supported_speed_mbps} Mb/s"


def identical_nics(context: RuleContext) -> list[list[Nic]]:
    """Groups of two or more physical NICs with the same driver and model."""
    groups: dict[tuple[str, str], list[Nic]] = {}
    for nic in context.inventory.network.nics:
        key = nic_model_key(nic, context.inventory)
        if key is not None:
            groups.setdefault(key, []).append(nic)
    return [group for group in groups.values() if len(group) >= 2]


def _usual_speed(speeds: list[int]) -> int:
    """The speed most NICs of a group run at (a tie goes to the faster)."""
    counts = Counter(speeds)
    return max(counts, key=lambda s: (counts[s], s))


def slower_than_peers(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs running slower than the speed most of their identical peers run at."""
    inventory = context.inventory
    measured = measured_links(context)
    for group in identical_nics(context):
        running = [n for n in group if _link_up(n) and n.speed_mbps]
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
                    f"; it carried {busier_mb_s(link):.2f} MB/s where its peers carried "
                    f"{peer_mb_s:.2f}"
                )
            yield Hit(
                entity=ref,
                title=f"{nic.name} runs at {speed} Mb/s, its identical peers at {usual} Mb/s",
                evidence=[
                    Evidence(
                        rule="net.link.peer_outlier",
                        summary=(
                            f"{ref.name} ({_driver(nic)}) negotiated {speed} Mb/s while "
                            f"{len(peers)} identical NIC(s) run at {usual} Mb/s{carried}"
                        ),
                        facts=facts,
                        peers=[nic_ref(p, inventory) for p in peers],
                    )
                ],
            )


PEER_OUTLIER = Rule(
    id="net.link.peer_outlier",
    title="NIC slower than identical NICs on the host",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    uses=(Input.NET_STATS,),
    role=Role.SYMPTOM,
    remediation=(
        "Compare the slower port's cable, transceiver and switch port with those of its peers "
        "(speed setting, port errors); replace the cable or move it to a port configured like "
        "the others."
    ),
    check=slower_than_peers,
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


def _member_speed(bond: Bond, name: str, nics: dict[str, Nic]) -> int | None:
    member = next(m for m in bond.members if m.name == name)
    nic = nics.get(name)
    return member.speed_mbps or (nic.speed_mbps if nic else None)


def degraded_bonds(context: RuleContext, limits: Limits) -> Iterator[Hit]:
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
                f"{', '.join(f'{n} at {speeds[n]} Mb/s' for n in slower)} against {fastest} Mb/s"
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
                    rule="net.bond.degraded",
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


BOND_DEGRADED = Rule(
    id="net.bond.degraded",
    title="Bond with members down or at different speeds",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    role=Role.CAUSE,
    remediation=(
        "Bring the missing member back: check its cable, transceiver and switch port (`ip link`, "
        "`ethtool IF`); a member that vanished lost its driver or was renamed — fix the network "
        "configuration. A slower member: see its link (cable, switch port speed). A member "
        "outside the LACP aggregator: put its switch port in the same port channel as the others."
    ),
    check=degraded_bonds,
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
                rule="net.mtu.mismatch",
                summary=summary,
                facts=[
                    Fact(name=f"{name} MTU", value=mtu, unit="bytes") for name, mtu in mtus.items()
                ],
                peers=peers,
            )
        ],
    )


def mtu_mismatches(context: RuleContext, limits: Limits) -> Iterator[Hit]:
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
    for group in identical_nics(context):
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


MTU_MISMATCH = Rule(
    id="net.mtu.mismatch",
    title="Bond members or identical ports with different MTUs",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK,),
    role=Role.CAUSE,
    remediation=(
        "Set one MTU on the bond and all its members (and on the switch ports and the peers on "
        "that network): `ip link set IF mtu N` and the same in the network configuration."
    ),
    check=mtu_mismatches,
    doc=(
        "Jumbo frames work only when every hop takes them: a bond member with a smaller MTU "
        "than the bond drops large frames hashed to it, which shows as stalls on some flows "
        "only. Members of one bond must share the bond's MTU (warning). Identical ports not in "
        "a bond (same driver and model) where a clear majority uses one MTU and a port another "
        "get an `info` finding: they may serve different networks on purpose, so only a port "
        "that differs from at least two of its peers is named."
    ),
)


def impossible_throughput(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """NICs and bonds whose measured traffic exceeds what their negotiated speed carries."""
    inventory = context.inventory
    nics = {n.id: n for n in inventory.network.nics}
    bonds = {b.id: b for b in inventory.network.bonds}
    for link_id, link in measured_links(context).items():
        nic, bond = nics.get(link_id), bonds.get(link_id)
        if nic is not None:
            if nic.kind is not NicKind.PHYSICAL or _driver(nic) in PARAVIRTUAL_DRIVERS:
                continue
            ref = nic_ref(nic, inventory)
        elif bond is not None:
            member_drivers = {_driver(n) for n in inventory.network.nics if n.bond == bond.name}
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
            title=f"{link.name} measured at {peak:.0f} % of its {speed} Mb/s link",
            evidence=[
                Evidence(
                    rule="net.throughput.impossible",
                    summary=(
                        f"{ref.name} negotiated {speed} Mb/s, at most {capacity:g} MB/s each way, "
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


THROUGHPUT_IMPOSSIBLE = Rule(
    id="net.throughput.impossible",
    title="Measured throughput above the capacity of the link",
    category="net",
    severity=Severity.WARNING,
    needs=(Input.NETWORK, Input.NET_STATS),
    remediation=(
        "Do not trust these figures. Check the speed the kernel reports (`ethtool IF`: a "
        "driver that reports a wrong speed), whether the counters include traffic that did not "
        "cross this cable (offloads, virtual functions, a bridge), and the samples' clock."
    ),
    check=impossible_throughput,
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

RULES: tuple[Rule, ...] = (
    LINK_DOWNGRADED,
    HALF_DUPLEX,
    PEER_OUTLIER,
    BOND_DEGRADED,
    MTU_MISMATCH,
    THROUGHPUT_IMPOSSIBLE,
)
