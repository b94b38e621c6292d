"""PCIe rules: cards whose link trained below what card and slot support, and cards whose ports
together carry more than the link they share (field cases 3 and 5)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import PcieLink, PciFunction, PciKind, pci_function_id
from pinchpoint.naming import pcie_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold

ENDPOINT_KINDS = frozenset({PciKind.STORAGE, PciKind.NVME, PciKind.NETWORK, PciKind.FIBRE_CHANNEL})


def lane_gbps(speed_gts: float) -> float:
    """Data Gbit/s of one lane: 8b/10b coding up to 5 GT/s (Gen1, Gen2), 128b/130b from Gen3."""
    return speed_gts * (0.8 if speed_gts <= 5.0 else 128 / 130)


def link_gbps(speed_gts: float | None, width: int | None) -> float | None:
    """A link's data rate each way in Gbit/s; None when speed or width is unknown."""
    if not speed_gts or not width:
        return None
    return lane_gbps(speed_gts) * width


def link_words(speed_gts: float | None, width: int | None) -> str:
    speed = f"{speed_gts:g} GT/s" if speed_gts else "? GT/s"
    return f"{speed} x{width if width else '?'}"


def cards(inventory: Inventory) -> list[list[PciFunction]]:
    """The storage and network cards: their physical functions grouped by card address (the
    functions of one card share its link), each card's functions in address order."""
    found: dict[str, list[PciFunction]] = {}
    for function in inventory.pcie.functions:
        if function.kind in ENDPOINT_KINDS and not function.virtual_function:
            found.setdefault(function.card_address, []).append(function)
    return [sorted(group, key=lambda f: f.pci_address) for group in found.values()]


def card_label(card: list[PciFunction], inventory: Inventory) -> str:
    """What sits in a slot, as a technician names it: the HBA board, the NICs, the FC ports."""
    addresses = {f.pci_address for f in card}
    for hba in inventory.sas.hbas:
        if hba.pci_address in addresses:
            return hba.board_name or hba.driver or "SAS HBA"
    nics = [n.name for n in inventory.network.nics if n.pci_address in addresses]
    if nics:
        return f"NIC {', '.join(nics)}"
    ports = [p.scsi_host for p in inventory.fc.ports if p.pci_address in addresses]
    if ports:
        return f"FC {', '.join(ports)}"
    first = card[0]
    if first.kind is PciKind.NVME:
        return "NVMe drive"
    return first.driver or first.kind.value


def card_ref(card: list[PciFunction], inventory: Inventory) -> EntityRef:
    return pcie_ref(card[0], card_label(card, inventory))


def _expected(link: PcieLink, slot: PcieLink | None) -> tuple[float | None, int | None]:
    """The speed and width both the card and its slot support (the card's own where the slot's
    capability is unknown)."""
    speed, width = link.max_speed_gts, link.max_width
    if slot is not None:
        if speed and slot.max_speed_gts:
            speed = min(speed, slot.max_speed_gts)
        if width and slot.max_width:
            width = min(width, slot.max_width)
    return speed, width


def downgraded_links(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Cards whose link trained below the speed or width both the card and its slot support."""
    inventory = context.inventory
    for card in cards(inventory):
        first = card[0]
        link, slot = first.link, first.upstream_link
        if not link.current_width or not link.current_speed_gts:
            continue  # link down or not reported: nothing trained to judge
        speed, width = _expected(link, slot)
        narrow = width is not None and link.current_width < width
        slow = speed is not None and link.current_speed_gts < speed
        if not (narrow or slow):
            continue
        ref = card_ref(card, inventory)
        slot_words = (
            f"its slot ({first.upstream_port}) supports "
            f"{link_words(slot.max_speed_gts, slot.max_width)}"
            if slot is not None and first.upstream_port
            else "the slot's capability is not known"
        )
        if narrow:
            cause = (
                "fewer lanes than both ends support: a card not fully seated, a damaged "
                "riser or slot, or a lane fault"
            )
            severity = None
        else:
            cause = (
                "only the speed is lower: many devices lower their link speed when idle "
                "(autonomous speed change for power saving); check again under load"
            )
            severity = Severity.INFO
        current = link_gbps(link.current_speed_gts, link.current_width)
        best = link_gbps(speed, width)
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name} runs at {link_words(link.current_speed_gts, link.current_width)} "
                f"of {link_words(speed, width)}"
            ),
            severity=severity,
            evidence=[
                Evidence(
                    rule="pcie.link.downgraded",
                    summary=(
                        f"{ref.name}: link trained at "
                        f"{link_words(link.current_speed_gts, link.current_width)}, the card "
                        f"supports {link_words(link.max_speed_gts, link.max_width)} and "
                        f"{slot_words}; {cause}"
                    ),
                    facts=[
                        Fact(name="current speed", value=link.current_speed_gts, unit="GT/s"),
                        Fact(name="current width", value=link.current_width, unit="lanes"),
                        Fact(name="card's maximum speed", value=link.max_speed_gts, unit="GT/s"),
                        Fact(name="card's maximum width", value=link.max_width, unit="lanes"),
                        Fact(
                            name="slot's maximum speed",
                            value=slot.max_speed_gts if slot else None,
                            unit="GT/s",
                        ),
                        Fact(
                            name="slot's maximum width",
                            value=slot.max_width if slot else None,
                            unit="lanes",
                        ),
                        Fact(name="data rate now", value=round(current or 0, 1), unit="Gbit/s"),
                        Fact(
                            name="data rate both ends support",
                            value=round(best or 0, 1),
                            unit="Gbit/s",
                        ),
                    ],
                )
            ],
        )


LINK_DOWNGRADED = Rule(
    id="pcie.link.downgraded",
    title="PCIe card running below the link speed or width it and its slot support",
    category="pcie",
    severity=Severity.WARNING,
    needs=(Input.PCIE,),
    role=Role.CAUSE,
    remediation=(
        "Power down, reseat the card (and its riser) and clean the contacts; if it trains narrow "
        "again, move it to another slot of that width. Check the BIOS slot settings (link speed "
        "forced to a lower generation, lane bifurcation). Confirm with `lspci -vv -s ADDRESS` "
        "(LnkCap against LnkSta)."
    ),
    check=downgraded_links,
    doc=(
        "Field case 3's lesson holds for PCIe: compare what a link negotiated with what it "
        "could do (a x8 card running x4 has half its bandwidth). The link is judged against "
        "what both ends support: the card's `max_link_speed`/`max_link_width` and those of the "
        "bridge port above it (the slot). A Gen4 drive in a Gen3 slot, or a x8 card in a slot "
        "wired x4, runs as the platform allows and is not a downgrade here (the slot limit "
        "shows in `pcie.slot.oversubscribed` when it costs bandwidth).\n\n"
        "A width below both ends is a fault (seating, riser, lane): warning. A speed below "
        "with the full width is often power management — devices may lower their link speed "
        "autonomously when idle — so it is reported as `info`, to be checked under load. "
        "Storage and network functions only; SR-IOV virtual functions share their parent's link."
    ),
)


def _card_ports(card: list[PciFunction], inventory: Inventory) -> list[tuple[str, float]]:
    """Each port on the card and its data rate each way in Gbit/s, as negotiated now."""
    addresses = {f.pci_address for f in card}
    ports: list[tuple[str, float]] = []
    for hba in inventory.sas.hbas:
        if hba.pci_address not in addresses:
            continue
        for port in hba.ports:
            lanes = [p.negotiated_gbps for p in port.phys if p.negotiated_gbps]
            if lanes:  # SAS and SATA links code 8b/10b: 12 Gbit/s carries 9.6 of data
                ports.append(
                    (f"{hba.scsi_host} connector {port.connector} x{len(lanes)}", sum(lanes) * 0.8)
                )
    for nic in inventory.network.nics:
        if nic.pci_address in addresses and nic.speed_mbps and nic.carrier is not False:
            ports.append((nic.name, nic.speed_mbps / 1000))
    for fc in inventory.fc.ports:
        if fc.pci_address in addresses and fc.speed_gbps:  # 16GFC carries 1600 MB/s
            ports.append((f"FC {fc.scsi_host}", fc.speed_gbps * 0.8))
    return ports


def oversubscribed_slots(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Cards running on a narrower or slower link than they were built for, whose ports
    together carry more than that link; and bridge ports whose link carries the ports of
    several devices that together need more."""
    inventory = context.inventory
    for card in cards(inventory):
        link = card[0].link
        now = link_gbps(link.current_speed_gts, link.current_width)
        built = link_gbps(link.max_speed_gts, link.max_width)
        ports = _card_ports(card, inventory)
        if now is None or built is None or len(ports) < 1 or now >= built:
            continue
        demand = sum(rate for _, rate in ports)
        ref = card_ref(card, inventory)
        ratio = limits.number("max_ratio", ref.id)
        if demand <= now * ratio:
            continue
        listed = ", ".join(f"{name} {rate:g}" for name, rate in ports)
        yield Hit(
            entity=ref,
            title=f"{ref.name}: ports need {demand:g} Gbit/s, its link carries {now:.1f}",
            evidence=[
                Evidence(
                    rule="pcie.slot.oversubscribed",
                    summary=(
                        f"{ref.name}: its ports ({listed} Gbit/s of data each way) add up to "
                        f"{demand:g} Gbit/s, but its link runs at "
                        f"{link_words(link.current_speed_gts, link.current_width)} = {now:.1f} "
                        f"Gbit/s; at the {link_words(link.max_speed_gts, link.max_width)} the "
                        f"card was built for it would carry {built:.1f}"
                    ),
                    facts=[
                        Fact(
                            name="ports' combined data rate", value=round(demand, 1), unit="Gbit/s"
                        ),
                        Fact(name="link data rate now", value=round(now, 1), unit="Gbit/s"),
                        Fact(name="link data rate built for", value=round(built, 1), unit="Gbit/s"),
                        *(
                            Fact(name=f"{name} data rate", value=round(rate, 1), unit="Gbit/s")
                            for name, rate in ports
                        ),
                    ],
                )
            ],
        )
    yield from oversubscribed_bridges(context, limits)


def pci_bus(pci_address: str) -> str:
    """`0000:05:00.1` -> `0000:05`: below a PCIe port, one device (its functions, however
    numbered) sits on the port's secondary bus."""
    return pci_address.rsplit(":", 1)[0]


@dataclass(frozen=True)
class DeviceDemand:
    """What one device below a bridge port can send up: its ports' data rate, capped by
    its own link."""

    cards: list[list[PciFunction]]
    ports: list[tuple[str, float]]
    own_link_gbps: float | None

    @property
    def gbps(self) -> float:
        wanted = sum(rate for _, rate in self.ports)
        return wanted if self.own_link_gbps is None else min(wanted, self.own_link_gbps)


def shared_links(inventory: Inventory) -> list[tuple[str, PcieLink, list[DeviceDemand]]]:
    """The bridge ports that two or more devices hang from directly, with the port's link
    and what each device can send up it. Cards of one device (functions on one bus, however
    numbered) share that device's link and count once."""
    below: dict[str, list[list[PciFunction]]] = {}
    links: dict[str, PcieLink] = {}
    for card in cards(inventory):
        first = card[0]
        if first.upstream_port and first.upstream_link is not None:
            below.setdefault(first.upstream_port, []).append(card)
            links.setdefault(first.upstream_port, first.upstream_link)
    found = []
    for port, group in below.items():
        devices: dict[str, list[list[PciFunction]]] = {}
        for card in group:
            devices.setdefault(pci_bus(card[0].pci_address), []).append(card)
        if len(devices) < 2:
            continue
        demands = []
        for device in devices.values():
            link = device[0][0].link
            ports = [p for card in device for p in _card_ports(card, inventory)]
            own = link_gbps(link.current_speed_gts, link.current_width)
            demands.append(DeviceDemand(device, ports, own))
        found.append((port, links[port], demands))
    return found


def oversubscribed_bridges(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Bridge ports whose link is narrower than the ports of the devices below it need."""
    inventory = context.inventory
    for port, link, demands in shared_links(inventory):
        now = link_gbps(link.current_speed_gts, link.current_width)
        if now is None:
            continue
        demand = sum(d.gbps for d in demands)
        what = "; ".join(card_label(c, inventory) for d in demands for c in d.cards)
        ref = EntityRef(
            kind=EntityKind.PCIE_DEVICE, id=pci_function_id(port), name=f"{port} ({what})"
        )
        if demand <= now * limits.number("max_ratio", ref.id) or not any(d.ports for d in demands):
            continue
        listed = ", ".join(
            f"{card_ref(d.cards[0], inventory).name} {d.gbps:.1f}" for d in demands if d.ports
        )
        facts = [
            Fact(name="devices' combined data rate", value=round(demand, 1), unit="Gbit/s"),
            Fact(name="shared link data rate now", value=round(now, 1), unit="Gbit/s"),
            Fact(name="shared link", value=link_words(link.current_speed_gts, link.current_width)),
        ]
        facts += [
            Fact(
                name="device's data rate (ports, at most its own link)",
                value=round(d.gbps, 1),
                unit="Gbit/s",
                entity=card_ref(d.cards[0], inventory),
            )
            for d in demands
        ]
        yield Hit(
            entity=ref,
            title=(
                f"{port}: {len(demands)} devices need {demand:.1f} Gbit/s, their shared link "
                f"carries {now:.1f}"
            ),
            evidence=[
                Evidence(
                    rule="pcie.slot.oversubscribed",
                    summary=(
                        f"{len(demands)} devices hang from the bridge port {port}, whose link "
                        f"runs at {link_words(link.current_speed_gts, link.current_width)} = "
                        f"{now:.1f} Gbit/s each way; their ports ({listed} Gbit/s of data, "
                        f"each at most its own link) add up to {demand:.1f} Gbit/s"
                    ),
                    facts=facts,
                    peers=[card_ref(c, inventory) for d in demands for c in d.cards],
                )
            ],
        )


SLOT_OVERSUBSCRIBED = Rule(
    id="pcie.slot.oversubscribed",
    title="Ports whose combined line rate exceeds the PCIe link they share",
    category="pcie",
    severity=Severity.WARNING,
    needs=(Input.PCIE,),
    role=Role.SYMPTOM,
    remediation=(
        "Move the card to a slot that gives it its full width and generation (check the "
        "board's slot map: some x8 or x16 slots are wired x4 or share lanes), or spread the "
        "ports' load over two cards on different root ports."
    ),
    check=oversubscribed_slots,
    doc=(
        "Field case 5: two ports on one 10 GbE card are limited by its PCIe slot. The ports of a "
        "card (NICs at their negotiated speed, SAS wide ports at their phys' rates, FC ports) "
        "share the card's link; their data rates (SAS and FC after 8b/10b coding, PCIe after "
        "8b/10b up to Gen2 and 128b/130b from Gen3) are added and compared with the link's. "
        "Two 10 GbE ports need 20 Gbit/s; a x4 Gen2 link carries 16.\n\n"
        "Only a card running below the link it was built for is judged: a card whose own "
        "maximum link is narrower than its ports (an 8-phy 12 Gbit/s SAS HBA on x8 Gen3 "
        "carries 63 of 76.8 Gbit/s) is a vendor's design, not a fault of this host, and the "
        "disks behind an expander rarely fill every phy. When the link also trained below "
        "what card and slot support, this evidence joins the `pcie.link.downgraded` finding."
        "\n\n"
        "Devices that hang from one bridge port share that port's link: their ports are "
        "added (each device's at most its own link) and compared with the port's link "
        "(`current_link_speed`/`current_link_width` of the bridge above them), whatever each "
        "card was built for — two cards behind one link is the host's layout, not a "
        "vendor's design. The functions of one device (one bus below the port, however "
        "many functions it numbers) count once. Behind a PCIe switch each card has a "
        "downstream port of its own, and the switch's upstream link is not in the inventory "
        "(only the addresses of the bridges above a card are): such cards are not summed."
    ),
    thresholds={
        "max_ratio": Threshold(
            1.0, "Ports' combined data rate over the link's above which a card is named.", "×"
        ),
    },
)

RULES: tuple[Rule, ...] = (LINK_DOWNGRADED, SLOT_OVERSUBSCRIBED)
