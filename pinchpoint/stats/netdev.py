"""Network traffic between two `/proc/net/dev` samples: bytes, packets, errors and drops per
second, and how busy each link was against the speed it negotiated.

Counters are unsigned: 64-bit on current kernels, 32-bit (wrapping at 4 GiB, every 34 s at
1 Gbit/s) on 32-bit kernels before 2.6.35. A counter that went down is read as a wrap where
that is possible — it was below 2^32 (a 32-bit counter), or near the top of 64 bits — and as
a reset otherwise. An interface whose bytes and packets of one direction both went down was
recreated or its driver reloaded (a wrap of both in one interval would take billions of
packets): it is marked `reset`, its figures are zero, never negative.

Utilisation is the busier direction against the negotiated speed (Ethernet is full duplex).
A figure above 100 % is more than the link can carry: a measuring error, not a result
(field case 5). An interface in one sample only is listed as appeared or vanished.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from pinchpoint.model.network import Network
from pinchpoint.model.stats import (
    InterfaceFigures,
    NetDevCounters,
    NetDevInterval,
    NetDevSample,
)
from pinchpoint.stats.counters import count_delta


def interval_seconds(before: NetDevSample, after: NetDevSample) -> tuple[float | None, str]:
    """Seconds between two samples and the clock that measured them, or None and why not:
    `/proc/uptime` of both samples (in whole hundredths, as the kernel prints it), else the
    monotonic clock of a live sampler."""
    if before.uptime_s is not None and after.uptime_s is not None:
        return (round(after.uptime_s * 100) - round(before.uptime_s * 100)) / 100, "uptime"
    if before.monotonic_s is not None and after.monotonic_s is not None:
        return after.monotonic_s - before.monotonic_s, "monotonic clock"
    missing = "first" if before.uptime_s is None and before.monotonic_s is None else "second"
    return None, f"the {missing} sample has no clock (no proc/uptime)"


def _went_back(before: NetDevCounters, after: NetDevCounters) -> bool:
    """Bytes and packets of one direction both went down, or a counter went down that cannot
    have wrapped: the interface was recreated or its driver reloaded."""
    for bytes_name, packets_name in (("rx_bytes", "rx_packets"), ("tx_bytes", "tx_packets")):
        old_bytes, new_bytes = getattr(before, bytes_name), getattr(after, bytes_name)
        old_packets, new_packets = getattr(before, packets_name), getattr(after, packets_name)
        if new_bytes < old_bytes and new_packets < old_packets:
            return True
    names = NetDevCounters.model_fields.keys() - {"interface"}
    return any(count_delta(getattr(before, n), getattr(after, n)) is None for n in names)


def utilisation_pct(rx_bytes_s: float, tx_bytes_s: float, speed_mbps: int | None) -> float | None:
    """The busier direction's bits per second against the link's speed, in percent."""
    if speed_mbps is None or speed_mbps <= 0:
        return None
    return max(rx_bytes_s, tx_bytes_s) * 8 / (speed_mbps * 1e6) * 100


def interface_figures(
    before: NetDevCounters, after: NetDevCounters, seconds: float, speed_mbps: int | None = None
) -> InterfaceFigures:
    """One interface's rates over `seconds` (> 0); zero and `reset` if its counters went back."""
    if _went_back(before, after):
        return InterfaceFigures(interface=after.interface, speed_mbps=speed_mbps, reset=True)

    def rate(*names: str) -> float:
        total = 0
        for name in names:
            delta = count_delta(getattr(before, name), getattr(after, name))
            total += delta or 0
        return total / seconds

    rx_bytes_s = rate("rx_bytes")
    tx_bytes_s = rate("tx_bytes")
    return InterfaceFigures(
        interface=after.interface,
        rx_bytes_s=rx_bytes_s,
        tx_bytes_s=tx_bytes_s,
        rx_packets_s=rate("rx_packets"),
        tx_packets_s=rate("tx_packets"),
        rx_errors_s=rate("rx_errs", "rx_fifo", "rx_frame"),
        tx_errors_s=rate("tx_errs", "tx_fifo", "tx_colls", "tx_carrier"),
        rx_drops_s=rate("rx_drop"),
        tx_drops_s=rate("tx_drop"),
        speed_mbps=speed_mbps,
        util_pct=utilisation_pct(rx_bytes_s, tx_bytes_s, speed_mbps),
    )


def net_dev_interval(
    before: NetDevSample, after: NetDevSample, speeds: Mapping[str, int] | None = None
) -> NetDevInterval:
    """Every interface's figures between two samples, in the order of the second one.

    `speeds` maps interface names to their negotiated Mbit/s (`link_speeds`). A missing, zero
    or negative interval gives no figures and says why.
    """
    speeds = speeds or {}
    problems = [p.line() for p in (*before.problems, *after.problems)]
    seconds, clock = interval_seconds(before, after)
    previous = {c.interface: c for c in before.interfaces}
    current = {c.interface for c in after.interfaces}
    appeared = [c.interface for c in after.interfaces if c.interface not in previous]
    vanished = [c.interface for c in before.interfaces if c.interface not in current]
    if seconds is None or not seconds > 0:
        if seconds is None:
            problems.append(f"no interval: {clock}")
        else:
            problems.append(
                f"interval of {seconds:.2f} s by the {clock}: the second sample is not later "
                "than the first, so no rates can be computed"
            )
        return NetDevInterval(
            interval_s=0.0, appeared=appeared, vanished=vanished, problems=problems
        )
    figures = [
        interface_figures(previous[c.interface], c, seconds, speeds.get(c.interface))
        for c in after.interfaces
        if c.interface in previous
    ]
    resets = [f.interface for f in figures if f.reset]
    if resets:
        problems.append(
            "interface counters went backwards (interface recreated or driver reloaded), "
            f"figures left at zero: {', '.join(resets)}"
        )
    return NetDevInterval(
        interval_s=seconds,
        interfaces=figures,
        appeared=appeared,
        vanished=vanished,
        problems=problems,
    )


def net_dev_series(
    samples: Sequence[NetDevSample], speeds: Mapping[str, int] | None = None
) -> list[NetDevInterval]:
    """The figures of each interval between consecutive samples of a series."""
    return [net_dev_interval(a, b, speeds) for a, b in pairwise(samples)]


def link_speeds(network: Network) -> dict[str, int]:
    """Each NIC's and bond's negotiated speed in Mbit/s by kernel name, where it is known (a
    bond's is the sum of its members that are up, as the bonding driver reports it)."""
    speeds: dict[str, int] = {}
    for link in [*network.nics, *network.bonds]:
        if link.speed_mbps is not None and link.speed_mbps > 0:
            speeds[link.name] = link.speed_mbps
    return speeds
