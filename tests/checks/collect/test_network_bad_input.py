"""Bad input for the network collector: each ends as "not collected: why", the rest stands."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect import network as network_module
from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.source import LiveSource, SnapshotSource, Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.network import Network, NicKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind

FIXTURES = ALL_FIXTURES / "network"
SNAPSHOTS = FIXTURES / "snapshots"
ETHTOOL = FIXTURES / "ethtool"
BOND_TEXT = FIXTURES / "bonding" / "insights-core_proc_net_bonding_8023ad_slave_down.txt"

# The attributes of the real procfs eth0, the ones the collector reads.
UP_1G = {"operstate": "up", "carrier": "1", "mtu": "1500", "speed": "1000", "duplex": "full"}


def collect(source: Source) -> tuple[Network, list[CollectionProblem]]:
    log = ProblemLog()
    return collect_network(source, log), log.problems()


def write_interface(root: Path, name: str, mac: str, pci: str | None, **attrs: str) -> Path:
    """An interface the way sysfs lays it out: class link to the device tree, `device` link."""
    if pci is not None:
        function = root / "sys/devices/pci0000:00" / pci
        netdir = function / "net" / name
        netdir.mkdir(parents=True)
        (netdir / "device").symlink_to("../../../" + pci)
    else:
        netdir = root / "sys/devices/virtual/net" / name
        netdir.mkdir(parents=True)
    for key, value in {"address": mac, **attrs}.items():
        (netdir / key).write_text(value + "\n")
    classdir = root / "sys/class/net"
    classdir.mkdir(parents=True, exist_ok=True)
    (classdir / name).symlink_to(os.path.relpath(netdir, classdir))
    return netdir


def write_command(root: Path, key: str, text: str) -> None:
    path = root / "commands" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def e1000e(tmp_path: Path) -> Path:
    target = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", target, symlinks=True)
    return target


# --- a NIC without a speed --------------------------------------------------------------------


def test_speed_unknown_with_the_link_down(e1000e: Path) -> None:
    """sysfs says -1 and ethtool "Unknown!": no speed, and the reason is the link."""
    sysfs = e1000e / "sys/class/net/eth0"
    for name, value in {
        "speed": "-1",
        "carrier": "0",
        "operstate": "down",
        "duplex": "unknown",
    }.items():
        (sysfs / name).write_text(value + "\n")
    settings = e1000e / "commands/ethtool/eth0.txt"
    settings.write_text(
        settings.read_text()
        .replace("Speed: 1000Mb/s", "Speed: Unknown!")
        .replace("Duplex: Full", "Duplex: Unknown! (255)")
        .replace("Link detected: yes", "Link detected: no")
    )
    network, problems = collect(SnapshotSource(e1000e))
    nic = network.nics[0]
    assert nic.speed_mbps is None
    assert nic.duplex is None
    assert nic.carrier is False
    assert nic.not_collected["speed_mbps"] == (
        "the link is down (operstate down, no carrier): no speed is negotiated"
    )
    assert nic.max_supported_speed_mbps == 10000  # what the NIC can do is still known
    assert nic.not_collected["max_common_speed_mbps"] == (
        "the link partner's advertised modes are unknown (the link is down)"
    )
    (problem,) = problems
    assert problem.kind is ProblemKind.UNSUPPORTED
    assert problem.line() == (
        "network: eth0: speed not known: the link is down (operstate down, no carrier): "
        "no speed is negotiated"
    )


def test_speed_unknown_with_the_link_up_names_the_driver(tmp_path: Path) -> None:
    """virtio_net (this project's build host): -1 in sysfs although the link is up."""
    write_interface(
        tmp_path, "eth0", "02:fc:00:00:00:01", "0000:00:03.0", **{**UP_1G, "speed": "-1"}
    )
    write_command(
        tmp_path,
        "ethtool/eth0.txt",
        (ETHTOOL / "buildhost_ethtool_eth0_virtio_net_speed_unknown.txt").read_text(),
    )
    write_command(
        tmp_path,
        "ethtool-i/eth0.txt",
        (ETHTOOL / "buildhost_ethtool_-i_eth0_virtio_net.txt").read_text(),
    )
    network, problems = collect(SnapshotSource(tmp_path))
    nic = network.nics[0]
    assert nic.speed_mbps is None
    assert nic.not_collected["speed_mbps"] == (
        "driver virtio_net reports no speed while the link is up "
        "(sysfs speed -1, ethtool 'Unknown!')"
    )
    assert nic.not_collected["max_supported_speed_mbps"] == (
        "driver virtio_net reports no supported link modes (ethtool: 'Not reported')"
    )
    assert [(p.kind, p.subject) for p in problems] == [
        (ProblemKind.UNSUPPORTED, "eth0"),
        (ProblemKind.UNSUPPORTED, "eth0"),
    ]


def test_a_speed_that_is_not_a_number_is_garbled(e1000e: Path) -> None:
    (e1000e / "sys/class/net/eth0/speed").write_text("fast\n")
    network, problems = collect(SnapshotSource(e1000e))
    assert network.nics[0].speed_mbps == 1000  # ethtool's "Speed: 1000Mb/s" stands in
    garbled = [p for p in problems if p.kind is ProblemKind.GARBLED]
    assert [p.subject for p in garbled] == ["/sys/class/net/eth0/speed"]
    assert garbled[0].reason == "expected a number, found 'fast'"


# --- ethtool missing, failing, garbled, hung --------------------------------------------------


def test_ethtool_missing(e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    network, problems = collect(LiveSource(root=str(e1000e)))
    nic = network.nics[0]
    assert (nic.speed_mbps, nic.pci_address, nic.mtu) == (
        1000,
        "0000:00:1f.6",
        1500,
    )  # sysfs stands
    assert nic.settings is None and nic.driver is None
    assert nic.not_collected["max_supported_speed_mbps"] == (
        "ethtool is not installed (install the package that provides it)"
    )
    assert [(p.kind, p.subject) for p in problems] == [
        (ProblemKind.TOOL_MISSING, "ethtool eth0"),
        (ProblemKind.TOOL_MISSING, "ethtool -i eth0"),
        (ProblemKind.TOOL_MISSING, "ethtool -S eth0"),
    ]


def test_ethtool_failing(e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "echo 'Cannot get device settings: No such device' >&2; exit 1"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "ethtool", body)))
    network, problems = collect(LiveSource(root=str(e1000e)))
    nic = network.nics[0]
    assert nic.speed_mbps == 1000
    assert nic.settings is None
    reason = "ethtool exited with status 1: Cannot get device settings: No such device"
    assert nic.not_collected["max_supported_speed_mbps"] == reason
    assert [(p.kind, p.subject, p.reason) for p in problems] == [
        (ProblemKind.FAILED, "ethtool eth0", reason),
        (ProblemKind.FAILED, "ethtool -i eth0", reason),
        (ProblemKind.FAILED, "ethtool -S eth0", reason),
    ]
    assert nic.not_collected["driver_counters"] == reason
    assert nic.counters is not None and nic.counters.carrier_changes == 2  # sysfs stands


def test_ethtool_failing_with_its_words_on_stdout(
    e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ethtool 6.1 does for an ifb: "No data available" on stdout, status 75."""
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "ethtool", "echo 'No data available'; exit 75"))
    )
    _, problems = collect(LiveSource(root=str(e1000e)))
    assert problems[0].reason == "ethtool exited with status 75: No data available"


def test_ethtool_printing_garbage(
    e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "ethtool", "echo 'lorem ipsum'; echo 'dolor sit'"))
    )
    network, problems = collect(LiveSource(root=str(e1000e)))
    nic = network.nics[0]
    assert nic.speed_mbps == 1000
    assert nic.settings is None and nic.driver is None
    assert [(p.kind, p.subject) for p in problems] == [
        (ProblemKind.GARBLED, "ethtool eth0"),
        (ProblemKind.GARBLED, "ethtool -i eth0"),
        (ProblemKind.GARBLED, "ethtool -S eth0"),
    ]
    assert problems[2].reason == (
        "output not understood: ethtool -S output: expected 'NIC statistics:' and "
        "'name: count' lines, found 'lorem ipsum'"
    )
    assert problems[0].reason == (
        "output not understood: ethtool output: expected a 'Settings for IF:' line, "
        "found 'lorem ipsum'"
    )
    assert nic.not_collected["driver"] == (
        "output not understood: ethtool -i output: expected a 'driver:' line, found 'lorem ipsum'"
    )


def test_ethtool_hung(e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "ethtool", f"exec {shutil.which('sleep')} 60"))
    )
    monkeypatch.setattr(network_module, "ETHTOOL_TIMEOUT_S", 0.3)
    network, problems = collect(LiveSource(root=str(e1000e)))
    assert network.nics[0].speed_mbps == 1000
    assert {p.kind for p in problems} == {ProblemKind.TIMEOUT}
    assert "did not finish within 0.3 s and was stopped" in problems[0].reason


def test_a_captured_no_data_available_is_a_failure_not_garbage(tmp_path: Path) -> None:
    """A capture keeps what a failing ethtool printed; read back, it is still a failure."""
    write_interface(tmp_path, "ifb0", "36:a3:fd:7e:87:2d", None, operstate="down", mtu="1500")
    write_interface(tmp_path, "eth0", "02:fc:00:00:00:01", "0000:00:03.0", **UP_1G)
    for name in ("ifb0", "eth0"):
        write_command(tmp_path, f"ethtool/{name}.txt", "No data available\n")
    network, problems = collect(SnapshotSource(tmp_path))
    why = "ethtool printed only its failure: No data available"
    assert all(n.not_collected["settings"] == why for n in network.nics)
    settings_problems = [p for p in problems if p.subject.startswith("ethtool eth")]
    assert [(p.kind, p.subject, p.reason) for p in settings_problems] == [
        (ProblemKind.FAILED, "ethtool eth0", why)  # the physical NIC only
    ]
    assert not any(p.subject == "ethtool ifb0" for p in problems)


def test_a_snapshot_without_ethtool_output_of_a_virtual_nic_logs_nothing(tmp_path: Path) -> None:
    write_interface(tmp_path, "br0", "52:54:00:12:34:56", None, **UP_1G)
    network, problems = collect(SnapshotSource(tmp_path))
    assert problems == []  # an absent output of a bridge's ethtool is not worth a line
    assert (
        network.nics[0].not_collected["driver"]
        == "the snapshot holds no output of `ethtool -i br0`"
    )


# --- virtual NICs -----------------------------------------------------------------------------


def test_a_virtual_nic_without_link_modes(tmp_path: Path) -> None:
    write_interface(tmp_path, "veth-a", "7a:89:43:cf:a1:fb", None, **{**UP_1G, "speed": "10000"})
    write_command(
        tmp_path, "ethtool/veth-a.txt", (ETHTOOL / "buildhost_ethtool_veth-a_veth.txt").read_text()
    )
    write_command(
        tmp_path,
        "ethtool-i/veth-a.txt",
        (ETHTOOL / "buildhost_ethtool_-i_veth-a_veth.txt").read_text(),
    )
    network, problems = collect(SnapshotSource(tmp_path))
    (nic,) = network.nics
    assert nic.kind is NicKind.VIRTUAL
    assert nic.id == "nic:virtual/veth-a"
    assert nic.speed_mbps == 10000
    assert nic.max_supported_speed_mbps is None
    why = "a virtual interface (driver veth) has no link modes: ethtool lists none"
    assert nic.not_collected == {"max_supported_speed_mbps": why, "max_common_speed_mbps": why}
    assert problems == []  # normal for a veth: said on the NIC, not reported as a problem


# --- bonds ------------------------------------------------------------------------------------


def lacp_host(root: Path) -> None:
    """The 802.3ad bond of insights-core's capture: bond0 over enp0s9 (up) and enp0s8 (down)."""
    bond = write_interface(root, "bond0", "08:00:27:99:a3:6b", None, **UP_1G)
    (bond / "bonding").mkdir()
    (bond / "bonding/slaves").write_text("enp0s9 enp0s8\n")
    write_interface(root, "enp0s9", "08:00:27:99:a3:6b", "0000:00:09.0", **UP_1G)
    down = {**UP_1G, "operstate": "down", "carrier": "0", "speed": "-1", "duplex": "unknown"}
    write_interface(root, "enp0s8", "08:00:27:99:a3:6b", "0000:00:08.0", **down)
    proc = root / "proc/net/bonding"
    proc.mkdir(parents=True)
    shutil.copyfile(BOND_TEXT, proc / "bond0")


def test_bond_members_take_their_id_from_the_permanent_mac(tmp_path: Path) -> None:
    """Members carry the bond's MAC; /proc/net/bonding gives each its own."""
    lacp_host(tmp_path)
    network, _ = collect(SnapshotSource(tmp_path))
    (bond,) = network.bonds
    assert bond.source == "proc"
    assert bond.speed_mbps == 1000 and bond.mtu == 1500
    ids = {n.name: n.id for n in network.nics}
    assert ids == {"enp0s8": "nic:08:00:27:a2:8d:f5", "enp0s9": "nic:08:00:27:99:a3:6b"}
    assert [m.nic_id for m in bond.members] == [ids["enp0s9"], ids["enp0s8"]]
    assert all(n.bond == "bond0" for n in network.nics)
    assert network.nic("enp0s8") is not None
    assert network.nic("enp0s8").permanent_mac_address == "08:00:27:a2:8d:f5"  # type: ignore[union-attr]


def test_a_bond_whose_member_vanished(tmp_path: Path) -> None:
    lacp_host(tmp_path)
    (tmp_path / "sys/class/net/enp0s8").unlink()
    network, problems = collect(SnapshotSource(tmp_path))
    (bond,) = network.bonds
    gone = bond.members[1]
    assert (gone.name, gone.present, gone.nic_id) == ("enp0s8", False, None)
    assert gone.permanent_mac_address == "08:00:27:a2:8d:f5"  # the bond still knows it
    assert [n.name for n in network.nics] == ["enp0s9"]
    missing = [p for p in problems if p.kind is ProblemKind.MISSING]
    assert [p.subject for p in missing] == ["bond0/enp0s8"]
    assert missing[0].reason.startswith(
        "bond bond0 lists member enp0s8, but /sys/class/net/enp0s8 does not exist"
    )
    assert bond.members[0].nic_id == "nic:08:00:27:99:a3:6b"


def test_a_garbled_bonding_file_falls_back_to_sysfs(tmp_path: Path) -> None:
    lacp_host(tmp_path)
    (tmp_path / "proc/net/bonding/bond0").write_bytes(os.urandom(200).replace(b"\n", b" "))
    network, problems = collect(SnapshotSource(tmp_path))
    (bond,) = network.bonds
    assert bond.source == "sysfs"
    assert [m.name for m in bond.members] == ["enp0s9", "enp0s8"]
    garbled = [p for p in problems if p.kind is ProblemKind.GARBLED]
    assert [p.subject for p in garbled] == ["/proc/net/bonding/bond0"]
    assert "expected a 'Bonding Mode:' line" in garbled[0].reason


def test_a_bond_only_in_proc(tmp_path: Path) -> None:
    """A partial capture: /proc/net/bonding/bond0 without any of sysfs."""
    (tmp_path / "sys/class/net").mkdir(parents=True)
    (tmp_path / "proc/net/bonding").mkdir(parents=True)
    shutil.copyfile(BOND_TEXT, tmp_path / "proc/net/bonding/bond0")
    network, problems = collect(SnapshotSource(tmp_path))
    (bond,) = network.bonds
    assert bond.mode is not None and bond.speed_mbps is None
    assert bond.not_collected["link"] == "/sys/class/net/bond0 does not exist"
    assert [p.subject for p in problems] == ["bond0/enp0s9", "bond0/enp0s8"]


def test_no_sys_class_net(tmp_path: Path) -> None:
    network, problems = collect(SnapshotSource(tmp_path))
    assert network.nics == [] and network.bonds == []
    (problem,) = problems
    assert problem.kind is ProblemKind.MISSING
    assert problem.line() == (
        "network: /sys/class/net: does not exist: no network interface was collected"
    )


def test_two_physical_nics_with_one_mac_fall_back_to_pci(tmp_path: Path) -> None:
    """A MAC set by hand on two ports is no identity: the PCI function and name are."""
    write_interface(tmp_path, "eth0", "01:01:01:01:01:01", "0000:03:00.0", **UP_1G)
    write_interface(tmp_path, "eth1", "01:01:01:01:01:01", "0000:03:00.1", **UP_1G)
    network, _ = collect(SnapshotSource(tmp_path))
    assert [n.id for n in network.nics] == ["nic:0000:03:00.0/eth0", "nic:0000:03:00.1/eth1"]
