"""Write the kernel's view of the fabric as a sysfs tree below `sys/` of a snapshot.

Layout and value formats are those of Linux (drivers/pci, scsi_sysfs.c, scsi_transport_sas.c,
mpt3sas, sd.c, sg.c, ses.c, enclosure.c): every attribute ends with a newline except the
`enclosure_identifier` and `bay_identifier` of expanders, which mpt3sas cannot report (the
capture keeps them empty). Links are relative, as the kernel makes them: class and bus
entries, `device`/`driver`/`port`/`generic` links, enclosure component links. Attributes no
reader needs are left out to keep a 1,920-path host fast to write.
"""

from __future__ import annotations

from pinchpoint.simulator.addresses import hex_address, serial_number
from pinchpoint.simulator.discovery import (
    EndDeviceView,
    ExpanderView,
    HostView,
    KernelView,
    PhyView,
    PortView,
    ScsiDeviceView,
)
from pinchpoint.simulator.fabric import HbaFabric, Partition, SesTarget
from pinchpoint.simulator.naming import (
    SG_MAJOR,
    link_rate_text,
    padded,
    sd_devt,
)
from pinchpoint.simulator.pci import CLASS_SAS, PciIds, PciWriter
from pinchpoint.simulator.ses_pages import SesPageSet, phy0_address
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
TYPE_DISK = 0
TYPE_ENCLOSURE = 13
SCSI_LEVEL_SPC4 = "7"
MINIMUM_RATE_HW = "1.5 Gbit"
PHY_ERROR_COUNTERS = (
    "invalid_dword_count",
    "running_disparity_error_count",
    "loss_of_dword_sync_count",
    "phy_reset_problem_count",
)


def _class_device(
    w: TreeWriter,
    parent: str,
    cls: str,
    name: str,
    values: dict[str, str],
) -> str:
    """A class device `parent/cls/name` with its attributes, its `device` link and the
    `/sys/class/cls/name` entry; returns its directory. (The `subsystem` link every class
    device also has is left out: nothing reads it and a 1,920-path host would pay for it.)"""
    directory = f"{parent}/{cls}/{name}"
    w.attrs(directory, values)
    w.link(f"{directory}/device", parent)
    w.link(f"{SYS}/class/{cls}/{name}", directory)
    return directory


def _pci_function(pci: PciWriter, host: HostView) -> None:
    """The HBA's PCI function (and its root port): ids, PCIe link, NUMA node, driver."""
    hba = host.hba
    spec = hba.spec
    ids = PciIds(
        vendor=spec.pci_vendor,
        device=hba.pci_device,
        subsystem_vendor=spec.pci_vendor,
        subsystem_device="0x30e0",
        class_code=CLASS_SAS,
        revision="0x02",
    )
    pci.function(hba.pci_address, hba.root_port, ids, spec.driver, spec.pcie, spec.numa_node)


def _scsi_host(w: TreeWriter, host: HostView) -> None:
    """The SCSI host and its scsi_host class device, attributes as the driver has them."""
    hba: HbaFabric = host.hba
    spec = hba.spec
    values = {
        "proc_name": spec.driver,
        "unique_id": str(host.number + 1),
        "can_queue": str(spec.can_queue),
        "cmd_per_lun": "7",
        "sg_tablesize": "128",
        "host_busy": "0",
        "state": "running",
        "active_mode": "Initiator",
        "supported_mode": "Initiator",
        "version_fw": spec.firmware,
    }
    if spec.driver == "mpt3sas":
        values |= {
            "board_name": spec.board_name,
            "version_bios": spec.bios,
            "version_product": spec.chip,
            "version_mpi": "05.00",
            "host_sas_address": hex_address(hba.sas_address),
        }
    elif spec.driver == "mpi3mr":
        values |= {"fw_queue_depth": str(spec.can_queue), "adp_state": "operational"}
    else:
        values |= {"board_name": spec.board_name}
    path = f"{SYS}/{host.path}"
    w.mkdir(path)
    _class_device(w, path, "scsi_host", host.name, values)
    w.link(f"{SYS}/bus/scsi/devices/{host.name}", path)
    w.link(f"{path}/subsystem", f"{SYS}/bus/scsi")


def _phy(
    w: TreeWriter,
    phy: PhyView,
    sas_address: int,
    max_rate: float,
    host_phy: bool,
) -> None:
    """A phy directory with its sas_phy class device and, when attached, its port link."""
    path = f"{SYS}/{phy.path}"
    w.mkdir(path)
    values = {
        "initiator_port_protocols": "smp, stp, ssp" if host_phy else "smp",
        "target_port_protocols": "none" if host_phy else "smp",
        "device_type": "end device" if host_phy else "edge expander",
        "sas_address": hex_address(sas_address),
        "phy_identifier": str(phy.number),
        "negotiated_linkrate": phy.state or link_rate_text(phy.rate),
        "minimum_linkrate_hw": MINIMUM_RATE_HW,
        "minimum_linkrate": "3.0 Gbit" if host_phy else MINIMUM_RATE_HW,
        "maximum_linkrate_hw": link_rate_text(max_rate),
        "maximum_linkrate": link_rate_text(max_rate),
        **{counter: str(phy.errors.get(counter, 0)) for counter in PHY_ERROR_COUNTERS},
        "enable": "1" if phy.enabled else "0",
    }
    _class_device(w, path, "sas_phy", phy.name, values)
    if phy.port_name is not None:
        parent = path.rpartition("/")[0]
        w.link(f"{path}/port", f"{parent}/{phy.port_name}")


def _port(w: TreeWriter, port: PortView) -> str:
    """A port directory: links to its phys and the sas_port class device."""
    path = f"{SYS}/{port.path}"
    w.mkdir(path)
    parent = path.rpartition("/")[0]
    for phy in port.phys:
        w.link(f"{path}/{phy.name}", f"{parent}/{phy.name}")
    _class_device(w, path, "sas_port", port.name, {"num_phys": str(len(port.phys))})
    return path


def _rphy_device(
    w: TreeWriter,
    path: str,
    name: str,
    values: dict[str, str],
) -> None:
    """The `sas_device` class device every remote phy (expander or end device) has."""
    directory = f"{path}/sas_device/{name}"
    w.mkdir(directory)
    for attr, value in values.items():
        w.write(f"{directory}/{attr}", value.encode())
    w.link(f"{directory}/device", path)
    w.link(f"{SYS}/class/sas_device/{name}", directory)


def _expander(w: TreeWriter, host: HostView, view: ExpanderView) -> None:
    """An expander with its rphy and expander attributes, phys and ports below."""
    path = f"{SYS}/{view.path}"
    w.mkdir(path)
    fabric = view.fabric
    _rphy_device(
        w,
        path,
        view.name,
        {
            "sas_address": hex_address(fabric.sas_address) + "\n",
            "device_type": "edge expander\n",
            "enclosure_identifier": "",
            "bay_identifier": "",
            "phy_identifier": f"{view.parent_phy}\n",
            "scsi_target_id": f"{view.number}\n",
            "initiator_port_protocols": "smp\n",
            "target_port_protocols": "smp\n",
        },
    )
    _class_device(
        w,
        path,
        "sas_expander",
        view.name,
        {
            "vendor_id": padded(fabric.vendor, 8),
            "product_id": padded(fabric.product, 16),
            "product_rev": padded(fabric.revision, 4),
            "component_vendor_id": padded(fabric.component_vendor, 8),
            "component_id": str(fabric.component_id),
            "component_revision_id": str(fabric.component_revision),
            "level": str(view.level),
        },
    )
    for phy in view.phys:
        _phy(w, phy, fabric.sas_address, fabric.max_gbps, host_phy=False)
    for port in view.ports:
        _port_below(w, host, port)


def _end_device(w: TreeWriter, end: EndDeviceView) -> None:
    """An end device: its rphy attributes and sas_end_device class device."""
    path = f"{SYS}/{end.path}"
    w.mkdir(path)
    scsi = end.scsi
    _rphy_device(
        w,
        path,
        end.name,
        {
            "sas_address": hex_address(scsi.sas_address) + "\n",
            "enclosure_identifier": f"0x{end.enclosure_logical_id:x}\n",
            "bay_identifier": f"{end.bay}\n",
            "phy_identifier": f"{end.parent_phy}\n",
            "device_type": "end device\n",
            "initiator_port_protocols": "none\n",
            "target_port_protocols": f"{end.protocol}\n",
            "scsi_target_id": f"{scsi.target}\n",
        },
    )
    # sas_end_device (ready_led_meaning, I_T_nexus_loss_timeout …): only its directory is
    # kept; no reader needs the values and a 1,920-path host would write 9,600 more files.
    directory = f"{path}/sas_end_device/{end.name}"
    w.mkdir(directory)
    w.link(f"{directory}/device", path)
    w.link(f"{SYS}/class/sas_end_device/{end.name}", directory)


def _port_below(w: TreeWriter, host: HostView, port: PortView) -> None:
    """A port and whatever hangs off it."""
    _port(w, port)
    if port.expander is not None:
        _expander(w, host, port.expander)
    elif port.end_device is not None:
        _end_device(w, port.end_device)


def _sas_host(w: TreeWriter, host: HostView) -> None:
    """The sas_host class device, the HBA phys and every port below."""
    path = f"{SYS}/{host.path}"
    _class_device(w, path, "sas_host", host.name, {})
    for phy in host.phys:
        _phy(w, phy, host.hba.sas_address, host.hba.spec.max_rate_gbps, host_phy=True)
    for port in host.ports:
        _port_below(w, host, port)


def _vpd_pg80(serial: str) -> bytes:
    """The unit serial number VPD page (0x80), as the binary `vpd_pg80` holds it."""
    data = serial.encode("ascii")
    return bytes((0x00, 0x80, 0x00, len(data))) + data


def _scsi_device(w: TreeWriter, dev: ScsiDeviceView) -> None:
    """A SCSI device with its scsi_device, scsi_generic and (disks) block devices."""
    path = f"{SYS}/{dev.path}"
    target = path.rpartition("/")[0]
    w.mkdir(target)
    if dev.disk_port is not None:
        disk = dev.disk_port.disk
        spec = disk.spec
        vendor = "ATA" if spec.protocol == "sata" else spec.vendor
        model, revision, scsi_type = spec.model, spec.revision, TYPE_DISK
        wwid, serial = f"naa.{disk.lu_name:016x}", disk.serial
        queue_depth, timeout, driver = spec.scsi_queue_depth, spec.timeout, "sd"
    else:
        assert dev.ses is not None
        enc = dev.ses.enclosure.spec
        vendor, model, revision, scsi_type = enc.vendor, enc.product, enc.revision, TYPE_ENCLOSURE
        wwid = f"naa.{dev.sas_address:016x}"
        serial = serial_number(enc.name, dev.ses.io_module)
        queue_depth, timeout, driver = 254, 30, "ses"
    w.attrs(
        path,
        {
            "vendor": padded(vendor, 8),
            "model": padded(model, 16),
            "rev": padded(revision, 4),
            "type": str(scsi_type),
            "scsi_level": SCSI_LEVEL_SPC4,
            "wwid": wwid,
            "sas_address": hex_address(dev.sas_address),
            "queue_depth": str(queue_depth),
            "state": "running",
            "timeout": str(timeout),
        },
    )
    w.write(f"{path}/vpd_pg80", _vpd_pg80(serial))
    w.link(f"{path}/generic", f"{path}/scsi_generic/{dev.sg_name}")
    w.mkdir(f"{SYS}/bus/scsi/drivers/{driver}")
    w.link(f"{path}/driver", f"{SYS}/bus/scsi/drivers/{driver}")
    w.link(f"{SYS}/bus/scsi/devices/{dev.name}", path)
    _class_device(w, path, "scsi_device", dev.name, {})
    _class_device(w, path, "scsi_generic", dev.sg_name, {"dev": f"{SG_MAJOR}:{dev.sg_index}"})
    if dev.disk_port is not None and dev.sd is not None and dev.sd_index is not None:
        spec = dev.disk_port.disk.spec
        major, minor = sd_devt(dev.sd_index)
        block = _class_device(
            w,
            path,
            "block",
            dev.sd,
            {
                "dev": f"{major}:{minor}",
                "size": str(spec.size_bytes // 512),
            },
        )
        w.link(f"{SYS}/block/{dev.sd}", block)
        scheduler = " ".join(
            f"[{s}]" if s == spec.scheduler else s for s in _schedulers(spec.scheduler)
        )
        w.attrs(
            f"{block}/queue",
            {
                "rotational": "1" if spec.rotational else "0",
                "nr_requests": str(spec.nr_requests),
                "scheduler": scheduler,
                "logical_block_size": str(spec.logical_block_size),
                "physical_block_size": str(spec.physical_block_size),
            },
        )
        for part in dev.disk_port.disk.partitions:
            _partition(w, block, dev.sd, (major, minor), part)


def _partition(w: TreeWriter, block: str, sd: str, devt: tuple[int, int], part: Partition) -> None:
    """A partition below its disk's block device, as `add_partition` (block/partitions/
    core.c) makes it: `sdXN/{partition,start,size,ro,dev}`, and its /sys/class/block entry."""
    path = f"{block}/{sd}{part.number}"
    major, minor = devt
    w.attrs(
        path,
        {
            "dev": f"{major}:{minor + part.number}",
            "partition": str(part.number),
            "start": str(part.start),
            "size": str(part.size),
            "ro": "0",
        },
    )
    w.mkdir(f"{path}/holders")
    w.link(f"{SYS}/class/block/{sd}{part.number}", path)


def _schedulers(chosen: str) -> list[str]:
    """The I/O schedulers `queue/scheduler` lists."""
    names = ["mq-deadline", "none"]
    return names if chosen in names else [chosen, *names]


def _enclosure(
    w: TreeWriter,
    dev: ScsiDeviceView,
    pages: SesPageSet,
    by_address: dict[int, ScsiDeviceView],
    linked: set[tuple[str, str]],
) -> None:
    """The enclosure class device ses.c registers, with one component per slot element."""
    path = f"{SYS}/{dev.path}"
    slots = pages.types[0].elements
    directory = _class_device(
        w,
        path,
        "enclosure",
        dev.name,
        {"components": str(len(slots)), "id": f"0x{pages.logical_id:x}"},
    )
    for slot, element in enumerate(slots):
        component = f"{directory}/{element.descriptor}"
        installed = element.status[0] & 0x0F == 1
        w.attrs(
            component,
            {
                "fault": "0",
                "status": "OK" if installed else "not installed",
                "active": "0",
                "locate": "0",
                "power_status": "on",
                "type": "array device",
                "slot": str(slot),
            },
        )
        disk = by_address.get(phy0_address(pages, slot))
        if disk is None:
            continue
        w.link(f"{component}/device", f"{SYS}/{disk.path}")
        name = f"enclosure_device:{element.descriptor}"
        if (disk.path, name) not in linked:
            linked.add((disk.path, name))
            w.link(f"{SYS}/{disk.path}/{name}", component)


def write_sysfs(
    w: TreeWriter,
    view: KernelView,
    pages: dict[SesTarget, SesPageSet],
    pci: PciWriter | None = None,
) -> None:
    """Every host, its SAS transport objects and SCSI devices, and the enclosures."""
    pci = pci or PciWriter(w)
    for host in view.hosts:
        _pci_function(pci, host)
        _scsi_host(w, host)
        if host.sas_transport:
            _sas_host(w, host)
        for dev in host.scsi_devices:
            _scsi_device(w, dev)
    by_address = {
        d.sas_address: d for d in view.disk_paths() if d.host.sas_transport and d.sas_address
    }
    linked: set[tuple[str, str]] = set()
    for dev in view.ses_devices():
        assert dev.ses is not None
        if dev.ses.enclosure.spec.enclosure_class:
            _enclosure(w, dev, pages[dev.ses], by_address, linked)


# Shared with the writers of the rest of the host (FC LUNs are SCSI disks too).
class_device = _class_device
scheduler_text_names = _schedulers
vpd_pg80 = _vpd_pg80
