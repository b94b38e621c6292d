"""The network collector on captured snapshots: real sysfs trees with real ethtool output."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.network import Duplex, Network, NicKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind

SNAPSHOTS = FIXTURES / "network" / "snapshots"
ETHTOOL = FIXTURES / "network" / "ethtool"


def collect(root: Path) -> tuple[Network, list[CollectionProblem]]:
    log = ProblemLog()
    network = collect_network(SnapshotSource(root), log)
    return network, log.problems()


@pytest.fixture
def e1000e(tmp_path: Path) -> Path:
    """A private copy of the procfs eth0 (e1000e) snapshot that a test may change."""
    target = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", target, symlinks=True)
    return target


def test_e1000e_from_procfs_sysfs_and_node_exporter_ethtool() -> None:
    network, problems = collect(SNAPSHOTS / "procfs-e1000e")
    assert problems == []
    assert network.bonds == []
    (nic,) = network.nics
    assert nic.id == "nic:01:01:01:01:01:01"
    assert nic.name == "eth0"
    assert nic.kind is NicKind.PHYSICAL
    assert nic.pci_address == "0000:00:1f.6"
    assert nic.device_path == "/sys/devices/pci0000:00/0000:00:1f.6"
    assert nic.mac_address == "01:01:01:01:01:01"
    assert nic.operstate == "up"
    assert nic.carrier is True
    assert nic.mtu == 1500
    assert nic.duplex is Duplex.FULL
    assert nic.speed_mbps == 1000
    assert nic.driver is not None
    assert (nic.driver.driver, nic.driver.firmware_version) == ("e1000e", "0.5-4")
    assert nic.driver.bus_info == nic.pci_address
    assert nic.max_supported_speed_mbps == 10000
    assert nic.max_common_speed_mbps is None
    assert nic.not_collected == {
        "max_common_speed_mbps": "the link partner's advertised modes are unknown "
        "(driver e1000e does not report them)"
    }
    assert nic.bond is None


def test_field_case_3_a_1g_nic_running_at_100m(e1000e: Path) -> None:
    """The three speeds a rule compares: supported 1000, both ends 100, running 100."""
    shutil.copyfile(
        ETHTOOL / "jc__ethtool_eth0_1G_nic_DOWNGRADED_100M_link_partner_only_100.txt",
        e1000e / "commands/ethtool/eth0.txt",
    )
    (e1000e / "sys/class/net/eth0/speed").write_text("100\n")
    network, problems = collect(e1000e)
    assert problems == []
    nic = network.nics[0]
    assert nic.max_supported_speed_mbps == 1000
    assert nic.max_common_speed_mbps == 100
    assert nic.speed_mbps == 100
    assert nic.not_collected == {}


def test_node_exporter_bonds_from_sysfs_with_vanished_members() -> None:
    """node_exporter's (partly synthetic) tree: no /proc/net/bonding, members gone from sysfs."""
    network, problems = collect(SNAPSHOTS / "node-exporter-bonds")
    assert [b.name for b in network.bonds] == ["bond0", "dmz", "int"]
    assert all(b.source == "sysfs" and b.id == f"bond:{b.name}" for b in network.bonds)
    bond0, dmz, int_ = network.bonds
    assert bond0.members == []
    assert bond0.speed_mbps is None  # the kernel says -1 for a bond without members
    assert bond0.not_collected["speed_mbps"] == "the kernel reports -1 (no speed)"
    assert (dmz.speed_mbps, dmz.duplex, dmz.mtu, dmz.operstate) == (1000, Duplex.FULL, 1500, "up")
    assert [(m.name, m.present) for m in dmz.members] == [("eth0", True), ("eth4", False)]
    assert [(m.name, m.present, m.mii_status) for m in int_.members] == [
        ("eth5", False, "up"),
        ("eth1", False, "down"),
    ]
    (eth0,) = network.nics
    assert eth0.kind is NicKind.PHYSICAL
    assert eth0.pci_address == "0000:03:00.0"  # from where the class link leads: no device link
    assert eth0.bond == "dmz"
    assert dmz.members[0].nic_id == eth0.id == "nic:01:01:01:01:01:01"
    assert dmz.members[0].speed_mbps == 1000  # the member's own sysfs speed
    vanished = [p for p in problems if p.kind is ProblemKind.MISSING]
    assert [p.subject for p in vanished] == ["dmz/eth4", "int/eth5", "int/eth1"]
    assert (
        "bond dmz lists member eth4, but /sys/class/net/eth4 does not exist" in vanished[0].reason
    )
    not_collected = [p for p in problems if p.kind is ProblemKind.NOT_COLLECTED]
    assert [p.subject for p in not_collected] == ["ethtool eth0", "ethtool -i eth0"]
    assert eth0.not_collected["max_supported_speed_mbps"] == (
        "the snapshot holds no output of `ethtool eth0`"
    )


def test_veth_pairs_captured_in_a_network_namespace() -> None:
    """A real capture (RecordingSource in `ip netns`) of two veth pairs, one with its peer down."""
    network, problems = collect(SNAPSHOTS / "buildhost-veth")
    assert problems == []
    assert [n.name for n in network.nics] == ["veth-a", "veth-b", "veth-c", "veth-d"]
    for nic in network.nics:
        assert nic.kind is NicKind.VIRTUAL
        assert nic.id == f"nic:virtual/{nic.name}"
        assert nic.pci_address is None
        assert nic.speed_mbps == 10000
        assert nic.driver is not None and nic.driver.driver == "veth"
        assert nic.max_supported_speed_mbps is None
        assert nic.not_collected["max_supported_speed_mbps"] == (
            "a virtual interface (driver veth) has no link modes: ethtool lists none"
        )
    states = {n.name: (n.operstate, n.carrier) for n in network.nics}
    assert states == {
        "veth-a": ("up", True),
        "veth-b": ("up", True),
        "veth-c": ("lowerlayerdown", False),  # up, but its peer veth-d is down
        "veth-d": ("down", False),  # carrier withheld by the kernel: ethtool's "Link detected"
    }


def test_the_shared_procfs_capture(procfs_snapshot: Path) -> None:
    """The SAS fixture's host has one NIC; its snapshot holds no ethtool output."""
    network, problems = collect(procfs_snapshot)
    (nic,) = network.nics
    assert nic.kind is NicKind.PHYSICAL
    assert (nic.speed_mbps, nic.duplex, nic.mtu) == (1000, Duplex.FULL, 1500)
    assert nic.id == "nic:01:01:01:01:01:01"
    assert {p.kind for p in problems} <= {ProblemKind.NOT_COLLECTED, ProblemKind.UNREADABLE}


def test_a_device_link_flattened_into_a_file(e1000e: Path) -> None:
    """What the shared corpus did to links: the NIC stands, its PCI address is unknown."""
    device = e1000e / "sys/class/net/eth0/device"
    target = os.readlink(device)
    device.unlink()
    device.write_text(target)
    network, problems = collect(e1000e)
    (nic,) = network.nics
    assert nic.kind is NicKind.PHYSICAL
    assert nic.pci_address is None
    assert nic.speed_mbps == 1000
    assert nic.max_supported_speed_mbps == 10000
    (problem,) = problems
    assert (problem.kind, problem.subject) == (ProblemKind.UNREADABLE, "/sys/class/net/eth0/device")
    assert problem.reason == (
        "/sys/class/net/eth0/device is not a symlink (a copy that flattened links?): "
        "the NIC's PCI address is unknown"
    )
    assert nic.not_collected["pci_address"].endswith(
        "is not a symlink (a copy that flattened links?)"
    )
