"""`pinchpoint inventory` shows each pool's vdev tree: top-level vdevs with their state, and
each device with its state, error counts and where it is — enclosure and bay, the controller of
a disk off the SAS fabric, or not found — whole at 80 and 120 columns."""

from __future__ import annotations

import re

import pytest
from fixture_paths import FIXTURES, SPECS
from pydantic import BaseModel
from rich.console import Console

from pinchpoint.api.views.topology import enclosure_pools
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.zpool_status import parse_zpool_status
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.cli.inventory_view import inventory_view
from pinchpoint.model.block import (
    BlockController,
    BlockDevice,
    BlockKind,
    BlockPartition,
    ControllerKind,
)
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.report.pool_tree import PoolNode
from pinchpoint.simulator import load_spec, write_snapshot

WIDTHS = (80, 120)


class EnclosurePools(BaseModel):
    pools: list[PoolNode]


OSM_FAULTED = (
    FIXTURES / "zfs" / "osm-fr_issue482__zpool_status_mirror_DEGRADED_FAULTED_r1_w29_c4.txt"
)


def rendered(inventory: Inventory, width: int) -> list[str]:
    console = Console(record=True, width=width, color_system=None)
    console.print(inventory_view(inventory))
    return [re.sub(r"^[\s│├└─]+", "", line).rstrip() for line in console.export_text().splitlines()]


def _device(lines: list[str], name: str) -> list[str]:
    """The lines of one device: its name, then state and counts, note, place."""
    start = lines.index(name)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("at ", "not found")))
    return lines[start : end + 1]


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    out = tmp_path_factory.mktemp("pool") / "zfs_faults"
    write_snapshot(load_spec(SPECS / "zfs_faults.toml"), out)
    return collect_inventory(SnapshotSource(out))


@pytest.mark.parametrize("width", WIDTHS)
def test_simulated_pool_names_each_disk_by_bay(faults: Inventory, width: int) -> None:
    lines = rendered(faults, width)
    pool = faults.zfs.pools[0]
    assert f"pool {pool.name} DEGRADED · read 0 · write 0 · checksum 0" in lines
    assert "mirror-3 DEGRADED · read 0 · write 0 · checksum 0" in lines
    assert "mirror-9 DEGRADED · read 0 · write 0 · checksum 0" in lines
    leaves = pool.leaves()
    assert len(leaves) == 24
    for leaf in leaves:  # every device path whole, on its own line, with a bay
        place = _device(lines, leaf.name)[-1]
        assert re.fullmatch(r"at JBOD-[LR] slot \d+ \(SLOT \d\d\)", place), place
    faulted = next(leaf for leaf in leaves if leaf.state == "FAULTED")
    assert _device(lines, faulted.name)[1:] == [
        "FAULTED · read 1 · write 29 · checksum 4",
        "too many errors",
        "at JBOD-L slot 3 (SLOT 04)",
    ]
    offline = next(leaf for leaf in leaves if leaf.state == "OFFLINE")
    assert _device(lines, offline.name)[1:] == [
        "OFFLINE · read 0 · write 0 · checksum 0",
        "at JBOD-L slot 9 (SLOT 10)",
    ]
    tree = lines[lines.index(f"pool {pool.name} DEGRADED · read 0 · write 0 · checksum 0") :]
    tree = tree[: tree.index("ZFS vdev queue parameters")]
    assert len(tree) == 1 + 12 + 24 * 3 + 1  # pool, mirrors, 3 lines a device (+ 1 note)
    assert not any("…" in line for line in tree)


@pytest.mark.parametrize("width", WIDTHS)
def test_real_capture_devices_the_inventory_lacks(width: int) -> None:
    pools = parse_zpool_status(OSM_FAULTED.read_text()).pools
    inventory = Inventory(
        host=HostInfo(hostname="osm27", source=SourceKind.SNAPSHOT),
        zfs=ZfsInventory(pools=pools),
    )
    lines = rendered(inventory, width)
    assert "pool local-zfs DEGRADED · read 0 · write 0 · checksum 0" in lines
    assert "mirror-0 DEGRADED · read 0 · write 0 · checksum 0" in lines
    assert _device(lines, "wwn-0x5000cca245c1984b")[1:] == [
        "FAULTED · read 1 · write 29 · checksum 4",
        "too many errors",
        "not found in this inventory",
    ]
    assert _device(lines, "wwn-0x5000cca25edc1030")[1:] == [
        "ONLINE · read 0 · write 0 · checksum 0",
        "not found in this inventory",
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_sections_spares_and_a_disk_on_an_ahci_controller(width: int) -> None:
    """The raidz2/logs/cache/spares capture; rpool's /dev/sda3 lies on a disk of an AHCI port."""
    inventory = collect_inventory(SnapshotSource(FIXTURES / "zfs" / "snapshot-tank"))
    ahci = BlockController(
        kind=ControllerKind.ATA, pci_address="0000:00:1f.2", driver="ahci", port="ata3"
    )
    inventory.block.devices.append(
        BlockDevice(
            id="block:sda",
            name="sda",
            kind=BlockKind.SCSI_DISK,
            controller=ahci,
            partitions=[BlockPartition(id="block:sda3", name="sda3", number=3)],
        )
    )
    lines = rendered(inventory, width)
    assert "logs: mirror-2 ONLINE · read 0 · write 0 · checksum 0" in lines
    assert "cache: /dev/nvme2n1" in lines
    assert "spare-4 DEGRADED · read 0 · write 0 · checksum 0" in lines
    assert _device(lines, "12011877431409870123")[1:] == [
        "UNAVAIL · read 0 · write 0 · checksum 0",
        "was /dev/disk/by-id/wwn-0x5000c500a0000005-part1",
        "not found in this inventory",
    ]
    assert _device(lines, "/dev/disk/by-id/wwn-0x5000c500a0000009-part1")[1] == (
        "ONLINE · read 0 · write 0 · checksum 1229"
    )
    assert "spares: /dev/disk/by-id/wwn-0x5000c500a000000e-part1" in lines
    assert _device(lines, "/dev/sda3")[-1] == "at AHCI 0000:00:1f.2 ata3 sda"


def test_the_enclosure_page_holds_the_pools_with_a_disk_in_it(faults: Inventory) -> None:
    """The web's enclosure view: the pool whose mirrors span both JBODs, each device with its
    bay; a JBOD no pool uses gets none."""
    by_name = {e.name: e for e in faults.sas.enclosures}
    pools = enclosure_pools(faults, by_name["JBOD-L"].id)
    assert [p.name for p in pools] == [faults.zfs.pools[0].name]
    assert [v.name for v in pools[0].vdevs] == [f"mirror-{n}" for n in range(12)]
    mirror = pools[0].vdevs[3]
    assert mirror.state == "DEGRADED"
    faulted, partner = mirror.children
    assert (faulted.state, faulted.read_errors, faulted.write_errors) == ("FAULTED", 1, 29)
    assert (faulted.checksum_errors, faulted.place) == (4, "JBOD-L slot 3 (SLOT 04)")
    assert (faulted.enclosure_id, faulted.slot) == (by_name["JBOD-L"].id, 3)
    assert partner.place == "JBOD-R slot 3 (SLOT 04)"
    document = EnclosurePools(pools=pools).model_dump(mode="json")
    assert document["pools"][0]["vdevs"][3]["children"][0]["place"] == "JBOD-L slot 3 (SLOT 04)"
    assert enclosure_pools(faults, "no-such-enclosure") == []
