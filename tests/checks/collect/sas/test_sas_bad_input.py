"""Bad input never stops the inventory: each damage shows as a clear problem, the rest stands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.problems import ProblemKind

HOST = "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11"
DISK = f"{HOST}/port-11:0/expander-11:0/port-11:0:0/end_device-11:0:0/target11:0:7/11:0:7:0"
PHY = f"{HOST}/phy-11:8/sas_phy/phy-11:8"


def inventory_of(root: Path) -> Inventory:
    return collect_inventory(SnapshotSource(root))


def reasons(inventory: Inventory) -> str:
    return "\n".join(p.line() for p in inventory.problems)


def test_an_empty_snapshot_gives_an_empty_fabric_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": "pinchpoint-snapshot", "version": 1})
    )
    inventory = inventory_of(tmp_path)
    assert inventory.sas.hbas == []
    assert "sas: /sys/class: no sysfs classes were captured at all" in reasons(inventory)


def test_a_host_without_sas_hbas_is_quiet_about_sas(tmp_path: Path) -> None:
    (tmp_path / "sys" / "class" / "net").mkdir(parents=True)
    inventory = inventory_of(tmp_path)
    assert inventory.sas.hbas == []
    assert not [p for p in inventory.problems if p.part == "sas"]


def test_a_dangling_class_link_leaves_that_host_out_with_a_reason(procfs_copy: Path) -> None:
    shutil.rmtree(procfs_copy / HOST)
    inventory = inventory_of(procfs_copy)
    assert inventory.sas.hbas == []
    assert "/sys/class/sas_host/host11" in reasons(inventory)
    assert "dangling symlink" in reasons(inventory)


def test_an_unreadable_attribute_is_reported_and_the_rest_is_read(procfs_copy: Path) -> None:
    board = procfs_copy / HOST / "scsi_host/host11/board_name"
    board.unlink()
    board.mkdir()  # reading it now fails with EISDIR, as an I/O error would
    inventory = inventory_of(procfs_copy)
    (hba,) = inventory.sas.hbas
    assert hba.board_name is None
    assert hba.driver == "mpt3sas"
    assert len(inventory.sas.disks) == 4
    problem = next(p for p in inventory.problems if p.subject.endswith("board_name"))
    assert problem.kind is ProblemKind.UNREADABLE


def test_a_garbled_number_is_named_and_skipped(procfs_copy: Path) -> None:
    (procfs_copy / DISK / "queue_depth").write_text("deep\n")
    inventory = inventory_of(procfs_copy)
    disk = next(d for d in inventory.sas.disks if d.wwid == "naa.5000c500b32d1a9c")
    assert disk.paths[0].queue_depth is None
    assert "expected a number, found 'deep'" in reasons(inventory)


def test_binary_garbage_in_a_rate_reads_as_no_link(procfs_copy: Path) -> None:
    (procfs_copy / PHY / "negotiated_linkrate").write_bytes(os.urandom(64) + b"\xff\xfe")
    inventory = inventory_of(procfs_copy)
    port = next(p for p in inventory.sas.hbas[0].ports if p.name == "port-11:0")
    assert port.phys[0].negotiated_gbps is None
    assert [p.negotiated_gbps for p in port.phys[1:]] == [12.0] * 3


def test_truncated_attribute_files_do_not_break_the_walk(procfs_copy: Path) -> None:
    (procfs_copy / DISK / "wwid").write_text("")
    (procfs_copy / DISK / "sas_address").write_text("0x5000cc")
    inventory = inventory_of(procfs_copy)
    assert len(inventory.sas.disks) == 4  # the disk is still found, by its port address


def test_without_scsi_generic_disks_have_no_sg_node_but_are_found(procfs_copy: Path) -> None:
    for sg in procfs_copy.glob(f"{HOST}/**/scsi_generic"):
        if sg.is_dir() and not sg.is_symlink():
            shutil.rmtree(sg)
    inventory = inventory_of(procfs_copy)
    assert len(inventory.sas.disks) == 4
    assert all(p.sg_device is None for d in inventory.sas.disks for p in d.paths)


def test_a_missing_expander_directory_keeps_the_other_port(procfs_copy: Path) -> None:
    shutil.rmtree(procfs_copy / HOST / "port-11:0/expander-11:0")
    inventory = inventory_of(procfs_copy)
    assert [e.product for e in inventory.sas.expanders] == ["SAS2X36"]
    assert len(inventory.sas.disks) == 1  # the direct-attached SSD


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def nobody_can_run_pinchpoint() -> bool:
    """Whether `nobody` can start this interpreter and import pinchpoint from this checkout."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = [*AS_NOBODY, sys.executable, "-c", "import pinchpoint"]
    return subprocess.run(probe, capture_output=True, timeout=60, check=False).returncode == 0


@pytest.mark.skipif(
    not nobody_can_run_pinchpoint(),
    reason="needs root, setpriv, and a checkout and interpreter that `nobody` may read",
)
def test_permission_denied_as_an_ordinary_user(procfs_copy: Path, tmp_path: Path) -> None:
    """Run the real CLI as `nobody` on a copy whose HBA attributes only root may read."""
    locked = procfs_copy / HOST / "scsi_host/host11/version_fw"
    locked.chmod(0o600)
    for parent in [tmp_path, *tmp_path.parents]:
        if parent == Path("/"):
            break
        parent.chmod(parent.stat().st_mode | 0o005)
    for path in procfs_copy.rglob("*"):
        if not path.is_symlink() and path != locked:
            path.chmod(path.stat().st_mode | (0o005 if path.is_dir() else 0o004))
    done = subprocess.run(
        [
            *AS_NOBODY,
            sys.executable,
            "-m",
            "pinchpoint",
            "inventory",
            "--snapshot",
            str(procfs_copy),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    inventory = Inventory.model_validate_json(done.stdout)
    assert inventory.sas.hbas[0].firmware is None
    assert inventory.sas.hbas[0].board_name == "HBA 9400-8i8e"
    problem = next(p for p in inventory.problems if p.subject.endswith("version_fw"))
    assert problem.kind is ProblemKind.PERMISSION
    assert "permission denied" in problem.reason
