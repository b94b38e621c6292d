"""Disks off the SAS fabric in the statistics: each judged once — a dm or md device is no disk
(the latency rules judge it as the stacked device it is, by its dm uuid or md-ness, naming its
members), a dm-multipath path is judged through its map — and grouped controller → port → disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.block import BlockDevice, BlockKind, StackLayer, stack_layer
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.multipath import MultipathMap, MultipathPath
from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.naming import block_disk_name, stacked_device_name
from pinchpoint.simulator import spec_from_data, write_snapshot
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.block_disks import other_disks, stacked_devices


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


# dm/uuid values as real hosts show them: LVM and multipath from procfs's fixture sysfs, the
# LUKS2 volume from node_exporter's udev fixture (tests/fixtures/SOURCES.md); a thin pool's is
# its LV's with LVM's layer suffix.
_LVM = "LVM-3zSHSR5Nbf4j7g6auAAefWY2CMaX01theZYEvQyecVsm2WtX3iY5q51qq5dWWOq7"
_LUKS = "CRYPT-LUKS2-jolaulot80fy9zsiobkxyxo7y2dqeho2-nvme0n1_crypt"


@pytest.mark.parametrize(
    ("name", "uuid", "layer", "called"),
    [
        ("vg0--lv_root", _LVM, StackLayer.LVM, "LVM volume vg0--lv_root (dm-0)"),
        (
            "vg0-pool-tpool",
            _LVM + "-tpool",
            StackLayer.LVM_THIN_POOL,
            "LVM thin pool vg0-pool-tpool (dm-0)",
        ),
        ("nvme0n1_crypt", _LUKS, StackLayer.CRYPT, "dm-crypt volume nvme0n1_crypt (dm-0)"),
        ("mpatha", "mpath-360000000000001", StackLayer.MULTIPATH, "multipath map mpatha (dm-0)"),
        ("cache0", None, StackLayer.DM, "dm device cache0 (dm-0)"),
    ],
)
def test_what_layer_a_dm_device_is_from_its_uuid(
    name: str, uuid: str | None, layer: StackLayer, called: str
) -> None:
    device = BlockDevice(
        id="block:dm:x", name="dm-0", kind=BlockKind.DEVICE_MAPPER, dm_name=name, dm_uuid=uuid
    )
    assert stack_layer(device) is layer
    assert stacked_device_name(device) == called


def test_an_md_array_is_named_by_its_level() -> None:
    array = BlockDevice(id="block:md:x", name="md10", kind=BlockKind.MD, md_level="raid10")
    assert (stack_layer(array), stacked_device_name(array)) == (
        StackLayer.MD,
        "md array md10 (raid10)",
    )
    disk = BlockDevice(id="block:name:sda", name="sda", kind=BlockKind.SCSI_DISK)
    assert stack_layer(disk) is None


def test_stacked_devices_leave_multipath_maps_to_the_luns(host: Inventory) -> None:
    """A dm-multipath map is a LUN; an LVM volume over a disk is a stacked device naming it."""
    inventory = host.model_copy(deep=True)
    sda = inventory.block.by_name("sda")
    assert sda is not None
    inventory.block.devices += [
        BlockDevice(
            id="block:dm:a",
            name="dm-0",
            kind=BlockKind.DEVICE_MAPPER,
            dm_name="vg0-data",
            dm_uuid=_LVM,
            slaves=["sda"],
        ),
        BlockDevice(
            id="block:dm:b",
            name="dm-1",
            kind=BlockKind.DEVICE_MAPPER,
            dm_name="mpatha",
            dm_uuid="mpath-360000000000001",
            slaves=["sdb"],
        ),
    ]
    (lvm,) = stacked_devices(inventory)
    assert lvm.device.name == "dm-0"
    assert [(m.name, m.ref.name) for m in lvm.members] == [("sda", block_disk_name(sda))]
