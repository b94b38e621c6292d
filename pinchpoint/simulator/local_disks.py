"""Disks outside the SAS fabric: SATA disks on AHCI controllers (`[[ahci]]`) and virtio-blk disks
of a virtual machine (`[[virtio]]`); NVMe SSDs are nvme.py's.

Laid out as real kernels lay them out (the AHCI layout of node_exporter's fixture sysfs,
tests/fixtures/SOURCES.md): an AHCI disk below its controller's PCI function and ATA port,
`…/0000:05:00.0/ata3/host2/target2:0:0/2:0:0:0/block/sdc`, with `device/queue_depth` (32 with NCQ,
1 without) and `device/wwid` the disk's WWN (`naa.5000c500…`: libata's device identification page
carries the WWN IDENTIFY reports, which the kernel prefers to the T10 `ATA <model> <serial>` id); a
virtio disk below its virtio device, `…/0000:07:00.0/virtio2/block/vda`, with `serial` and no queue
depth of its own (its queue is `queue/nr_requests`). `/sys/block/X` leads there. AHCI disks take
the sd names after the SAS and FC disks, and SCSI host numbers after theirs (scsi_numbers.py, the
one numbering); virtio disks are vda, vdb … in spec order.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.simulator.addresses import naa5, name_hash, serial_number
from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fc import FcView
from pinchpoint.simulator.naming import default_root_port, padded, sd_devt, sd_name
from pinchpoint.simulator.pci import PciIds, PciWriter, pci_device_path
from pinchpoint.simulator.scsi_numbers import after_fabric_and_fc
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.values import PcieSpec
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
CLASS_AHCI = "0x010601"
CLASS_VIRTIO_BLOCK = "0x010000"
INTEL_AHCI = ("0x8086", "0xa182")  # C620 series chipset SATA controller
VIRTIO_BLOCK = ("0x1af4", "0x1042")  # virtio 1.0 block device
VIRTIO_MAJOR = 252  # dynamic, as most kernels give it
CHIPSET_LINK = PcieSpec(current_gts=8.0, current_width=1, max_gts=8.0, max_width=1)


# IEEE OUIs of SATA drive makers, by how their model names begin (the WWN's company id).
_MAKER_OUI = (("ST", 0x000C50), ("Samsung", 0x002538), ("SAMSUNG", 0x002538), ("WDC", 0x0014EE))
_OTHER_OUI = 0x000C50  # Seagate's, as for the default model


def _oui(model: str) -> int:
    return next((oui for prefix, oui in _MAKER_OUI if model.startswith(prefix)), _OTHER_OUI)


def default_ahci_pci_address(ordinal: int) -> str:
    """Bus 0x05, 0x06 … function .0, in spec order."""
    return f"0000:{0x05 + ordinal:02x}:00.0"


def default_virtio_pci_address(ordinal: int) -> str:
    """Bus 0x07, 0x08 …: a q35 machine puts each virtio device behind a root port."""
    return f"0000:{0x07 + ordinal:02x}:00.0"


@dataclass(frozen=True)
class LocalDisk:
    """One planned disk off the SAS fabric: its kernel name, what it is, how it is set."""

    name: str  # sdc, vda
    major: int
    minor: int
    rotational: bool
    queue_depth: int | None  # an AHCI disk's NCQ depth; None for virtio
    nr_requests: int
    service_factor: float
    path: str  # its directory below the snapshot root: sys/devices/…/block/sdc
    serial: str
    wwn: int | None = None  # an AHCI disk's World Wide Name (NAA 5), as IDENTIFY reports it


def plan_local_disks(spec: HostSpec, first_sd: int, first_host: int) -> list[LocalDisk]:
    """Every AHCI and virtio disk of the spec, named and placed (no files written)."""
    found: list[LocalDisk] = []
    sd = first_sd
    host = first_host
    ata = 1
    for ordinal, controller in enumerate(spec.ahci):
        address = controller.pci_address or default_ahci_pci_address(ordinal)
        root = controller.root_port or default_root_port(address)
        function = f"{SYS}/{pci_device_path(address, root)}"
        for number, disk in enumerate(controller.disk):
            port = disk.port or ata + number
            name = sd_name(sd)
            major, minor = sd_devt(sd)
            scsi = f"{host}:0:0:0"
            path = f"{function}/ata{port}/host{host}/target{host}:0:0/{scsi}/block/{name}"
            serial = disk.serial or "Z" + serial_number("ahci", address, str(number))
            found.append(
                LocalDisk(
                    name,
                    major,
                    minor,
                    disk.rotational,
                    disk.queue_depth,
                    disk.nr_requests,
                    disk.service_factor,
                    path,
                    serial,
                    naa5(_oui(disk.model), name_hash("ahci-wwn", address, serial)),
                )
            )
            sd += 1
            host += 1
        ata = max([ata + len(controller.disk), *((d.port or 0) + 1 for d in controller.disk)])
    for ordinal, virtio in enumerate(spec.virtio):
        address = virtio.pci_address or default_virtio_pci_address(ordinal)
        root = virtio.root_port or default_root_port(address)
        name = "vd" + chr(ord("a") + ordinal)
        path = f"{SYS}/{pci_device_path(address, root)}/virtio{ordinal}/block/{name}"
        serial = virtio.serial or "QM" + serial_number("virtio", address)
        found.append(
            LocalDisk(
                name,
                VIRTIO_MAJOR,
                16 * ordinal,
                virtio.rotational,
                None,
                virtio.nr_requests,
                virtio.service_factor,
                path,
                serial,
            )
        )
    return found


def local_disks(spec: HostSpec, view: KernelView, fc: FcView) -> list[LocalDisk]:
    """`plan_local_disks` numbered after the SAS fabric's and the FC ports' disks and hosts."""
    if not spec.ahci and not spec.virtio:
        return []
    first = after_fabric_and_fc(spec, view, fc)
    return plan_local_disks(spec, first.sd, first.host)


def _t10(model: str, serial: str) -> str:
    """The T10 vendor id libata gives a disk without a WWN (the kernel's `wwid` then)."""
    return f"t10.ATA     {model} {' ' * max(0, 40 - len(model) - 1)}{serial}"


def write_local_disks(
    w: TreeWriter, pci: PciWriter, spec: HostSpec, disks: list[LocalDisk]
) -> None:
    """The PCI functions of every `[[ahci]]` and `[[virtio]]` and the block devices below."""
    for ordinal, controller in enumerate(spec.ahci):
        address = controller.pci_address or default_ahci_pci_address(ordinal)
        root = controller.root_port or default_root_port(address)
        ids = PciIds(*INTEL_AHCI, *INTEL_AHCI, CLASS_AHCI, "0x09")
        pci.function(address, root, ids, "ahci", CHIPSET_LINK, controller.numa_node)
    for ordinal, virtio in enumerate(spec.virtio):
        address = virtio.pci_address or default_virtio_pci_address(ordinal)
        root = virtio.root_port or default_root_port(address)
        ids = PciIds(*VIRTIO_BLOCK, *VIRTIO_BLOCK, CLASS_VIRTIO_BLOCK, "0x01")
        pci.function(address, root, ids, "virtio-pci", CHIPSET_LINK, -1)
    specs = [d for c in spec.ahci for d in c.disk]
    sizes = [d.size_bytes for d in specs] + [v.size_bytes for v in spec.virtio]
    models = [d.model for d in specs] + ["" for _ in spec.virtio]
    firmware = [d.firmware for d in specs] + ["" for _ in spec.virtio]
    for disk, size, model, revision in zip(disks, sizes, models, firmware, strict=True):
        queue = {
            "rotational": "1" if disk.rotational else "0",
            "nr_requests": str(disk.nr_requests),
            "scheduler": "[mq-deadline] none" if disk.queue_depth else "[none] mq-deadline",
            "logical_block_size": "512",
            "physical_block_size": "4096" if disk.rotational else "512",
        }
        w.attrs(disk.path, {"size": str(size // 512), "dev": f"{disk.major}:{disk.minor}"})
        w.attrs(f"{disk.path}/queue", queue)
        if disk.queue_depth is not None:  # an AHCI disk: the SCSI device above its block dir
            scsi = disk.path.rsplit("/block/", 1)[0]
            w.attrs(
                scsi,
                {
                    "vendor": padded("ATA", 8),
                    "model": padded(model, 16),
                    "rev": padded(revision, 4),
                    "queue_depth": str(disk.queue_depth),
                    "state": "running",
                    "timeout": "30",
                    "wwid": f"naa.{disk.wwn:016x}" if disk.wwn else _t10(model, disk.serial),
                },
            )
            w.link(f"{disk.path}/device", scsi)
        else:
            w.attrs(disk.path.rsplit("/block/", 1)[0], {"serial": disk.serial})
            w.link(f"{disk.path}/device", disk.path.rsplit("/block/", 1)[0])
        w.link(f"{SYS}/block/{disk.name}", disk.path)
        w.link(f"{SYS}/class/block/{disk.name}", disk.path)
