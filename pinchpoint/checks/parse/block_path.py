"""Where a block device hangs, read from its place in the device tree: the controller (its PCI
function) and the port of that controller — the hierarchy controller → port → disk that groups
the statistics of disks outside the SAS fabric.

The resolved `/sys/block/<name>` directory says it (real layouts, see tests):

- ATA (AHCI and other libata controllers): `…/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sdc`
- NVMe: `…/0000:3b:00.0/nvme/nvme0/nvme0n1`; a native-multipath head
  `…/virtual/nvme-subsystem/nvme-subsys0/nvme0n1` hangs from its subsystem
- virtio-blk: `…/0000:00:05.0/virtio2/block/vda`
- any other SCSI host (RAID, virtio-scsi, USB, iSCSI): `…/0000:02:00.0/host0/target0:2:0/…`,
  `…/platform/host3/session1/…`

Pure: a path in, a `BlockController` (without the driver, which another file says) out. A
device-mapper or md device (`…/virtual/block/dm-0`) has none.
"""

from __future__ import annotations

import re

from pinchpoint.model.block import BlockController, ControllerKind

_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_ATA_PORT = re.compile(r"^ata\d+$")
_NVME_CONTROLLER = re.compile(r"^nvme\d+$")
_NVME_SUBSYSTEM = re.compile(r"^nvme-subsys\d+$")
_VIRTIO = re.compile(r"^virtio\d+$")
_SCSI_HOST = re.compile(r"^host\d+$")


def controller_of(device_path: str | None) -> BlockController | None:
    """The controller and port a block device's resolved sysfs directory shows; None for a
    virtual device (dm, md, loop) or a path that shows none."""
    if not device_path:
        return None
    parts = [p for p in device_path.split("/") if p]
    if "virtual" in parts and not any(_NVME_SUBSYSTEM.match(p) for p in parts):
        return None
    pci: str | None = None
    for part in parts:
        if _PCI_ADDRESS.match(part):
            pci = part
            continue
        if _ATA_PORT.match(part):
            return BlockController(kind=ControllerKind.ATA, pci_address=pci, port=part)
        if _NVME_CONTROLLER.match(part) or _NVME_SUBSYSTEM.match(part):
            return BlockController(kind=ControllerKind.NVME, pci_address=pci, port=part)
        if _VIRTIO.match(part):
            # virtio-scsi puts a SCSI host below its virtio device; virtio-blk does not
            below = parts[parts.index(part) + 1 :]
            if any(_SCSI_HOST.match(p) for p in below):
                host = next(p for p in below if _SCSI_HOST.match(p))
                return BlockController(kind=ControllerKind.SCSI, pci_address=pci, port=host)
            return BlockController(kind=ControllerKind.VIRTIO, pci_address=pci, port=part)
        if _SCSI_HOST.match(part):
            return BlockController(kind=ControllerKind.SCSI, pci_address=pci, port=part)
    if "block" in parts and parts.index("block") > 2 and parts[0:2] == ["sys", "devices"]:
        above = parts[parts.index("block") - 1]  # xen's `vbd-51712`, a platform device
        return BlockController(kind=ControllerKind.OTHER, pci_address=pci, port=above)
    return None
