"""`pcie.slot.oversubscribed`: ports whose combined line rate exceeds the PCIe link they share —
a card's own link, or a bridge port's link shared by several devices (field case 5)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import PcieLink, PciFunction
from pinchpoint.naming import hba_port_ref, pcie_bridge_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.pcie.cards import card_label, card_ref, cards, link_gbps, link_words
from pinchpoint.units import gbps_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
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
        listed = ", ".join(f"{name} {gbps_text(rate)}" for name, rate in ports)
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name}: ports need {gbps_text(demand)}, its link carries {gbps_text(now)}"
            ),
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name}: its ports ({listed} of data each way) add up to "
                        f"{gbps_text(demand)}, but its link runs at "
                        f"{link_words(link.current_speed_gts, link.current_width)} = "
                        f"{gbps_text(now)}; at the "
                        f"{link_words(link.max_speed_gts, link.max_width)} the card was built "
                        f"for it would carry {gbps_text(built)}"
                    ),
                    facts=[
                        Fact(name="ports' combined data rate", value=round(demand, 1), unit="Gb/s"),
                        Fact(name="link data rate now", value=round(now, 1), unit="Gb/s"),
                        Fact(name="link data rate built for", value=round(built, 1), unit="Gb/s"),
                        *(
                            Fact(name=f"{name} data rate", value=round(rate, 1), unit="Gb/s")
                            for name, rate in ports
                        ),
                    ],
                )
            ],
        )
    yield from _oversubscribed_bridges(context, limits)


def _card_ports(card: list[PciFunction], inventory: Inventory) -> list[tuple[str, float]]:
    """Each port on the card and its data rate each way in Gb/s, as negotiated now."""
    addresses = {f.pci_address for f in card}
    ports: list[tuple[str, float]] = []
    for hba in inventory.sas.hbas:
        if hba.pci_address not in addresses:
            continue
        for port in hba.ports:
            lanes = [p.negotiated_gbps for p in port.phys if p.negotiated_gbps]
            if lanes:  # SAS and SATA links code 8b/10b: 12 Gb/s carries 9.6 of data
                ports.append((f"{hba_port_ref(hba, port).name} x{len(lanes)}", sum(lanes) * 0.8))
    for nic in inventory.network.nics:
        if nic.pci_address in addresses and nic.speed_mbps and nic.carrier is not False:
            ports.append((nic.name, nic.speed_mbps / 1000))
    for fc in inventory.fc.ports:
        if fc.pci_address in addresses and fc.speed_gbps:  # 16GFC carries 1600 MB/s
            ports.append((f"FC {fc.scsi_host}", fc.speed_gbps * 0.8))
    return ports


def _pci_bus(pci_address: str) -> str:
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


def _shared_links(inventory: Inventory) -> list[tuple[str, PcieLink, list[DeviceDemand]]]:
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
            devices.setdefault(_pci_bus(card[0].pci_address), []).append(card)
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


def _oversubscribed_bridges(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Bridge ports whose link is narrower than the ports of the devices below it need."""
    inventory = context.inventory
    for port, link, demands in _shared_links(inventory):
        now = link_gbps(link.current_speed_gts, link.current_width)
        if now is None:
            continue
        demand = sum(d.gbps for d in demands)
        what = "; ".join(card_label(c, inventory) for d in demands for c in d.cards)
        ref = pcie_bridge_ref(port, what)
        if demand <= now * limits.number("max_ratio", ref.id) or not any(d.ports for d in demands):
            continue
        listed = ", ".join(
            f"{card_ref(d.cards[0], inventory).name} {gbps_text(d.gbps)}"
            for d in demands
            if d.ports
        )
        facts = [
            Fact(name="devices' combined data rate", value=round(demand, 1), unit="Gb/s"),
            Fact(name="shared link data rate now", value=round(now, 1), unit="Gb/s"),
            Fact(name="shared link", value=link_words(link.current_speed_gts, link.current_width)),
        ]
        facts += [
            Fact(
                name="device's data rate (ports, at most its own link)",
                value=round(d.gbps, 1),
                unit="Gb/s",
                entity=card_ref(d.cards[0], inventory),
            )
            for d in demands
        ]
        yield Hit(
            entity=ref,
            title=(
                f"{port}: {len(demands)} devices need {gbps_text(demand)}, their shared link "
                f"carries {gbps_text(now)}"
            ),
            evidence=[
                Evidence(
                    summary=(
                        f"{len(demands)} devices hang from the bridge port {port}, whose link "
                        f"runs at {link_words(link.current_speed_gts, link.current_width)} = "
                        f"{gbps_text(now)} each way; their ports ({listed} of data, "
                        f"each at most its own link) add up to {gbps_text(demand)}"
                    ),
                    facts=facts,
                    peers=[card_ref(c, inventory) for d in demands for c in d.cards],
                )
            ],
        )


RULE = Rule(
    id="pcie.slot.oversubscribed",
    title="Ports whose combined line rate exceeds the PCIe link they share",
    severity=Severity.WARNING,
    needs=(Input.PCIE,),
    role=Role.SYMPTOM,
    remediation=(
        "Move the card to a slot that gives it its full width and generation (check the "
        "board's slot map: some x8 or x16 slots are wired x4 or share lanes), or spread the "
        "ports' load over two cards on different root ports."
    ),
    judge=judge,
    doc=(
        "Field case 5: two ports on one 10 GbE card are limited by its PCIe slot. The ports of a "
        "card (NICs at their negotiated speed, SAS wide ports at their phys' rates, FC ports) "
        "share the card's link; their data rates (SAS and FC after 8b/10b coding, PCIe after "
        "8b/10b up to Gen2 and 128b/130b from Gen3) are added and compared with the link's. "
        "Two 10 GbE ports need 20 Gb/s; a x4 Gen2 link carries 16.\n\n"
        "Only a card running below the link it was built for is judged: a card whose own "
        "maximum link is narrower than its ports (an 8-phy 12 Gb/s SAS HBA on x8 Gen3 "
        "carries 63 of 76.8 Gb/s) is a vendor's design, not a fault of this host, and the "
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
