"""Whether a host has a SAS HBA: the judgement `--demo-if-no-sas` makes in the CLI and the
service, which must agree with the HBAs the inventory finds."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.sas.presence import has_sas_hba
from pinchpoint.checks.source import LiveSource, SnapshotSource


def _scsi_host(root: Path, name: str, driver: str) -> None:
    host = root / "sys/class/scsi_host" / name
    host.mkdir(parents=True)
    (host / "proc_name").write_text(driver + "\n")


def test_a_sas_host_class_entry_is_a_sas_hba(procfs_snapshot: Path) -> None:
    source = SnapshotSource(procfs_snapshot)
    assert has_sas_hba(source)
    assert collect_inventory(source).sas.hbas


def test_a_sas_driver_without_the_transport_class_is_a_sas_hba(tmp_path: Path) -> None:
    """mpi3mr before Linux 6.1 registers no sas_host: its SCSI host still counts."""
    _scsi_host(tmp_path, "host0", "ahci")
    assert not has_sas_hba(LiveSource(str(tmp_path)))
    _scsi_host(tmp_path, "host3", "mpi3mr")
    assert has_sas_hba(LiveSource(str(tmp_path)))


def test_no_sysfs_at_all_is_no_sas_hba(tmp_path: Path) -> None:
    assert not has_sas_hba(LiveSource(str(tmp_path)))
    (tmp_path / "sys/class/scsi_host/host0").mkdir(parents=True)  # proc_name unreadable
    assert not has_sas_hba(LiveSource(str(tmp_path)))
