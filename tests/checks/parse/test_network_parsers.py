"""ethtool and /proc/net/bonding parsers on real captured output (tests/fixtures/network)."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.bonding import BondingParseError, parse_bonding
from pinchpoint.checks.parse.ethtool import (
    EthtoolNoDataError,
    EthtoolParseError,
    parse_ethtool_driver,
    parse_ethtool_settings,
)
from pinchpoint.model.network import BondMode, Duplex, link_mode_speed_mbps

FIXTURES = ALL_FIXTURES / "network"
ETHTOOL = FIXTURES / "ethtool"
BONDING = FIXTURES / "bonding"

TEN_HUNDRED = ["10baseT/Half", "10baseT/Full", "100baseT/Half", "100baseT/Full"]


def text(name: str) -> str:
    return (ETHTOOL / name).read_text()


def test_link_mode_names_give_their_speed() -> None:
    assert link_mode_speed_mbps("1000baseT/Full") == 1000
    assert link_mode_speed_mbps("25000baseCR/Full") == 25000
    assert link_mode_speed_mbps("2500baseX/Full") == 2500
    assert link_mode_speed_mbps("10baseT1L/Full") == 10
    assert link_mode_speed_mbps("Not") is None
    assert link_mode_speed_mbps("RS") is None


def test_a_1g_nic_negotiated_down_to_100m_by_its_partner() -> None:
    """Field case 3: both ends could do 100 at most because the partner offers no more."""
    s = parse_ethtool_settings(
        text("jc__ethtool_eth0_1G_nic_DOWNGRADED_100M_link_partner_only_100.txt"), "eth0"
    )
    assert s.interface == "eth0"
    assert s.supported_ports == ["TP", "MII"]
    assert s.supported_link_modes == [*TEN_HUNDRED, "1000baseT/Half", "1000baseT/Full"]
    assert s.supported_pause == "Symmetric Receive-only"
    assert s.supports_autoneg is True
    assert s.supported_fec_modes == []
    assert s.advertised_link_modes == s.supported_link_modes
    assert s.advertised_pause == "Symmetric Receive-only"
    assert s.advertised_autoneg is True
    assert s.partner_link_modes == TEN_HUNDRED
    assert s.partner_pause == "Symmetric"
    assert s.partner_autoneg is True
    assert s.speed_mbps == 100
    assert s.duplex is Duplex.FULL
    assert s.autoneg is True
    assert s.port == "Twisted Pair"
    assert s.phy_address == 0
    assert s.transceiver == "external"
    assert s.mdix == "Unknown"
    assert s.link_detected is True
    assert s.messages == [] and s.warnings == []
    assert s.max_supported_speed_mbps == 1000
    assert s.max_advertised_speed_mbps == 1000
    assert s.common_link_modes == TEN_HUNDRED
    assert s.max_common_speed_mbps == 100


def test_a_10_100_nic_read_without_root_keeps_its_partner_modes() -> None:
    """insights-core's docs example: no "Link detected" (Cannot get link status)."""
    s = parse_ethtool_settings(text("insights-core_ethtool_eth0_100Mb_only_docs.txt"))
    assert s.interface == "eth0"
    assert s.supported_ports == ["TP", "MII"]
    assert s.supported_link_modes == TEN_HUNDRED
    assert s.supported_pause == "No"
    assert s.advertised_link_modes == TEN_HUNDRED
    assert s.advertised_pause == "Symmetric"
    assert s.partner_link_modes == TEN_HUNDRED
    assert s.partner_autoneg is False
    assert s.speed_mbps == 100
    assert s.duplex is Duplex.FULL
    assert s.port == "MII"
    assert s.phy_address == 32
    assert s.transceiver == "internal"
    assert s.autoneg is True
    assert s.link_detected is None
    assert s.messages == [
        "Cannot get wake-on-lan settings: Operation not permitted",
        "Cannot get link status: Operation not permitted",
    ]
    assert s.max_supported_speed_mbps == 100
    assert s.max_common_speed_mbps == 100


def test_messages_before_the_header_are_kept_and_the_settings_read() -> None:
    s = parse_ethtool_settings(text("insights-core_ethtool_eth1_1000Mb_full.txt"), "eth1")
    assert s.messages == [
        "Cannot get wake-on-lan settings: Operation not permitted",
        "Cannot get link status: Operation not permitted",
    ]
    assert s.supported_link_modes == [*TEN_HUNDRED, "1000baseT/Full"]
    assert s.advertised_link_modes == [*TEN_HUNDRED, "1000baseT/Full"]
    assert s.partner_link_modes is None
    assert s.speed_mbps == 1000
    assert s.duplex is Duplex.FULL
    assert s.port == "Twisted Pair"
    assert s.phy_address == 1
    assert s.mdix == "off (auto)"
    assert s.link_detected is True
    assert s.max_supported_speed_mbps == 1000
    assert s.common_link_modes is None
    assert s.max_common_speed_mbps is None  # the partner's modes are unknown


def test_e1000e_supports_10000_but_advertises_up_to_1000() -> None:
    """node_exporter's fixture: a comment line first and a netlink error among the settings."""
    s = parse_ethtool_settings(text("node_exporter__ethtool_eth0_settings.txt"), "eth0")
    assert s.supported_ports == ["TP", "MII"]
    assert s.supported_link_modes == [*TEN_HUNDRED, "1000baseT/Full", "10000baseT/Full"]
    assert s.advertised_link_modes == [*TEN_HUNDRED, "1000baseT/Full"]
    assert s.supported_fec_modes == [] and s.advertised_fec_modes == []
    assert s.speed_mbps == 1000
    assert s.autoneg is True
    assert s.link_detected is True
    assert s.messages == ["netlink error: Operation not permitted"]
    assert s.max_supported_speed_mbps == 10000
    assert s.max_advertised_speed_mbps == 1000
    assert s.max_common_speed_mbps is None


def test_a_1g_virtual_e1000_with_trailing_spaces() -> None:
    s = parse_ethtool_settings(text("jc__ethtool_enp0s3_1G_virtual_e1000.txt"), "enp0s3")
    assert s.supported_ports == ["TP"]
    assert s.supported_link_modes == [*TEN_HUNDRED, "1000baseT/Full"]
    assert s.speed_mbps == 1000
    assert s.duplex is Duplex.FULL
    assert s.link_detected is True
    assert s.max_supported_speed_mbps == 1000


def test_virtio_reports_speed_unknown_and_no_link_modes() -> None:
    """ethtool 6.1 on this project's build host (a virtio_net VM NIC)."""
    s = parse_ethtool_settings(text("buildhost_ethtool_eth0_virtio_net_speed_unknown.txt"))
    assert s.supported_ports == []
    assert s.supported_link_modes == [] and s.advertised_link_modes == []
    assert s.supports_autoneg is False
    assert s.speed_mbps is None
    assert s.duplex is None  # "Unknown! (255)"
    assert s.autoneg is False
    assert s.port == "Other"
    assert s.link_detected is True
    assert s.warnings == []
    assert s.max_supported_speed_mbps is None
    assert s.max_common_speed_mbps is None


def test_veth_runs_at_10000_without_link_modes() -> None:
    s = parse_ethtool_settings(text("buildhost_ethtool_veth-a_veth.txt"), "veth-a")
    assert s.speed_mbps == 10000
    assert s.duplex is Duplex.FULL
    assert s.port == "Twisted Pair"
    assert s.supported_link_modes == []
    assert s.max_supported_speed_mbps is None


@pytest.mark.parametrize(
    ("name", "driver", "version", "firmware", "bus"),
    [
        ("node_exporter__ethtool_eth0_driver.txt", "e1000e", "5.11.0-22-generic", "0.5-4",
         "0000:00:1f.6"),
        ("insights-core__ethtool_-i_virtio_net.txt", "virtio_net", "1.0.0", None, "0000:00:03.0"),
        ("insights-core__ethtool_-i_bonding.txt", "bonding", "3.6.0", "2", None),
        ("buildhost_ethtool_-i_eth0_virtio_net.txt", "virtio_net", "1.0.0", None, "0000:00:03.0"),
        ("buildhost_ethtool_-i_veth-a_veth.txt", "veth", "1.0", None, None),
    ],
)  # fmt: skip
def test_driver_info(
    name: str, driver: str, version: str, firmware: str | None, bus: str | None
) -> None:
    info = parse_ethtool_driver(text(name))
    assert info.driver == driver
    assert info.version == version
    assert info.firmware_version == firmware
    assert info.bus_info == bus
    assert info.expansion_rom_version is None


@pytest.mark.parametrize(
    ("bad", "found"),
    [
        ("", "found nothing"),
        ("\x00\x01\x02garbage\n", "found '\\x00\\x01\\x02garbage'"),
        (text("jc__ethtool_--module-info_sfp.txt"), "found 'Identifier"),
    ],
)  # fmt: skip
def test_settings_parse_errors_say_what_was_found(bad: str, found: str) -> None:
    with pytest.raises(EthtoolParseError) as caught:
        parse_ethtool_settings(bad)
    assert "expected a 'Settings for IF:' line" in str(caught.value)
    assert found in str(caught.value)


def test_ethtool_printing_only_its_failure_is_told_apart() -> None:
    """What ethtool 6.1 prints for an ifb (status 75); a capture keeps it."""
    with pytest.raises(EthtoolNoDataError) as caught:
        parse_ethtool_settings("No data available\n")
    assert caught.value.problem == "ethtool printed only its failure: No data available"
    with pytest.raises(EthtoolNoDataError):
        parse_ethtool_driver("Cannot get driver information: Operation not supported\n")


def test_output_for_another_interface_is_refused() -> None:
    with pytest.raises(EthtoolParseError, match="expected settings for eth1, found eth0"):
        parse_ethtool_settings(text("node_exporter__ethtool_eth0_settings.txt"), "eth1")


def test_a_value_that_does_not_parse_is_a_warning() -> None:
    s = parse_ethtool_settings("Settings for eth0:\n\tSpeed: fast\n\tPHYAD: x\n\tDuplex: Full\n")
    assert s.speed_mbps is None
    assert s.phy_address is None
    assert s.duplex is Duplex.FULL
    assert s.warnings == ["speed: 'fast' not understood", "phy_address: 'x' not understood"]


def test_driver_info_needs_a_driver_line() -> None:
    with pytest.raises(EthtoolParseError, match="expected a 'driver:' line, found 'lorem'"):
        parse_ethtool_driver("lorem\nipsum: dolor\n")


def test_802_3ad_bond_with_a_member_down() -> None:
    bond = parse_bonding(
        "bond0", (BONDING / "insights-core_proc_net_bonding_8023ad_slave_down.txt").read_text()
    )
    assert bond.id == "bond:bond0"
    assert bond.mode is BondMode.LACP
    assert bond.mode_text == "IEEE 802.3ad Dynamic link aggregation"
    assert bond.transmit_hash_policy == "layer2 (0)"
    assert bond.mii_status == "up"
    assert (bond.miimon_ms, bond.updelay_ms, bond.downdelay_ms) == (100, 2000, 1000)
    assert bond.lacp_rate == "slow"
    assert bond.min_links == 0
    assert bond.active_aggregator_id == 1
    assert bond.active_aggregator_ports == 1
    assert bond.partner_key == 1
    assert bond.partner_mac == "00:00:00:00:00:00"
    assert bond.primary_member is None and bond.active_member is None
    assert [m.name for m in bond.members] == ["enp0s9", "enp0s8"]
    up, down = bond.members
    assert up.mii_status == "up"
    assert up.speed_mbps == 1000
    assert up.duplex is Duplex.FULL
    assert up.link_failure_count == 0
    assert up.permanent_mac_address == "08:00:27:99:a3:6b"
    assert up.aggregator_id == 1
    assert up.actor_port_key == 9
    assert up.partner_system_mac == "00:00:00:00:00:00"
    assert up.partner_oper_key == 1
    assert (up.actor_churn_state, up.partner_churn_state) == ("none", "churned")
    assert down.mii_status == "down"
    assert down.speed_mbps is None and down.duplex is None  # "Unknown"
    assert down.permanent_mac_address == "08:00:27:a2:8d:f5"
    assert down.aggregator_id == 2  # a different aggregator than the active one
    assert down.actor_port_key == 0
    assert bond.members_up == 1
    assert bond.warnings == []


ACTIVE_BACKUP = """\
Ethernet Channel Bonding Driver: v6.1.0-28-amd64

Bonding Mode: fault-tolerance (active-backup) (fail_over_mac active)
Primary Slave: eno1 (primary_reselect always)
Currently Active Slave: eno2
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0
Peer Notification Delay (ms): 0

Slave Interface: eno1
MII Status: going back
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 3
Permanent HW addr: 3C:FD:FE:00:00:01
Slave queue ID: 0

Slave Interface: eno2
MII Status: up
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 3c:fd:fe:00:00:02
Slave queue ID: 0
"""


def test_active_backup_bond_in_the_layout_of_newer_kernels() -> None:
    """Written from the kernel's bond_procfs.c format strings (no real capture at hand)."""
    bond = parse_bonding("bond1", ACTIVE_BACKUP)
    assert bond.mode is BondMode.ACTIVE_BACKUP
    assert bond.mode_text == "fault-tolerance (active-backup)"
    assert bond.primary_member == "eno1"
    assert bond.active_member == "eno2"
    assert bond.transmit_hash_policy is None
    first, second = bond.members
    assert first.mii_status == "going back"
    assert first.link_failure_count == 3
    assert first.permanent_mac_address == "3c:fd:fe:00:00:01"
    assert first.aggregator_id is None
    assert second.speed_mbps == 10000
    assert bond.members_up == 1


def test_bonding_text_without_a_mode_is_refused() -> None:
    with pytest.raises(BondingParseError, match="expected a 'Bonding Mode:' line, found 'hello'"):
        parse_bonding("bond0", "hello\nworld\n")
    with pytest.raises(BondingParseError, match="found nothing"):
        parse_bonding("bond0", "")
