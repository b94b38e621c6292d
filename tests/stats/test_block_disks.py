"""Disks off the SAS fabric in the statistics: each judged once — a dm or md device through its
members, a dm-multipath path through its map — and grouped controller → port → disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.block import BlockDevice, BlockKind
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.multipath import MultipathMap, MultipathPath
from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.simulator import spec_from_data, write_snapshot
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.block_disks import other_disks


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    """Two AHCI controllers (four disks on 0000:00:17.0, two on 0000:05:00.0) and an NVMe SSD."""
    out = tmp_path_factory.mktemp("anydisk") / "snapshot"
    spec = {
        "host": {"hostname": "stacked"},
        "ahci": [
            {"pci_address": "0000:00:17.0", "disk": [{}, {}, {}, {}]},
            {"pci_address": "0000:05:00.0", "disk": [{}, {}]},
        ],
        "nvme": [{"pci_address": "0000:3b:00.0"}],
    }
    write_snapshot(spec_from_data(spec), out)
    return collect_inventory(SnapshotSource(out))


def stacked(inventory: Inventory) -> Inventory:
    """The host with an LVM volume over sda, an md mirror of sdb and sdc, and a dm-multipath
    map over sde and sdf (two paths to one LUN)."""
    changed = inventory.model_copy(deep=True)
    block = changed.block
    for name, holder in (("sda", "dm-0"), ("sdb", "md0"), ("sdc", "md0")):
        found = block.by_name(name)
        assert found is not None
        found.holders = [holder]
    for name in ("sde", "sdf"):
        found = block.by_name(name)
        assert found is not None
        found.holders = ["dm-1"]
    block.devices += [
        BlockDevice(
            id="block:dm:LVM-x",
            name="dm-0",
            kind=BlockKind.DEVICE_MAPPER,
            dm_uuid="LVM-x",
            slaves=["sda"],
        ),
        BlockDevice(
            id="block:md:1",
            name="md0",
            kind=BlockKind.MD,
            md_uuid="1",
            slaves=["sdb", "sdc"],
        ),
        BlockDevice(
            id="block:dm:mpath-3600",
            name="dm-1",
            kind=BlockKind.DEVICE_MAPPER,
            dm_uuid="mpath-3600a0b80005a6c4c",
            slaves=["sde", "sdf"],
        ),
    ]
    changed.multipath.maps = [
        MultipathMap(
            id="mpath:3600a0b80005a6c4c",
            name="mpatha",
            wwid="3600a0b80005a6c4c",
            dm_device="dm-1",
            paths=[
                MultipathPath(id="p:sde", device="sde"),
                MultipathPath(id="p:sdf", device="sdf"),
            ],
        )
    ]
    return changed


def test_every_disk_once_and_nothing_stacked(host: Inventory) -> None:
    assert [d.name for d in other_disks(host)] == [
        "nvme0n1", "sda", "sdb", "sdc", "sdd", "sde", "sdf",
    ]  # fmt: skip
    names = [d.name for d in other_disks(stacked(host))]
    assert names == ["nvme0n1", "sda", "sdb", "sdc", "sdd"]  # sde, sdf: paths of mpatha


def interval(names: list[str]) -> IntervalFigures:
    """Ten seconds in which each named device did 100 reads of 8 kB at 20 ms, queue 2."""
    figures = [
        DeviceFigures(device=n, r_s=100.0, rkb_s=800.0, r_await=20.0, aqu_sz=2.0, util=90.0)
        for n in names
    ]
    return IntervalFigures(interval_s=10.0, devices=figures)


def test_a_dm_or_md_device_is_not_counted_beside_its_members(host: Inventory) -> None:
    """dm-0 carries sda's I/O again, md0 that of sdb and sdc: the controller sums its disks
    only, and neither stacked device is a disk of the breakdown."""
    inventory = stacked(host)
    measured = interval(["sda", "sdb", "sdc", "sdd", "dm-0", "md0", "nvme0n1"])
    result = breakdown(
        inventory,
        [GroupLevel.DISK, GroupLevel.CONTROLLER_PORT, GroupLevel.CONTROLLER],
        [measured],
    )
    disks, ports, controllers = result.levels
    assert "dm-0" not in [g.detail for g in disks.groups]
    assert [g.name for g in disks.groups if g.measured] == [
        "NVMe nvme0 (0000:3b:00.0) nvme0n1",
        "AHCI 0000:00:17.0 ata1 sda",
        "AHCI 0000:00:17.0 ata2 sdb",
        "AHCI 0000:00:17.0 ata3 sdc",
        "AHCI 0000:00:17.0 ata4 sdd",
    ]
    by_name = {g.name: g for g in controllers.groups}
    chipset = by_name["AHCI 0000:00:17.0"]
    assert (chipset.members, chipset.measured) == (4, 4)
    assert chipset.read_iops == pytest.approx(400.0)  # not 700 with dm-0 and md0 again
    assert chipset.queue_per_member == pytest.approx(2.0)
    assert "AHCI 0000:05:00.0" not in by_name  # sde and sdf: paths of mpatha, a LUN
    assert by_name["NVMe nvme0 (0000:3b:00.0)"].read_iops == pytest.approx(100.0)
    assert [g.name for g in ports.groups][:2] == [
        "NVMe nvme0 (0000:3b:00.0)",
        "AHCI 0000:00:17.0 ata1",
    ]


def test_a_host_without_such_disks_says_so(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    write_snapshot(spec_from_data({"host": {"hostname": "bare"}}), out)
    inventory = collect_inventory(SnapshotSource(out))
    result = breakdown(inventory, [GroupLevel.CONTROLLER, GroupLevel.CONTROLLER_PORT])
    assert [lv.note for lv in result.levels] == [
        "no disks on controllers outside the SAS fabric"
    ] * 2
