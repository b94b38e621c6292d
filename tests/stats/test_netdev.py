"""Per-interval NIC figures from two `/proc/net/dev` samples: rates computed by hand, wraps,
resets, interfaces appearing and vanishing, bad intervals — never a negative rate.

Second samples are made here from the real procfs capture (tests/fixtures/netdev) by adding
known deltas; see its SOURCES.md.
"""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.parse.netdev import parse_net_dev
from pinchpoint.model.network import Bond, Network, Nic, NicKind
from pinchpoint.model.stats import NetDevCounters, NetDevSample
from pinchpoint.stats.netdev import (
    count_delta,
    interval_seconds,
    link_speeds,
    net_dev_interval,
    net_dev_series,
)

PROCFS = (FIXTURES / "netdev" / "procfs__proc_net_dev.txt").read_text()


def sample(
    interfaces: list[NetDevCounters], uptime: float | None = None, mono: float | None = None
) -> NetDevSample:
    return NetDevSample(uptime_s=uptime, monotonic_s=mono, interfaces=interfaces)


def real() -> list[NetDevCounters]:
    interfaces, _ = parse_net_dev(PROCFS)
    return interfaces


def grown(c: NetDevCounters, **deltas: int) -> NetDevCounters:
    """The same interface with some counters grown (or set lower, for a negative delta)."""
    values = c.model_dump()
    for name, delta in deltas.items():
        values[name] += delta
    return NetDevCounters(**values)


def counters(name: str, **values: int) -> NetDevCounters:
    fields = {n: 0 for n in NetDevCounters.model_fields if n != "interface"}
    return NetDevCounters(interface=name, **(fields | values))


def test_rates_computed_by_hand_on_the_real_capture() -> None:
    before = real()
    eth0 = before[3]
    more = grown(
        eth0,
        rx_bytes=125_000_000,
        rx_packets=82_000,
        tx_bytes=25_000_000,
        tx_packets=41_000,
        rx_errs=3,
        rx_frame=2,
        rx_drop=10,
        tx_colls=4,
        tx_carrier=1,
        tx_drop=20,
    )
    after = [*before[:3], more]
    interval = net_dev_interval(sample(before, 1000.0), sample(after, 1010.0), {"eth0": 100})
    assert interval.interval_s == 10.0 and interval.problems == []
    figures = {f.interface: f for f in interval.interfaces}
    f = figures["eth0"]
    assert f.rx_bytes_s == 12_500_000 and f.rx_mb_s == 12.5
    assert f.tx_bytes_s == 2_500_000 and f.tx_mb_s == 2.5
    assert (f.rx_packets_s, f.tx_packets_s) == (8_200, 4_100)
    assert (f.rx_errors_s, f.tx_errors_s) == (0.5, 0.5)
    assert (f.rx_drops_s, f.tx_drops_s) == (1.0, 2.0)
    assert f.speed_mbps == 100 and f.util_pct == pytest.approx(100.0)  # 12.5 MB/s = 100 Mb/s
    idle = figures["lo"]
    assert idle.rx_bytes_s == idle.tx_bytes_s == 0.0 and idle.util_pct is None


def test_32_bit_counters_wrap() -> None:
    before = counters("eth0", rx_bytes=4_294_967_000, rx_packets=3_000_000, tx_bytes=500)
    after = counters("eth0", rx_bytes=1_000, rx_packets=3_000_100, tx_bytes=600)
    (f,) = net_dev_interval(sample([before], 0.0), sample([after], 1.0)).interfaces
    assert not f.reset and f.rx_bytes_s == 2**32 - 4_294_967_000 + 1_000
    assert f.rx_packets_s == 100 and f.tx_bytes_s == 100


def test_64_bit_counters_wrap_near_the_top() -> None:
    top = 2**64 - 1_000
    before = counters("eth0", rx_bytes=top, rx_packets=10)
    after = counters("eth0", rx_bytes=4_000, rx_packets=20)
    (f,) = net_dev_interval(sample([before], 0.0), sample([after], 2.0)).interfaces
    assert not f.reset and f.rx_bytes_s == 2_500.0


def test_counters_going_back_are_a_reset_never_a_negative_rate() -> None:
    before = [counters("eth0", rx_bytes=9_000_000_000, rx_packets=7_000_000)]
    after = [counters("eth0", rx_bytes=5_000_000_000, rx_packets=7_000_100)]
    interval = net_dev_interval(sample(before, 0.0), sample(after, 10.0), {"eth0": 1000})
    (f,) = interval.interfaces
    assert f.reset and f.rx_bytes_s == 0.0 and f.util_pct is None
    assert "counters went backwards" in interval.problems[0] and "eth0" in interval.problems[0]


def test_bytes_and_packets_both_back_on_a_32_bit_kernel_is_a_reset() -> None:
    before = [counters("eth1", rx_bytes=3_000_000_000, rx_packets=2_000_000, tx_bytes=9)]
    after = [counters("eth1", rx_bytes=1_500, rx_packets=12, tx_bytes=9)]
    (f,) = net_dev_interval(sample(before, 0.0), sample(after, 10.0)).interfaces
    assert f.reset and all(
        getattr(f, n) == 0.0 for n in ("rx_bytes_s", "tx_bytes_s", "rx_packets_s")
    )


def test_interfaces_appearing_and_vanishing_are_listed() -> None:
    before = real()
    after = [c for c in before if c.interface != "vethf345468"] + [counters("veth9", rx_bytes=5)]
    interval = net_dev_interval(sample(before, 1.0), sample(after, 2.0))
    assert interval.appeared == ["veth9"] and interval.vanished == ["vethf345468"]
    assert [f.interface for f in interval.interfaces] == ["lo", "docker0", "eth0"]


def test_zero_negative_and_clockless_intervals_give_no_figures() -> None:
    same = net_dev_interval(sample(real(), 5.0), sample(real(), 5.0))
    assert same.interval_s == 0.0 and same.interfaces == []
    assert "not later than the first" in same.problems[0]
    back = net_dev_interval(sample(real(), 9.0), sample(real(), 5.0))
    assert back.interfaces == [] and "-4.00 s" in back.problems[0]
    clockless = net_dev_interval(sample(real()), sample(real(), 5.0))
    assert clockless.interfaces == [] and "no clock" in clockless.problems[0]


def test_the_monotonic_clock_times_live_samples() -> None:
    assert interval_seconds(sample([], mono=3.0), sample([], mono=4.5)) == (
        1.5,
        "monotonic clock",
    )
    assert interval_seconds(sample([], 10.004), sample([], 11.0)) == (1.0, "uptime")


def test_above_the_link_capacity_shows_as_more_than_100_percent() -> None:
    before = [counters("eno1")]
    after = [counters("eno1", rx_bytes=156_000_000, rx_packets=20_000)]  # 156 MB/s on 1 GbE
    (f,) = net_dev_interval(sample(before, 0.0), sample(after, 1.0), {"eno1": 1000}).interfaces
    assert f.util_pct == pytest.approx(124.8)


def test_a_series_gives_one_interval_per_pair() -> None:
    first = real()
    second = [grown(c, rx_bytes=1_000) for c in first]
    third = [grown(c, rx_bytes=3_000) for c in first]
    series = net_dev_series([sample(first, 0.0), sample(second, 1.0), sample(third, 3.0)])
    assert [i.interval_s for i in series] == [1.0, 2.0]
    assert [i.interfaces[0].rx_bytes_s for i in series] == [1_000.0, 1_000.0]


def test_count_delta() -> None:
    assert count_delta(5, 7) == 2
    assert count_delta(2**32 - 1, 0) == 1
    assert count_delta(2**40, 2**39) is None
    assert count_delta(2**64 - 1, 1) == 2


def test_link_speeds_come_from_the_inventory() -> None:
    network = Network(
        nics=[
            Nic(id="nic:a", kind=NicKind.PHYSICAL, name="eno1", speed_mbps=100),
            Nic(id="nic:b", kind=NicKind.PHYSICAL, name="eno2", speed_mbps=None),
        ],
        bonds=[Bond(id="bond:bond0", name="bond0", speed_mbps=20000)],
    )
    assert link_speeds(network) == {"eno1": 100, "bond0": 20000}
