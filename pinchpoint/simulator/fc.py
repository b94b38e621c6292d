"""Fibre Channel ports, their remote ports and LUNs, and dm-multipath maps over those LUNs.

Layout and formats follow Linux 6.1 (scsi_transport_fc.c, lpfc, qla2xxx, dm-mpath): an FC
port is a PCI function with one SCSI host `hostN` holding `fc_host/hostN` (with
`statistics/`), one `rport-N:0-R` per target port it logged into, and below each
`targetN:0:R/N:0:R:L` per LUN with its `block/sdX`. FC hosts are numbered after the SAS HBAs,
in PCI order; their sdX and sgN continue after the SAS fabric's. LUN L of one array is one
LU (one NAA 6 WWID, in the array maker's OUI) on every path that reaches it. With
`[multipath] enabled`, every LU with two paths or more is a `dm-N` map (in the order of its
first path) whose `dm/uuid` is `mpath-3<WWID>`, and `multipath -ll` lists them, each path
`active ready running` unless `[[multipath.failed_path]]` puts it down (`failed faulty
offline`, with the SCSI device `offline` in sysfs too; `failed shaky running`, `active ghost
running` …); with `path_grouping_policy = "group_by_prio"` a ghost (standby) path is listed in
a path group of its own, prio 1, `status=enabled`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.simulator.addresses import hex_address, name_hash, oui_of
from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.naming import SG_MAJOR, default_root_port, hctl, padded, sd_devt, sd_name
from pinchpoint.simulator.pci import CLASS_FIBRE_CHANNEL, PciIds, PciWriter, pci_device_path
from pinchpoint.simulator.smart import LunIdentity
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import FcPortSpec
from pinchpoint.simulator.sysfs_tree import class_device, scheduler_text_names, vpd_pg80
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
DM_MAJOR = 253
STATISTICS = (
    "dumped_frames",
    "error_frames",
    "fcp_packet_aborts",
    "fcp_packet_alloc_failures",
    "invalid_crc_count",
    "invalid_tx_word_count",
    "link_failure_count",
    "loss_of_signal_count",
    "loss_of_sync_count",
    "lip_count",
    "nos_count",
    "prim_seq_protocol_err_count",
    "rx_frames",
    "rx_words",
    "seconds_since_last_reset",
    "tx_frames",
    "tx_words",
)
_NOT_KEPT = frozenset({"dumped_frames", "lip_count", "nos_count"})  # FC-AL counters: -1 on lpfc


@dataclass(frozen=True)
class FcDriver:
    """What a driver's port looks like: PCI ids, model, versions, WWN prefix, queue limits."""

    vendor: str
    device: str
    subsystem_device: str
    model: str
    firmware: str
    version: str
    wwn_oui: int
    can_queue: int


FC_DRIVERS = {
    "lpfc": FcDriver(
        "0x10df", "0xf400", "0xf410", "LPe32002-M2", "12.8.351.29", "14.0.0.4", 0x0000C9, 8192
    ),
    "qla2xxx": FcDriver(
        "0x1077", "0x2261", "0x028d", "QLE2692", "9.06.02", "10.02.07.800-k", 0x0024FF, 2048
    ),
}
_ARRAY_OUIS = {"PURE": 0x24A937, "NETAPP": 0x00A098, "DGC": 0x006016, "HITACHI": 0x0060E8}


@dataclass(eq=False)
class RemotePortView:
    """`rport-N:0-R`: one target port of the array the local port logged into."""

    number: int
    wwpn: int
    wwnn: int
    port_id: int


@dataclass(eq=False)
class LunPathView:
    """One path to a LUN: `N:0:R:L` with its sdX and sgN."""

    port: FcPortView
    rport: RemotePortView
    lun: int
    identity: LunIdentity
    sd_index: int
    sg_index: int
    queue_depth: int
    state: str = "active ready running"  # as `multipath -ll` prints it

    @property
    def working(self) -> bool:
        """Whether the path carries I/O: device-mapper and its checker both have it up."""
        return self.state == "active ready running"

    @property
    def device_state(self) -> str:
        """The SCSI device's `state` in sysfs: the last word of the multipath states."""
        return self.state.rsplit(" ", 1)[-1]

    @property
    def name(self) -> str:
        return hctl(self.port.host_number, self.rport.number, self.lun)

    @property
    def sd(self) -> str:
        return sd_name(self.sd_index)

    @property
    def path(self) -> str:
        """The SCSI device directory below the root."""
        port = self.port
        rport = f"rport-{port.host_number}:0-{self.rport.number}"
        target = f"target{port.host_number}:0:{self.rport.number}"
        return f"{port.host_path}/{rport}/{target}/{self.name}"


@dataclass(eq=False)
class FcPortView:
    """One FC port: its PCI function, SCSI host number, WWNs, remote ports and LUN paths."""

    spec: FcPortSpec
    driver: FcDriver
    pci_address: str
    root_port: str
    host_number: int
    wwpn: int
    wwnn: int
    rports: list[RemotePortView] = field(default_factory=list)
    luns: list[LunPathView] = field(default_factory=list)

    @property
    def host(self) -> str:
        return f"host{self.host_number}"

    @property
    def host_path(self) -> str:
        return f"{SYS}/{pci_device_path(self.pci_address, self.root_port)}/{self.host}"

    @property
    def online(self) -> bool:
        return self.spec.state == "Online"


@dataclass(eq=False)
class MultipathMapView:
    """One dm-multipath map: dm-N, its name and its paths in sd order."""

    number: int
    name: str
    identity: LunIdentity
    paths: list[LunPathView]

    @property
    def dm(self) -> str:
        return f"dm-{self.number}"

    @property
    def wwid(self) -> str:
        """The WWID as multipath shows it: `3` and the NAA 6 name."""
        return f"3{self.identity.wwid:032x}"


@dataclass(eq=False)
class FcView:
    """Every FC port and multipath map of a host."""

    ports: list[FcPortView]
    maps: list[MultipathMapView]

    def first_paths(self) -> dict[str, LunIdentity]:
        """The first path (lowest sdX) of each LU whose ports have `smart`: device -> LU."""
        first: dict[int, LunPathView] = {}
        for port in self.ports:
            for path in port.luns:
                known = first.get(path.identity.wwid)
                if known is None or path.sd_index < known.sd_index:
                    first[path.identity.wwid] = path
        found = {p.sd: p.identity for p in sorted(first.values(), key=lambda p: p.sd_index)}
        smart = {p.identity.wwid for port in self.ports if port.spec.smart for p in port.luns}
        return {device: lu for device, lu in found.items() if lu.wwid in smart}


def fc_driver(name: str) -> FcDriver:
    return FC_DRIVERS[name]


def default_fc_pci_address(ordinal: int) -> str:
    """FC ports without an address pair up as functions .0 and .1 of bus 0x41, 0x42 …"""
    return f"0000:{0x41 + ordinal // 2:02x}:00.{ordinal % 2}"


def _wwn(prefix: int, oui: int, name: str) -> int:
    """An NAA 1/2 style port or node name: `0x1000` / `0x2000`, the OUI, 24 bits of hash."""
    return (prefix << 48) | (oui << 24) | (name_hash("fc", name) & 0xFFFFFF)


def _lun_identity(port: FcPortSpec, lun: int) -> LunIdentity:
    """LUN `lun` of the port's array: the same on every port that sees that array."""
    oui = _ARRAY_OUIS.get(port.lun_vendor.upper(), oui_of(port.lun_vendor))
    bits = (name_hash("lun", port.array, str(lun)) << 36) | name_hash("lun2", port.array, str(lun))
    wwid = (0x6 << 124) | (oui << 100) | (bits & ((1 << 100) - 1))
    return LunIdentity(
        vendor=port.lun_vendor,
        product=port.lun_product,
        revision=port.lun_revision,
        wwid=wwid,
        serial=f"{wwid & ((1 << 96) - 1):024X}",
        size_bytes=port.lun_size_bytes,
    )


def _mpath_name(index: int) -> str:
    return "mpath" + sd_name(index).removeprefix("sd")


def fc_view(spec: HostSpec, view: KernelView) -> FcView:
    """Number the FC hosts, their remote ports and LUN paths after the SAS fabric."""
    if not spec.fc_port:
        return FcView([], [])
    ordered = []
    for ordinal, port in enumerate(spec.fc_port):
        pci = port.pci_address or default_fc_pci_address(ordinal)
        ordered.append((pci, port))
    ordered.sort(key=lambda item: item[0])
    first_host = spec.host.first_scsi_host + len(view.hosts)
    sd = 1 + max((d.sd_index for d in view.disk_paths() if d.sd_index is not None), default=-1)
    sg = 1 + max((d.sg_index for d in view.scsi_devices()), default=-1)
    identities: dict[tuple[str, int], LunIdentity] = {}
    failed = {(f.port, f.remote_port, f.lun): f.state for f in spec.multipath.failed_path}
    ports = []
    for offset, (pci, port) in enumerate(ordered):
        driver = fc_driver(port.driver)
        wwpn = int(port.wwpn, 16) if port.wwpn else _wwn(0x1000, driver.wwn_oui, port.name)
        wwnn = int(port.wwnn, 16) if port.wwnn else (wwpn & ((1 << 48) - 1)) | (0x2000 << 48)
        found = FcPortView(
            spec=port,
            driver=driver,
            pci_address=pci,
            root_port=port.root_port or default_root_port(pci),
            host_number=first_host + offset,
            wwpn=wwpn,
            wwnn=wwnn,
        )
        ports.append(found)
        if not found.online:
            continue
        depth = port.lun_queue_depth or (
            spec.fc_driver.lpfc_lun_queue_depth
            if port.driver == "lpfc"
            else spec.fc_driver.ql2xmaxqdepth
        )
        for r in range(port.remote_ports):
            array_oui = _ARRAY_OUIS.get(port.lun_vendor.upper(), 0x24A937)
            target = name_hash("target", port.array, port.name, str(r)) & 0xFFFFFFFFF
            rport = RemotePortView(
                number=r,
                wwpn=(0x5 << 60) | (array_oui << 36) | target,
                wwnn=(0x5 << 60)
                | (array_oui << 36)
                | (name_hash("array", port.array) & 0xFFFFFFFFF),
                port_id=0x010000 | (offset << 8) | (r + 1),
            )
            found.rports.append(rport)
            for lun in range(1, port.luns + 1):
                identity = identities.setdefault((port.array, lun), _lun_identity(port, lun))
                state = failed.get((port.name, r, lun), "active ready running")
                found.luns.append(LunPathView(found, rport, lun, identity, sd, sg, depth, state))
                sd += 1
                sg += 1
    maps = []
    if spec.multipath.enabled:
        by_lu: dict[int, list[LunPathView]] = {}
        for port_view in ports:
            for path in port_view.luns:
                by_lu.setdefault(path.identity.wwid, []).append(path)
        groups = sorted(
            (paths for paths in by_lu.values() if len(paths) >= 2),
            key=lambda paths: min(p.sd_index for p in paths),
        )
        for number, paths in enumerate(groups):
            paths.sort(key=lambda p: p.sd_index)
            identity = paths[0].identity
            name = _mpath_name(number) if spec.multipath.user_friendly_names else ""
            found_map = MultipathMapView(number, name, identity, paths)
            found_map.name = name or found_map.wwid
            maps.append(found_map)
    return FcView(ports, maps)


# --- sysfs ----------------------------------------------------------------------------------


def _symbolic_name(port: FcPortView, hostname: str) -> str:
    spec, driver = port.spec, port.driver
    if spec.symbolic_name is not None:
        return spec.symbolic_name
    model = spec.model or driver.model
    firmware = spec.firmware or driver.firmware
    version = spec.driver_version or driver.version
    if spec.driver == "lpfc":
        return f"Emulex {model} FV{firmware} DV{version} HN:{hostname} OS:Linux"
    return f"QLogic {model} FW:v{firmware} DVR:v{version}"


def _speed_text(gbps: int) -> str:
    return f"{gbps} Gbit"


def _write_port(w: TreeWriter, pci: PciWriter, port: FcPortView, spec: HostSpec) -> None:
    s, driver = port.spec, port.driver
    ids = PciIds(
        vendor=driver.vendor,
        device=driver.device,
        subsystem_vendor=driver.vendor,
        subsystem_device=driver.subsystem_device,
        class_code=CLASS_FIBRE_CHANNEL,
    )
    pci.function(port.pci_address, port.root_port, ids, s.driver, s.pcie, s.numa_node)
    host = port.host_path
    w.mkdir(host)
    scsi_host = {
        "proc_name": s.driver,
        "unique_id": str(port.host_number),
        "can_queue": str(s.can_queue or driver.can_queue),
        "cmd_per_lun": "3",
        "sg_tablesize": "64",
        "host_busy": "0",
        "state": "running",
        "active_mode": "Initiator",
        "supported_mode": "Initiator",
    }
    if s.driver == "lpfc":
        scsi_host |= {
            "lpfc_lun_queue_depth": str(spec.fc_driver.lpfc_lun_queue_depth),
            "lpfc_hba_queue_depth": str(spec.fc_driver.lpfc_hba_queue_depth),
            "fwrev": f"{s.firmware or driver.firmware}, sli-4:2:c",
        }
    else:
        scsi_host |= {"fw_version": f"{s.firmware or driver.firmware} (d0d5)"}
    class_device(w, host, "scsi_host", port.host, scsi_host)
    w.link(f"{SYS}/bus/scsi/devices/{port.host}", host)
    online = port.online
    fc_host = class_device(
        w,
        host,
        "fc_host",
        port.host,
        {
            "port_name": hex_address(port.wwpn),
            "node_name": hex_address(port.wwnn),
            "port_id": f"0x{0x010000 | (port.host_number << 8):06x}" if online else "0x000000",
            "port_state": s.state,
            "port_type": s.port_type if online else "Unknown",
            "fabric_name": hex_address(
                0x1000_0027_F8A0_0000 | name_hash("fabric", s.array) & 0xFFFF
            )
            if online
            else "0x0",
            "speed": _speed_text(s.speed_gbps) if online else "unknown",
            "supported_speeds": ", ".join(_speed_text(g) for g in sorted(s.supported_speeds_gbps)),
            "supported_classes": "Class 3",
            "dev_loss_tmo": "30",
            "symbolic_name": _symbolic_name(port, spec.host.hostname),
        },
    )
    counters = {
        name: "0xffffffffffffffff" if name in _NOT_KEPT and s.driver == "lpfc" else "0x0"
        for name in STATISTICS
    }
    counters["seconds_since_last_reset"] = "0x1e13380"
    if online:
        counters |= {"tx_frames": "0x5f3a2c1", "rx_frames": "0x8c1d0e4"}
        counters |= {"tx_words": "0x2b4f1e02a", "rx_words": "0x4d0a93b17"}
    counters |= {name: hex(value) for name, value in s.counters.items()}
    w.attrs(f"{fc_host}/statistics", counters)
    for rport in port.rports:
        name = f"rport-{port.host_number}:0-{rport.number}"
        directory = f"{host}/{name}"
        w.mkdir(directory)
        class_device(
            w,
            directory,
            "fc_remote_ports",
            name,
            {
                "port_name": hex_address(rport.wwpn),
                "node_name": hex_address(rport.wwnn),
                "port_id": f"0x{rport.port_id:06x}",
                "port_state": "Online",
                "roles": "FCP Target",
                "scsi_target_id": str(rport.number),
                "supported_classes": "Class 3",
                "dev_loss_tmo": "30",
                "fast_io_fail_tmo": "5",
            },
        )
    for path in port.luns:
        _write_lun(w, path)


def _write_lun(w: TreeWriter, path: LunPathView) -> None:
    lu = path.identity
    directory = path.path
    w.mkdir(directory.rpartition("/")[0])
    w.attrs(
        directory,
        {
            "vendor": padded(lu.vendor, 8),
            "model": padded(lu.product, 16),
            "rev": padded(lu.revision, 4),
            "type": "0",
            "scsi_level": "7",
            "wwid": f"naa.{lu.wwid:032x}",
            "queue_depth": str(path.queue_depth),
            "state": path.device_state,
            "timeout": "30",
        },
    )
    w.write(f"{directory}/vpd_pg80", vpd_pg80(lu.serial))
    sg = f"sg{path.sg_index}"
    w.link(f"{directory}/generic", f"{directory}/scsi_generic/{sg}")
    w.mkdir(f"{SYS}/bus/scsi/drivers/sd")
    w.link(f"{directory}/driver", f"{SYS}/bus/scsi/drivers/sd")
    w.link(f"{SYS}/bus/scsi/devices/{path.name}", directory)
    class_device(w, directory, "scsi_device", path.name, {})
    class_device(w, directory, "scsi_generic", sg, {"dev": f"{SG_MAJOR}:{path.sg_index}"})
    major, minor = sd_devt(path.sd_index)
    block = class_device(
        w,
        directory,
        "block",
        path.sd,
        {"dev": f"{major}:{minor}", "size": str(lu.size_bytes // 512)},
    )
    w.link(f"{SYS}/block/{path.sd}", block)
    w.attrs(f"{block}/queue", _queue("none"))


def _queue(scheduler: str) -> dict[str, str]:
    names = " ".join(f"[{s}]" if s == scheduler else s for s in scheduler_text_names(scheduler))
    return {
        "rotational": "0",
        "nr_requests": "256",
        "scheduler": names,
        "logical_block_size": "512",
        "physical_block_size": "4096",
    }


def _block_dir(path: LunPathView) -> str:
    return f"{path.path}/block/{path.sd}"


def _write_map(w: TreeWriter, found: MultipathMapView) -> None:
    directory = f"{SYS}/devices/virtual/block/{found.dm}"
    w.attrs(
        directory,
        {"dev": f"{DM_MAJOR}:{found.number}", "size": str(found.identity.size_bytes // 512)},
    )
    w.attrs(
        f"{directory}/dm",
        {"name": found.name, "uuid": f"mpath-{found.wwid}", "suspended": "0"},
    )
    w.attrs(f"{directory}/queue", _queue("none") | {"scheduler": "none"})
    w.mkdir(f"{directory}/holders")
    for path in found.paths:
        w.link(f"{directory}/slaves/{path.sd}", _block_dir(path))
        w.link(f"{_block_dir(path)}/holders/{found.dm}", directory)
    w.link(f"{SYS}/block/{found.dm}", directory)


# --- multipath -ll ----------------------------------------------------------------------------


def size_text(size_bytes: int) -> str:
    """A size as multipath prints it: one decimal below 10, none above (`1.0T`, `54T`)."""
    value = float(size_bytes // 1024)
    units = "KMGTP"
    unit = 0
    while value >= 1024 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    return f"{value:.{1 if value < 10 else 0}f}{units[unit]}"


def multipath_ll_text(fc: FcView, spec: HostSpec) -> str:
    """`multipath -ll` of multipath-tools 0.9 (Debian 12): one block per map."""
    mp = spec.multipath
    lines = []
    for found in fc.maps:
        lu = found.identity
        if found.name == found.wwid:
            lines.append(f"{found.wwid} {found.dm} {lu.vendor},{lu.product}")
        else:
            lines.append(f"{found.name} ({found.wwid}) {found.dm} {lu.vendor},{lu.product}")
        lines.append(
            f"size={size_text(lu.size_bytes)} features='{mp.features}' "
            f"hwhandler='{mp.hwhandler}' wp=rw"
        )
        hctl_width = max(len(p.name) for p in found.paths)
        dev_width = max(len(p.sd) for p in found.paths)
        devt_width = max(len(_devt(p)) for p in found.paths)
        groups = _path_groups(found.paths, mp.path_grouping_policy)
        for number, (prio, status, paths) in enumerate(groups):
            last_group = number == len(groups) - 1
            lines.append(
                f"{'`' if last_group else '|'}-+- policy='{mp.path_selector}' prio={prio} "
                f"status={status}"
            )
            indent = " " if last_group else "|"
            for index, path in enumerate(paths):
                branch = "`-" if index == len(paths) - 1 else "|-"
                lines.append(
                    f"{indent} {branch} {path.name.ljust(hctl_width)} {path.sd.ljust(dev_width)} "
                    f"{_devt(path).ljust(devt_width)} {path.state}"
                )
    return "".join(f"{line}\n" for line in lines)


def _devt(path: LunPathView) -> str:
    return ":".join(map(str, sd_devt(path.sd_index)))


def _path_groups(paths: list[LunPathView], policy: str) -> list[tuple[int, str, list[LunPathView]]]:
    """(prio, status, paths) of each path group, as `multipath -ll` lists them: one group
    (multibus); or by priority, the ALUA prioritizer's 50 for the others and 1 for a standby
    (ghost) path, in a group of its own that stands by (`enabled`)."""
    standby = [p for p in paths if p.state == "active ghost running"]
    if policy == "multibus" or not standby or len(standby) == len(paths):
        return [(50, "active", paths)]
    rest = [p for p in paths if p not in standby]
    return [(50, "active", rest), (1, "enabled", standby)]


def write_fc(w: TreeWriter, pci: PciWriter, fc: FcView, spec: HostSpec) -> None:
    """Every FC port, its LUNs, the driver parameters and the multipath maps."""
    if not fc.ports:
        return
    for port in fc.ports:
        _write_port(w, pci, port, spec)
    drivers = {p.spec.driver for p in fc.ports}
    if "lpfc" in drivers:
        w.attrs(
            f"{SYS}/module/lpfc/parameters",
            {
                "lpfc_lun_queue_depth": str(spec.fc_driver.lpfc_lun_queue_depth),
                "lpfc_hba_queue_depth": str(spec.fc_driver.lpfc_hba_queue_depth),
            },
        )
    if "qla2xxx" in drivers:
        w.attrs(
            f"{SYS}/module/qla2xxx/parameters",
            {"ql2xmaxqdepth": str(spec.fc_driver.ql2xmaxqdepth)},
        )
    for found in fc.maps:
        _write_map(w, found)
    if fc.maps:  # with no map, multipath -ll prints nothing and the capture keeps no file
        w.mkdir("commands/multipath")
        w.write("commands/multipath/ll.txt", multipath_ll_text(fc, spec).encode())
