"""NVMe SSDs: the PCI function, controller `nvmeN`, namespace `nvmeNn1` and smartctl's report;
and NVMe-oF subsystems reached through several controllers with native multipath.

Laid out as the real nvme0 of tests/fixtures/snapshots/procfs-mpt3sas shows it: the
controller below its PCI function (`…/0000:61:00.0/nvme/nvme0`, `device` linking back), its
namespace below the controller and `/sys/block/nvme0n1` leading there; its subsystem
`/sys/devices/virtual/nvme-subsystem/nvme-subsysN` links the controller, as libnvme's real
sysfs capture (tests/fixtures/nvme/pcie-dualport) has it for its single-controller PM1743.
The smartctl report follows the real NVMe captures in tests/fixtures/smartctl (smartmontools
7.3, `-x -j`).

An `[[nvme_target]]` (NVMe over TCP, RDMA or FC) follows the kernel's layout for fabrics
controllers and native multipath, as the dual-ported PM1735a of that capture shows it for
PCIe: controllers `nvmeC` under `/sys/devices/virtual/nvme-fabrics/ctl/` with `transport`,
`address` (`traddr=…,trsvcid=…[,host_traddr=…][,host_iface=…][,src_addr=…]`) and `state`; the
head `nvmeSnK` of each namespace under the subsystem (and `/sys/block`), and per controller a
hidden path device `nvmeScCnK` with `nsid`, `wwid`, `ana_state` and `ana_grpid`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pinchpoint.simulator.addresses import name_hash, serial_number
from pinchpoint.simulator.naming import default_root_port, padded
from pinchpoint.simulator.pci import PciIds, PciWriter, pci_device_path
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import NvmeSpec, NvmeTargetPathSpec, NvmeTargetSpec
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
CLASS_NVME = "0x010802"
CHAR_MAJOR = 240  # dynamic, as the reference capture has it
BLOCK_MAJOR = 259  # blkext
MICRON = ("0x1344", "0x51a2")
MICRON_OUI = 0x00A075
EXIT_DISK_FAILING = 1 << 3


def default_nvme_pci_address(ordinal: int) -> str:
    """Bus 0x61, 0x62 … function .0, in spec order."""
    return f"0000:{0x61 + ordinal:02x}:00.0"


def _serial(ordinal: int, spec: NvmeSpec) -> str:
    return spec.serial or "MSA" + serial_number("nvme", str(ordinal), spec.model)


# The controller's warning and critical composite temperatures (WCTEMP, CCTEMP), °C.
NVME_WCTEMP_C = 70
NVME_CCTEMP_C = 80


def _eui64(serial: str) -> int:
    """The namespace EUI-64: the maker's OUI and 40 bits of the serial."""
    return (MICRON_OUI << 40) | (name_hash("eui", serial) & ((1 << 40) - 1))


def nvme_report(name: str, spec: NvmeSpec, serial: str, at: datetime) -> dict[str, Any]:
    """`smartctl -x -j /dev/nvmeN` of a controller with one namespace."""
    eui = _eui64(serial)
    blocks = spec.size_bytes // 512
    failing = spec.critical_warning != 0  # smartctl: any warning bit fails the assessment
    size = {"blocks": blocks, "bytes": blocks * 512}
    return {
        "json_format_version": [1, 0],
        "smartctl": {
            "version": [7, 3],
            "svn_revision": "5338",
            "platform_info": "x86_64-linux-6.1.0-28-amd64",
            "build_info": "(local build)",
            "argv": ["smartctl", "-x", "-j", f"/dev/{name}"],
            "exit_status": EXIT_DISK_FAILING if failing else 0,
        },
        "local_time": {
            "time_t": int(at.timestamp()),
            "asctime": at.strftime("%a %b %d %H:%M:%S %Y UTC"),
        },
        "device": {
            "name": f"/dev/{name}",
            "info_name": f"/dev/{name}",
            "type": "nvme",
            "protocol": "NVMe",
        },
        "model_name": spec.model,
        "serial_number": serial,
        "firmware_version": spec.firmware,
        "nvme_pci_vendor": {"id": int(MICRON[0], 16), "subsystem_id": int(MICRON[0], 16)},
        "nvme_ieee_oui_identifier": MICRON_OUI,
        "nvme_total_capacity": blocks * 512,
        "nvme_unallocated_capacity": 0,
        "nvme_controller_id": 1,
        "nvme_version": {"string": "1.3", "value": 66304},
        "nvme_number_of_namespaces": 1,
        "nvme_namespaces": [
            {
                "id": 1,
                "size": size,
                "capacity": size,
                "utilization": size,
                "formatted_lba_size": 512,
                "eui64": {"oui": MICRON_OUI, "ext_id": eui & ((1 << 40) - 1)},
            }
        ],
        "user_capacity": size,
        "logical_block_size": 512,
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": not failing, "nvme": {"value": spec.critical_warning}},
        "nvme_smart_health_information_log": {
            "critical_warning": spec.critical_warning,
            "temperature": spec.temperature_c,
            "available_spare": 100,
            "available_spare_threshold": 5,
            "percentage_used": spec.percentage_used,
            "data_units_read": 865,
            "data_units_written": 338104,
            "host_reads": 16825,
            "host_writes": 13198956,
            "controller_busy_time": 244,
            "power_cycles": 16,
            "power_on_hours": spec.power_on_hours,
            "unsafe_shutdowns": 0,
            "media_errors": spec.media_errors,
            "num_err_log_entries": 0,
            "warning_temp_time": 0,
            "critical_comp_time": 0,
        },
        "nvme_composite_temperature_threshold": {
            "warning": NVME_WCTEMP_C,
            "critical": NVME_CCTEMP_C,
        },
        "temperature": {
            "current": spec.temperature_c,
            "op_limit_max": NVME_WCTEMP_C,
            "critical_limit_max": NVME_CCTEMP_C,
        },
        "power_cycle_count": 16,
        "power_on_time": {"hours": spec.power_on_hours},
    }


def write_nvme(w: TreeWriter, pci: PciWriter, spec: HostSpec) -> None:
    """Every `[[nvme]]`: PCI function, controller, namespace and (smart) smartctl report."""
    reports: list[tuple[str, dict[str, Any]]] = []
    for ordinal, ssd in enumerate(spec.nvme):
        name = f"nvme{ordinal}"
        address = ssd.pci_address or default_nvme_pci_address(ordinal)
        root_port = ssd.root_port or default_root_port(address)
        ids = PciIds(MICRON[0], MICRON[1], MICRON[0], "0x0100", CLASS_NVME, "0x01")
        function = pci.function(address, root_port, ids, "nvme", ssd.pcie, ssd.numa_node)
        assert function == f"{SYS}/{pci_device_path(address, root_port)}"
        serial = _serial(ordinal, ssd)
        ctrl = f"{function}/nvme/{name}"
        w.attrs(
            ctrl,
            {
                "address": address,
                "cntlid": "1",
                "cntrltype": "io",
                "dev": f"{CHAR_MAJOR}:{ordinal}",
                "firmware_rev": padded(ssd.firmware, 8),
                "model": padded(ssd.model, 40),
                "serial": padded(serial, 20),
                "numa_node": str(ssd.numa_node),
                "queue_count": "9",
                "sqsize": "1023",
                "state": "live",
                "transport": "pcie",
                "subsysnqn": f"nqn.2014.08.org.nvmexpress:13441344{serial}",
            },
        )
        w.link(f"{ctrl}/device", function)
        w.link(f"{SYS}/class/nvme/{name}", ctrl)
        namespace = f"{name}n1"
        ns = f"{ctrl}/{namespace}"
        w.attrs(
            ns,
            {
                "dev": f"{BLOCK_MAJOR}:{ordinal}",
                "size": str(ssd.size_bytes // 512),
                "wwid": f"eui.{_eui64(serial):016x}",
                "nsid": "1",
                "ro": "0",
                "removable": "0",
                "hidden": "0",
            },
        )
        w.attrs(
            f"{ns}/queue",
            {
                "rotational": "0",
                "nr_requests": "1023",
                "scheduler": "[none] mq-deadline",
                "logical_block_size": "512",
                "physical_block_size": "512",
                "hw_sector_size": "512",
                "max_hw_sectors_kb": "128",
                "max_sectors_kb": "128",
                "nomerges": "0",
                "write_cache": "write back",
            },
        )
        w.link(f"{ns}/device", ctrl)
        w.link(f"{SYS}/block/{namespace}", ns)
        w.link(f"{SYS}/class/block/{namespace}", ns)
        subsystem = _subsystem(
            w,
            ordinal,
            nqn=f"nqn.2014.08.org.nvmexpress:13441344{serial}",
            model=ssd.model,
            serial=serial,
            firmware=ssd.firmware,
            iopolicy="numa",
        )
        w.link(f"{subsystem}/{name}", ctrl)
        if ssd.smart:
            reports.append((name, nvme_report(name, ssd, serial, spec.host.captured_at)))
    if reports:
        w.mkdir("commands/smartctl")
        for name, report in reports:
            w.write(
                f"commands/smartctl/{name}.json", (json.dumps(report, indent=2) + "\n").encode()
            )


SUBSYSTEMS = f"{SYS}/devices/virtual/nvme-subsystem"
FABRICS_CTL = f"{SYS}/devices/virtual/nvme-fabrics/ctl"


def _subsystem(
    w: TreeWriter, number: int, *, nqn: str, model: str, serial: str, firmware: str, iopolicy: str
) -> str:
    """`nvme-subsysN` with its identity; returns its directory."""
    directory = f"{SUBSYSTEMS}/nvme-subsys{number}"
    w.attrs(
        directory,
        {
            "subsysnqn": nqn,
            "model": padded(model, 40),
            "serial": padded(serial, 20),
            "firmware_rev": padded(firmware, 8),
            "iopolicy": iopolicy,
            "subsystype": "nvm",
        },
    )
    w.link(f"{SYS}/class/nvme-subsystem/nvme-subsys{number}", directory)
    return directory


def nvme_target_address(target: NvmeTargetSpec, path: NvmeTargetPathSpec) -> str:
    """The controller's `address` as the kernel prints it (nvmf_get_address, then TCP's
    src_addr)."""
    parts = [f"traddr={path.traddr}"]
    if path.trsvcid is not None and target.transport != "fc":
        parts.append(f"trsvcid={path.trsvcid}")
    if path.host_traddr:
        parts.append(f"host_traddr={path.host_traddr}")
    if path.host_iface:
        parts.append(f"host_iface={path.host_iface}")
    if path.src_addr and target.transport == "tcp":
        parts.append(f"src_addr={path.src_addr}")
    return ",".join(parts)


def _namespace_uuid(nqn: str, nsid: int) -> str:
    value = f"{name_hash('nvme-ns', nqn, str(nsid)):016x}{name_hash('ns2', nqn, str(nsid)):016x}"
    return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:32]}"


def _namespace_wwid(target: NvmeTargetSpec, serial: str, nsid: int) -> str:
    """sysfs `wwid` of a target's namespace: `uuid.…`, or `eui.…` — namespace 1's EUI-64 the
    one smartctl's report of a controller lists (`_eui64` of the subsystem's serial)."""
    if target.namespace_ids == "eui64":
        return f"eui.{_eui64(serial) + nsid - 1:016x}"
    return f"uuid.{_namespace_uuid(target.nqn, nsid)}"


def _namespace_uuid_attr(target: NvmeTargetSpec, nsid: int) -> dict[str, str]:
    """The `uuid` attribute, which the kernel shows only for a namespace with a UUID."""
    if target.namespace_ids == "eui64":
        return {}
    return {"uuid": _namespace_uuid(target.nqn, nsid)}


def write_nvme_targets(w: TreeWriter, spec: HostSpec) -> None:
    """Every `[[nvme_target]]`: subsystem, one fabrics controller per path, the namespaces'
    heads and each controller's path devices with their ANA state, and smartctl's report of
    each live controller (smartctl reads the health log through any live controller). Numbered
    after the local SSDs: subsystems and controllers in spec order."""
    if spec.nvme_target:
        w.attrs(FABRICS_CTL, {"uevent": ""})
        w.link(f"{SYS}/class/nvme-fabrics/ctl", FABRICS_CTL)
    controller = len(spec.nvme)
    hostnqn = f"nqn.2014-08.org.nvmexpress:uuid:{_namespace_uuid(spec.host.hostname, 0)}"
    for offset, target in enumerate(spec.nvme_target):
        number = len(spec.nvme) + offset
        serial = target.serial or f"{name_hash('nvme-target', target.nqn) & 0xFFFFFFFFFFFF:012X}"
        subsystem = _subsystem(
            w,
            number,
            nqn=target.nqn,
            model=target.model,
            serial=serial,
            firmware=target.firmware,
            iopolicy=target.iopolicy,
        )
        for nsid in range(1, target.namespaces + 1):
            head = f"{subsystem}/nvme{number}n{nsid}"
            identity = {
                "wwid": _namespace_wwid(target, serial, nsid),
                **_namespace_uuid_attr(target, nsid),
            }
            w.attrs(
                head,
                {
                    "dev": f"{BLOCK_MAJOR}:{64 + number * 16 + nsid}",
                    "size": str(target.size_bytes // 512),
                    **identity,
                    "nsid": str(nsid),
                    "ro": "0",
                    "removable": "0",
                    "hidden": "0",
                },
            )
            w.attrs(
                f"{head}/queue",
                {
                    "rotational": "0",
                    "nr_requests": "128",
                    "scheduler": "[none] mq-deadline",
                    "logical_block_size": "512",
                    "physical_block_size": "4096",
                    "hw_sector_size": "512",
                },
            )
            w.link(f"{head}/device", subsystem)
            w.link(f"{SYS}/block/nvme{number}n{nsid}", head)
            w.link(f"{SYS}/class/block/nvme{number}n{nsid}", head)
        for cntlid, path in enumerate(target.path, start=1):
            name = f"nvme{controller}"
            ctrl = f"{FABRICS_CTL}/{name}"
            w.attrs(
                ctrl,
                {
                    "transport": target.transport,
                    "address": nvme_target_address(target, path),
                    "state": path.state,
                    "subsysnqn": target.nqn,
                    "hostnqn": hostnqn,
                    "cntlid": str(cntlid),
                    "cntrltype": "io",
                    "model": padded(target.model, 40),
                    "serial": padded(serial, 20),
                    "firmware_rev": padded(target.firmware, 8),
                    "numa_node": "-1",
                    "queue_count": "9",
                    "sqsize": "127",
                    "kato": "5",
                    "dev": f"{CHAR_MAJOR}:{controller}",
                },
            )
            w.link(f"{SYS}/class/nvme/{name}", ctrl)
            w.link(f"{subsystem}/{name}", ctrl)
            for nsid in range(1, target.namespaces + 1):
                optimized = path.optimized is None or nsid in path.optimized
                device = f"{ctrl}/nvme{number}c{controller}n{nsid}"
                w.attrs(
                    device,
                    {
                        "nsid": str(nsid),
                        "wwid": _namespace_wwid(target, serial, nsid),
                        "ana_state": "optimized" if optimized else path.ana_state,
                        "ana_grpid": str(nsid),
                        "hidden": "1",
                        "size": str(target.size_bytes // 512),
                    },
                )
                w.link(f"{device}/device", ctrl)
            if path.state == "live":
                w.mkdir("commands/smartctl")
                health = NvmeSpec(model=target.model, firmware=target.firmware[:8])
                report = nvme_report(name, health, serial, spec.host.captured_at)
                w.write(
                    f"commands/smartctl/{name}.json", (json.dumps(report, indent=2) + "\n").encode()
                )
            controller += 1
