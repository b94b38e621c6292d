"""One numbering of SCSI hosts and `sdX` disks across every kind that takes them, in the order
the kernel discovers them: the SAS fabric's HBAs at boot, then the FC ports, then the AHCI
disks (each ATA port its own SCSI host, one disk each), then the iSCSI sessions, which log in
after boot. Every kind asks here where its numbers start, so two kinds never share an sd name
or a host number."""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fc import FcView
from pinchpoint.simulator.spec.host import HostSpec


@dataclass(frozen=True)
class FirstNumbers:
    """The first SCSI host number, sd index and sg index free for a kind of disk."""

    host: int
    sd: int
    sg: int


def after_fabric_and_fc(spec: HostSpec, view: KernelView, fc: FcView) -> FirstNumbers:
    """What is free after the SAS fabric's disks and the FC ports' LUN paths: the AHCI
    disks' first numbers."""
    host = spec.host.first_scsi_host + len(view.hosts) + len(fc.ports)
    sds = [d.sd_index for d in view.disk_paths() if d.sd_index is not None]
    sds += [p.sd_index for port in fc.ports for p in port.luns]
    sgs = [d.sg_index for d in view.scsi_devices()]
    sgs += [p.sg_index for port in fc.ports for p in port.luns]
    return FirstNumbers(host, 1 + max(sds, default=-1), 1 + max(sgs, default=-1))


def after_ahci(spec: HostSpec, view: KernelView, fc: FcView) -> FirstNumbers:
    """What is free after the AHCI disks too (one SCSI host and one sd each; the simulator
    writes no sg device for them): the iSCSI LUNs' first numbers."""
    first = after_fabric_and_fc(spec, view, fc)
    ahci = sum(len(controller.disk) for controller in spec.ahci)
    return FirstNumbers(first.host + ahci, first.sd + ahci, first.sg)
