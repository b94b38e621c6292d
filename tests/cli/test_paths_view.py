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
from pinchpoint.model.multipath import MultipathMap
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


def test_a_client_of_three_storage_networks(tmp_path: Path) -> None:
    """NVMe paths with controller and ANA state, iSCSI session and connection state with the
    LUNs behind each, NIC errors, drops and carrier changes, FC link errors and error frames."""
    write_snapshot(load_spec(SPECS / "storage_networks.toml"), tmp_path / "s")
    inventory = collect_inventory(SnapshotSource(tmp_path / "s"))
    wwid = inventory.iscsi.sessions[0].devices[0].wwid
    assert wwid is not None
    joined = "3" + wwid.removeprefix("naa.")  # the map multipath made of the same LU
    inventory.multipath.maps.append(MultipathMap(id=f"mpath:{joined}", wwid=joined, name="mpathd"))
    text = rendered(inventory)
    lines = text.splitlines()
    assert "nvme1c1n1 via nvme1: tcp 10.162.198.42:4420 via interface ens1f0, connecting" in text
    assert "nvme1c2n2 via nvme2: tcp 10.162.198.45:4420 via interface ens1f1, live optimized" in (
        text
    )
    dead = next(line for line in lines if line.count("session1 (host"))
    assert "FREE / failed" in dead and "iqn.2003-01.org.linux-iscsi.array1:port-a" in dead
    assert f"LUN 0 {wwid} sdg blocked, in mpathd ({joined})" in text
    assert "LOGGED_IN / up" in text
    nic = next(line for line in lines if line.lstrip("│ ").startswith("ens1f0"))
    assert "rx 3 tx 0 crc 3, dropped rx 0 tx 0, carrier 4" in nic
    fc = [line for line in lines if "lpfc" in line or "0000:41:00." in line]
    assert any("link 1 sync 2 signal 0 crc 0 frames 0" in line for line in fc)


def test_a_sas_only_host_shows_none_of_these_tables(tmp_path: Path) -> None:
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), tmp_path / "s")
    text = rendered(collect_inventory(SnapshotSource(tmp_path / "s")))
    for title in ("NVMe subsystems", "iSCSI sessions", "Fibre Channel", "NICs"):
        assert title not in text
