"""What the kernel makes of the fabric: host numbers, sysfs names and paths, sdX and sgN.

Numbering follows scsi_transport_sas.c as driven by mpt3sas: SCSI hosts in PCI probe order;
`port-H:K` host-wide per host, `expander-H:E` host-wide in discovery order (breadth first, as
the firmware reports a level before the next), `port-H:E:K` per expander in phy order,
`end_device-H:E:K` named after its port, SCSI target ids host-wide in the order end devices
are added, sdX and sgN host after host in target order. All paths are relative to `sys/`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from pinchpoint.simulator.fabric import (
    Attachment,
    Disk,
    DiskPort,
    Expander,
    Fabric,
    HbaFabric,
    SesTarget,
)
from pinchpoint.simulator.naming import hctl, pci_host_bridge, sd_name
from pinchpoint.simulator.spec.values import CONNECTOR_PHYS

ScsiKind = Literal["disk", "ses"]


@dataclass(eq=False)
class ScsiDeviceView:
    """One SCSI device (`H:0:T:0`): a path to a disk, or an SES device."""

    host: HostView
    target: int
    path: str  # the H:0:T:0 directory
    kind: ScsiKind
    sas_address: int
    sg_index: int
    sd_index: int | None = None
    disk_port: DiskPort | None = None
    ses: SesTarget | None = None

    @property
    def name(self) -> str:
        return hctl(self.host.number, self.target)

    @property
    def sg_name(self) -> str:
        return f"sg{self.sg_index}"

    @property
    def sd(self) -> str | None:
        return None if self.sd_index is None else sd_name(self.sd_index)


@dataclass(eq=False)
class PhyView:
    """A SAS phy in sysfs: `phy-H:M` on the HBA, `phy-H:E:P` on an expander."""

    name: str
    path: str
    number: int
    rate: float | None
    port_name: str | None = None  # the port directory it belongs to, when attached
    state: str | None = None  # `negotiated_linkrate` when not a rate: "Phy disabled"
    enabled: bool = True
    errors: dict[str, int] = field(default_factory=dict)  # sysfs counter name -> count


@dataclass(eq=False)
class EndDeviceView:
    """`end_device-…`: a disk port or SES device as the SAS transport sees it."""

    name: str
    path: str
    parent_phy: int  # the phy identifier on the parent it hangs from
    scsi: ScsiDeviceView
    enclosure_logical_id: int
    bay: int
    protocol: str  # target_port_protocols: "ssp" or "sata"


@dataclass(eq=False)
class PortView:
    """`port-…`: one (wide) port with its phys and the device below it."""

    name: str
    path: str
    phys: list[PhyView]
    expander: ExpanderView | None = None
    end_device: EndDeviceView | None = None


@dataclass(eq=False)
class ExpanderView:
    """`expander-H:E`: one expander as one host sees it."""

    number: int
    name: str
    path: str
    fabric: Expander
    parent_phy: int
    level: int
    phys: list[PhyView] = field(default_factory=list)
    ports: list[PortView] = field(default_factory=list)


@dataclass(eq=False)
class HostView:
    """One HBA: its PCI device directory and SCSI host, with everything below."""

    hba: HbaFabric
    number: int
    pci_path: str
    phys: list[PhyView] = field(default_factory=list)
    ports: list[PortView] = field(default_factory=list)
    expanders: list[ExpanderView] = field(default_factory=list)
    scsi_devices: list[ScsiDeviceView] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"host{self.number}"

    @property
    def path(self) -> str:
        return f"{self.pci_path}/{self.name}"

    @property
    def sas_transport(self) -> bool:
        return self.hba.spec.sas_transport


@dataclass(eq=False)
class KernelView:
    """The whole host as sysfs shows it."""

    fabric: Fabric
    hosts: list[HostView]

    def scsi_devices(self) -> list[ScsiDeviceView]:
        """Every SCSI device, host after host in target order."""
        return [d for h in self.hosts for d in h.scsi_devices]

    def ses_devices(self) -> list[ScsiDeviceView]:
        """The SCSI devices of SES targets (type 13)."""
        return [d for d in self.scsi_devices() if d.kind == "ses"]

    def disk_paths(self) -> list[ScsiDeviceView]:
        """The SCSI devices of disks: one per path."""
        return [d for d in self.scsi_devices() if d.kind == "disk"]


class _Numbers:
    """Counters the kernel keeps across hosts: sdX and sgN indices."""

    def __init__(self) -> None:
        self.sd = 0
        self.sg = 0


def _pci_path(hba: HbaFabric) -> str:
    """The PCI function directory of an HBA below /sys."""
    return f"devices/{pci_host_bridge(hba.root_port)}/{hba.root_port}/{hba.pci_address}"


def _scsi_device(
    host: HostView, parent: str, attachment: Attachment, numbers: _Numbers, target: int
) -> ScsiDeviceView:
    """Add the SCSI device of a disk port or SES target, numbering sgN (and sdX)."""
    path = f"{parent}/target{host.number}:0:{target}/{hctl(host.number, target)}"
    if attachment.kind == "ses":
        assert attachment.ses is not None
        device = ScsiDeviceView(
            host, target, path, "ses", attachment.ses.sas_address, numbers.sg, ses=attachment.ses
        )
    else:
        port = attachment.disk_port
        assert port is not None
        device = ScsiDeviceView(
            host, target, path, "disk", port.sas_address, numbers.sg, numbers.sd, disk_port=port
        )
        numbers.sd += 1
    numbers.sg += 1
    host.scsi_devices.append(device)
    return device


def _end_device(
    host: HostView,
    port: PortView,
    name: str,
    attachment: Attachment,
    numbers: _Numbers,
) -> EndDeviceView:
    """The end device for an attachment, with its SCSI device below it."""
    target = len(host.scsi_devices)
    path = f"{port.path}/{name}"
    scsi = _scsi_device(host, path, attachment, numbers, target)
    if attachment.kind == "ses":
        assert attachment.ses is not None
        enclosure = attachment.ses.enclosure
        bay, protocol = enclosure.spec.bays, "ssp"
    else:
        disk_port = attachment.disk_port
        assert disk_port is not None
        disk: Disk = disk_port.disk
        enclosure = disk.enclosure
        bay, protocol = disk.bay, disk.spec.protocol.replace("sas", "ssp")
    return EndDeviceView(name, path, attachment.phys[0], scsi, enclosure.logical_id, bay, protocol)


def _expander_phys(view: ExpanderView, host: int) -> None:
    """Name every phy of an expander as this host sees it."""
    errors = view.fabric.errors
    for number, rate in enumerate(view.fabric.rates):
        name = f"phy-{host}:{view.number}:{number}"
        phy = PhyView(name, f"{view.path}/{name}", number, rate, errors=errors.get(number, {}))
        view.phys.append(phy)


def _walk_host(host: HostView, numbers: _Numbers) -> None:
    """Discover one host: ports on its connectors, then expanders breadth first."""
    hba = host.hba
    host_no = host.number
    for number, rate in enumerate(hba.rates):
        name = f"phy-{host_no}:{number}"
        phy = PhyView(name, f"{host.path}/{name}", number, rate, errors=hba.errors.get(number, {}))
        lane = hba.lanes_down.get(number)
        if lane is not None and lane.state == "Phy disabled":
            phy.state, phy.enabled = lane.state, False
        host.phys.append(phy)
    queue: deque[ExpanderView] = deque()
    next_expander = 0
    for connector in sorted(hba.connectors):
        root = hba.connectors[connector]
        name = f"port-{host_no}:{len(host.ports)}"
        lanes = host.phys[connector * CONNECTOR_PHYS : (connector + 1) * CONNECTOR_PHYS]
        # mpt3sas makes a port of the phys that have a link when it discovers it; a lane lost
        # while running stays in its port
        phys = [
            p for p in lanes if p.number not in hba.lanes_down or hba.lanes_down[p.number].in_port
        ]
        port = PortView(name, f"{host.path}/{name}", phys)
        for phy in phys:
            phy.port_name = name
        host.ports.append(port)
        expander_name = f"expander-{host_no}:{next_expander}"
        view = ExpanderView(
            next_expander, expander_name, f"{port.path}/{expander_name}", root, phys[0].number, 1
        )
        next_expander += 1
        port.expander = view
        queue.append(view)
    while queue:
        view = queue.popleft()
        host.expanders.append(view)
        _expander_phys(view, host_no)
        for attachment in view.fabric.attachments:
            port_name = f"port-{host_no}:{view.number}:{len(view.ports)}"
            phys = [view.phys[p] for p in attachment.phys]
            port = PortView(port_name, f"{view.path}/{port_name}", phys)
            for phy in phys:
                phy.port_name = port_name
            view.ports.append(port)
            if attachment.kind == "expander":
                assert attachment.expander is not None
                child_name = f"expander-{host_no}:{next_expander}"
                child = ExpanderView(
                    next_expander,
                    child_name,
                    f"{port.path}/{child_name}",
                    attachment.expander,
                    attachment.phys[0],
                    view.level + 1,
                )
                next_expander += 1
                port.expander = child
                queue.append(child)
            else:
                name = f"end_device-{host_no}:{view.number}:{len(view.ports) - 1}"
                port.end_device = _end_device(host, port, name, attachment, numbers)


def _walk_host_without_transport(host: HostView, numbers: _Numbers) -> None:
    """An HBA with no SAS transport class: every target directly below the SCSI host."""
    queue = deque(host.hba.connectors[c] for c in sorted(host.hba.connectors))
    while queue:
        expander = queue.popleft()
        for attachment in expander.attachments:
            if attachment.kind == "expander":
                assert attachment.expander is not None
                queue.append(attachment.expander)
            else:
                _scsi_device(host, host.path, attachment, numbers, len(host.scsi_devices))


def discover(fabric: Fabric) -> KernelView:
    """Name everything as the kernel would after booting with this fabric cabled."""
    first = fabric.spec.host.first_scsi_host
    ordered = sorted(fabric.hbas, key=lambda h: h.pci_address)
    numbers = _Numbers()
    hosts = []
    for offset, hba in enumerate(ordered):
        host = HostView(hba, first + offset, _pci_path(hba))
        if hba.spec.sas_transport:
            _walk_host(host, numbers)
        else:
            _walk_host_without_transport(host, numbers)
        hosts.append(host)
    return KernelView(fabric, hosts)
