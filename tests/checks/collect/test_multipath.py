"""dm-multipath maps: sysfs joined with `multipath -ll`, and every way either can fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect import multipath
from pinchpoint.checks.collect.fc import collect_fc
from pinchpoint.checks.collect.multipath import collect_multipath
from pinchpoint.checks.source import LiveSource, RecordingSource, SnapshotSource, Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.multipath import MultipathInventory
from pinchpoint.model.problems import CollectionProblem, ProblemKind

SAN_HOST = FIXTURES / "fc" / "ucs-qla2432-clariion"
RHEL6 = FIXTURES / "multipath" / "insights-core_multipath_v4_ll_rhel6_dell_md36xxi.txt"
LL = "commands/multipath/ll.txt"
L004_WWID = "360060160ade32800f2e3baf47665e211"
HOST5 = "sys/devices/pci0000:00/0000:00:07.0/0000:04:00.1/host5"
SDP = f"{HOST5}/rport-5:0-0/target5:0:0/5:0:0:4"


@pytest.fixture
def san_copy(tmp_path: Path) -> Path:
    target = tmp_path / "san"
    shutil.copytree(SAN_HOST, target, symlinks=True)
    return target


def collect(source: Source) -> tuple[MultipathInventory, list[CollectionProblem]]:
    log = ProblemLog()
    return collect_multipath(source, log), log.problems()


# -- joined ---------------------------------------------------------------------------------


def test_the_clariion_map_joins_sysfs_multipath_and_the_fc_ports() -> None:
    inventory, problems = collect(SnapshotSource(SAN_HOST))
    assert problems == []
    assert inventory.multipath_ll_read and inventory.multipath_ll_reason is None
    (l004,) = inventory.maps  # the LVM volume dm-0 is not a multipath map
    assert l004.id == f"mpath:{L004_WWID}"
    assert (l004.name, l004.dm_device, l004.wwid) == ("L004", "dm-9", L004_WWID)
    assert l004.from_sysfs and l004.from_multipath_ll
    assert l004.size_bytes == 209715200 * 512  # exact, from sysfs
    assert l004.sysfs_slaves == ["sdf", "sdk", "sdp", "sdu"]
    assert (l004.path_count, l004.paths_active, l004.paths_failed) == (4, 4, 0)
    assert l004.scsi_hosts == ["host3", "host5"]
    assert l004.pci_addresses == ["0000:04:00.0", "0000:04:00.1"]
    assert l004.fc_port_ids == ["fc-port:0x2100001b3280a1b2", "fc-port:0x2101001b32a0a1b2"]
    sdk = l004.path_groups[0].paths[0]
    assert sdk.id == f"mpath:{L004_WWID}/path:3:0:1:4"
    assert (sdk.hctl, sdk.device, sdk.group_index) == ("3:0:1:4", "sdk", 1)
    assert (sdk.dm_state, sdk.checker_state) == ("active", "ready")
    assert sdk.online_state == "running"  # RHEL5 prints none: taken from sysfs
    assert (sdk.in_slaves, sdk.device_present) == (True, True)
    assert (sdk.scsi_host, sdk.transport, sdk.pci_address) == ("host3", "fc", "0000:04:00.0")
    assert sdk.fc_port_id == "fc-port:0x2100001b3280a1b2"
    assert sdk.fc_port_name == "0x2100001b3280a1b2"


def test_paths_name_the_same_fc_ports_as_the_fc_inventory() -> None:
    source = SnapshotSource(SAN_HOST)
    log = ProblemLog()
    fc = collect_fc(source, log)
    joined = collect_multipath(source, log, fc=fc)
    alone, _ = collect(source)
    assert joined == alone
    ports = {p.id for p in fc.ports}
    assert set(joined.maps[0].fc_port_ids) == ports
    for path in joined.maps[0].paths:
        port = fc.port_for_hctl(path.hctl or "")
        assert port is not None and port.id == path.fc_port_id
        assert any(u.block_device == path.device for u in port.luns)


def test_a_sas_host_is_named_and_left_for_the_sas_inventory_to_join(san_copy: Path) -> None:
    (san_copy / "sys/class/fc_host/host5").unlink()
    (san_copy / "sys/class/sas_host/host5").mkdir(parents=True)
    inventory, _ = collect(SnapshotSource(san_copy))
    sdp = next(p for p in inventory.maps[0].paths if p.device == "sdp")
    assert (sdp.scsi_host, sdp.transport, sdp.pci_address) == ("host5", "sas", "0000:04:00.1")
    assert sdp.fc_port_id is None


def test_a_capture_records_what_the_collector_reads(tmp_path: Path) -> None:
    out = tmp_path / "capture"
    bin_dir = fake_tool_dir(tmp_path, "multipath", f"exec {shutil.which('cat')} {SAN_HOST / LL}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(bin_dir))
        live, live_problems = collect(RecordingSource(out, root=str(SAN_HOST)))
    assert live_problems == []
    assert (out / LL).read_text() == (SAN_HOST / LL).read_text()
    replayed, problems = collect(SnapshotSource(out))
    assert replayed == live and problems == []


# -- sysfs only -----------------------------------------------------------------------------


def test_the_real_procfs_maps_from_sysfs_only(procfs_snapshot: Path) -> None:
    inventory, problems = collect(SnapshotSource(procfs_snapshot))
    assert [m.name for m in inventory.maps] == ["mpathA", "mpathB"]  # dm-0 is LVM
    mpath_a = inventory.maps[0]
    assert mpath_a.id == "mpath:360000000000001" and mpath_a.dm_device == "dm-1"
    assert mpath_a.size_bytes == 104857600 * 512
    assert mpath_a.from_sysfs and not mpath_a.from_multipath_ll
    assert [(p.device, p.online_state) for p in mpath_a.paths] == [
        ("sdb", "running"),
        ("sdc", "offline"),
    ]
    assert (mpath_a.path_count, mpath_a.paths_active, mpath_a.paths_failed) == (2, 0, 1)
    assert mpath_a.path_groups == []
    (problem,) = problems
    assert problem.kind is ProblemKind.NOT_COLLECTED
    assert problem.reason == (
        "not collected: the snapshot holds no output of `multipath -ll`; maps read from sysfs "
        "only (no path groups, priorities or path checker states)"
    )
    assert inventory.multipath_ll_reason == "the snapshot holds no output of `multipath -ll`"


def test_multipath_output_without_sysfs(tmp_path: Path) -> None:
    """A snapshot holding only `multipath -ll` (the RHEL6 capture, with its duplicated map)."""
    (tmp_path / LL).parent.mkdir(parents=True)
    shutil.copyfile(RHEL6, tmp_path / LL)
    inventory, problems = collect(SnapshotSource(tmp_path))
    assert len(inventory.maps) == 7
    assert all(m.from_multipath_ll and not m.from_sysfs for m in inventory.maps)
    assert all(p.in_slaves is None and p.transport is None for m in inventory.maps for p in m.paths)
    (problem,) = problems
    assert problem.kind is ProblemKind.GARBLED
    assert "WWID '1IET     00080001' is listed twice (as mpatha and 1IET     00080001)" in (
        problem.reason
    )


# -- bad input ------------------------------------------------------------------------------


def test_multipath_not_installed(san_copy: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(empty))
        inventory, problems = collect(LiveSource(root=str(san_copy)))
    (problem,) = problems
    assert problem.kind is ProblemKind.TOOL_MISSING
    assert problem.subject == "multipath -ll"
    assert problem.reason.startswith("not collected: multipath is not installed")
    assert "maps read from sysfs only" in problem.reason
    (l004,) = inventory.maps
    assert not l004.from_multipath_ll and l004.name == "L004"
    assert sorted(p.hctl or "" for p in l004.paths) == ["3:0:0:4", "3:0:1:4", "5:0:0:4", "5:0:1:4"]
    assert l004.fc_port_ids == ["fc-port:0x2100001b3280a1b2", "fc-port:0x2101001b32a0a1b2"]


def test_multipath_failing_names_the_telling_line(san_copy: Path, tmp_path: Path) -> None:
    stderr = (
        "3789.033715 | can't set open fds limit to 1048576/1048576 : Operation not permitted\n"
        "/dev/mapper/control: open failed: No such device\n"
        "Failure to communicate with kernel device-mapper driver.\n"
        "3789.038904 | cannot get kernel dm version\n"
    )
    (tmp_path / "stderr.txt").write_text(stderr)
    bin_dir = fake_tool_dir(
        tmp_path, "multipath", f"{shutil.which('cat')} {tmp_path / 'stderr.txt'} >&2; exit 1"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(bin_dir))
        inventory, problems = collect(LiveSource(root=str(san_copy)))
    (problem,) = problems
    assert problem.kind is ProblemKind.FAILED
    assert problem.reason.startswith(
        "not collected: `multipath -ll` exited with status 1: Failure to communicate with "
        "kernel device-mapper driver. (the kernel's device-mapper is not available"
    )
    assert inventory.maps[0].path_count == 4


def test_a_hung_multipath_times_out(
    san_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "multipath", f"exec {shutil.which('sleep')} 60"))
    )
    monkeypatch.setattr(multipath, "MULTIPATH_TIMEOUT_S", 0.3)
    inventory, problems = collect(LiveSource(root=str(san_copy)))
    (problem,) = problems
    assert problem.kind is ProblemKind.TIMEOUT
    assert "multipath did not finish within 0.3 s and was stopped" in problem.reason
    assert inventory.maps[0].path_count == 4


def test_garbled_multipath_output(san_copy: Path) -> None:
    (san_copy / LL).write_text("lorem ipsum dolor\nsit amet\n")
    inventory, problems = collect(SnapshotSource(san_copy))
    (problem,) = problems
    assert problem.kind is ProblemKind.GARBLED
    assert problem.reason.startswith("not collected: unreadable output: expected maps")
    assert "found no map in 2 lines starting 'lorem ipsum dolor'" in problem.reason
    assert not inventory.multipath_ll_read
    assert inventory.maps[0].from_sysfs and inventory.maps[0].path_count == 4


def test_truncated_multipath_output(san_copy: Path) -> None:
    text = (san_copy / LL).read_text()
    (san_copy / LL).write_text(text[: text.index(" \\_ 5:0:1:4")] + " \\_ 5:0:1")
    inventory, problems = collect(SnapshotSource(san_copy))
    (problem,) = problems
    assert problem.kind is ProblemKind.GARBLED
    assert problem.reason == (
        "map L004: the output ended inside this map; map left out (read from sysfs if present)"
    )
    (l004,) = inventory.maps
    assert l004.from_sysfs and not l004.from_multipath_ll and l004.path_count == 4


def test_a_map_whose_slave_vanished(san_copy: Path) -> None:
    shutil.rmtree(san_copy / SDP)  # sdp is gone; dm-9/slaves/sdp and /sys/block/sdp dangle
    inventory, problems = collect(SnapshotSource(san_copy))
    (problem,) = problems
    assert problem.kind is ProblemKind.UNREADABLE
    assert problem.subject == "/sys/block/dm-9/slaves/sdp"
    assert "map L004 (dm-9): member sdp is listed in slaves/ but its device is gone" in (
        problem.reason
    )
    sdp = next(p for p in inventory.maps[0].paths if p.device == "sdp")
    assert (sdp.in_slaves, sdp.device_present) == (True, False)
    assert sdp.hctl == "5:0:0:4"  # multipath -ll still says where it was
    (san_copy / LL).unlink()
    inventory, _ = collect(SnapshotSource(san_copy))
    gone = next(p for p in inventory.maps[0].paths if p.device == "sdp")
    assert (gone.hctl, gone.device_present, gone.scsi_host) == (None, False, None)
    assert inventory.maps[0].path_count == 4


def test_multipath_listing_no_map_while_sysfs_shows_one(san_copy: Path) -> None:
    (san_copy / LL).write_text("")
    inventory, problems = collect(SnapshotSource(san_copy))
    (problem,) = problems
    assert problem.kind is ProblemKind.MISSING
    assert "lists no map although sysfs shows 1 (dm-9)" in problem.reason
    assert inventory.maps[0].path_count == 4


def test_a_host_without_multipath_is_silent(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": "pinchpoint-snapshot", "version": 1})
    )
    (tmp_path / "sys/block/sda").mkdir(parents=True)
    inventory, problems = collect(SnapshotSource(tmp_path))
    assert inventory.maps == [] and problems == []
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(empty))
        inventory, problems = collect(LiveSource(root=str(tmp_path)))
    assert inventory.maps == [] and problems == []
    assert inventory.multipath_ll_reason is not None
    assert "multipath is not installed" in inventory.multipath_ll_reason


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("multipath") is None, reason="multipath-tools is not installed")
def test_the_real_multipath_on_this_machine() -> None:
    """No multipathd (and maybe no device-mapper) here: a clear reason or an empty list."""
    inventory, problems = collect(LiveSource())
    if inventory.multipath_ll_read:
        assert all(m.from_multipath_ll or m.from_sysfs for m in inventory.maps)
    else:
        assert inventory.multipath_ll_reason
        assert "multipath" in inventory.multipath_ll_reason
    for problem in problems:
        assert problem.part == "multipath" and problem.reason
