"""`smartctl -x -j /dev/sdX` outputs: one JSON report per disk, through its first path.

Reports follow smartmontools 7.3 as the real captures in tests/fixtures/smartctl show them: SAS
disks with `logical_unit_id`, `scsi_grown_defect_list`, the error counter log and one
`scsi_sas_port_N` per disk port (the expander phy it is attached to, the negotiated rate); SATA
disks with `wwn`, `interface_speed` and the ATA attribute table, behind a SAS expander or on an
AHCI port (`[[ahci.disk]]`); FC LUNs as the SCSI devices an array presents. The device is the one
the health collector asks about: the lowest-numbered `sdX` of each LU. Temperatures and hours vary
a little per disk, by a hash of its identity, so the output stays deterministic. Every drive logs a
passed short and extended self-test; SSDs report their endurance used (SAS: the endurance
indicator; SATA: attributes 232 and 233); SATA drives carry SCT temperature limits, SAS drives
their trip temperature.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pinchpoint.simulator.addresses import hex_address, name_hash
from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fabric import Disk
from pinchpoint.simulator.naming import sd_name
from pinchpoint.simulator.spec.faults import FailingDiskSpec
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import AhciDiskSpec
from pinchpoint.simulator.spec.sas import DiskSpec
from pinchpoint.simulator.tree_writer import TreeWriter

if TYPE_CHECKING:  # local_disks imports fc, which imports this module
    from pinchpoint.simulator.local_disks import LocalDisk

SMARTCTL_VERSION = [7, 3]
EXIT_DISK_FAILING = 1 << 3
EXIT_PREFAIL_BELOW_THRESHOLD = 1 << 4
EXIT_SELF_TEST_ERRORS = 1 << 7
_SATA_VALUE = {1.5: 1, 3.0: 2, 6.0: 3}
SAS_TRIP_C = 85  # the trip temperature SAS drives report (`temperature.drive_trip`)
# SCT status limits of SATA drives: recommended operating maximum and absolute limit.
SATA_OP_LIMIT_MAX_C = 60
SATA_LIMIT_MAX_C = 70


@dataclass(frozen=True)
class LunIdentity:
    """What smartctl reports of an FC LUN (a SCSI device an array presents)."""

    vendor: str
    product: str
    revision: str
    wwid: int  # NAA 6, 128 bits
    serial: str
    size_bytes: int


def _capacity(spec: DiskSpec) -> dict[str, Any]:
    """The size and geometry keys SAS and SATA reports share."""
    return {
        "user_capacity": {
            "blocks": spec.size_bytes // spec.logical_block_size,
            "bytes": spec.size_bytes,
        },
        "logical_block_size": spec.logical_block_size,
        "physical_block_size": spec.physical_block_size,
        "rotation_rate": spec.rotation_rate,
    }


def _tool(device: str, exit_status: int) -> dict[str, Any]:
    return {
        "version": SMARTCTL_VERSION,
        "svn_revision": "5338",
        "platform_info": "x86_64-linux-6.1.0-28-amd64",
        "build_info": "(local build)",
        "argv": ["smartctl", "-x", "-j", f"/dev/{device}"],
        "exit_status": exit_status,
    }


def _local_time(at: datetime) -> dict[str, Any]:
    return {"time_t": int(at.timestamp()), "asctime": at.strftime("%a %b %d %H:%M:%S %Y UTC")}


def _error_counters() -> dict[str, Any]:
    def one(gb: str) -> dict[str, Any]:
        return {
            "errors_corrected_by_eccfast": 0,
            "errors_corrected_by_eccdelayed": 0,
            "errors_corrected_by_rereads_rewrites": 0,
            "total_errors_corrected": 0,
            "correction_algorithm_invocations": 0,
            "gigabytes_processed": gb,
            "total_uncorrected_errors": 0,
        }

    return {"read": one("41233.817"), "write": one("18342.506"), "verify": one("0.000")}


def _sas_port(view: KernelView, disk: Disk, index: int) -> dict[str, Any]:
    """`scsi_sas_port_N` of a disk port: what the disk's phy is attached to, and its rate."""
    port = disk.ports[index]
    enc = disk.enclosure
    expander = next(e for e in enc.expanders[port.io_module] if disk.bay in e.bay_phys)
    phy_number = expander.bay_phys[disk.bay]
    rate = expander.rates[phy_number] if port.linked else None
    phy: dict[str, Any] = {
        "identifier": port.phy_identifier,
        "attached_reason": "unknown",
        "reason": "power on",
        "negotiated_logical_link_rate": (
            f"phy enabled; {rate:g} Gbps" if rate is not None else "phy enabled; unknown"
        ),
        "attached_device_type": "expander device" if port.linked else "no device attached",
        "attached_initiator_port": {"ssp_stp_smp": "000"},
        "attached_target_port": {"ssp_stp_smp": "001" if port.linked else "000"},
        "sas_address": hex_address(port.sas_address),
        "attached_sas_address": hex_address(expander.sas_address) if port.linked else "0x0",
        "attached_phy_identifier": phy_number if port.linked else 0,
        "invalid_dword_count": 0,
        "running_disparity_error_count": 0,
        "loss_of_dword_synchronization_count": 0,
        "phy_reset_problem_count": 0,
    }
    return {
        "generation_code": 1,
        "number_of_phys": 1,
        "phy_0": phy,
        "relative_target_port_id": index + 1,
    }


def _jitter(key: str, spread: int) -> int:
    return name_hash("smart", key) % spread


def _kind(failing: FailingDiskSpec | None) -> str | None:
    return failing.kind if failing is not None else None


def _temperature(spec: DiskSpec, key: str, failing: FailingDiskSpec | None) -> int:
    """The drive's reading: its enclosure's level with a little spread, or a hot drive's."""
    usual = spec.temperature_c + _jitter(key, 6)
    if failing is None or failing.kind != "hot":
        return usual
    return failing.temperature_c if failing.temperature_c is not None else usual + 20


def _endurance_used(spec: DiskSpec, key: str, failing: FailingDiskSpec | None) -> int | None:
    """An SSD's endurance used, %: a few % on a healthy one; None for a hard disk."""
    if spec.rotational:
        return None
    if failing is not None and failing.kind == "worn":
        return failing.endurance_used_pct
    return 1 + _jitter(key, 4)


# Self-tests a healthy drive logs under smartd's `-s (S/../.././02|L/../../6/03)`: a short test
# the night before and an extended one a few days ago; a failing drive's last test read-failed.
SHORT_HOURS_AGO = 9
EXTENDED_HOURS_AGO = 105
FAILED_LBA_DEFAULT = 120


def _self_test_plan(hours: int, failing: FailingDiskSpec | None) -> list[tuple[bool, bool, int]]:
    """(extended, passed, power-on hour) of each logged test, most recent first."""
    tests = [
        (False, True, max(0, hours - SHORT_HOURS_AGO)),
        (True, True, max(0, hours - EXTENDED_HOURS_AGO)),
    ]
    if failing is not None and failing.kind == "selftest_failed":
        tests.insert(0, (True, False, max(0, hours - 2)))
    return tests


def _sata_temperature(current: int) -> dict[str, int]:
    """smartctl's SATA `temperature` block: the reading and the drive's SCT limits."""
    return {"current": current, "op_limit_max": SATA_OP_LIMIT_MAX_C, "limit_max": SATA_LIMIT_MAX_C}


def _ata_self_tests(hours: int, failing: FailingDiskSpec | None) -> dict[str, Any]:
    table = []
    for extended, passed, at in _self_test_plan(hours, failing):
        row: dict[str, Any] = {
            "type": {
                "value": 2 if extended else 1,
                "string": "Extended offline" if extended else "Short offline",
            },
            "status": (
                {"value": 0, "string": "Completed without error", "passed": True}
                if passed
                else {
                    "value": 121,
                    "string": "Completed: read failure",
                    "remaining_percent": 90,
                    "passed": False,
                }
            ),
            "lifetime_hours": at,
        }
        if not passed and failing is not None:
            row["lba"] = failing.count
        table.append(row)
    errors = sum(1 for _, passed, _ in _self_test_plan(hours, failing) if not passed)
    return {
        "standard": {
            "revision": 1,
            "table": table,
            "count": len(table),
            "error_count_total": errors,
            "error_count_outdated": 0,
        }
    }


def _scsi_self_tests(hours: int, failing: FailingDiskSpec | None) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for index, (extended, passed, at) in enumerate(_self_test_plan(hours, failing)):
        entry: dict[str, Any] = {
            "code": {
                "value": 2 if extended else 1,
                "string": "Background long" if extended else "Background short",
            },
            "result": (
                {"value": 0, "string": "Completed"}
                if passed
                else {"value": 7, "string": "Failed in segment -->"}
            ),
            "power_on_time": {"hours": at, "aka": "accumulated_power_on_hours"},
        }
        if not passed and failing is not None:
            entry["failed_segment"] = {"value": 3, "aka": "self_test_number"}
            entry["lba_first_failure"] = {"value": failing.count, "aka": "address_of_first_failure"}
        found[f"scsi_self_test_{index}"] = entry
    return found


def _self_test_errors(failing: FailingDiskSpec | None) -> int:
    """smartctl's exit status bit 7: the self-test log holds errors."""
    return EXIT_SELF_TEST_ERRORS if _kind(failing) == "selftest_failed" else 0


def sas_report(
    view: KernelView, disk: Disk, device: str, failing: FailingDiskSpec | None, at: datetime
) -> dict[str, Any]:
    """The report of a SAS disk."""
    spec = disk.spec
    key = f"{disk.enclosure.name}/{disk.bay}"
    failed = failing is not None and failing.kind == "smart_failed"
    defects = failing.count if failing is not None and failing.kind == "grown_defects" else 0
    hours = spec.power_on_hours + _jitter(key, 500)
    status = (EXIT_DISK_FAILING if failed else 0) | _self_test_errors(failing)
    report: dict[str, Any] = {
        "json_format_version": [1, 0],
        "smartctl": _tool(device, status),
        "local_time": _local_time(at),
        "device": {
            "info_name": f"/dev/{device}",
            "name": f"/dev/{device}",
            "type": "scsi",
            "protocol": "SCSI",
        },
        "scsi_vendor": spec.vendor,
        "scsi_product": spec.model,
        "scsi_model_name": f"{spec.vendor} {spec.model}",
        "scsi_revision": spec.revision,
        "scsi_version": "SPC-4",
        **_capacity(spec),
        "form_factor": {"scsi_value": 2, "name": "3.5 inches"},
        "logical_unit_id": hex_address(disk.lu_name),
        "serial_number": disk.serial,
        "device_type": {
            "scsi_terminology": "Peripheral Device Type [PDT]",
            "scsi_value": 0,
            "name": "disk",
        },
        "scsi_transport_protocol": {"name": "SAS (SPL-4)", "value": 6},
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": not failed},
        "scsi_grown_defect_list": defects,
        "temperature": {"current": _temperature(spec, key, failing), "drive_trip": SAS_TRIP_C},
        "power_on_time": {"hours": hours, "minutes": 12},
        "scsi_error_counter_log": _error_counters(),
    }
    used = _endurance_used(spec, key, failing)
    if used is not None:
        report["scsi_percentage_used_endurance_indicator"] = used
    report.update(_scsi_self_tests(hours, failing))
    if failed:
        report["smart_status"]["scsi"] = {"asc": 93, "ascq": 16, "ie_string": "FAILURE PREDICTION"}
    for index in range(len(disk.ports)):
        report[f"scsi_sas_port_{index}"] = _sas_port(view, disk, index)
    return report


def _attribute(
    ident: int, name: str, value: int, worst: int, thresh: int, raw: int, prefail: bool, when: str
) -> dict[str, Any]:
    return {
        "id": ident,
        "name": name,
        "value": value,
        "worst": worst,
        "thresh": thresh,
        "when_failed": when,
        "flags": {
            "value": 51 if prefail else 50,
            "string": "PO--CK " if prefail else "-O--CK ",
            "prefailure": prefail,
            "updated_online": True,
            "performance": False,
            "error_rate": False,
            "event_count": True,
            "auto_keep": True,
        },
        "raw": {"value": raw, "string": str(raw)},
    }


def _speed(gbps: float) -> dict[str, Any]:
    return {
        "sata_value": _SATA_VALUE.get(gbps, 3),
        "string": f"{gbps:.1f} Gb/s",
        "units_per_second": int(gbps * 10),
        "bits_per_unit": 100000000,
    }


def sata_report(
    disk: Disk, device: str, failing: FailingDiskSpec | None, at: datetime
) -> dict[str, Any]:
    """The report of a SATA disk behind a SAS expander (smartctl's SAT layer)."""
    spec = disk.spec
    key = f"{disk.enclosure.name}/{disk.bay}"
    failed = failing is not None and failing.kind == "smart_failed"
    counted = failing is not None and failing.kind in ("smart_failed", "reallocated")
    reallocated = failing.count if failing is not None and counted else 0
    temperature = _temperature(spec, key, failing)
    hours = spec.power_on_hours + _jitter(key, 500)
    port = disk.ports[0]
    expander = next(e for e in disk.enclosure.expanders[port.io_module] if disk.bay in e.bay_phys)
    current = expander.rates[expander.bay_phys[disk.bay]] if port.linked else None
    lu = disk.lu_name
    table = [
        _attribute(1, "Raw_Read_Error_Rate", 100, 100, 16, 0, True, ""),
        _attribute(
            5,
            "Reallocated_Sector_Ct",
            1 if failed else 100 - min(reallocated // 40, 90),
            1 if failed else 100 - min(reallocated // 40, 90),
            5,
            reallocated,
            True,
            "now" if failed else "",
        ),
        _attribute(9, "Power_On_Hours", 97, 97, 0, hours, False, ""),
        _attribute(194, "Temperature_Celsius", 200, 180, 0, temperature, False, ""),
        _attribute(197, "Current_Pending_Sector", 100, 100, 0, reallocated // 4, False, ""),
        _attribute(198, "Offline_Uncorrectable", 100, 100, 0, 0, False, ""),
    ]
    used = _endurance_used(spec, key, failing)
    if used is not None:  # an Intel-style SSD: spare and life left, normalised
        left = max(1, 100 - used)
        table += [
            _attribute(232, "Available_Reservd_Space", 100, 100, 10, 0, True, ""),
            _attribute(233, "Media_Wearout_Indicator", left, left, 0, 0, False, ""),
        ]
    status = EXIT_DISK_FAILING | EXIT_PREFAIL_BELOW_THRESHOLD if failed else 0
    status |= _self_test_errors(failing)
    report: dict[str, Any] = {
        "json_format_version": [1, 0],
        "smartctl": _tool(device, status),
        "local_time": _local_time(at),
        "device": {
            "info_name": f"/dev/{device} [SAT]",
            "name": f"/dev/{device}",
            "type": "sat",
            "protocol": "ATA",
        },
        "model_name": f"{spec.vendor} {spec.model}",
        "serial_number": disk.serial,
        "wwn": {"naa": lu >> 60, "oui": (lu >> 36) & 0xFFFFFF, "id": lu & ((1 << 36) - 1)},
        "firmware_version": spec.revision,
        **_capacity(spec),
        "form_factor": {"ata_value": 2, "name": "3.5 inches"},
        "interface_speed": {"max": _speed(spec.link_max_gbps)},
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": not failed},
        "ata_smart_attributes": {"revision": 16, "table": table},
        "power_on_time": {"hours": hours},
        "power_cycle_count": 41,
        "temperature": _sata_temperature(temperature),
        "ata_smart_self_test_log": _ata_self_tests(hours, failing),
    }
    if current is not None:
        report["interface_speed"]["current"] = _speed(current)
    return report


# Identify words 76-77 as smartctl shows a 6 Gb/s SATA drive: its speeds as a bit mask (1.5, 3
# and 6 Gb/s: 14), the link's current one by its generation (3).
SATA_MAX_6G = 14
SATA_VERSION_33 = {"string": "SATA 3.3", "value": 511}
_AHCI_FORM = {
    True: {"ata_value": 2, "name": "3.5 inches"},
    False: {"ata_value": 3, "name": "2.5 inches"},
}
ACS_3 = {"major_value": 2040, "minor_value": 109, "string": "ACS-3 T13/2161-D revision 5"}


def ahci_report(disk: LocalDisk, spec: AhciDiskSpec, at: datetime) -> dict[str, Any]:
    """The report of a SATA disk on an AHCI port (libata; smartctl's SAT layer), laid out as
    the real captures of SATA disks on a chipset's ports show it (Seagate Exos X16 on sda,
    Samsung PM883 on sda, smartctl_exporter's testdata): the full model and firmware that
    sysfs cuts to 16 and 4 characters, the WWN, both link speeds, the attribute table, SCT
    temperature limits and the self-test log."""
    key = f"{disk.name}/{disk.serial}"
    temperature = spec.temperature_c + _jitter(key, 6)
    hours = spec.power_on_hours + _jitter(key, 500)
    wwn = disk.wwn or 0
    table = [
        _attribute(1, "Raw_Read_Error_Rate", 100, 100, 16, 0, True, ""),
        _attribute(5, "Reallocated_Sector_Ct", 100, 100, 5, 0, True, ""),
        _attribute(9, "Power_On_Hours", 97, 97, 0, hours, False, ""),
        _attribute(12, "Power_Cycle_Count", 100, 100, 20, 41, False, ""),
        _attribute(194, "Temperature_Celsius", 200, 180, 0, temperature, False, ""),
        _attribute(197, "Current_Pending_Sector", 100, 100, 0, 0, False, ""),
        _attribute(198, "Offline_Uncorrectable", 100, 100, 0, 0, False, ""),
        _attribute(199, "UDMA_CRC_Error_Count", 200, 200, 0, 0, False, ""),
    ]
    if not spec.rotational:  # a Samsung-style SSD: wear levelling count, normalised
        used = 1 + _jitter(key, 4)
        table.append(_attribute(177, "Wear_Leveling_Count", 100 - used, 100 - used, 0, 7, True, ""))
    blocks = spec.size_bytes // 512
    return {
        "json_format_version": [1, 0],
        "smartctl": _tool(disk.name, 0),
        "local_time": _local_time(at),
        "device": {
            "info_name": f"/dev/{disk.name} [SAT]",
            "name": f"/dev/{disk.name}",
            "type": "sat",
            "protocol": "ATA",
        },
        "model_name": spec.model,
        "serial_number": disk.serial,
        "wwn": {"naa": wwn >> 60, "oui": (wwn >> 36) & 0xFFFFFF, "id": wwn & ((1 << 36) - 1)},
        "firmware_version": spec.firmware,
        "user_capacity": {"blocks": blocks, "bytes": blocks * 512},
        "logical_block_size": 512,
        "physical_block_size": 4096 if spec.rotational else 512,
        "rotation_rate": 7200 if spec.rotational else 0,
        "form_factor": _AHCI_FORM[spec.rotational],
        "trim": {"supported": not spec.rotational},
        "in_smartctl_database": False,
        "ata_version": ACS_3,
        "sata_version": SATA_VERSION_33,
        "interface_speed": {
            "max": {**_speed(6.0), "sata_value": SATA_MAX_6G},
            "current": _speed(6.0),
        },
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": True},
        "ata_smart_attributes": {"revision": 10, "table": table},
        "power_on_time": {"hours": hours},
        "power_cycle_count": 41,
        "temperature": _sata_temperature(temperature),
        "ata_smart_self_test_log": _ata_self_tests(hours, None),
    }


def write_ahci_smart(w: TreeWriter, spec: HostSpec, disks: list[LocalDisk]) -> int:
    """`commands/smartctl/<sdX>.json` for every `[[ahci.disk]]` with `smart`; returns how many
    reports were written."""
    at = spec.host.captured_at
    specs = [d for controller in spec.ahci for d in controller.disk]
    ahci = [d for d in disks if d.queue_depth is not None]  # virtio disks have none
    written = 0
    for disk, disk_spec in zip(ahci, specs, strict=True):
        if not disk_spec.smart:
            continue
        w.mkdir("commands/smartctl")
        w.write(f"commands/smartctl/{disk.name}.json", _dump(ahci_report(disk, disk_spec, at)))
        written += 1
    return written


def lun_report(lun: LunIdentity, device: str, at: datetime) -> dict[str, Any]:
    """The report of an FC LUN: identity, capacity and the array's "OK"."""
    digits = f"{lun.wwid:032x}"
    return {
        "json_format_version": [1, 0],
        "smartctl": _tool(device, 0),
        "local_time": _local_time(at),
        "device": {
            "info_name": f"/dev/{device}",
            "name": f"/dev/{device}",
            "type": "scsi",
            "protocol": "SCSI",
        },
        "scsi_vendor": lun.vendor,
        "scsi_product": lun.product,
        "scsi_model_name": f"{lun.vendor} {lun.product}",
        "scsi_revision": lun.revision,
        "scsi_version": "SPC-5",
        "user_capacity": {"blocks": lun.size_bytes // 512, "bytes": lun.size_bytes},
        "logical_block_size": 512,
        "physical_block_size": 4096,
        "rotation_rate": 0,
        "logical_unit_id": f"0x{digits}",
        "serial_number": lun.serial,
        "device_type": {
            "scsi_terminology": "Peripheral Device Type [PDT]",
            "scsi_value": 0,
            "name": "disk",
        },
        "scsi_transport_protocol": {"name": "Fibre Channel (FCP-4)", "value": 0},
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": True},
    }


def _dump(report: dict[str, Any]) -> bytes:
    return (json.dumps(report, indent=2) + "\n").encode()


def first_paths(view: KernelView) -> dict[Disk, int]:
    """Each disk's lowest sd index: the path `health_devices` picks for it."""
    first: dict[Disk, int] = {}
    for dev in view.disk_paths():
        if dev.disk_port is None or dev.sd_index is None:
            continue
        disk = dev.disk_port.disk
        if disk not in first or dev.sd_index < first[disk]:
            first[disk] = dev.sd_index
    return first


def write_smart(
    w: TreeWriter, view: KernelView, spec: HostSpec, luns: dict[str, LunIdentity]
) -> int:
    """`commands/smartctl/<sdX>.json` for every SAS/SATA disk with `smart` and the given LUNs
    (first path's device name -> identity); returns how many reports were written."""
    at = spec.host.captured_at
    failing = {(f.enclosure, f.bay): f for f in spec.failing_disk}
    written = 0
    reports: list[tuple[str, dict[str, Any]]] = []
    for disk, index in sorted(first_paths(view).items(), key=lambda item: item[1]):
        if not disk.spec.smart:
            continue
        device = sd_name(index)
        bad = failing.get((disk.enclosure.name, disk.bay))
        if disk.spec.protocol == "sas":
            reports.append((device, sas_report(view, disk, device, bad, at)))
        else:
            reports.append((device, sata_report(disk, device, bad, at)))
    for device, lun in luns.items():
        reports.append((device, lun_report(lun, device, at)))
    if not reports:
        return 0
    w.mkdir("commands/smartctl")
    for device, report in reports:
        w.write(f"commands/smartctl/{device}.json", _dump(report))
        written += 1
    return written
