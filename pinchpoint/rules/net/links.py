"""What the network rules share: whether a NIC's link is up, and what a measured link carried.

Only physical NICs are judged: a veth, bridge or VLAN has no cable and no link partner, and a
virtio NIC reports no link modes, so none of them can be "downgraded"."""

from __future__ import annotations

from pinchpoint.model.breakdown import LinkFigures
from pinchpoint.model.findings import Fact
from pinchpoint.model.network import Nic, NicKind
from pinchpoint.units import mb_s_text


def link_up(nic: Nic) -> bool:
    """A physical NIC whose link is up (carrier, or operstate up where carrier is unknown)."""
    if nic.kind is not NicKind.PHYSICAL:
        return False
    if nic.carrier is not None:
        return nic.carrier
    return nic.operstate == "up"


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


def traffic_words(link: LinkFigures | None) -> str:
    """`; it carried 11.8 MB/s, 94 % of what its link allows` (empty when not measured)."""
    if link is None or link.util_pct is None:
        return ""
    return (
        f"; it carried {mb_s_text(busier_mb_s(link))}, {link.util_pct:.0f} % of what its link "
        "allows"
    )
