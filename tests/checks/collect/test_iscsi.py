"""iSCSI sessions, their portal, interface and LUNs: simulated hosts following the kernel's
layout (the corpus holds no iSCSI sysfs), and damaged trees that must not stop the collection."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.iscsi import collect_iscsi
from pinchpoint.checks.source import RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.iscsi import IscsiInventory
from pinchpoint.simulator import load_spec, write_snapshot

SINGLE = ROOT / "pinchpoint" / "simulator" / "specs" / "iscsi_single_session.toml"
HOST0 = "sys/devices/platform/host0"


def collect(root: Path) -> tuple[IscsiInventory, list[str]]:
    log = ProblemLog()
    return collect_iscsi(SnapshotSource(root), log), [p.line() for p in log.problems()]


@pytest.fixture(scope="module")
def two_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("iscsi") / "two"
    write_snapshot(load_spec(SPECS / "iscsi_two_sessions.toml"), out)
    return out


@pytest.fixture
def copy(two_sessions: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(two_sessions, target, symlinks=True)
    return target


def test_two_sessions_present_the_same_two_luns(two_sessions: Path) -> None:
    iscsi, problems = collect(two_sessions)
    assert problems == []
    a, b = iscsi.sessions
    assert (a.name, a.target, a.portal, a.state, a.tpgt, a.iface) == (
        "session1",
        "iqn.2003-01.org.linux-iscsi.array1:port-a",
        "10.8.100.6:3260",
        "LOGGED_IN",
        1,
        "iface0",
    )
    assert (a.scsi_host, a.netdev, a.local_address, a.interface) == (
        "host0",
        "ens2f0",
        "10.8.100.20",
        "interface ens2f0",
    )
    assert b.interface == "interface ens2f1" and b.connection_state == "up"
    assert [(d.hctl, d.lun, d.block_device, d.state) for d in a.devices] == [
        ("0:0:0:0", 0, "sda", "running"),
        ("0:0:0:1", 1, "sdb", "running"),
    ]
    assert [d.wwid for d in a.devices] == [d.wwid for d in b.devices]  # one LU, two sessions
    assert all(d.wwid and d.wwid.startswith("naa.6001405") for d in a.devices)


def test_the_dead_session_of_open_iscsi_issue_228(tmp_path: Path) -> None:
    """Session FREE, its connection failed, its disks blocked; no local address is known."""
    out = tmp_path / "single"
    write_snapshot(load_spec(SINGLE), out)
    iscsi, problems = collect(out)
    assert problems == []
    dead, live = iscsi.sessions
    assert (dead.state, dead.logged_in, dead.connection_state) == ("FREE", False, "failed")
    assert dead.interface is None and dead.initiator == "iqn.2017-01.at.cf-it.kubernetes.db-1"
    assert {d.state for d in dead.devices} == {"blocked"}
    assert live.logged_in and live.interface == "local address 10.8.101.20"


def test_capture_records_what_the_collector_read(two_sessions: Path, tmp_path: Path) -> None:
    out = tmp_path / "capture"
    live = collect_iscsi(RecordingSource(out, root=str(two_sessions)), ProblemLog())
    (out / "manifest.json").write_text('{"format": "pinchpoint-snapshot", "version": 1}\n')
    assert collect(out) == (live, [])


def test_an_older_snapshot_without_sessions_says_so(copy: Path) -> None:
    shutil.rmtree(copy / "sys/class/iscsi_session")
    iscsi, problems = collect(copy)
    assert iscsi.sessions == []
    assert len(problems) == 1 and "iscsi_session is absent although 2 iSCSI host" in problems[0]
    inventory = collect_inventory(SnapshotSource(copy))
    assert [p.part for p in inventory.problems if p.part == "iscsi"] == ["iscsi"]


def test_a_host_without_iscsi_is_quiet(tmp_path: Path) -> None:
    (tmp_path / "sys/class").mkdir(parents=True)
    assert collect(tmp_path) == (IscsiInventory(), [])


def test_garbled_binary_unreadable_and_empty_attributes(copy: Path) -> None:
    session = copy / HOST0 / "session1/iscsi_session/session1"
    (session / "targetname").write_bytes(b"iqn.evil\x1b]0;owned\x07\x00")
    (session / "state").write_text("")
    (session / "tpgt").write_text("one")
    host = copy / HOST0 / "iscsi_host/host0/netdev"
    host.unlink()
    host.mkdir()  # reading it fails as an I/O error would
    iscsi, problems = collect(copy)
    first, second = iscsi.sessions
    assert first.target == "iqn.evil]0;owned" and first.state is None and first.tpgt is None
    assert first.netdev is None and first.interface == "local address 10.8.100.20"
    assert len(first.devices) == 2 and second.state == "LOGGED_IN"  # the rest stands
    assert any("expected a number" in p for p in problems)
    assert any("netdev" in p for p in problems)


def test_a_dangling_session_link_and_a_missing_connection(copy: Path) -> None:
    shutil.rmtree(copy / "sys/devices/platform/host1/session2")
    shutil.rmtree(copy / HOST0 / "session1/connection1:0")
    iscsi, problems = collect(copy)
    (only,) = iscsi.sessions
    assert only.name == "session1" and only.portal is None and len(only.devices) == 2
    assert any("session2" in p for p in problems)


def test_the_wwid_is_read_from_the_vpd_page_else_from_wwid(copy: Path) -> None:
    """The LUN's identity from its Device Identification page (`vpd_pg83`, as a LIO target
    answers it), equal to the kernel's `wwid`; without the page (older kernels) from `wwid`;
    a garbled page is a problem and `wwid` stands in."""
    lun0 = copy / HOST0 / "session1/target0:0:0/0:0:0:0"
    lun1 = copy / HOST0 / "session1/target0:0:0/0:0:0:1"
    iscsi, problems = collect(copy)
    first = iscsi.sessions[0].devices
    assert problems == [] and [d.wwid_from for d in first] == ["vpd_pg83", "vpd_pg83"]
    assert [d.wwid for d in first] == [
        (lun0 / "wwid").read_text().strip(),
        (lun1 / "wwid").read_text().strip(),
    ]
    (lun0 / "vpd_pg83").unlink()
    (lun1 / "vpd_pg83").write_bytes(b"\x00\xef\xbf\xbd\x00\x20garbled")
    iscsi, problems = collect(copy)
    again = iscsi.sessions[0].devices
    assert [(d.wwid, d.wwid_from) for d in again] == [(d.wwid, "wwid") for d in first]
    assert len(problems) == 1 and "0:0:0:1/vpd_pg83" in problems[0]
    assert "page code 0xef, not 0x83" in problems[0]
    (lun0 / "wwid").unlink()
    iscsi, _ = collect(copy)
    assert (iscsi.sessions[0].devices[0].wwid, iscsi.sessions[0].devices[0].wwid_from) == (
        None,
        None,
    )
