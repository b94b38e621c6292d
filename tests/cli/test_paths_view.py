"""The terminal inventory shows NVMe subsystems with their paths and iSCSI sessions; what a
host wrote is shown as text, never as markup."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES, SPECS
from rich.console import Console

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.cli.inventory_view import inventory_view
from pinchpoint.model.inventory import Inventory
from pinchpoint.simulator import load_spec, write_snapshot


def rendered(inventory: Inventory) -> str:
    console = Console(record=True, width=240, color_system=None)
    console.print(inventory_view(inventory))
    return console.export_text()


def test_the_real_dual_ported_drive_and_its_two_paths() -> None:
    text = rendered(collect_inventory(SnapshotSource(FIXTURES / "nvme" / "pcie-dualport")))
    assert "NVMe subsystems" in text
    assert "nvme-subsys1 3.2TB NVMe Gen4 U.2 SSD III" in text
    row = next(line for line in text.splitlines() if "nvme1c1n1" in line)
    assert "1 (nvme1n1)" in row and "2 of 2" in row and "pcie 052e:78:00.0, live" in row
    assert "nvme1c2n1 via nvme2: pcie 058e:78:00.0, live" in text


def test_iscsi_sessions_and_hostile_names(tmp_path: Path) -> None:
    write_snapshot(load_spec(SPECS / "iscsi_two_sessions.toml"), tmp_path / "s")
    name = tmp_path / "s/sys/devices/platform/host0/session1/iscsi_session/session1/targetname"
    name.write_text("iqn.x:[bold red]evil[/bold red]\n")
    text = rendered(collect_inventory(SnapshotSource(tmp_path / "s")))
    assert "iSCSI sessions" in text
    assert "iqn.x:[bold red]evil[/bold red]" in text  # printed as it is, not as markup
    row = next(line for line in text.splitlines() if "session2 (host1)" in line)
    assert "10.8.101.6:3260" in row and "interface ens2f1" in row and "LOGGED_IN" in row
