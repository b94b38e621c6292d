"""Where a block device hangs, from its resolved sysfs directory: the real layouts of the procfs
capture (an AHCI disk on ata4, an NVMe namespace, a SAS disk behind mpt3sas) and the other
kernel layouts (virtio-blk, virtio-scsi, iSCSI, NVMe multipath heads, xen), plus bad input."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.parse.block_path import controller_of
from pinchpoint.model.block import BlockController, BlockDevice, BlockKind, ControllerKind
from pinchpoint.naming import (
    block_disk_name,
    controller_name,
    controller_port_name,
)

PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
# The real directories of tests/fixtures/snapshots/procfs-mpt3sas (prometheus/procfs).
AHCI_SDB = "/sys/devices/pci0000:00/0000:00:0d.0/ata4/host3/target3:0:0/3:0:0:0/block/sdb"
NVME = "/sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0/nvme/nvme0/nvme0n1"
SAS_SDV = (
    "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11/port-11:0/expander-11:0/"
    "port-11:0:0/end_device-11:0:0/target11:0:7/11:0:7:0/block/sdv"
)


def test_the_real_directories_are_in_the_capture() -> None:
    for path in (AHCI_SDB, NVME):
        assert (PROCFS / path.lstrip("/")).is_dir(), path


def test_an_ahci_disk_hangs_from_its_ata_port() -> None:
    found = controller_of(AHCI_SDB)
    assert found == BlockController(
        kind=ControllerKind.ATA, pci_address="0000:00:0d.0", port="ata4"
    )
    assert found.id == "controller:0000:00:0d.0"
    assert found.port_id == "controller:0000:00:0d.0/ata4"
    found.driver = "ahci"
    assert controller_name(found) == "AHCI 0000:00:0d.0"
    assert controller_port_name(found) == "AHCI 0000:00:0d.0 ata4"
    disk = BlockDevice(id="block:x", name="sdb", kind=BlockKind.SCSI_DISK, controller=found)
    assert block_disk_name(disk) == "AHCI 0000:00:0d.0 ata4 sdb"


def test_an_nvme_namespace_hangs_from_its_controller() -> None:
    found = controller_of(NVME)
    assert found is not None
    assert (found.kind, found.pci_address, found.port) == (
        ControllerKind.NVME,
        "0000:01:00.0",
        "nvme0",
    )
    assert controller_name(found) == "NVMe nvme0 (0000:01:00.0)"
    assert controller_port_name(found) == controller_name(found)  # one controller, one drive
    disk = BlockDevice(id="block:x", name="nvme0n1", kind=BlockKind.NVME, controller=found)
    assert block_disk_name(disk) == "NVMe nvme0 (0000:01:00.0) nvme0n1"


def test_a_disk_behind_a_sas_hba_is_on_its_scsi_host() -> None:
    found = controller_of(SAS_SDV)
    assert found is not None
    assert (found.kind, found.pci_address, found.port) == (
        ControllerKind.SCSI,
        "0000:03:00.0",
        "host11",
    )
    found.driver = "mpt3sas"
    assert controller_port_name(found) == "mpt3sas 0000:03:00.0 host11"


@pytest.mark.parametrize(
    ("path", "kind", "pci", "port", "name"),
    [
        (
            "/sys/devices/pci0000:00/0000:00:02.0/0000:07:00.0/virtio2/block/vda",
            ControllerKind.VIRTIO,
            "0000:07:00.0",
            "virtio2",
            "virtio 0000:07:00.0",
        ),
        (
            "/sys/devices/pci0000:00/0000:00:03.0/virtio0/host0/target0:0:0/0:0:0:0/block/sda",
            ControllerKind.SCSI,
            "0000:00:03.0",
            "host0",
            "SCSI 0000:00:03.0",
        ),
        (
            "/sys/devices/platform/host3/session1/target3:0:0/3:0:0:0/block/sdb",
            ControllerKind.SCSI,
            None,
            "host3",
            "SCSI host3",
        ),
        (
            "/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1",
            ControllerKind.NVME,
            None,
            "nvme-subsys0",
            "NVMe nvme-subsys0",
        ),
        ("/sys/devices/vbd-51712/block/xvda", ControllerKind.OTHER, None, "vbd-51712", "vbd-51712"),
    ],
)
def test_other_kernel_layouts(
    path: str, kind: ControllerKind, pci: str | None, port: str, name: str
) -> None:
    found = controller_of(path)
    assert found is not None
    assert (found.kind, found.pci_address, found.port) == (kind, pci, port)
    assert controller_name(found) == name


@pytest.mark.parametrize(
    "path",
    [
        None,
        "",
        "/sys/devices/virtual/block/dm-0",
        "/sys/devices/virtual/block/md127",
        "/sys/block/sda",  # a capture that holds the entry as a directory: no place known
        "\x00\xff\ufffd garbled \x1b[31m",
        "not/a/sysfs/path",
    ],
)
def test_no_controller_where_the_path_shows_none(path: str | None) -> None:
    assert controller_of(path) is None
