"""Block devices: the real procfs capture (SAS disks, NVMe partitions, dm, md) and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.block import (
    BlockParseError,
    collect_block,
    kind_of_name,
    parse_scheduler,
)
from pinchpoint.checks.source import RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.block import BlockDevice, BlockInventory, BlockKind
from pinchpoint.model.problems import ProblemKind
from pinchpoint.simulator import spec_from_data, write_snapshot

BLOCK = FIXTURES / "block" / "procfs"
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
NVME_DIR = "sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0/nvme/nvme0/nvme0n1"
SDV_DIR = (
    "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11/port-11:0/expander-11:0/"
    "port-11:0:0/end_device-11:0:0/target11:0:7/11:0:7:0"
)
NVME_WWID = "nvme.c0a9-323332384536454444384137-435432303030503353534438-00000001"


@pytest.fixture
def block_copy(tmp_path: Path) -> Path:
    target = tmp_path / "snapshot"
    shutil.copytree(BLOCK, target, symlinks=True)
    return target


def collect(root: Path, **kwargs: tuple[str, ...]) -> tuple[BlockInventory, ProblemLog]:
    log = ProblemLog()
    return collect_block(SnapshotSource(root), log, **kwargs), log


def device(inventory: BlockInventory, name: str) -> BlockDevice:
    found = inventory.by_name(name)
    assert found is not None, name
    return found


# -- real captures -----------------------------------------------------------------------


def test_every_block_device_of_the_capture_is_read_without_a_problem() -> None:
    inventory, log = collect(BLOCK)
    assert [d.name for d in inventory.devices] == [
        "dm-0", "dm-1", "dm-2", "md0", "md1", "md10", "md4", "md5", "md6", "md7", "md8",
        "nvme0n1", "sda", "sdb", "sdc", "sdd", "sde", "sdv", "sdw", "sdx",
    ]  # fmt: skip
    assert log.problems() == []
    assert len({d.id for d in inventory.devices}) == len(inventory.devices)


def test_the_sas_disks_behind_the_9400_hba() -> None:
    inventory, _ = collect(BLOCK)
    sdv = device(inventory, "sdv")
    assert sdv.id == "block:naa.5000c500b32d1a9c"
    assert sdv.kind is BlockKind.SCSI_DISK
    assert sdv.device_path == f"/{SDV_DIR}/block/sdv"
    assert sdv.hctl == "11:0:7:0"
    assert sdv.wwid == "naa.5000c500b32d1a9c"
    assert sdv.queue_depth == 128
    assert sdv.size_bytes == 15628053168 * 512 == 8001563222016
    assert sdv.nr_requests is None  # the capture holds no queue/ for these disks
    assert sdv.partitions == []
    sdw = device(inventory, "sdw")
    assert (sdw.hctl, sdw.wwid, sdw.queue_depth) == ("11:0:8:0", "naa.5000cca26128b1f4", 256)
    assert device(inventory, "sdx").queue_depth == 128


def test_the_rotational_disk_with_its_queue_settings() -> None:
    sda = device(collect(BLOCK)[0], "sda")
    assert sda.rotational is True
    assert sda.nr_requests == 64
    assert sda.scheduler == "bfq"
    assert sda.schedulers == ["mq-deadline", "kyber", "bfq", "none"]
    assert (sda.logical_block_size_bytes, sda.physical_block_size_bytes) == (512, 512)
    assert sda.size_bytes == 3750748848 * 512
    assert sda.queue_depth is None  # no device/queue_depth captured
    assert sda.id == "block:name:sda"  # no WWID captured: the kernel name is all there is


def test_the_nvme_namespace_and_its_aligned_partitions() -> None:
    nvme = device(collect(BLOCK)[0], "nvme0n1")
    assert nvme.id == f"block:{NVME_WWID}"
    assert nvme.kind is BlockKind.NVME
    assert nvme.rotational is False
    assert (nvme.nr_requests, nvme.scheduler, nvme.schedulers) == (
        1023,
        "none",
        ["none", "mq-deadline"],
    )
    assert nvme.size_bytes == 3907029168 * 512
    assert nvme.queue_depth is None  # not a SCSI device
    starts = [(p.name, p.number, p.start_sectors, p.start_bytes) for p in nvme.partitions]
    assert starts == [
        ("nvme0n1p1", 1, 2048, 1048576),
        ("nvme0n1p2", 2, 2203648, 1128267776),
        ("nvme0n1p3", 3, 6397952, 3275751424),
    ]
    assert all(p.aligned_1mib and p.aligned_64kib for p in nvme.partitions)
    assert [p.size_bytes for p in nvme.partitions] == [
        2201600 * 512,
        4194304 * 512,
        3900628992 * 512,
    ]
    assert nvme.partitions[2].holders == ["dm-0"]  # an LVM PV; the link dangles in the capture
    assert nvme.partitions[0].id == f"block:{NVME_WWID}/part:1"


def test_device_mapper_and_md_devices() -> None:
    inventory, _ = collect(BLOCK)
    dm1 = device(inventory, "dm-1")
    assert dm1.id == "block:dm:mpath-360000000000001"
    assert (dm1.dm_name, dm1.dm_uuid) == ("mpathA", "mpath-360000000000001")
    assert dm1.slaves == ["sdb", "sdc"]
    assert dm1.size_bytes == 104857600 * 512
    dm0 = device(inventory, "dm-0")
    assert dm0.dm_name == "vg0--lv_root"
    assert dm0.slaves == ["sda"]
    md0 = device(inventory, "md0")
    assert md0.kind is BlockKind.MD
    assert md0.id == "block:md:155f29ff-1716-4107-b362-52307ef86cac"


def test_the_shared_snapshot_reads_the_same_way() -> None:
    inventory, log = collect(PROCFS)
    assert len(inventory.devices) == 16  # no links to the NVMe and SAS disks in that capture
    assert device(inventory, "sda").scheduler == "bfq"
    assert log.problems() == []


def test_a_recorded_capture_reads_back_the_same(tmp_path: Path) -> None:
    """What the collector reads, recorded by `capture`, is enough to collect it again.

    The fixture's dm `slaves/` entries are plain files (flattened links); a capture records
    the links a real sysfs has there, so only those listings differ.
    """
    live = collect_block(RecordingSource(tmp_path / "snap", root=str(BLOCK)), ProblemLog())
    again = collect_block(SnapshotSource(tmp_path / "snap"), ProblemLog())
    for found in (live, again):
        for dm in found.devices:
            dm.slaves = []
    assert again == live


# -- which devices, which ids ------------------------------------------------------------


def disk(root: Path, name: str, **attributes: str) -> Path:
    """A `/sys/block/<name>` directory with the attributes given (`queue__rotational=1`)."""
    directory = root / "sys/block" / name
    for key, value in attributes.items():
        path = directory / key.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{value}\n")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def test_loop_ram_zram_and_cdrom_are_skipped_unless_asked(tmp_path: Path) -> None:
    for name in ("loop0", "ram0", "zram0", "sr0", "sda", "vda", "rbd0"):
        disk(tmp_path, name, size="8")
    inventory, _ = collect(tmp_path)
    assert [d.name for d in inventory.devices] == ["rbd0", "sda", "vda"]
    assert device(inventory, "vda").kind is BlockKind.OTHER
    everything, _ = collect(tmp_path, skip=())
    assert len(everything.devices) == 7


def test_several_paths_to_one_lun_get_one_id_each(tmp_path: Path) -> None:
    for name, hctl in (("sdb", "3:0:0:1"), ("sdc", "4:0:0:1")):
        scsi = tmp_path / "sys/devices/pci0000:00/host" / hctl
        (scsi / "block" / name).mkdir(parents=True)
        (scsi / "wwid").write_text("naa.600a098038303053453f463045727a6f\n")
        (scsi / "block" / name / "device").symlink_to(f"../../../{hctl}")
        (tmp_path / "sys/block").mkdir(parents=True, exist_ok=True)
        (tmp_path / "sys/block" / name).symlink_to(
            f"../devices/pci0000:00/host/{hctl}/block/{name}"
        )
    inventory, log = collect(tmp_path)
    assert [d.id for d in inventory.devices] == [
        "block:naa.600a098038303053453f463045727a6f/path:3:0:0:1",
        "block:naa.600a098038303053453f463045727a6f/path:4:0:0:1",
    ]
    assert log.problems() == []


def test_misaligned_partition_starts(block_copy: Path) -> None:
    (block_copy / NVME_DIR / "nvme0n1p1/start").write_text("63\n")  # the old DOS default
    (block_copy / NVME_DIR / "nvme0n1p2/start").write_text("128\n")  # 64 KiB, not 1 MiB
    nvme = device(collect(block_copy)[0], "nvme0n1")
    p1, p2, _ = nvme.partitions
    assert (p1.start_bytes, p1.aligned_1mib, p1.aligned_64kib) == (32256, False, False)
    assert (p2.start_bytes, p2.aligned_1mib, p2.aligned_64kib) == (65536, False, True)


# -- bad input ---------------------------------------------------------------------------


def test_a_scheduler_without_brackets_is_reported_and_the_queue_stands(block_copy: Path) -> None:
    (block_copy / "sys/block/sda/queue/scheduler").write_text("mq-deadline kyber bfq none\n")
    inventory, log = collect(block_copy)
    sda = device(inventory, "sda")
    assert (sda.scheduler, sda.schedulers) == (None, [])
    assert sda.nr_requests == 64
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == "/sys/block/sda/queue/scheduler"
    assert problem.reason == (
        "scheduler not collected: expected the schedulers with the active one in brackets, "
        "like '[mq-deadline] kyber none', found 'mq-deadline kyber bfq none'"
    )


def test_a_size_that_is_not_a_number_is_reported(block_copy: Path) -> None:
    (block_copy / SDV_DIR / "block/sdv/size").write_text("8 TB\n")
    inventory, log = collect(block_copy)
    sdv = device(inventory, "sdv")
    assert sdv.size_bytes is None
    assert sdv.queue_depth == 128
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == f"/{SDV_DIR}/block/sdv/size"
    assert problem.reason == (
        "size not collected: expected a number of 512-byte sectors, found '8 TB'"
    )


def test_a_garbled_queue_depth_is_reported(block_copy: Path) -> None:
    (block_copy / SDV_DIR / "queue_depth").write_text("deep\n")
    inventory, log = collect(block_copy)
    assert device(inventory, "sdv").queue_depth is None
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == f"/{SDV_DIR}/queue_depth"  # the SCSI device's own, as read
    assert "expected a number, found 'deep'" in problem.reason


def test_an_unreadable_attribute_is_reported(block_copy: Path) -> None:
    """A directory where a file should be: reading it fails like an I/O error does."""
    nr_requests = block_copy / "sys/block/sda/queue/nr_requests"
    nr_requests.unlink()
    nr_requests.mkdir()
    inventory, log = collect(block_copy)
    sda = device(inventory, "sda")
    assert sda.nr_requests is None
    assert sda.scheduler == "bfq"
    (problem,) = log.problems()
    assert (problem.kind, problem.subject) == (
        ProblemKind.UNREADABLE,
        "/sys/block/sda/queue/nr_requests",
    )


def test_a_dangling_sys_block_link_is_reported_and_the_rest_stands(block_copy: Path) -> None:
    (block_copy / "sys/block/sdy").symlink_to("../devices/pci0000:00/0000:00:03.0/gone/block/sdy")
    inventory, log = collect(block_copy)
    assert inventory.by_name("sdy") is None
    assert len(inventory.devices) == 20
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.UNREADABLE
    assert problem.subject == "/sys/block/sdy"
    assert problem.reason.startswith(
        "not collected: dangling symlink to /sys/devices/pci0000:00/0000:00:03.0/gone/block/sdy"
    )


def test_a_partition_without_its_start_is_reported(block_copy: Path) -> None:
    (block_copy / NVME_DIR / "nvme0n1p2/start").unlink()
    inventory, log = collect(block_copy)
    p2 = device(inventory, "nvme0n1").partitions[1]
    assert (p2.name, p2.start_sectors, p2.aligned_1mib, p2.aligned_64kib) == (
        "nvme0n1p2",
        None,
        None,
        None,
    )
    assert p2.size_bytes == 4194304 * 512
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.MISSING
    assert problem.subject == f"/{NVME_DIR}/nvme0n1p2/start"
    assert problem.reason == (
        "partition start not collected: the attribute is absent, so the partition's alignment "
        "is not known"
    )


def test_no_sys_block_is_one_problem(tmp_path: Path) -> None:
    inventory, log = collect(tmp_path)
    assert inventory.devices == []
    (problem,) = log.problems()
    assert (problem.kind, problem.reason) == (ProblemKind.MISSING, "not collected: no /sys/block")


# -- parsers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "active", "offered"),
    [
        ("[mq-deadline] kyber none\n", "mq-deadline", ["mq-deadline", "kyber", "none"]),
        ("mq-deadline kyber [bfq] none", "bfq", ["mq-deadline", "kyber", "bfq", "none"]),
        ("[none] mq-deadline ", "none", ["none", "mq-deadline"]),
        ("noop deadline [cfq]", "cfq", ["noop", "deadline", "cfq"]),  # single-queue kernels
        ("none", "none", ["none"]),  # bio-based device-mapper takes no scheduler
    ],
)
def test_schedulers(text: str, active: str, offered: list[str]) -> None:
    assert parse_scheduler(text) == (active, offered)


@pytest.mark.parametrize("text", ["", "mq-deadline kyber", "[bfq] [none]", "[ ] none", "[bfq"])
def test_garbled_schedulers(text: str) -> None:
    with pytest.raises(BlockParseError, match="active one in brackets"):
        parse_scheduler(text)


def test_kinds_from_names() -> None:
    kinds = {
        "sda": BlockKind.SCSI_DISK,
        "sdaa": BlockKind.SCSI_DISK,
        "nvme0n1": BlockKind.NVME,
        "nvme1c2n1": BlockKind.NVME,
        "dm-12": BlockKind.DEVICE_MAPPER,
        "md127": BlockKind.MD,
        "vdb": BlockKind.OTHER,
        "nvme0": BlockKind.OTHER,  # a controller, not a namespace
    }
    assert {name: kind_of_name(name) for name in kinds} == kinds


# -- where each device hangs (issue 15: disks on any controller) --------------------------


def test_the_real_nvme_namespace_hangs_from_its_controller() -> None:
    inventory, log = collect(BLOCK)
    nvme = device(inventory, "nvme0n1").controller
    assert nvme is not None
    assert (nvme.kind.value, nvme.pci_address, nvme.port) == ("nvme", "0000:01:00.0", "nvme0")
    assert nvme.driver is None  # the capture holds no /sys/bus/pci: not read, not invented
    sdv = device(inventory, "sdv").controller
    assert sdv is not None and (sdv.kind.value, sdv.port) == ("scsi", "host11")
    for name in ("dm-0", "md0"):
        assert device(inventory, name).controller is None  # stacked: judged by its members
    assert log.problems() == []


def simulated_ahci(tmp_path: Path) -> Path:
    out = tmp_path / "ahci"
    spec = {
        "host": {"hostname": "ahci-test"},
        "ahci": [{"pci_address": "0000:00:17.0", "disk": [{}, {"rotational": False}]}],
        "virtio": [{"pci_address": "0000:07:00.0"}],
    }
    write_snapshot(spec_from_data(spec), out)
    return out


def test_ahci_and_virtio_disks_with_their_controller_and_its_driver(tmp_path: Path) -> None:
    """A simulated host laid out as the kernel does: the driver read from the PCI function,
    once per controller; `capture` keeps what it read."""
    root = simulated_ahci(tmp_path)
    inventory, log = collect(root)
    assert log.problems() == []
    sda = device(inventory, "sda")
    assert sda.controller is not None
    assert (sda.controller.kind.value, sda.controller.port) == ("ata", "ata1")
    assert (sda.controller.pci_address, sda.controller.driver) == ("0000:00:17.0", "ahci")
    assert sda.queue_depth == 32 and sda.rotational is True
    assert device(inventory, "sdb").controller == sda.controller.model_copy(update={"port": "ata2"})
    vda = device(inventory, "vda")
    assert vda.controller is not None
    assert (vda.controller.kind.value, vda.controller.driver) == ("virtio", "virtio-pci")
    assert vda.queue_depth is None and vda.nr_requests == 256
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    collect_block(RecordingSource(recorded, root=str(root)), ProblemLog())
    again, _ = collect(recorded)
    assert device(again, "sda").controller == sda.controller


def test_a_pci_function_without_its_driver_link_is_no_problem(tmp_path: Path) -> None:
    root = simulated_ahci(tmp_path)
    (root / "sys/bus/pci/devices/0000:00:17.0").resolve().joinpath("driver").unlink()
    inventory, log = collect(root)
    sda = device(inventory, "sda")
    assert sda.controller is not None and sda.controller.driver is None
    assert sda.controller.pci_address == "0000:00:17.0"
    assert log.problems() == []
