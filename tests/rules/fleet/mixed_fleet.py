"""A mixed fleet of simulated hosts for the fleet rules' tests: five clients (field case 3,
two of them at 100 Mb/s) and five storage hosts with disks and HBAs at two or three levels."""

from __future__ import annotations

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.simulator import load_spec, write_snapshot

STORAGE = """
[host]
hostname = "{name}"

[[hba]]
name = "hba1"
firmware = "{hba}"

[[enclosure]]
name = "JBOD-A"
bays = {bays}

[enclosure.disk]
revision = "{disk}"

[[chain]]
hba = "hba1"
enclosures = ["JBOD-A"]
"""


def _snapshot_inventory(tmp: pytest.TempPathFactory, name: str, text: str) -> Inventory:
    spec = tmp.mktemp(name) / "spec.toml"
    spec.write_text(text, encoding="utf-8")
    write_snapshot(load_spec(spec), spec.parent / "snapshot")
    return collect_inventory(SnapshotSource(spec.parent / "snapshot"))


def mixed_fleet_inventories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    """Five clients (two at 100 Mb/s) and five storage hosts with disks and HBAs at two or
    three levels, one of them with another disk count (another capacity, another model)."""
    client = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    found = {}
    for number in range(1, 6):
        name = f"client-{number:02d}"
        text = client.replace('"client-01"', f'"{name}"')
        if number in (2, 5):
            text = text.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
        found[name] = _snapshot_inventory(tmp_path_factory, name, text)
    levels = {
        "store-01": ("16.00.12.00", "A3D0", 6),
        "store-02": ("16.00.12.00", "A3D0", 6),
        "store-03": ("16.00.12.00", "A1G0", 6),
        "store-04": ("16.00.10.00", "A3D0", 6),
        "store-05": ("16.00.08.00", "A2B0", 4),
    }
    for name, (hba, disk, bays) in levels.items():
        text = STORAGE.format(name=name, hba=hba, disk=disk, bays=bays)
        found[name] = _snapshot_inventory(tmp_path_factory, name, text)
    return found
