"""ZFS collection: a snapshot with pools and module parameters, a host without ZFS, and a
missing, failing, hung, garbled or truncated `zpool` (fake executables on PATH)."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect import zfs
from pinchpoint.checks.collect.zfs import collect_zfs, is_vdev_queue_parameter
from pinchpoint.checks.source import LiveSource, RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.zfs import VdevRole, ZfsInventory

TANK_SNAPSHOT = FIXTURES / "zfs" / "snapshot-tank"
TANK_TEXT = FIXTURES / "zfs" / "synthetic__zpool_status_-P_raidz2_logs_cache_spares.txt"
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
DEFAULTS = {  # OpenZFS 2.1 defaults, as in the fixture
    "zfs_vdev_async_read_max_active": 3,
    "zfs_vdev_async_write_max_active": 10,
    "zfs_vdev_initializing_max_active": 1,
    "zfs_vdev_max_active": 1000,
    "zfs_vdev_queue_depth_pct": 1000,
    "zfs_vdev_rebuild_max_active": 3,
    "zfs_vdev_removal_max_active": 2,
    "zfs_vdev_scrub_max_active": 3,
    "zfs_vdev_sync_read_max_active": 10,
    "zfs_vdev_sync_write_max_active": 10,
    "zfs_vdev_trim_max_active": 2,
}


def collect(source: SnapshotSource | LiveSource) -> tuple[ZfsInventory, ProblemLog]:
    log = ProblemLog()
    return collect_zfs(source, log), log


# -- a snapshot with ZFS -----------------------------------------------------------------


def test_pools_parameters_and_leaf_devices_from_a_snapshot() -> None:
    inventory, log = collect(SnapshotSource(TANK_SNAPSHOT))
    assert log.problems() == []
    assert (inventory.present, inventory.note, inventory.module_version) == (True, None, "2.1.11-1")
    # min_active, the dirty-data percentages and unrelated parameters are left out
    assert inventory.vdev_queue_parameters == DEFAULTS
    assert [p.name for p in inventory.pools] == ["tank", "rpool"]
    tank = inventory.pools[0]
    leaves = tank.leaves()
    assert [leaf.block_device for leaf in leaves[:4]] == ["sdc1", "sdd1", "sde1", "sdf1"]
    assert leaves[4].block_device is None  # the missing disk: its "was" path is not followed
    assert leaves[6].block_device is None  # no by-id link in the snapshot for that one
    log_leaves = [leaf for leaf in leaves if leaf.role is VdevRole.LOG]
    assert [leaf.block_device for leaf in log_leaves] == ["nvme0n1p1", "nvme1n1p1"]
    assert tank.vdevs_in(VdevRole.CACHE)[0].block_device == "nvme2n1"
    assert [leaf.block_device for leaf in inventory.pools[1].leaves()] == ["sda3", "sdb3"]


def test_old_zfs_max_pending_and_a_garbled_parameter(tmp_path: Path) -> None:
    host = tmp_path / "host"
    shutil.copytree(TANK_SNAPSHOT, host, symlinks=True)
    parameters = host / "sys/module/zfs/parameters"
    for path in parameters.iterdir():
        path.unlink()
    (parameters / "zfs_vdev_max_pending").write_text("35\n")  # the field case's queue depth
    (parameters / "zfs_vdev_sync_read_max_active").write_text("ten\n")
    inventory, log = collect(SnapshotSource(host))
    assert inventory.vdev_queue_parameters == {"zfs_vdev_max_pending": 35}
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == "/sys/module/zfs/parameters/zfs_vdev_sync_read_max_active"


def test_which_parameters_are_queue_knobs() -> None:
    assert is_vdev_queue_parameter("zfs_vdev_async_write_max_active")
    assert is_vdev_queue_parameter("zfs_vdev_max_active")
    assert is_vdev_queue_parameter("zfs_vdev_max_pending")
    assert is_vdev_queue_parameter("zfs_vdev_queue_depth_pct")
    assert not is_vdev_queue_parameter("zfs_vdev_async_write_min_active")
    assert not is_vdev_queue_parameter("zfs_vdev_async_write_active_max_dirty_percent")
    assert not is_vdev_queue_parameter("zfs_arc_max")


def test_a_recorded_capture_reads_back_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`capture` records zpool's output, the module files and the by-id links it followed."""
    monkeypatch.setenv(
        "PATH",
        str(
            fake_tool_dir(tmp_path, "zpool", f"{shutil.which('cat')} {shlex.quote(str(TANK_TEXT))}")
        ),
    )
    live = collect_zfs(RecordingSource(tmp_path / "snap", root=str(TANK_SNAPSHOT)), ProblemLog())
    assert (tmp_path / "snap/commands/zpool/status.txt").read_text() == TANK_TEXT.read_text()
    assert (tmp_path / "snap/dev/disk/by-id/wwn-0x5000c500a0000001-part1").is_symlink()
    again = collect_zfs(SnapshotSource(tmp_path / "snap"), ProblemLog())
    assert again == live
    assert again.pools[0].leaves()[0].block_device == "sdc1"


# -- no ZFS ------------------------------------------------------------------------------


def test_a_snapshot_without_zfs_gives_one_note_and_no_problem() -> None:
    inventory, log = collect(SnapshotSource(PROCFS))
    assert inventory == ZfsInventory(
        present=False,
        note="ZFS not present in this snapshot: no /sys/module/zfs and no `zpool status -P`",
    )
    assert log.problems() == []


def test_a_host_without_module_or_tool_gives_one_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    (tmp_path / "root/sys").mkdir(parents=True)
    inventory, log = collect(LiveSource(root=str(tmp_path / "root")))
    assert (inventory.present, inventory.note) == (
        False,
        "ZFS not present: no /sys/module/zfs and no zpool command",
    )
    assert log.problems() == []


def test_a_zpool_without_its_module_is_an_absent_zfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What zpool says when the module is not loaded (zfsutils installed, module not)."""
    message = "The ZFS modules are not loaded.\nTry running '/sbin/modprobe zfs' as root."
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "zpool", f"echo {shlex.quote(message)} >&2; exit 1"))
    )
    (tmp_path / "root/sys").mkdir(parents=True)
    inventory, log = collect(LiveSource(root=str(tmp_path / "root")))
    assert inventory.present is False
    assert inventory.note == (
        "ZFS not present: no /sys/module/zfs (module not loaded); "
        "zpool exited with status 1: The ZFS modules are not loaded."
    )
    assert log.problems() == []


# -- a broken zpool on a host with ZFS ---------------------------------------------------


@pytest.fixture
def zfs_host(tmp_path: Path) -> Path:
    """A host root with the ZFS module loaded (its sysfs part only)."""
    root = tmp_path / "root"
    shutil.copytree(TANK_SNAPSHOT / "sys", root / "sys")
    return root


def only_problem(log: ProblemLog) -> tuple[ProblemKind, str, str]:
    (problem,) = log.problems()
    assert problem.part == "zfs"
    return problem.kind, problem.subject, problem.reason


def test_a_missing_zpool_is_reported_and_the_parameters_stand(
    zfs_host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    inventory, log = collect(LiveSource(root=str(zfs_host)))
    assert inventory.present is True
    assert inventory.pools == []
    assert inventory.vdev_queue_parameters == DEFAULTS
    assert only_problem(log) == (
        ProblemKind.TOOL_MISSING,
        "zpool status -P",
        "pools not collected: zpool is not installed (install the package that provides it)",
    )


def test_a_failing_zpool_is_reported_with_its_message(
    zfs_host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "echo 'internal error: Bad file descriptor' >&2; exit 2"
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "zpool", body)))
    inventory, log = collect(LiveSource(root=str(zfs_host)))
    assert inventory.pools == []
    assert only_problem(log) == (
        ProblemKind.FAILED,
        "zpool status -P",
        "pools not collected: zpool exited with status 2: internal error: Bad file descriptor",
    )


def test_a_hung_zpool_times_out(
    zfs_host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "zpool", f"exec {shutil.which('sleep')} 60"))
    )
    monkeypatch.setattr(zfs, "ZPOOL_TIMEOUT_S", 0.3)
    inventory, log = collect(LiveSource(root=str(zfs_host)))
    assert inventory.vdev_queue_parameters == DEFAULTS
    assert only_problem(log) == (
        ProblemKind.TIMEOUT,
        "zpool status -P",
        "pools not collected: zpool did not finish within 0.3 s and was stopped",
    )


def test_garbled_zpool_output_is_reported(
    zfs_host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "zpool", "printf 'Segmentation fault\\n'"))
    )
    inventory, log = collect(LiveSource(root=str(zfs_host)))
    assert inventory.pools == []
    assert only_problem(log) == (
        ProblemKind.GARBLED,
        "zpool status -P",
        "pools not collected: zpool status -P output: expected '  pool: NAME' to begin, found "
        "'Segmentation fault' on line 1",
    )


def test_truncated_zpool_output_keeps_the_complete_pools(
    zfs_host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = TANK_TEXT.read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: text.index("rpool          ONLINE")])
    monkeypatch.setenv(
        "PATH",
        str(fake_tool_dir(tmp_path, "zpool", f"{shutil.which('cat')} {shlex.quote(str(cut))}")),
    )
    inventory, log = collect(LiveSource(root=str(zfs_host)))
    assert [p.name for p in inventory.pools] == ["tank"]
    assert only_problem(log) == (
        ProblemKind.GARBLED,
        "zpool status -P",
        "pool 'rpool' left out: the text ended before its 'errors:' line",
    )


def test_a_snapshot_with_the_module_but_no_zpool_output(tmp_path: Path) -> None:
    host = tmp_path / "snap"
    shutil.copytree(TANK_SNAPSHOT, host, symlinks=True)
    shutil.rmtree(host / "commands")
    inventory, log = collect(SnapshotSource(host))
    assert inventory.present is True
    assert inventory.vdev_queue_parameters == DEFAULTS
    assert only_problem(log) == (
        ProblemKind.NOT_COLLECTED,
        "zpool status -P",
        "pools not collected: the snapshot holds no output of `zpool status -P`",
    )
