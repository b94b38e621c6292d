"""NIC → bond aggregation: a bond sums its members, each member shows its share and its
utilisation, a member that negotiated 100 Mb/s among 1 Gb/s members stands out (field case 3),
and bad intervals are left out with a note."""

from __future__ import annotations

import pytest

from pinchpoint.model.breakdown import GroupLevel, LinkFigures
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.network import (
    Bond,
    BondMember,
    BondMode,
    EthtoolSettings,
    Network,
    Nic,
    NicKind,
)
from pinchpoint.model.stats import InterfaceFigures, NetDevInterval
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.links import network_breakdown

GIGABIT_MODES = ["10baseT/Full", "100baseT/Full", "1000baseT/Full"]


def nic(name: str, speed: int | None, bond: str | None = "bond0") -> Nic:
    return Nic(
        id=f"nic:{name}",
        kind=NicKind.PHYSICAL,
        name=name,
        speed_mbps=speed,
        bond=bond,
        settings=EthtoolSettings(interface=name, supported_link_modes=GIGABIT_MODES),
    )


def network() -> Network:
    """bond0 of three 1 GbE members, one at 100 Mb/s; eno4 on its own."""
    members = [
        BondMember(name=n, nic_id=f"nic:{n}", mii_status="up", speed_mbps=s)
        for n, s in (("eno1", 1000), ("eno2", 1000), ("eno3", 100))
    ]
    return Network(
        nics=[nic("eno1", 1000), nic("eno2", 1000), nic("eno3", 100), nic("eno4", 1000, None)],
        bonds=[
            Bond(
                id="bond:bond0",
                name="bond0",
                mode=BondMode.LACP,
                speed_mbps=2100,
                members=members,
            )
        ],
    )


def traffic(interval_s: float, **rx_mb_s: float) -> NetDevInterval:
    """An interval where each named interface received that many MB/s and sent a tenth."""
    return NetDevInterval(
        interval_s=interval_s,
        interfaces=[
            InterfaceFigures(
                interface=name,
                rx_bytes_s=mb * 1e6,
                tx_bytes_s=mb * 1e5,
                rx_packets_s=mb * 1e6 / 1514,
                tx_packets_s=mb * 1e5 / 1514,
                rx_errors_s=0.5 if name == "eno3" else 0.0,
                rx_drops_s=0.25 if name == "eno3" else 0.0,
            )
            for name, mb in rx_mb_s.items()
        ],
    )


def levels(
    intervals: list[NetDevInterval], notes: list[str] | None = None
) -> dict[str, LinkFigures]:
    found = network_breakdown(
        network(), [GroupLevel.NIC, GroupLevel.BOND], intervals, notes if notes is not None else []
    )
    nics, bonds = found
    assert nics.level is GroupLevel.NIC and bonds.level is GroupLevel.BOND
    return {f"{lv.level.value}:{f.name}": f for lv in found for f in lv.links}


def test_a_bond_sums_its_members_and_the_slow_member_stands_out() -> None:
    intervals = [
        traffic(10.0, eno1=60.0, eno2=60.0, eno3=11.75, eno4=5.0, bond0=131.75),
        traffic(20.0, eno1=30.0, eno2=30.0, eno3=11.75, eno4=5.0, bond0=71.75),
    ]
    found = levels(intervals)
    bond = found["bond:bond0"]
    assert bond.speed_mbps == 2100 and bond.max_speed_mbps == 3000
    assert bond.measured_s == 30.0
    assert bond.rx_mb_s == pytest.approx((131.75 * 10 + 71.75 * 20) / 30)
    assert bond.tx_mb_s == pytest.approx(bond.rx_mb_s / 10)
    assert bond.util_pct == pytest.approx(bond.rx_mb_s * 8 / 2100 * 100)
    assert bond.peak_util_pct == pytest.approx(131.75 * 8 / 2100 * 100)
    assert bond.detail == "802.3ad, 3 of 3 members up, 3 measured"
    members = {m.name: m for m in bond.members}
    assert set(members) == {"eno1", "eno2", "eno3"}
    assert sum(m.share or 0.0 for m in members.values()) == pytest.approx(1.0)
    slow = members["eno3"]
    assert slow.speed_mbps == 100 and slow.max_speed_mbps == 1000
    assert slow.util_pct == pytest.approx(94.0) and slow.peak_util_pct == pytest.approx(94.0)
    assert (slow.share or 0.0) < 0.15 < 0.4 < (members["eno1"].share or 0.0)
    assert slow.errors_s == 0.5 and slow.drops_s == 0.25
    assert (members["eno1"].util_pct or 0.0) < 40
    assert found["nic:eno3"].detail == "physical, 100 Mb/s of 1 Gb/s"
    assert found["nic:eno4"].bond is None and found["nic:eno1"].bond == "bond0"


def test_resets_and_bad_intervals_are_left_out_and_noted() -> None:
    reset = traffic(10.0, eno1=50.0)
    reset.interfaces[0].reset = True
    zero = traffic(0.0, eno1=999.0)
    zero.problems.append("interval of 0.00 s by the uptime")
    notes: list[str] = []
    found = levels([traffic(10.0, eno1=20.0), reset, zero], notes)
    assert found["nic:eno1"].rx_mb_s == 20.0 and found["nic:eno1"].measured_s == 10.0
    assert any("eno1: interface counters went backwards; 1 interval left out" in n for n in notes)
    assert any("net interval 2: interval of 0.00 s" in n for n in notes)


def test_no_traffic_gives_empty_figures_not_zero_division() -> None:
    found = levels([])
    assert found["bond:bond0"].measured_s == 0.0 and found["bond:bond0"].util_pct is None
    assert all(m.share is None for m in found["bond:bond0"].members)


def test_above_capacity_is_flagged_as_a_measuring_error() -> None:
    notes: list[str] = []
    found = levels([traffic(1.0, eno4=156.0)], notes)  # 156 MB/s over 1 GbE: impossible
    assert found["nic:eno4"].above_capacity and (found["nic:eno4"].util_pct or 0) > 100
    assert any("measuring error" in n and "eno4" in n for n in notes)


def test_interfaces_outside_the_inventory_are_listed_but_lo_is_not() -> None:
    found = levels([traffic(1.0, lo=1.0, veth0=2.0)])
    assert "nic:lo" not in found
    assert found["nic:veth0"].detail == "not in the inventory"
    assert found["nic:veth0"].util_pct is None


def test_a_bond_without_measured_members_uses_its_own_line() -> None:
    found = levels([traffic(2.0, bond0=10.0)])
    assert found["bond:bond0"].rx_mb_s == 10.0
    assert "0 measured, the bond's own counters" in (found["bond:bond0"].detail or "")


def test_the_breakdown_keeps_storage_and_network_levels_apart() -> None:
    inventory = Inventory(host=HostInfo(source=SourceKind.SNAPSHOT), network=network())
    result = breakdown(
        inventory,
        [GroupLevel.ENCLOSURE, GroupLevel.BOND],
        net_intervals=[traffic(5.0, eno1=10.0, eno2=10.0, eno3=5.0)],
    )
    assert [lv.level for lv in result.levels] == [GroupLevel.ENCLOSURE]
    assert [lv.level for lv in result.network] == [GroupLevel.BOND]
    assert result.network[0].intervals == 1
    assert result.network[0].links[0].rx_mb_s == pytest.approx(25.0)
    assert breakdown(inventory, [GroupLevel.ENCLOSURE]).network == []
