"""The facts of issue 15's disk rules, decoded from real `smartctl -j` captures
(tests/fixtures/smartctl): the drive's own temperature limits, endurance used and where it was
read, and the self-test log. Bad values are ignored one by one, never the whole report."""

from __future__ import annotations

import json

from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.model.health import DiskHealth, SelfTestKind, SelfTestOutcome

FIXTURES = ALL_FIXTURES / "smartctl"
SCT_LIMITS = (
    "smart-prom-next__sata_hdd_SAMSUNG_HD204UI_-x_spin_up_time_failed_past_sct_temperature_limits"
    ".json"
)
MEDIA_WEAROUT_15 = "smartctl_exporter__sata_ssd_INTEL_SSDSC2BB016T4_Media_Wearout_Indicator_15.json"
NVME_USED_75 = "smartctl_exporter__nvme_INTEL_SSDPE2KX020T7_percentage_used_75.json"
SAMSUNG_860 = "scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json"
PM883 = "smartctl_exporter__sata_ssd_SAMSUNG_MZ7LH1T9HMLT_healthy.json"
SAS_TRIP_85 = "smartctl_exporter__sas_hdd_HITACHI_H109060SESUN600G_9.json"
MEGARAID_SATA = "scrutiny__sata_hdd_WD4000FYYX_behind_megaraid_-d_megaraid0.json"
EMPTY_LOG = "scrutiny__sata_-x-j_failed_scrutiny_thresholds.json"


def parse(name: str, device: str = "sda") -> DiskHealth:
    return parse_smartctl_json((FIXTURES / name).read_text(), device)


# --- temperature limits ---------------------------------------------------------------------------


def test_ata_sct_limits_are_warning_and_critical() -> None:
    disk = parse(SCT_LIMITS)
    assert (disk.temperature_c, disk.temperature_warning_c, disk.temperature_critical_c) == (
        27,
        80,
        85,
    )


def test_sas_drive_trip_is_the_critical_limit() -> None:
    disk = parse(SAS_TRIP_85)
    assert (disk.temperature_warning_c, disk.temperature_critical_c) == (None, 85)


def test_a_raid_volume_trip_of_zero_is_no_limit() -> None:
    disk = parse("scrutiny__intel_raid1_volume_scsi_exit4.json")
    assert disk.temperature_critical_c is None


def test_nvme_wctemp_and_cctemp() -> None:
    report = json.loads((FIXTURES / NVME_USED_75).read_text())
    assert "nvme_composite_temperature_threshold" not in report  # 7.3 -a did not ask for it
    assert parse(NVME_USED_75, "nvme6").temperature_warning_c is None
    report["nvme_composite_temperature_threshold"] = {"warning": 70, "critical": 80}
    disk = parse_smartctl_json(json.dumps(report), "nvme6")
    assert (disk.temperature_warning_c, disk.temperature_critical_c) == (70, 80)


def test_drives_without_limits_have_none() -> None:
    disk = parse("smartctl_exporter__sata_hdd_Exos_X16_ST16000NM001G_healthy.json")
    assert disk.temperature_c == 26
    assert (disk.temperature_warning_c, disk.temperature_critical_c) == (None, None)


# --- endurance ------------------------------------------------------------------------------------


def test_media_wearout_indicator_15_is_85_percent_used() -> None:
    disk = parse(MEDIA_WEAROUT_15)
    assert disk.endurance_used_pct == 85
    assert disk.endurance_source is not None
    assert disk.endurance_source.startswith("attribute 233 Media_Wearout_Indicator")
    assert disk.ata is not None
    assert (disk.ata.reserved_space_pct, disk.ata.reserved_space_threshold_pct) == (100, 10)


def test_nvme_percentage_used_75() -> None:
    disk = parse(NVME_USED_75, "nvme6")
    assert (disk.endurance_used_pct, disk.endurance_source) == (75, "NVMe percentage used")


def test_device_statistics_come_before_the_vendor_attribute() -> None:
    disk = parse(SAMSUNG_860)
    assert disk.endurance_used_pct == 19  # Wear_Leveling_Count 81 says the same
    assert disk.endurance_source == "device statistics: Percentage Used Endurance Indicator"


def test_an_attribute_id_with_another_name_is_not_wear() -> None:
    """The PM883 reports 202 as Exception_Mode_Status (100), which is not life left."""
    disk = parse(PM883)
    assert disk.endurance_used_pct == 1
    assert disk.endurance_source is not None
    assert "177 Wear_Leveling_Count" in disk.endurance_source


def test_hard_disks_report_no_endurance() -> None:
    assert parse(SAS_TRIP_85).endurance_used_pct is None
    assert parse(SCT_LIMITS).endurance_used_pct is None


# --- self-test logs -------------------------------------------------------------------------------


def test_ata_extended_log_most_recent_first() -> None:
    disk = parse(SCT_LIMITS)
    assert disk.self_tests is not None
    assert [(t.kind, t.outcome, t.power_on_hours) for t in disk.self_tests] == [
        (SelfTestKind.EXTENDED, SelfTestOutcome.PASSED, 3624),
        (SelfTestKind.SHORT, SelfTestOutcome.PASSED, 33),
        (SelfTestKind.SHORT, SelfTestOutcome.PASSED, 1),
    ]
    assert disk.self_tests[0].status == "Completed without error"


def test_ata_standard_log_with_a_vendor_test() -> None:
    disk = parse(MEGARAID_SATA)
    assert disk.self_tests is not None
    assert [t.kind for t in disk.self_tests] == [
        SelfTestKind.SHORT,
        SelfTestKind.SHORT,
        SelfTestKind.VENDOR,
        SelfTestKind.SHORT,
    ]


def test_an_empty_log_is_not_a_missing_log() -> None:
    assert parse(EMPTY_LOG).self_tests == []
    assert parse(SAS_TRIP_85).self_tests is None  # `--attributes --log=error`: no self-test log


def test_a_failed_ata_entry_and_its_lba() -> None:
    report = json.loads((FIXTURES / SCT_LIMITS).read_text())
    row = report["ata_smart_self_test_log"]["extended"]["table"][0]
    row["status"] = {"value": 121, "string": "Completed: read failure", "passed": False}
    row["lba"] = 4200736
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert disk.self_tests is not None
    failed = disk.self_tests[0]
    assert (failed.outcome, failed.status, failed.failing_lba) == (
        SelfTestOutcome.FAILED,
        "Completed: read failure",
        4200736,
    )


def test_in_progress_and_aborted_entries() -> None:
    report = json.loads((FIXTURES / SCT_LIMITS).read_text())
    rows = report["ata_smart_self_test_log"]["extended"]["table"]
    rows[0]["status"] = {"value": 249, "string": "Self-test routine in progress"}
    rows[1]["status"] = {"value": 16, "string": "Aborted by host"}
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert disk.self_tests is not None
    assert [t.outcome for t in disk.self_tests] == [
        SelfTestOutcome.IN_PROGRESS,
        SelfTestOutcome.ABORTED,
        SelfTestOutcome.PASSED,
    ]


def test_scsi_and_nvme_logs() -> None:
    report = json.loads((FIXTURES / SAS_TRIP_85).read_text())
    report["scsi_self_test_1"] = {
        "code": {"value": 2, "string": "Background long"},
        "result": {"value": 0, "string": "Completed"},
        "power_on_time": {"hours": 900},
    }
    report["scsi_self_test_0"] = {
        "code": {"string": "Background short"},
        "result": {"string": "Completed, segment failed"},
        "power_on_time": {"hours": 1000},
    }
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert disk.self_tests is not None
    assert [(t.kind, t.outcome, t.power_on_hours) for t in disk.self_tests] == [
        (SelfTestKind.SHORT, SelfTestOutcome.FAILED, 1000),
        (SelfTestKind.EXTENDED, SelfTestOutcome.PASSED, 900),
    ]
    nvme = json.loads((FIXTURES / NVME_USED_75).read_text())
    nvme["nvme_self_test_log"] = {
        "current_self_test_operation": {"value": 0, "string": "No self-test in progress"},
        "table": [
            {
                "self_test_code": {"value": 2, "string": "Extended"},
                "self_test_result": {"value": 7, "string": "Completed: failed segments"},
                "power_on_hours": 49400,
            },
            {
                "self_test_code": {"value": 1, "string": "Short"},
                "self_test_result": {"value": 2, "string": "Aborted: Controller Reset"},
                "power_on_hours": 49000,
            },
        ],
    }
    disk = parse_smartctl_json(json.dumps(nvme), "nvme6")
    assert disk.self_tests is not None
    assert [(t.kind, t.outcome) for t in disk.self_tests] == [
        (SelfTestKind.EXTENDED, SelfTestOutcome.FAILED),
        (SelfTestKind.SHORT, SelfTestOutcome.ABORTED),
    ]


def test_garbled_values_are_ignored_one_by_one() -> None:
    report = json.loads((FIXTURES / SCT_LIMITS).read_text())
    report["temperature"]["op_limit_max"] = "eighty"
    report["ata_sct_temperature_history"] = []
    rows = report["ata_smart_self_test_log"]["extended"]["table"]
    rows[0] = "garbage"
    rows[1]["lifetime_hours"] = {"hours": "x"}
    rows[2]["status"] = None
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert (disk.temperature_warning_c, disk.temperature_critical_c) == (None, 85)
    assert disk.self_tests is not None
    assert len(disk.self_tests) == 3
    assert disk.self_tests[0].description == "self-test"
    assert disk.self_tests[1].power_on_hours is None
    assert disk.self_tests[2].outcome is SelfTestOutcome.ABORTED  # no status: says nothing
    assert disk.smart_passed is True  # the rest of the report stands


def test_a_wear_value_out_of_range_is_ignored() -> None:
    report = json.loads((FIXTURES / MEDIA_WEAROUT_15).read_text())
    for row in report["ata_smart_attributes"]["table"]:
        if row["id"] == 233:
            row["value"] = 253
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert disk.endurance_used_pct is None


def test_sentinel_temperatures_are_no_reading() -> None:
    report = json.loads((FIXTURES / SCT_LIMITS).read_text())
    report["temperature"]["current"] = 255
    report["temperature"]["limit_max"] = 65535
    report["ata_sct_temperature_history"]["temperature"]["limit_max"] = 65535
    disk = parse_smartctl_json(json.dumps(report), "sda")
    assert (disk.temperature_c, disk.temperature_warning_c, disk.temperature_critical_c) == (
        None,
        80,
        None,
    )
