"""NVMe SSDs: the PCI function, controller `nvmeN`, namespace `nvmeNn1` and smartctl's report.

Laid out as the real nvme0 of tests/fixtures/snapshots/procfs-mpt3sas shows it: the
controller below its PCI function (`…/0000:61:00.0/nvme/nvme0`, `device` linking back), its
namespace below the controller and `/sys/block/nvme0n1` leading there. The smartctl report
follows the real NVMe captures in tests/fixtures/smartctl (smartmontools 7.3, `-x -j`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pinchpoint.simulator.addresses import name_hash, serial_number
from pinchpoint.simulator.naming import default_root_port, padded
from pinchpoint.simulator.pci import PciIds, PciWriter, pci_device_path
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import NvmeSpec
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
        if ssd.smart:
            reports.append((name, nvme_report(name, ssd, serial, spec.host.captured_at)))
    if reports:
        w.mkdir("commands/smartctl")
        for name, report in reports:
            w.write(
                f"commands/smartctl/{name}.json", (json.dumps(report, indent=2) + "\n").encode()
            )
