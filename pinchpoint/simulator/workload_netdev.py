"""`/proc/net/dev` of a simulated workload, one per sample (docs/simulator-workload.md).

The model is small: each `[[workload.network]]` entry offers a NIC or a bond some MB/s
(10^6 bytes) received and sent. A bond splits it evenly over its members that are up (802.3ad
hashes flows over them; active-backup puts all of it on the active member). Each interval a
NIC carries its offered rate times a random factor (gamma of shape 64: mean 1, p90 ≈ 1.16; its
own seeded stream), cut to what its link carries: `nic_efficiency` × its negotiated speed —
so a 1 Gbit/s NIC that negotiated 100 Mbit/s runs near 94 % at 11.75 MB/s (field case 3) while
its peers carry their full offer. Packets are full frames (MTU + 14 bytes of Ethernet header,
as the counters count them). Every interface starts from light use since boot (ARP, LLDP, a
management session); a bond's line is the sum of its members', as the bonding driver reports
it; `lo` comes first, then the NICs and bonds in ifindex order, as net/core/net-procfs.c
prints them.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import pairwise

from pinchpoint.simulator.network import BondView, NicView, nic_views
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.workload import WorkloadSpec
from pinchpoint.simulator.tree_writer import TreeWriter

HEADER = (
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast"
    "|bytes    packets errs drop fifo colls carrier compressed\n"
)
ETHERNET_HEADER = 14  # counted in rx/tx bytes with the payload; preamble and FCS are not
IDLE_RX_BYTES_S = 2_000.0  # since boot: ARP, LLDP, a management session
IDLE_TX_BYTES_S = 1_000.0
IDLE_PACKET_BYTES = 200
LOOPBACK_BYTES_S = 5_000.0
LOOPBACK_PACKET_BYTES = 500
NOISE_SHAPE = 64  # per-interval rate factor: gamma of shape 64, mean 1, sd 0.125


@dataclass
class InterfaceCounters:
    """The counters of one `/proc/net/dev` line the model moves (the rest stay zero)."""

    rx_bytes: int = 0
    rx_packets: int = 0
    rx_multicast: int = 0
    tx_bytes: int = 0
    tx_packets: int = 0

    def plus(self, other: InterfaceCounters) -> InterfaceCounters:
        return InterfaceCounters(
            self.rx_bytes + other.rx_bytes,
            self.rx_packets + other.rx_packets,
            self.rx_multicast + other.rx_multicast,
            self.tx_bytes + other.tx_bytes,
            self.tx_packets + other.tx_packets,
        )


def net_dev_line(name: str, c: InterfaceCounters) -> str:
    """One line as `dev_seq_printf_stats` prints it (errors, drops and the rest zero)."""
    return (
        f"{name:>6s}: {c.rx_bytes:7d} {c.rx_packets:7d} {0:4d} {0:4d} {0:4d} {0:5d} "
        f"{0:10d} {c.rx_multicast:9d} {c.tx_bytes:8d} {c.tx_packets:7d} {0:4d} {0:4d} "
        f"{0:4d} {0:5d} {0:7d} {0:10d}\n"
    )


def idle_counters(
    uptime_s: float, rx_bytes_s: float, tx_bytes_s: float, packet: int
) -> InterfaceCounters:
    """Light use from boot to `uptime_s`."""
    rx = int(uptime_s * rx_bytes_s)
    tx = int(uptime_s * tx_bytes_s)
    return InterfaceCounters(rx, rx // packet, rx // packet // 10, tx, tx // packet)


def capacity_bytes_s(nic: NicView, w: WorkloadSpec) -> float:
    """What the NIC's link carries at most, in counted bytes per second (0 with no link)."""
    return (nic.speed or 0) * 1e6 / 8 * w.nic_efficiency


def offered_bytes_s(
    spec: HostSpec, nics: list[NicView], bonds: list[BondView]
) -> dict[str, tuple[float, float]]:
    """Per NIC name, the received and sent bytes per second its share of the offers asks."""
    w = spec.workload
    offered: dict[str, tuple[float, float]] = {nic.name: (0.0, 0.0) for nic in nics}
    if w is None:
        return offered
    bonds_by_name = {b.name: b for b in bonds}
    for traffic in w.network:
        bond = bonds_by_name.get(traffic.interface)
        if bond is None:
            carriers = [traffic.interface]
        elif bond.spec.mode == "802.3ad":
            carriers = [m.name for m in bond.members_up()]
        else:
            active = bond.active()
            carriers = [active.name] if active is not None else []
        for name in carriers:
            rx, tx = offered[name]
            share = len(carriers)
            offered[name] = (rx + traffic.rx_mb_s * 1e6 / share, tx + traffic.tx_mb_s * 1e6 / share)
    return offered


def nic_series(
    nic: NicView,
    offer: tuple[float, float],
    times: list[float],
    w: WorkloadSpec,
    rng: random.Random,
) -> list[InterfaceCounters]:
    """A NIC's counters at each sample time: idle use since boot, then its carried traffic."""
    if not nic.up:
        return [InterfaceCounters() for _ in times]
    frame = nic.spec.mtu + ETHERNET_HEADER
    cap = capacity_bytes_s(nic, w)
    current = idle_counters(times[0], IDLE_RX_BYTES_S, IDLE_TX_BYTES_S, IDLE_PACKET_BYTES)
    series = [current]
    for before, after in pairwise(times):
        seconds = after - before
        rx_rate = min(cap, offer[0] * rng.gammavariate(NOISE_SHAPE, 1 / NOISE_SHAPE))
        tx_rate = min(cap, offer[1] * rng.gammavariate(NOISE_SHAPE, 1 / NOISE_SHAPE))
        rx = int((rx_rate + IDLE_RX_BYTES_S) * seconds)
        tx = int((tx_rate + IDLE_TX_BYTES_S) * seconds)
        current = current.plus(
            InterfaceCounters(rx, math.ceil(rx / frame), 0, tx, math.ceil(tx / frame))
        )
        series.append(current)
    return series


def net_dev_texts(spec: HostSpec, times: list[float]) -> list[str]:
    """`/proc/net/dev` at each sample time: lo, every NIC, every bond."""
    w = spec.workload
    assert w is not None
    nics, bonds = nic_views(spec)
    offers = offered_bytes_s(spec, nics, bonds)
    series = {
        nic.name: nic_series(
            nic, offers[nic.name], times, w, random.Random(f"{w.seed}/net/{nic.name}")
        )
        for nic in nics
    }
    loopback = [
        idle_counters(t, LOOPBACK_BYTES_S, LOOPBACK_BYTES_S, LOOPBACK_PACKET_BYTES) for t in times
    ]
    texts = []
    for k in range(len(times)):
        lines = [HEADER, net_dev_line("lo", loopback[k])]
        lines.extend(net_dev_line(nic.name, series[nic.name][k]) for nic in nics)
        for bond in bonds:
            total = InterfaceCounters()
            for member in bond.members:
                total = total.plus(series[member.name][k])
            lines.append(net_dev_line(bond.name, total))
        texts.append("".join(lines))
    return texts


def write_net_dev(w: TreeWriter, spec: HostSpec, times: list[float]) -> None:
    """samples/<n>/proc/net/dev for every sample, and proc/net/dev = the last one."""
    texts = net_dev_texts(spec, times)
    for n, text in enumerate(texts):
        w.mkdir(f"samples/{n}/proc/net")
        w.write(f"samples/{n}/proc/net/dev", text.encode())
    if texts:
        w.mkdir("proc/net")
        w.write("proc/net/dev", texts[-1].encode())
