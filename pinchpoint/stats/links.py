"""Network traffic summed NIC → bond: what `pinchpoint stats show --by nic|bond` prints.

Each interface's `/proc/net/dev` figures are turned back into totals over the measured time
(bytes, packets, errors, drops), so any number of intervals adds up exactly. A NIC's rates are
its totals ÷ its measured time; its utilisation is the busier direction against the speed it
negotiated (inventory), averaged, and at the busiest interval. A bond is the sum of its
members (the bonding driver's own line is that sum too, and is used only where no member was
measured); each member keeps its own figures and its share of the bond's bytes, so a member
that negotiated 100 Mbit/s in a bond of 1 Gbit/s members stands out (field case 3) by its
speed, its small share and its high utilisation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, Field

from pinchpoint.model.breakdown import GroupLevel, LinkFigures, LinkLevelBreakdown
from pinchpoint.model.network import Bond, Network, Nic
from pinchpoint.model.stats import InterfaceFigures, NetDevInterval
from pinchpoint.stats.netdev import utilisation_pct
from pinchpoint.units import link_speed_text

LINK_LEVELS = (GroupLevel.NIC, GroupLevel.BOND)
LOOPBACK = "lo"  # not a link; the inventory leaves it out too


class LinkLoad(BaseModel):
    """One interface's totals over the time it was measured, and its bytes per interval."""

    seconds: float = 0.0
    rx_bytes: float = 0.0
    tx_bytes: float = 0.0
    rx_packets: float = 0.0
    tx_packets: float = 0.0
    errors: float = 0.0
    drops: float = 0.0
    # interval number -> (seconds, rx bytes, tx bytes): a bond's busiest interval is the
    # busiest sum of its members' in one interval
    per_interval: dict[int, tuple[float, float, float]] = Field(default_factory=dict)

    def add(self, number: int, figures: InterfaceFigures, interval_s: float) -> None:
        """Add one interval's rates; negative figures count as zero."""
        rx = max(0.0, figures.rx_bytes_s) * interval_s
        tx = max(0.0, figures.tx_bytes_s) * interval_s
        self.seconds += interval_s
        self.rx_bytes += rx
        self.tx_bytes += tx
        self.rx_packets += max(0.0, figures.rx_packets_s) * interval_s
        self.tx_packets += max(0.0, figures.tx_packets_s) * interval_s
        self.errors += max(0.0, figures.rx_errors_s + figures.tx_errors_s) * interval_s
        self.drops += max(0.0, figures.rx_drops_s + figures.tx_drops_s) * interval_s
        self.per_interval[number] = (interval_s, rx, tx)

    def rate(self, total: float) -> float:
        return total / self.seconds if self.seconds > 0 else 0.0


def link_loads(intervals: Sequence[NetDevInterval], notes: list[str]) -> dict[str, LinkLoad]:
    """Every interface's totals over all usable intervals; unusable ones noted, left out."""
    loads: dict[str, LinkLoad] = {}
    resets: dict[str, int] = {}
    for number, interval in enumerate(intervals):
        notes.extend(f"net interval {number}: {problem}" for problem in interval.problems)
        if not (math.isfinite(interval.interval_s) and interval.interval_s > 0):
            continue  # the interval's own problem says why
        for figures in interval.interfaces:
            if figures.reset:
                resets[figures.interface] = resets.get(figures.interface, 0) + 1
                continue
            load = loads.setdefault(figures.interface, LinkLoad())
            load.add(number, figures, interval.interval_s)
    for name, count in sorted(resets.items()):
        noun = "interval" if count == 1 else "intervals"
        notes.append(f"{name}: interface counters went backwards; {count} {noun} left out")
    return loads


def _peak_pct(load: LinkLoad | None, speed_mbps: int | None) -> float | None:
    if load is None or not load.per_interval:
        return None
    peaks = [
        utilisation_pct(rx / seconds, tx / seconds, speed_mbps)
        for seconds, rx, tx in load.per_interval.values()
    ]
    known = [p for p in peaks if p is not None]
    return max(known) if known else None


def _figures(
    level: GroupLevel,
    link_id: str,
    name: str,
    load: LinkLoad | None,
    speed_mbps: int | None,
    max_speed_mbps: int | None,
) -> LinkFigures:
    """One link's rates and utilisation from its totals (zeros and no utilisation if none)."""
    figures = LinkFigures(
        level=level, id=link_id, name=name, speed_mbps=speed_mbps, max_speed_mbps=max_speed_mbps
    )
    if load is None or load.seconds <= 0:
        return figures
    figures.measured_s = load.seconds
    figures.rx_mb_s = load.rate(load.rx_bytes) / 1e6
    figures.tx_mb_s = load.rate(load.tx_bytes) / 1e6
    figures.rx_packets_s = load.rate(load.rx_packets)
    figures.tx_packets_s = load.rate(load.tx_packets)
    figures.errors_s = load.rate(load.errors)
    figures.drops_s = load.rate(load.drops)
    figures.util_pct = utilisation_pct(
        load.rate(load.rx_bytes), load.rate(load.tx_bytes), speed_mbps
    )
    figures.peak_util_pct = _peak_pct(load, speed_mbps)
    figures.above_capacity = (figures.peak_util_pct or 0.0) > 100.0
    return figures


def _speed_text(speed: int | None, fastest: int | None) -> str:
    if speed is None:
        return "speed unknown"
    if fastest is not None and fastest != speed:
        return f"{link_speed_text(speed)} of {link_speed_text(fastest)}"
    return link_speed_text(speed)


def nic_figures(nic: Nic, load: LinkLoad | None) -> LinkFigures:
    """One NIC: its traffic against the speed it negotiated."""
    figures = _figures(
        GroupLevel.NIC, nic.id, nic.name, load, nic.speed_mbps, nic.max_supported_speed_mbps
    )
    driver = nic.driver.driver if nic.driver else nic.kind.value
    figures.detail = f"{driver}, {_speed_text(nic.speed_mbps, nic.max_supported_speed_mbps)}"
    figures.bond = nic.bond
    return figures


def nic_level(network: Network, loads: dict[str, LinkLoad]) -> LinkLevelBreakdown:
    """Every NIC of the inventory, then measured interfaces it does not know (but `lo`)."""
    level = LinkLevelBreakdown(level=GroupLevel.NIC)
    known = {n.name for n in network.nics} | {b.name for b in network.bonds}
    for nic in network.nics:
        level.links.append(nic_figures(nic, loads.get(nic.name)))
    for name, load in loads.items():
        if name in known or name == LOOPBACK:
            continue
        figures = _figures(GroupLevel.NIC, f"interface:{name}", name, load, None, None)
        figures.detail = "not in the inventory"
        level.links.append(figures)
    if not level.links:
        level.note = "no NICs in the inventory or in /proc/net/dev"
    return level


def _summed_load(loads: list[LinkLoad]) -> LinkLoad | None:
    """The members' totals added, interval by interval."""
    if not loads:
        return None
    total = LinkLoad()
    for load in loads:
        total.seconds = max(total.seconds, load.seconds)
        total.rx_bytes += load.rx_bytes
        total.tx_bytes += load.tx_bytes
        total.rx_packets += load.rx_packets
        total.tx_packets += load.tx_packets
        total.errors += load.errors
        total.drops += load.drops
        for number, (seconds, rx, tx) in load.per_interval.items():
            _, old_rx, old_tx = total.per_interval.get(number, (seconds, 0.0, 0.0))
            total.per_interval[number] = (seconds, old_rx + rx, old_tx + tx)
    return total


def bond_figures(bond: Bond, network: Network, loads: dict[str, LinkLoad]) -> LinkFigures:
    """A bond: its members' traffic summed, each member with its share and utilisation."""
    members: list[LinkFigures] = []
    member_loads: list[LinkLoad] = []
    speeds: list[int] = []
    fastest: list[int] = []
    for member in bond.members:
        nic = network.nic(member.name)
        load = loads.get(member.name)
        if nic is not None:
            figures = nic_figures(nic, load)
        else:
            figures = _figures(
                GroupLevel.NIC, f"interface:{member.name}", member.name, load, None, None
            )
            figures.detail = "listed by the bond, not present"
        if figures.speed_mbps is None and member.speed_mbps and member.mii_status == "up":
            figures.speed_mbps = member.speed_mbps
        members.append(figures)
        if load is not None and load.seconds > 0:
            member_loads.append(load)
        if figures.speed_mbps is not None and member.mii_status in ("up", None):
            speeds.append(figures.speed_mbps)
            fastest.append(figures.max_speed_mbps or figures.speed_mbps)
    speed = sum(speeds) or None
    most = sum(fastest) or None
    load = _summed_load(member_loads) or loads.get(bond.name)
    figures = _figures(GroupLevel.BOND, bond.id, bond.name, load, speed, most)
    mode = bond.mode.value if bond.mode else "mode ?"
    measured = len(member_loads)
    source = "" if member_loads or load is None else ", the bond's own counters"
    figures.detail = (
        f"{mode}, {bond.members_up} of {len(bond.members)} members up, {measured} measured{source}"
    )
    total = sum(m.mb_s for m in members)
    for member_figures in members:
        member_figures.share = member_figures.mb_s / total if total > 0 else None
    figures.members = members
    return figures


def bond_level(network: Network, loads: dict[str, LinkLoad]) -> LinkLevelBreakdown:
    """Every bond of the inventory with its members."""
    level = LinkLevelBreakdown(level=GroupLevel.BOND)
    level.links = [bond_figures(bond, network, loads) for bond in network.bonds]
    if not level.links:
        level.note = "no bonds in the inventory"
    return level


def network_breakdown(
    network: Network,
    levels: Sequence[GroupLevel],
    intervals: Sequence[NetDevInterval],
    notes: list[str],
) -> list[LinkLevelBreakdown]:
    """The NIC and bond levels among `levels`, from the `/proc/net/dev` intervals."""
    asked = [level for level in levels if level in LINK_LEVELS]
    if not asked:
        return []
    loads = link_loads(intervals, notes)
    used = sum(1 for i in intervals if math.isfinite(i.interval_s) and i.interval_s > 0)
    result = []
    for level in asked:
        built = nic_level(network, loads) if level is GroupLevel.NIC else bond_level(network, loads)
        built.intervals = used
        result.append(built)
    links = [f for lv in result for top in lv.links for f in (top, *top.members)]
    above = sorted({f.name for f in links if f.above_capacity})
    if above:
        notes.append(
            "more traffic than the link's negotiated speed can carry (a measuring error, not a "
            f"result): {', '.join(above)}"
        )
    return result
