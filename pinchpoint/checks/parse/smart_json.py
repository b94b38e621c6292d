"""Decoding `smartctl -x -j` output into `DiskHealth`: pure functions of the text.

smartctl exits non-zero with valid JSON all the time (bit 6 "error log has records" on an
old disk, bit 2 on a virtual disk): the exit status is a bitmask of findings, not a failure,
and it is read from the JSON (`smartctl.exit_status`), never from the process. Only bits 0
and 1 (command line did not parse, device did not open) mean there are no facts.

Key names follow smartmontools 7.x; 6.x names (`vendor`, `product`, `revision`) are read
too. Values of the wrong type are ignored one by one: a report is rejected only when it is
not a smartctl JSON report at all (`SmartctlParseError`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from pinchpoint.model.health import (
    EXIT_FLAG_BITS,
    EXIT_FLAG_WORDING,
    NVME_WARNING_BITS,
    AtaAttribute,
    AtaHealth,
    AttributeFailure,
    DiskHealth,
    DiskProtocol,
    DiskSasPhy,
    DiskSasPort,
    NvmeCriticalWarning,
    NvmeHealth,
    NvmeNamespace,
    ScsiHealth,
    SelfTest,
    SelfTestKind,
    SelfTestOutcome,
    SmartctlExitFlag,
    SmartctlMessage,
)
from pinchpoint.model.ids import disk_id
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.sas import PhyErrorCounters

__all__ = [
    "SmartctlParseError",
    "decode_exit_status",
    "decode_nvme_critical_warning",
    "load_smartctl_json",
    "parse_smartctl_json",
    "why_no_health",
]

ATTR_REALLOCATED = 5  # Reallocated_Sector_Ct
ATTR_PENDING = 197  # Current_Pending_Sector
ATTR_OFFLINE_UNCORRECTABLE = 198  # Offline_Uncorrectable
ATTR_RESERVED_SPACE = (232, "available_reservd_space")  # an SSD's spare: value vs threshold
# SSD wear attributes whose normalised value is the life remaining, in % (100 = new). Both the
# id and smartctl's name must match: the same ids mean other things on other drives (202 is
# Exception_Mode_Status on Samsung PM883s).
WEAR_ATTRIBUTES = {
    233: "media_wearout_indicator",
    177: "wear_leveling_count",
    231: "ssd_life_left",
    202: "percent_lifetime_remain",
}
# ATA device statistics (log 0x04, page 7): the standard endurance figure, used % directly.
ENDURANCE_STATISTIC = "percentage used endurance indicator"

# Drive temperatures outside this range are garbled or sentinel values, not readings.
MIN_PLAUSIBLE_C = -40
MAX_PLAUSIBLE_C = 150

NO_FACTS_BITS = 0b11  # bit 0 (command line) or bit 1 (device open): the report holds no facts

_PROTOCOLS = {p.value.lower(): p for p in DiskProtocol}

# `scsi_sas_port_0`: one port of a SAS disk (Protocol Specific Port log page).
_SAS_PORT_KEY = re.compile(r"^scsi_sas_port_(\d+)$")
# `scsi_self_test_0`: one entry of a SCSI drive's self-test log (0 = the most recent).
_SCSI_SELF_TEST_KEY = re.compile(r"^scsi_self_test_(\d+)$")
# `phy_0`: one phy within such a port.
_PHY_KEY = re.compile(r"^phy_(\d+)$")
# `phy enabled; 12 Gbps`, `phy enabled; 1.5 Gbps`: the negotiated rate (none when the phy is
# disabled, or "phy enabled; unknown" when nothing is attached).
_SAS_RATE = re.compile(r"(\d+(?:\.\d+)?)\s*Gbps", re.IGNORECASE)
# Any run of characters that is not a lowercase letter or a digit: smartctl turns key phrases
# such as "attached SAS address" into `attached_sas_address`; older builds kept the phrase.
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]+")
# `…failed: DELL or MegaRaid controller, please try adding '-d megaraid,N'` (and the same for
# 3ware): smartctl found a RAID controller's logical drive and names the option that reaches
# the member disks.
_RAID_HINT = re.compile(r"please try adding '(-d [^']+)'")
# `Permission denied`, `Operation not permitted`: the open failed for lack of privilege.
_NOT_PERMITTED = re.compile(r"permission denied|operation not permitted", re.IGNORECASE)
# `No such device`, `No such file or directory`: the device node is not there (any more).
_NO_DEVICE = re.compile(r"no such (?:device|file)", re.IGNORECASE)
# Models of RAID logical volumes and controllers' virtual drives, which carry no SMART data:
# "Intel Raid 1 Volume", HP "LOGICAL VOLUME", Dell "PERC H730P Mini", LSI "MR9361-8i",
# "Virtual Disk".
_RAID_VOLUME_MODEL = re.compile(
    r"\braid\b|logical volume|virtual disk|\bperc\b|\bmr\d{4}", re.IGNORECASE
)


class SmartctlParseError(ValueError):
    """The text is not a smartctl JSON report for one device; the message says what it is."""

    def __init__(self, device: str, problem: str) -> None:
        super().__init__(f"smartctl -x -j /dev/{device}: {problem}")
        self.device = device
        self.problem = problem


# --- typed access to the decoded JSON -------------------------------------------------------------


def _obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (a wrong type is ignored)."""
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    """A JSON integer; smartctl's `{"n": …, "s": "…"}` form of large numbers is accepted too."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, dict) and isinstance(value.get("n"), int):
        return int(value["n"])
    return None


def _str(value: Any) -> str | None:
    """A non-empty JSON string, stripped."""
    if isinstance(value, str):
        stripped = value.strip()
        return stripped or None
    return None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _snippet(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


# --- the report as a whole ------------------------------------------------------------------------


def load_smartctl_json(text: str, device: str) -> dict[str, Any]:
    """The decoded report; `SmartctlParseError` when it is empty, cut short or not smartctl's."""
    if not isinstance(text, str):
        raise SmartctlParseError(device, f"expected text, got {type(text).__name__}")
    body = text.strip()
    if not body:
        raise SmartctlParseError(device, "empty output (expected a JSON object from smartctl -j)")
    try:
        report = json.loads(body)
    except json.JSONDecodeError as err:
        if body.startswith("{") and not body.endswith("}"):  # smartctl ends with the "}"
            raise SmartctlParseError(
                device,
                f"JSON ends early at line {err.lineno} ({err.msg}): the output was cut short",
            ) from None
        raise SmartctlParseError(
            device,
            f"not JSON ({err.msg} at line {err.lineno} column {err.colno}); "
            f"it starts with {_snippet(body)!r}",
        ) from None
    if not isinstance(report, dict):
        raise SmartctlParseError(
            device, f"expected a JSON object, found a JSON {type(report).__name__}"
        )
    if "devices" in report and "device" not in report:
        raise SmartctlParseError(
            device, "this is a device list (`smartctl --scan`), not one device's report"
        )
    if not isinstance(report.get("smartctl"), dict):
        raise SmartctlParseError(
            device, "a JSON object without the 'smartctl' section: not smartctl -j output"
        )
    return report


def parse_smartctl_json(text: str, device: str) -> DiskHealth:
    """`DiskHealth` of `device` ("sda", "nvme0") from `smartctl -x -j /dev/<device>` output."""
    return health_from_report(load_smartctl_json(text, device), device)


def smartctl_version(report: dict[str, Any]) -> str | None:
    """`[7, 3]` -> "7.3"."""
    version = _obj(report.get("smartctl")).get("version")
    if isinstance(version, list) and version and all(_int(v) is not None for v in version):
        return ".".join(str(v) for v in version)
    return None


def decode_exit_status(status: int) -> list[SmartctlExitFlag]:
    """The named bits set in smartctl's exit status, lowest first."""
    return [flag for bit, flag in enumerate(EXIT_FLAG_BITS) if status & (1 << bit)]


def decode_nvme_critical_warning(value: int) -> tuple[list[NvmeCriticalWarning], int]:
    """The named bits set in an NVMe Critical Warning byte, and the other (reserved) bits."""
    named = [w for bit, w in enumerate(NVME_WARNING_BITS) if value & (1 << bit)]
    return named, value & ~((1 << len(NVME_WARNING_BITS)) - 1)


def health_from_report(report: dict[str, Any], device: str) -> DiskHealth:
    """`DiskHealth` from a decoded report (see `load_smartctl_json`)."""
    tool = _obj(report.get("smartctl"))
    dev = _obj(report.get("device"))
    status = _int(tool.get("exit_status"))
    support = _obj(report.get("smart_support"))
    protocol = _PROTOCOLS.get((_str(dev.get("protocol")) or "").lower())
    health = DiskHealth(
        id="",
        device=device,
        collected=status is None or not status & NO_FACTS_BITS,
        smartctl_device_type=_str(dev.get("type")),
        protocol=protocol,
        serial=_str(report.get("serial_number")),
        model=_str(report.get("model_name")) or _str(report.get("scsi_model_name")),
        firmware=(
            _str(report.get("firmware_version"))
            or _str(report.get("scsi_revision"))
            or _str(report.get("revision"))
        ),
        rotation_rate_rpm=_int(report.get("rotation_rate")),
        user_capacity_bytes=_int(_obj(report.get("user_capacity")).get("bytes")),
        smart_available=_bool(support.get("available")),
        smart_enabled=_bool(support.get("enabled")),
        smart_passed=_bool(_obj(report.get("smart_status")).get("passed")),
        exit_status=status,
        exit_flags=decode_exit_status(status) if status is not None else [],
        messages=_messages(tool),
        temperature_c=_temperature(report, protocol),
        power_on_hours=_int(_obj(report.get("power_on_time")).get("hours")),
    )
    health.temperature_warning_c, health.temperature_critical_c = _temperature_limits(
        report, protocol
    )
    health.endurance_used_pct, health.endurance_source = _endurance(report, protocol)
    health.self_tests = _self_tests(report, protocol)
    health.wwn = _wwn(report)
    if protocol is DiskProtocol.ATA:
        health.ata = _ata(report)
    elif protocol is DiskProtocol.SCSI:
        health.scsi = _scsi(report)
    elif protocol is DiskProtocol.NVME:
        health.nvme = _nvme(report)
    health.id = disk_id(_identity(health))
    if not health.collected:
        health.not_collected_reason = why_no_health(health)[1]
    return health


def _messages(tool: dict[str, Any]) -> list[SmartctlMessage]:
    found = []
    for item in tool.get("messages") or []:
        text = _str(_obj(item).get("string"))
        if text:
            found.append(SmartctlMessage(text=text, severity=_str(item.get("severity"))))
    return found


def _identity(health: DiskHealth) -> str:
    """What the id derives from: WWN, else the first namespace's EUI-64, else the serial."""
    if health.wwn:
        return health.wwn
    if health.nvme:
        eui = next((ns.eui64 for ns in health.nvme.namespaces if ns.eui64), None)
        if eui:
            return eui
    if health.serial:
        return health.serial
    return f"device:{health.device}"


def _wwn(report: dict[str, Any]) -> str | None:
    """The LU name as sysfs `wwid` prints it: ATA `wwn` {naa, oui, id}, SCSI `logical_unit_id`."""
    wwn = _obj(report.get("wwn"))
    naa, oui, ident = _int(wwn.get("naa")), _int(wwn.get("oui")), _int(wwn.get("id"))
    if naa is not None and oui is not None and ident is not None:
        return f"naa.{naa:x}{oui:06x}{ident:09x}"
    lu = _str(report.get("logical_unit_id"))
    if lu and lu.lower().startswith("0x"):
        digits = lu[2:].lower()
        if digits and all(c in "0123456789abcdef" for c in digits):
            return f"naa.{digits}"
    return None


def _plausible(celsius: int | None) -> int | None:
    """A temperature a drive can have; a garbled or sentinel value (255, 65535, -128) is none."""
    if celsius is None or not MIN_PLAUSIBLE_C <= celsius <= MAX_PLAUSIBLE_C:
        return None
    return celsius


def _temperature(report: dict[str, Any], protocol: DiskProtocol | None) -> int | None:
    """`temperature.current`; SCSI devices without a temperature log page print 0 there."""
    current = _int(_obj(report.get("temperature")).get("current"))
    if protocol is DiskProtocol.SCSI and not current:
        # smartctl 7.4 moved SAS temperatures to the environmental reporting page.
        for name, sensor in _obj(report.get("scsi_environmental_reports")).items():
            reading = _int(_obj(sensor).get("current"))
            if name.startswith("temperature") and reading:
                return _plausible(reading)
        return None
    return _plausible(current)


def _positive(value: Any) -> int | None:
    """A limit in °C; 0 and below mean "not reported" (smartctl prints 0 for a missing trip)."""
    number = _plausible(_int(value))
    return number if number is not None and number > 0 else None


def _temperature_limits(
    report: dict[str, Any], protocol: DiskProtocol | None
) -> tuple[int | None, int | None]:
    """The drive's own (warning, critical) temperatures in °C.

    SCSI: `temperature.drive_trip` (the informational-exceptions trip point) is critical.
    ATA: SCT status `op_limit_max` (highest recommended operating temperature) is the warning,
    `limit_max` (the absolute limit) critical; the SCT temperature history repeats them.
    NVMe: WCTEMP / CCTEMP, `nvme_composite_temperature_threshold` (7.3: `temperature`'s
    `op_limit_max` / `critical_limit_max`).
    """
    temp = _obj(report.get("temperature"))
    if protocol is DiskProtocol.SCSI:
        return None, _positive(temp.get("drive_trip"))
    if protocol is DiskProtocol.NVME:
        threshold = _obj(report.get("nvme_composite_temperature_threshold"))
        warning = _positive(threshold.get("warning")) or _positive(temp.get("op_limit_max"))
        critical = _positive(threshold.get("critical")) or _positive(temp.get("critical_limit_max"))
        return warning, critical
    history = _obj(_obj(report.get("ata_sct_temperature_history")).get("temperature"))
    warning = _positive(temp.get("op_limit_max")) or _positive(history.get("op_limit_max"))
    critical = _positive(temp.get("limit_max")) or _positive(history.get("limit_max"))
    return warning, critical


def _endurance(
    report: dict[str, Any], protocol: DiskProtocol | None
) -> tuple[int | None, str | None]:
    """Endurance used in % and where it was read (see `DiskHealth.endurance_used_pct`)."""
    if protocol is DiskProtocol.NVME:
        used = _int(_obj(report.get("nvme_smart_health_information_log")).get("percentage_used"))
        return (used, "NVMe percentage used") if used is not None else (None, None)
    if protocol is DiskProtocol.SCSI:
        used = _int(report.get("scsi_percentage_used_endurance_indicator"))
        if used is not None:
            return used, "SCSI percentage used endurance indicator"
        return None, None
    if protocol is not DiskProtocol.ATA:
        return None, None
    pages = _obj(report.get("ata_device_statistics")).get("pages")
    for page in pages if isinstance(pages, list) else []:
        rows = _obj(page).get("table")
        for row in rows if isinstance(rows, list) else []:
            row = _obj(row)
            if (_str(row.get("name")) or "").lower() != ENDURANCE_STATISTIC:
                continue
            if _bool(_obj(row.get("flags")).get("valid")) is False:
                continue
            used = _int(row.get("value"))
            if used is not None and used >= 0:
                return used, "device statistics: Percentage Used Endurance Indicator"
    table = _obj(report.get("ata_smart_attributes")).get("table")
    for row in table if isinstance(table, list) else []:
        row = _obj(row)
        ident, name = _int(row.get("id")), _str(row.get("name"))
        if ident not in WEAR_ATTRIBUTES or name is None or _key(name) != WEAR_ATTRIBUTES[ident]:
            continue
        left = _int(row.get("value"))
        if left is not None and 0 <= left <= 100:
            return 100 - left, f"attribute {ident} {name} (normalised {left} = life left %)"
    return None, None


# --- self-test logs -------------------------------------------------------------------------------

# ATA self-test status, high nibble: 0 completed, 1–2 aborted or interrupted, 3–8 a failure,
# 15 in progress (ATA8-ACS; smartctl's ataprint.cpp). SCSI result (SPC-4 self-test results log):
# 0 completed, 1–2 aborted, 3–7 failed, 15 in progress. NVMe (base spec, Device Self-test
# Status): 0 completed, 5–7 failed, other values aborted.
_ATA_FAILED = range(3, 9)
_SCSI_FAILED = range(3, 8)
_NVME_FAILED = range(5, 8)
IN_PROGRESS_CODE = 15


def _test_kind(description: str) -> SelfTestKind:
    words = description.lower()
    for word, kind in (
        ("short", SelfTestKind.SHORT),
        ("extended", SelfTestKind.EXTENDED),
        ("long", SelfTestKind.EXTENDED),
        ("conveyance", SelfTestKind.CONVEYANCE),
        ("selective", SelfTestKind.SELECTIVE),
        ("vendor", SelfTestKind.VENDOR),
        ("offline", SelfTestKind.OFFLINE),
    ):
        if word in words:
            return kind
    return SelfTestKind.OTHER


def _outcome(code: int | None, passed: bool | None, failed: range) -> SelfTestOutcome:
    if code == IN_PROGRESS_CODE:
        return SelfTestOutcome.IN_PROGRESS
    if passed is not None:
        return SelfTestOutcome.PASSED if passed else SelfTestOutcome.FAILED
    if code == 0:
        return SelfTestOutcome.PASSED
    if code in failed:
        return SelfTestOutcome.FAILED
    return SelfTestOutcome.ABORTED


def _lba(value: Any) -> int | None:
    return _int(value) if not isinstance(value, dict) else _int(value.get("value"))


def _ata_self_tests(log: dict[str, Any]) -> list[SelfTest] | None:
    """The extended (GP) log where smartctl read one, else the standard (SMART) log."""
    for name in ("extended", "standard"):
        part = _obj(log.get(name))
        if not part:
            continue
        tests = []
        rows = part.get("table")
        for row in rows if isinstance(rows, list) else []:
            row = _obj(row)
            kind, status = _obj(row.get("type")), _obj(row.get("status"))
            description = _str(kind.get("string")) or "self-test"
            code = _int(status.get("value"))
            tests.append(
                SelfTest(
                    kind=_test_kind(description),
                    description=description,
                    outcome=_outcome(
                        code >> 4 if code is not None else None,
                        _bool(status.get("passed")),
                        _ATA_FAILED,
                    ),
                    status=_str(status.get("string")) or f"status {code}",
                    power_on_hours=_int(row.get("lifetime_hours")),
                    failing_lba=_lba(row.get("lba")),
                )
            )
        return tests
    return None


def _scsi_result_code(words: str) -> int | None:
    """The result code from smartctl's words, for builds that print only the words."""
    lowered = words.lower()
    if lowered == "completed":
        return 0
    if "progress" in lowered:
        return IN_PROGRESS_CODE
    if "fail" in lowered or "error" in lowered:
        return _SCSI_FAILED.start
    return None


def _scsi_self_tests(report: dict[str, Any]) -> list[SelfTest] | None:
    numbered = sorted(
        (int(m.group(1)), _obj(v)) for k, v in report.items() if (m := _SCSI_SELF_TEST_KEY.match(k))
    )
    if not numbered:
        return None
    tests = []
    for _, row in numbered:
        kind, result = _obj(row.get("code")), _obj(row.get("result"))
        description = _str(kind.get("string")) or "self-test"
        status = _str(result.get("string")) or f"result {_int(result.get('value'))}"
        code = _int(result.get("value"))
        if code is None:
            code = _scsi_result_code(status)
        tests.append(
            SelfTest(
                kind=_test_kind(description),
                description=description,
                outcome=_outcome(code, None, _SCSI_FAILED),
                status=status,
                power_on_hours=_int(_obj(row.get("power_on_time")).get("hours")),
                failing_lba=_lba(row.get("lba_first_failure")),
            )
        )
    return tests


def _nvme_self_tests(log: dict[str, Any]) -> list[SelfTest] | None:
    rows = log.get("table")
    if not isinstance(rows, list):
        return None
    tests = []
    for row in rows:
        row = _obj(row)
        kind, result = _obj(row.get("self_test_code")), _obj(row.get("self_test_result"))
        code = _int(result.get("value"))
        description = _str(kind.get("string")) or "self-test"
        tests.append(
            SelfTest(
                kind=_test_kind(description),
                description=description,
                outcome=_outcome(code, None, _NVME_FAILED),
                status=_str(result.get("string")) or f"result {code}",
                power_on_hours=_int(row.get("power_on_hours")),
                failing_lba=_lba(row.get("lba")),
            )
        )
    return tests


def _self_tests(report: dict[str, Any], protocol: DiskProtocol | None) -> list[SelfTest] | None:
    """The self-test log, most recent first; None when the report has none."""
    if protocol is DiskProtocol.ATA:
        log = _obj(report.get("ata_smart_self_test_log"))
        return _ata_self_tests(log) if log else None
    if protocol is DiskProtocol.SCSI:
        return _scsi_self_tests(report)
    if protocol is DiskProtocol.NVME:
        log = _obj(report.get("nvme_self_test_log"))
        return _nvme_self_tests(log) if log else None
    return None


# --- ATA ------------------------------------------------------------------------------------------


def _link_gbps(speed: Any) -> float | None:
    """`{"units_per_second": 60, "bits_per_unit": 100000000}` -> 6.0 (Gbit/s)."""
    units, bits = _int(_obj(speed).get("units_per_second")), _int(_obj(speed).get("bits_per_unit"))
    if units is None or bits is None:
        return None
    return round(units * bits / 1e9, 3)


def _ata_attribute(row: dict[str, Any], failure: AttributeFailure | None) -> AtaAttribute | None:
    ident = _int(row.get("id"))
    if ident is None:
        return None
    raw = _obj(row.get("raw"))
    return AtaAttribute(
        attribute_id=ident,
        name=_str(row.get("name")) or f"attribute {ident}",
        value=_int(row.get("value")),
        worst=_int(row.get("worst")),
        threshold=_int(row.get("thresh")),
        when_failed=failure,
        prefailure=_bool(_obj(row.get("flags")).get("prefailure")),
        raw_value=_int(raw.get("value")),
        raw_text=_str(raw.get("string")),
    )


def _ata(report: dict[str, Any]) -> AtaHealth:
    speed = _obj(report.get("interface_speed"))
    ata = AtaHealth(
        sata_link_current_gbps=_link_gbps(speed.get("current")),
        sata_link_max_gbps=_link_gbps(speed.get("max")),
    )
    table = _obj(report.get("ata_smart_attributes")).get("table")
    for row in table if isinstance(table, list) else []:
        if not isinstance(row, dict):
            continue
        ident = _int(row.get("id"))
        raw = _int(_obj(row.get("raw")).get("value"))
        if ident == ATTR_REALLOCATED:
            ata.reallocated_sectors = raw
        elif ident == ATTR_PENDING:
            ata.pending_sectors = raw
        elif ident == ATTR_OFFLINE_UNCORRECTABLE:
            ata.offline_uncorrectable = raw
        elif (
            ident == ATTR_RESERVED_SPACE[0]
            and _key(_str(row.get("name")) or "") == (ATTR_RESERVED_SPACE[1])
        ):
            ata.reserved_space_pct = _int(row.get("value"))
            ata.reserved_space_threshold_pct = _int(row.get("thresh"))
        when = (_str(row.get("when_failed")) or "").lower()
        if when in ("now", "past"):
            failure = AttributeFailure(when)
            attribute = _ata_attribute(row, failure)
            if attribute is not None:
                target = ata.failing_now if failure is AttributeFailure.NOW else ata.failed_in_past
                target.append(attribute)
    return ata


# --- SCSI / SAS -----------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _key(name: str) -> str:
    """`attached SAS address` or `attached_sas_address` -> `attached_sas_address` (cached: the
    same few dozen keys recur in every report)."""
    return _NOT_KEY_CHAR.sub("_", name.lower()).strip("_")


def _sas_address(value: Any) -> str | None:
    """`0x5000cca264d473d5` -> itself, zero-padded to 16 digits; `0x0` (nothing) -> None."""
    text = _str(value)
    if text is None:
        return None
    try:
        number = int(text, 16)
    except ValueError:
        return None
    return f"0x{number:016x}" if number else None


def _sas_phy(raw: dict[str, Any]) -> DiskSasPhy:
    phy = {_key(k): v for k, v in raw.items()}
    rate_text = _str(phy.get("negotiated_logical_link_rate"))
    rate = _SAS_RATE.search(rate_text) if rate_text else None
    return DiskSasPhy(
        identifier=_int(phy.get("identifier")),
        sas_address=_sas_address(phy.get("sas_address")),
        attached_device_type=_str(phy.get("attached_device_type")),
        attached_sas_address=_sas_address(phy.get("attached_sas_address")),
        attached_phy_identifier=_int(phy.get("attached_phy_identifier")),
        negotiated_gbps=float(rate.group(1)) if rate else None,
        negotiated_text=rate_text,
        errors=PhyErrorCounters(
            invalid_dword_count=_int(phy.get("invalid_dword_count")),
            running_disparity_error_count=_int(phy.get("running_disparity_error_count")),
            loss_of_dword_sync_count=_int(phy.get("loss_of_dword_synchronization_count")),
            phy_reset_problem_count=_int(phy.get("phy_reset_problem_count")),
        ),
    )


def _sas_ports(report: dict[str, Any]) -> list[DiskSasPort]:
    ports = []
    for key, value in report.items():
        port_match = _SAS_PORT_KEY.match(key)
        if not port_match or not isinstance(value, dict):
            continue
        port = {_key(k): v for k, v in value.items()}
        numbered = sorted(
            (int(m.group(1)), phy)
            for k, phy in port.items()
            if (m := _PHY_KEY.match(k)) and isinstance(phy, dict)
        )
        phys = [_sas_phy(phy) for _, phy in numbered]
        ports.append(
            DiskSasPort(
                index=int(port_match.group(1)),
                relative_target_port_id=_int(port.get("relative_target_port_id")),
                sas_address=next((p.sas_address for p in phys if p.sas_address), None),
                phys=phys,
            )
        )
    return sorted(ports, key=lambda p: p.index)


def _scsi(report: dict[str, Any]) -> ScsiHealth:
    counters = _obj(report.get("scsi_error_counter_log"))

    def uncorrected(kind: str) -> int | None:
        return _int(_obj(counters.get(kind)).get("total_uncorrected_errors"))

    return ScsiHealth(
        vendor=_str(report.get("scsi_vendor")) or _str(report.get("vendor")),
        product=_str(report.get("scsi_product")) or _str(report.get("product")),
        transport=_str(_obj(report.get("scsi_transport_protocol")).get("name")),
        grown_defects=_int(report.get("scsi_grown_defect_list")),
        uncorrected_read_errors=uncorrected("read"),
        uncorrected_write_errors=uncorrected("write"),
        uncorrected_verify_errors=uncorrected("verify"),
        sas_ports=_sas_ports(report),
    )


# --- NVMe -----------------------------------------------------------------------------------------


def _namespaces(report: dict[str, Any]) -> list[NvmeNamespace]:
    found = []
    for raw in report.get("nvme_namespaces") or []:
        ns = _obj(raw)
        ident = _int(ns.get("id"))
        if ident is None:
            continue
        eui = _obj(ns.get("eui64"))
        oui, ext = _int(eui.get("oui")), _int(eui.get("ext_id"))
        found.append(
            NvmeNamespace(
                namespace_id=ident,
                size_bytes=_int(_obj(ns.get("size")).get("bytes")),
                eui64=f"eui.{oui:06x}{ext:010x}" if oui is not None and ext is not None else None,
            )
        )
    return found


def _nvme(report: dict[str, Any]) -> NvmeHealth:
    log = _obj(report.get("nvme_smart_health_information_log"))
    warning = _int(log.get("critical_warning"))
    named, other = decode_nvme_critical_warning(warning) if warning is not None else ([], 0)
    return NvmeHealth(
        critical_warning=warning,
        critical_warnings=named,
        critical_warning_other_bits=other,
        media_errors=_int(log.get("media_errors")),
        percentage_used=_int(log.get("percentage_used")),
        available_spare_pct=_int(log.get("available_spare")),
        available_spare_threshold_pct=_int(log.get("available_spare_threshold")),
        error_log_entries=_int(log.get("num_err_log_entries")),
        namespaces=_namespaces(report),
    )


# --- why there is no health -----------------------------------------------------------------------


def why_no_health(health: DiskHealth) -> tuple[ProblemKind, str]:
    """Why smartctl gave no facts (not collected) or no SMART verdict, in words a user acts on.

    Only meaningful when `health.collected` is False or `health.smart_passed` is None.
    """
    dev = f"/dev/{health.device}"
    said = "; ".join(m.text for m in health.messages)
    flags = set(health.exit_flags)
    raid = _RAID_HINT.search(said)
    if raid:
        return ProblemKind.UNSUPPORTED, (
            f"behind a RAID controller: SMART not available through {dev}; "
            f"use {raid.group(1)} (smartctl: {said})"
        )
    if not health.collected:
        if SmartctlExitFlag.DEVICE_OPEN_FAILED in flags:
            if _NOT_PERMITTED.search(said):
                return ProblemKind.PERMISSION, f"not permitted to open {dev} (run as root): {said}"
            if _NO_DEVICE.search(said):
                return ProblemKind.MISSING, f"{dev} is not there (removed, or renamed?): {said}"
            wording = EXIT_FLAG_WORDING[SmartctlExitFlag.DEVICE_OPEN_FAILED]
            return ProblemKind.FAILED, f"smartctl could not open {dev}: {said or wording}"
        wording = EXIT_FLAG_WORDING[SmartctlExitFlag.COMMAND_LINE_DID_NOT_PARSE]
        return ProblemKind.FAILED, f"smartctl refused to query {dev}: {said or wording}"
    named = f"{dev} ({health.model})" if health.model else dev
    if health.model and _RAID_VOLUME_MODEL.search(health.model):
        return ProblemKind.UNSUPPORTED, (
            f"behind a RAID controller: SMART not available through {dev}, a logical volume "
            f"({health.model}); query its member disks through the controller "
            "(smartctl -d megaraid,N, -d cciss,N, -d aacraid,H,L,ID, or the vendor's tool)"
        )
    if health.smart_available is False:
        return ProblemKind.UNSUPPORTED, f"{named} reports no SMART support: no health verdict"
    if health.smart_enabled is False:
        return ProblemKind.UNSUPPORTED, (
            f"SMART is disabled on {named}: no health verdict (`smartctl -s on {dev}` enables it)"
        )
    if SmartctlExitFlag.SMART_COMMAND_FAILED in flags:
        wording = EXIT_FLAG_WORDING[SmartctlExitFlag.SMART_COMMAND_FAILED]
        return ProblemKind.UNSUPPORTED, f"no SMART health verdict from {named}: {said or wording}"
    return ProblemKind.UNSUPPORTED, f"smartctl reported no SMART health verdict for {named}"
