"""Bad FC input never stops the collection: each damage is one clear problem, the rest stands."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.fc import collect_fc
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.fc import FcInventory
from pinchpoint.model.problems import ProblemKind

SAN_HOST = FIXTURES / "fc" / "ucs-qla2432-clariion"
EMULEX = "sys/class/fc_host/host0"  # a plain directory in the procfs capture
HOST5 = "sys/devices/pci0000:00/0000:00:07.0/0000:04:00.1/host5"


@pytest.fixture
def san_copy(tmp_path: Path) -> Path:
    target = tmp_path / "san"
    shutil.copytree(SAN_HOST, target, symlinks=True)
    return target


def collect(root: Path) -> tuple[FcInventory, list[str], ProblemLog]:
    log = ProblemLog()
    fc = collect_fc(SnapshotSource(root), log)
    return fc, [p.line() for p in log.problems()], log


def test_unreadable_and_garbled_counters_and_an_unknown_speed(procfs_copy: Path) -> None:
    port_dir = procfs_copy / EMULEX
    (port_dir / "speed").write_text("unknown\n")
    stats = port_dir / "statistics"
    (stats / "link_failure_count").unlink()
    (stats / "link_failure_count").mkdir()  # reading it fails as an I/O error would
    (stats / "invalid_crc_count").write_bytes(b"\xff\xfe garbage\n")
    fc, lines, log = collect(procfs_copy)
    port = fc.ports[0]
    assert port.speed_text == "unknown"
    assert port.speed_gbps is None
    assert port.supported_speeds_gbps == [4.0, 8.0, 16.0]  # the port still says what it can do
    assert port.statistics.link_failure_count is None
    assert port.statistics.invalid_crc_count is None
    assert port.statistics.loss_of_sync_count == 0x10  # the rest stands
    assert port.statistics.unsupported == ["dumped_frames"]  # failures are not "unsupported"
    counters = [p for p in log.problems() if p.subject.endswith("host0/statistics")]
    assert len(counters) == 1  # one line per port, not one per file
    assert counters[0].kind is ProblemKind.UNREADABLE
    assert "host0: 2 of 14 error counters not collected" in counters[0].reason
    assert "invalid_crc_count (expected a counter like '0x1f'" in counters[0].reason
    assert "link_failure_count (" in counters[0].reason
    assert not any("speed" in line for line in lines)  # "unknown" is a speed the kernel prints


def test_a_garbled_speed_is_named_and_left_out(procfs_copy: Path) -> None:
    (procfs_copy / EMULEX / "speed").write_bytes(os.urandom(16).replace(b"\n", b"") + b"\n")
    (procfs_copy / EMULEX / "supported_speeds").write_text("4 Gbit, lots\n")
    fc, _, log = collect(procfs_copy)
    assert fc.ports[0].speed_gbps is None and fc.ports[0].speed_text is None
    assert fc.ports[0].supported_speeds_gbps == []
    garbled = [p for p in log.problems() if p.kind is ProblemKind.GARBLED]
    assert {p.subject.rsplit("/", 1)[1] for p in garbled} == {"speed", "supported_speeds"}
    assert "expected a speed like '16 Gbit' or 'unknown'" in garbled[0].reason
    assert fc.ports[0].port_name == "0x1000e0071bce95f2"


def test_statistics_that_are_not_a_directory_read_as_unsupported(procfs_copy: Path) -> None:
    stats = procfs_copy / EMULEX / "statistics"
    shutil.rmtree(stats)
    stats.write_text("")
    fc, _, log = collect(procfs_copy)
    assert fc.ports[0].statistics.link_failure_count is None
    (problem,) = [p for p in log.problems() if p.subject.endswith("statistics")]
    assert problem.kind is ProblemKind.UNSUPPORTED
    assert "host0 error counters not collected: the driver exposes no statistics" in problem.reason


def test_a_host_with_no_fc_at_all_gives_an_empty_result_and_no_noise(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": "pinchpoint-snapshot", "version": 1})
    )
    (tmp_path / "sys/class/scsi_host").mkdir(parents=True)
    fc, lines, _ = collect(tmp_path)
    assert fc == FcInventory()
    assert (fc.adapter_count, fc.card_count, fc.ports_online) == (0, 0, 0)
    assert lines == []


def test_a_dangling_fc_host_link_leaves_that_port_out(san_copy: Path) -> None:
    shutil.rmtree(san_copy / HOST5 / "fc_host")
    fc, lines, _ = collect(san_copy)
    assert [p.scsi_host for p in fc.ports] == ["host3"]
    assert len(fc.ports[0].luns) == 16
    assert fc.adapter_count == 1
    assert any("/sys/class/fc_host/host5" in line and "dangling symlink" in line for line in lines)


def test_a_lun_that_went_away_keeps_its_name_and_says_so(san_copy: Path) -> None:
    lun_dir = san_copy / HOST5 / "rport-5:0-1/target5:0:1/5:0:1:4"
    shutil.rmtree(lun_dir)
    fc, lines, _ = collect(san_copy)
    host5 = fc.ports[1]
    lun = next(u for u in host5.luns if u.hctl == "5:0:1:4")
    assert lun.wwid is None and lun.block_device is None
    assert lun.remote_port_id is not None  # the rport is still known
    assert any("SCSI device 5:0:1:4 went away" in line for line in lines)
    assert len(host5.luns) == 16


def test_garbled_remote_port_attributes_do_not_lose_the_port(san_copy: Path) -> None:
    rport = san_copy / HOST5 / "rport-5:0-0/fc_remote_ports/rport-5:0-0"
    (rport / "scsi_target_id").write_text("zero\n")
    fc, lines, _ = collect(san_copy)
    found = fc.ports[1].remote_ports[0]
    assert found.port_name == "0x5006016944603569"
    assert found.scsi_target_id is None
    assert any("expected a number, found 'zero'" in line for line in lines)
    # its LUNs can no longer be tied to it, but they are still listed under the port
    luns = [u for u in fc.ports[1].luns if u.hctl.startswith("5:0:0:")]
    assert len(luns) == 8 and all(u.remote_port_id is None for u in luns)
    assert luns[0].id == "fc-port:0x2101001b32a0a1b2/target:0:0/lun:0"
