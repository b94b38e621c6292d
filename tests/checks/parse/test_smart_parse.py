"""`smartctl -j` reports decoded field by field, on real captures (tests/fixtures/smartctl)."""

from __future__ import annotations

import json

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.smart_json import (
    SmartctlParseError,
    decode_exit_status,
    decode_nvme_critical_warning,
    parse_smartctl_json,
    why_no_health,
)
from pinchpoint.model.health import (
    AttributeFailure,
    DiskHealth,
    DiskProtocol,
    NvmeCriticalWarning,
    SmartctlExitFlag,
)
from pinchpoint.model.problems import ProblemKind

FIXTURES = ALL_FIXTURES / "smartctl"


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def parse(name: str, device: str = "sda") -> DiskHealth:
    return parse_smartctl_json(text(name), device)


# --- exit status and NVMe critical warning bits -------------------------------------------------


def test_every_exit_status_bit_has_its_own_name() -> None:
    assert decode_exit_status(0) == []
    assert [decode_exit_status(1 << bit) for bit in range(8)] == [
        [SmartctlExitFlag.COMMAND_LINE_DID_NOT_PARSE],
        [SmartctlExitFlag.DEVICE_OPEN_FAILED],
        [SmartctlExitFlag.SMART_COMMAND_FAILED],
        [SmartctlExitFlag.DISK_FAILING],
        [SmartctlExitFlag.PREFAIL_ATTRIBUTES_AT_OR_BELOW_THRESHOLD],
        [SmartctlExitFlag.ATTRIBUTES_AT_OR_BELOW_THRESHOLD_IN_PAST],
        [SmartctlExitFlag.ERROR_LOG_HAS_ERRORS],
        [SmartctlExitFlag.SELF_TEST_LOG_HAS_ERRORS],
    ]
    assert decode_exit_status(216) == [  # 128 + 64 + 16 + 8, the failing WD below
        SmartctlExitFlag.DISK_FAILING,
        SmartctlExitFlag.PREFAIL_ATTRIBUTES_AT_OR_BELOW_THRESHOLD,
        SmartctlExitFlag.ERROR_LOG_HAS_ERRORS,
        SmartctlExitFlag.SELF_TEST_LOG_HAS_ERRORS,
    ]


def test_every_nvme_critical_warning_bit_has_its_own_name() -> None:
    assert decode_nvme_critical_warning(0) == ([], 0)
    assert [decode_nvme_critical_warning(1 << bit)[0] for bit in range(6)] == [
        [NvmeCriticalWarning.SPARE_BELOW_THRESHOLD],
        [NvmeCriticalWarning.TEMPERATURE_ABOVE_OR_BELOW_THRESHOLD],
        [NvmeCriticalWarning.RELIABILITY_DEGRADED],
        [NvmeCriticalWarning.MEDIA_READ_ONLY],
        [NvmeCriticalWarning.VOLATILE_MEMORY_BACKUP_FAILED],
        [NvmeCriticalWarning.PERSISTENT_MEMORY_REGION_UNRELIABLE],
    ]
    assert decode_nvme_critical_warning(0b1100_0101) == (
        [NvmeCriticalWarning.SPARE_BELOW_THRESHOLD, NvmeCriticalWarning.RELIABILITY_DEGRADED],
        0b1100_0000,
    )


def test_nvme_warning_names_are_those_smartctl_writes() -> None:
    """smartctl 7.3 spells out the bits in `smart_status.nvme`; ours are the same names."""
    report = json.loads(
        text("smartctl_exporter__nvme_SAMSUNG_MZWLL3T2HAJQ_FAILED_critical_warning16.json")
    )
    spelled = {k for k, v in report["smart_status"]["nvme"].items() if isinstance(v, bool)}
    assert spelled == {w.value for w in NvmeCriticalWarning}


# --- SATA -----------------------------------------------------------------------------------------


def test_sata_link_at_3_of_6_gbps() -> None:
    disk = parse("smartctl_exporter__sata_hdd_HGST_HUS724020ALE640_28_link_3of6Gbps.json")
    assert disk.collected and disk.not_collected_reason is None
    assert disk.protocol is DiskProtocol.ATA
    assert disk.smartctl_device_type == "sat"
    assert disk.model == "HGST HUS724020ALE640"
    assert disk.serial == "REDACTED"
    assert disk.firmware == "REDACTED"
    assert disk.wwn == "naa.5000cca0499602d2"  # naa 5, oui 3274 (0x000cca), id 1234567890
    assert disk.id == "disk:naa.5000cca0499602d2"
    assert disk.rotation_rate_rpm == 7200
    assert disk.user_capacity_bytes == 2000398934016
    assert disk.smart_available is True and disk.smart_enabled is True
    assert disk.smart_passed is True
    assert disk.exit_status == 64
    assert disk.exit_flags == [SmartctlExitFlag.ERROR_LOG_HAS_ERRORS]
    assert disk.temperature_c == 26
    assert disk.power_on_hours == 83425
    assert disk.ata is not None
    assert disk.ata.sata_link_current_gbps == 3.0
    assert disk.ata.sata_link_max_gbps == 6.0
    assert (disk.ata.reallocated_sectors, disk.ata.pending_sectors) == (0, 0)
    assert disk.ata.offline_uncorrectable == 0
    assert disk.ata.failing_now == [] and disk.ata.failed_in_past == []
    assert disk.scsi is None and disk.nvme is None


def test_sata_reallocated_sectors() -> None:
    one = parse("smartctl_exporter__sata_hdd_ST3000NM0033_link_3of6Gbps_realloc1.json")
    assert one.ata is not None
    assert one.ata.reallocated_sectors == 1
    assert (one.ata.sata_link_current_gbps, one.ata.sata_link_max_gbps) == (3.0, 6.0)
    assert one.model == "ST3000NM0033-9ZM178"
    assert one.power_on_hours == 57744
    many = parse("smartctl_exporter__sata_hdd_ST3500418AS_12_realloc304.json")
    assert many.ata is not None
    assert many.ata.reallocated_sectors == 304
    assert many.smart_passed is True  # 93 is still above the threshold of 36
    assert many.ata.failing_now == []
    assert many.ata.sata_link_max_gbps == 3.0
    assert many.ata.sata_link_current_gbps is None  # a SATA 2.6 drive reports no current speed


def test_sata_ssd_at_full_speed() -> None:
    disk = parse("scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json")
    assert disk.model == "Samsung SSD 860 EVO 500GB"
    assert disk.serial == "S3YZNB0KB00864E"
    assert disk.wwn == "naa.5002538e40a22954"  # Samsung OUI 0x002538, id 0xe40a22954
    assert disk.firmware == "RVT02B6Q"
    assert disk.rotation_rate_rpm == 0
    assert disk.temperature_c == 36
    assert disk.power_on_hours == 14551
    assert disk.ata is not None
    assert (disk.ata.sata_link_current_gbps, disk.ata.sata_link_max_gbps) == (6.0, 6.0)
    assert disk.ata.reallocated_sectors == 0
    assert disk.ata.pending_sectors is None  # the drive has no attribute 197


def test_sata_failing_now_and_in_the_past() -> None:
    disk = parse("smart-prom-next__sata_wd3200bevt_usbjmicron_-a_when_failed_now_exit216.json")
    assert disk.collected
    assert disk.smart_passed is False
    assert disk.exit_status == 216
    assert SmartctlExitFlag.DISK_FAILING in disk.exit_flags
    assert SmartctlExitFlag.SELF_TEST_LOG_HAS_ERRORS in disk.exit_flags
    assert disk.smartctl_device_type == "usbjmicron"
    assert disk.serial == "WD-WXE708D44602"
    assert disk.wwn == "naa.50014ee201cfb464"  # naa 5, WD's OUI 0x0014ee, id 8620323940
    assert disk.ata is not None
    assert disk.ata.reallocated_sectors == 535
    assert disk.ata.pending_sectors == 1
    assert disk.ata.offline_uncorrectable == 0
    assert disk.ata.sata_link_max_gbps == 3.0
    [now] = disk.ata.failing_now
    assert now.attribute_id == 5
    assert now.name == "Reallocated_Sector_Ct"
    assert (now.value, now.worst, now.threshold) == (133, 133, 140)
    assert now.when_failed is AttributeFailure.NOW
    assert now.prefailure is True
    assert (now.raw_value, now.raw_text) == (535, "535")
    [past] = disk.ata.failed_in_past
    assert past.attribute_id == 190
    assert past.name == "Airflow_Temperature_Cel"
    assert (past.value, past.worst, past.threshold) == (73, 31, 40)
    assert past.when_failed is AttributeFailure.PAST
    assert past.prefailure is False


def test_sata_disk_read_through_megaraid_keeps_its_facts() -> None:
    """`-d megaraid,0`: exit 4 (bit 2) and a warning, yet identity and attributes are there."""
    disk = parse("scrutiny__sata_hdd_WD4000FYYX_behind_megaraid_-d_megaraid0.json")
    assert disk.collected
    assert disk.smartctl_device_type == "sat+megaraid,0"
    assert disk.exit_flags == [SmartctlExitFlag.SMART_COMMAND_FAILED]
    assert disk.smart_passed is True
    assert [m.text for m in disk.messages] == [
        "Warning: This result is based on an Attribute check."
    ]
    assert disk.messages[0].severity == "warning"
    assert disk.model == "WD4000FYYX"
    assert disk.wwn == "naa.50014ee26101eee7"  # WD OUI 0x0014ee
    assert disk.ata is not None
    assert (disk.ata.sata_link_current_gbps, disk.ata.sata_link_max_gbps) == (3.0, 3.0)
    assert (disk.ata.reallocated_sectors, disk.ata.pending_sectors) == (0, 0)
    assert disk.power_on_hours == 37787


# --- SAS / SCSI -----------------------------------------------------------------------------------


def test_sas_disk_counters() -> None:
    disk = parse("smartctl_exporter__sas_hdd_HITACHI_H109060SESUN600G_9.json")
    assert disk.protocol is DiskProtocol.SCSI
    assert disk.model == "HITACHI H109060SESUN600G"
    assert disk.firmware == "A690"
    assert disk.wwn == "naa.1234567890abcdef"  # `logical_unit_id` (redacted by its publisher)
    assert disk.rotation_rate_rpm == 10020
    assert disk.user_capacity_bytes == 600127266816
    assert disk.temperature_c == 27
    assert disk.power_on_hours == 982
    assert disk.scsi is not None
    assert (disk.scsi.vendor, disk.scsi.product) == ("HITACHI", "H109060SESUN600G")
    assert disk.scsi.transport == "SAS (SPL-4)"
    assert disk.scsi.grown_defects == 0
    assert disk.scsi.uncorrected_read_errors == 0
    assert disk.scsi.uncorrected_write_errors == 0
    assert disk.scsi.uncorrected_verify_errors == 0
    assert disk.scsi.sas_ports == []  # smartctl_exporter does not ask for the SAS phy log
    assert disk.ata is None


def test_scsi_grown_defects_and_uncorrected_errors() -> None:
    disk = parse("smartctl_exporter__spi_scsi_hdd_SEAGATE_ST373453LC_26_grown_defects_260.json")
    assert disk.scsi is not None
    assert disk.scsi.grown_defects == 260
    assert disk.scsi.uncorrected_read_errors == 1
    assert disk.scsi.uncorrected_write_errors == 535
    assert disk.scsi.uncorrected_verify_errors is None  # no verify counter page
    assert disk.scsi.transport == "Parallel SCSI (SPI-4)"
    assert disk.wwn is None
    assert disk.id == "disk:redacted"  # no LU name: the serial (here redacted) is the identity


def test_old_smartctl_names_are_read() -> None:
    """smartctl 6.7 says `vendor`/`product`/`revision` where 7.x says `scsi_vendor` …."""
    disk = parse("scrutiny__sas_hdd_SEAGATE_ST1200MM0088_-ja.json")
    assert disk.scsi is not None
    assert (disk.scsi.vendor, disk.scsi.product) == ("SEAGATE", "ST1200MM0088")
    assert disk.firmware == "N004"
    assert disk.serial == "Z4028VRY0000C810BZXB"
    assert disk.temperature_c == 31
    assert disk.power_on_hours == 5675
    assert disk.scsi.uncorrected_read_errors == 0


def test_sas_temperature_from_the_environmental_report() -> None:
    disk = parse("scrutiny_fork__sas_--xall_scsi_environmental_reports.json")
    assert disk.temperature_c == 38  # `temperature.current` is 0; temperature_1 holds it
    assert disk.user_capacity_bytes == 18000207937536


def test_dual_ported_sas_disk_ports() -> None:
    disk = parse("synthetic__sas_dual_port_HITACHI_H109060SESUN600G_scsi_sas_port_0_1.json")
    assert disk.wwn == "naa.5000cca01a2b3c4c"
    assert disk.scsi is not None
    port_a, port_b = disk.scsi.sas_ports
    assert (port_a.index, port_a.relative_target_port_id) == (0, 1)
    assert port_a.sas_address == "0x5000cca01a2b3c4d"
    assert port_a.attached and port_a.attached_sas_addresses == ["0x500304801f715f3f"]
    [phy_a] = port_a.phys
    assert phy_a.identifier == 0
    assert phy_a.attached_device_type == "expander device"
    assert phy_a.attached_phy_identifier == 12
    assert phy_a.negotiated_gbps == 12.0
    assert phy_a.negotiated_text == "phy enabled; 12 Gbps"
    assert phy_a.errors.invalid_dword_count == 0
    assert (port_b.index, port_b.relative_target_port_id) == (1, 2)
    assert port_b.sas_address == "0x5000cca01a2b3c4e"
    assert port_b.attached_sas_addresses == ["0x500304801f7160bf"]
    [phy_b] = port_b.phys
    assert phy_b.identifier == 1
    assert phy_b.negotiated_gbps == 6.0
    assert phy_b.errors.invalid_dword_count == 14
    assert phy_b.errors.running_disparity_error_count == 11
    assert phy_b.errors.loss_of_dword_sync_count == 3
    assert phy_b.errors.phy_reset_problem_count == 0


def test_a_dual_ported_disk_cabled_on_one_port_only() -> None:
    report = json.loads(
        text("synthetic__sas_dual_port_HITACHI_H109060SESUN600G_scsi_sas_port_0_1.json")
    )
    phy = report["scsi_sas_port_1"]["phy_0"]
    phy.update(
        attached_device_type="no device attached",
        attached_sas_address="0x0",
        negotiated_logical_link_rate="phy enabled; unknown",
    )
    disk = parse_smartctl_json(json.dumps(report), "sdc")
    assert disk.scsi is not None
    port_a, port_b = disk.scsi.sas_ports
    assert port_a.attached
    assert not port_b.attached
    assert port_b.attached_sas_addresses == []
    assert port_b.phys[0].attached_sas_address is None
    assert port_b.phys[0].negotiated_gbps is None
    assert port_b.phys[0].negotiated_text == "phy enabled; unknown"


def test_sas_port_keys_as_phrases_are_read_too() -> None:
    """Builds that kept smartctl's phrases as keys ("attached SAS address") read the same."""
    report = json.loads(
        text("synthetic__sas_dual_port_HITACHI_H109060SESUN600G_scsi_sas_port_0_1.json")
    )
    phy = report["scsi_sas_port_0"]["phy_0"]
    report["scsi_sas_port_0"]["phy_0"] = {
        "identifier": phy["identifier"],
        "SAS address": phy["sas_address"],
        "attached SAS address": phy["attached_sas_address"],
        "negotiated logical link rate": phy["negotiated_logical_link_rate"],
        "Invalid DWORD count": 7,
    }
    disk = parse_smartctl_json(json.dumps(report), "sdc")
    assert disk.scsi is not None
    phy_a = disk.scsi.sas_ports[0].phys[0]
    assert phy_a.sas_address == "0x5000cca01a2b3c4d"
    assert phy_a.attached_sas_address == "0x500304801f715f3f"
    assert phy_a.negotiated_gbps == 12.0
    assert phy_a.errors.invalid_dword_count == 7


# --- NVMe -----------------------------------------------------------------------------------------


def test_nvme_critical_warning_16() -> None:
    disk = parse(
        "smartctl_exporter__nvme_SAMSUNG_MZWLL3T2HAJQ_FAILED_critical_warning16.json", "nvme0"
    )
    assert disk.protocol is DiskProtocol.NVME
    assert disk.model == "SAMSUNG MZWLL3T2HAJQ-00005"
    assert disk.smart_passed is False
    assert disk.exit_flags == [SmartctlExitFlag.DISK_FAILING]
    assert disk.temperature_c == 40
    assert disk.power_on_hours == 18376
    assert disk.nvme is not None
    assert disk.nvme.critical_warning == 16
    assert disk.nvme.critical_warnings == [NvmeCriticalWarning.VOLATILE_MEMORY_BACKUP_FAILED]
    assert disk.nvme.critical_warning_other_bits == 0
    assert disk.nvme.media_errors == 0
    assert disk.nvme.percentage_used == 0
    assert disk.nvme.available_spare_pct == 100
    assert disk.nvme.available_spare_threshold_pct == 10
    assert disk.nvme.namespaces == []  # 32 namespaces, none listed by this smartctl run
    assert disk.user_capacity_bytes is None


def test_nvme_media_errors_and_wear() -> None:
    disk = parse("scrutiny__nvme_Samsung970EVO_-x-j_media_errors7.json", "nvme0")
    assert disk.smart_passed is True
    assert disk.serial == "S466NX0M776250H"
    assert disk.firmware == "2B2QEXE7"
    assert disk.wwn is None
    assert disk.nvme is not None
    assert disk.nvme.media_errors == 7
    assert disk.nvme.percentage_used == 3
    assert disk.nvme.error_log_entries == 62
    assert disk.nvme.available_spare_pct == 99
    [namespace] = disk.nvme.namespaces
    assert namespace.namespace_id == 1
    assert namespace.size_bytes == 500107862016
    assert namespace.eui64 == "eui.0025385791b4f537"  # oui 0x002538, ext_id 0x5791b4f537
    assert disk.id == "disk:eui.0025385791b4f537"
    assert disk.temperature_c == 35
    assert disk.power_on_hours == 12798


def test_healthy_nvme() -> None:
    disk = parse("smartctl_exporter__nvme_Micron_7300_healthy.json", "nvme0")
    assert disk.nvme is not None
    assert disk.nvme.critical_warnings == []
    assert disk.nvme.error_log_entries == 1
    assert disk.nvme.available_spare_threshold_pct == 5
    assert disk.user_capacity_bytes == 1600321314816
    assert disk.temperature_c == 22


# --- no facts, or no verdict ----------------------------------------------------------------------


def test_device_that_does_not_open_gives_no_facts() -> None:
    disk = parse("local__smartctl73_-x-j_no_such_device_exit2.json", "sdq")
    assert not disk.collected
    assert disk.exit_flags == [SmartctlExitFlag.DEVICE_OPEN_FAILED]
    assert disk.id == "disk:device:sdq"
    assert disk.protocol is None and disk.ata is None
    assert disk.not_collected_reason is not None
    assert "/dev/sdq is not there" in disk.not_collected_reason
    assert "No such device" in disk.not_collected_reason
    assert why_no_health(disk)[0] is ProblemKind.MISSING


def test_permission_denied_says_run_as_root() -> None:
    disk = parse("smart-prom-next__nvme_-x_open_permission_denied.json", "nvme0")
    assert not disk.collected
    kind, reason = why_no_health(disk)
    assert kind is ProblemKind.PERMISSION
    assert reason.startswith("not permitted to open /dev/nvme0 (run as root)")


def test_megaraid_logical_drive_names_the_option_to_use() -> None:
    disk = parse("derived__megaraid_logical_drive_open_failed_exit2.json", "sda")
    assert not disk.collected
    kind, reason = why_no_health(disk)
    assert kind is ProblemKind.UNSUPPORTED
    assert reason.startswith(
        "behind a RAID controller: SMART not available through /dev/sda; use -d megaraid,N"
    )


def test_intel_raid_volume_has_identity_but_no_verdict() -> None:
    disk = parse("scrutiny__intel_raid1_volume_scsi_exit4.json", "sdb")
    assert disk.collected  # identity is there: model, serial, capacity
    assert disk.model == "Intel Raid 1 Volume"
    assert disk.serial == "Volume1"
    assert disk.firmware == "1.0."
    assert disk.user_capacity_bytes == 1000202043392
    assert disk.smart_passed is None
    assert disk.temperature_c is None  # reported as 0: a volume has no temperature
    assert disk.exit_flags == [SmartctlExitFlag.SMART_COMMAND_FAILED]
    kind, reason = why_no_health(disk)
    assert kind is ProblemKind.UNSUPPORTED
    assert reason.startswith("behind a RAID controller: SMART not available through /dev/sdb")
    assert "Intel Raid 1 Volume" in reason
    assert "-d megaraid,N" in reason


def test_virtual_disk_without_smart_is_not_called_a_raid_volume() -> None:
    disk = parse("smart-prom-next__scsi_qemu_harddisk_-x_exit4.json", "sda")
    assert disk.collected and disk.smart_passed is None
    assert disk.model == "QEMU QEMU HARDDISK"
    assert disk.firmware == "2.5+"
    kind, reason = why_no_health(disk)
    assert kind is ProblemKind.UNSUPPORTED
    assert reason.startswith("no SMART health verdict from /dev/sda (QEMU QEMU HARDDISK)")
    assert "RAID" not in reason


def test_health_only_report() -> None:
    disk = parse("insights-core_smartctl_H_json_scsi.json", "sdb")
    assert disk.smart_passed is True
    assert disk.protocol is DiskProtocol.SCSI
    assert disk.id == "disk:device:sdb"  # no identity in a `-H` report


# --- not a report ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("", "empty output"),
        ("  \n\t", "empty output"),
        ("smartctl: command not found\n", "not JSON"),
        ("[1, 2]", "expected a JSON object, found a JSON list"),
        ('{"device": {"name": "/dev/sda"}}', "without the 'smartctl' section"),
    ],
)
def test_what_is_not_a_smartctl_report_is_named(output: str, expected: str) -> None:
    with pytest.raises(SmartctlParseError, match=expected) as caught:
        parse_smartctl_json(output, "sda")
    assert str(caught.value).startswith("smartctl -x -j /dev/sda: ")


def test_truncated_json_is_named_as_cut_short() -> None:
    full = text("scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json")
    for cut in (len(full) // 3, len(full) // 2, len(full) - 5):
        with pytest.raises(SmartctlParseError, match=r"ends early .* cut short"):
            parse_smartctl_json(full[:cut], "sda")


def test_a_scan_listing_is_not_a_device_report() -> None:
    with pytest.raises(SmartctlParseError, match=r"device list \(`smartctl --scan`\)"):
        parse("scrutiny__smartctl_--scan_-j_megaraid.json")


def test_values_of_the_wrong_type_are_ignored_one_by_one() -> None:
    report = json.loads(text("smartctl_exporter__sata_hdd_Exos_X16_ST16000NM001G_healthy.json"))
    report["temperature"] = {"current": "hot"}
    report["power_on_time"] = {"hours": True}
    report["ata_smart_attributes"]["table"][0] = "garbage"
    report["interface_speed"]["current"] = None
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert disk.temperature_c is None
    assert disk.power_on_hours is None
    assert disk.ata is not None
    assert disk.ata.sata_link_current_gbps is None
    assert disk.ata.sata_link_max_gbps == 6.0
    assert disk.ata.reallocated_sectors == 0
    assert disk.model == "ST16000NM001G-2KK103"
