"""The NVMe health log of smartmontools issue #537 (a Samsung MZVL2512HCJQ at Percentage Used
100 % with Critical Warning 0x04, reliability degraded; its spare 100 % against a threshold of
10 %), a real text excerpt, judged by the disk rules: its figures are put in the JSON layout of
the real failing NVMe capture (smartctl_exporter's PM1725a, whose own critical warning is bit 4)
as smartctl writes them with `-j`, read by the project's parser, and judged."""

from __future__ import annotations

import json
import re
from typing import Any

from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.model.health import DiskHealth, NvmeCriticalWarning
from tests.rules.disk.conftest import FAILED_NVME, SMARTCTL, of_rule, run

ISSUE_537 = (
    "smartmontools_issue537__smartctl_nvme_SAMSUNG_MZVL2512HCJQ_percentage_used_100"
    "_critical_warning_0x04_text_excerpt.txt"
)
# smartctl's text labels of the NVMe log → its JSON keys (smartmontools nvmeprint.cpp)
_KEYS = {
    "Critical Warning": "critical_warning",
    "Temperature": "temperature",
    "Available Spare": "available_spare",
    "Available Spare Threshold": "available_spare_threshold",
    "Percentage Used": "percentage_used",
}
_LINE = re.compile(r"^(?P<label>[A-Za-z ]+?):\s+(?P<value>0x[0-9a-fA-F]+|\d+)(?:%| Celsius)?\s*$")


def excerpt_values() -> dict[str, int]:
    """The figures of the excerpt, by JSON key."""
    values = {}
    for line in (SMARTCTL / ISSUE_537).read_text().splitlines():
        match = _LINE.match(line)
        if match and match["label"] in _KEYS:
            values[_KEYS[match["label"]]] = int(match["value"], 0)
    return values


def issue_537_health() -> DiskHealth:
    """The failing PM1725a's real report with the health log of issue 537."""
    report: dict[str, Any] = json.loads((SMARTCTL / FAILED_NVME).read_text())
    values = excerpt_values()
    report["nvme_smart_health_information_log"].update(values)
    report["temperature"]["current"] = values["temperature"]
    bits = report["smart_status"]["nvme"]
    for warning in NvmeCriticalWarning:
        bits[warning.value] = False
    bits["reliability_degraded"] = True
    bits["value"] = values["critical_warning"]
    return parse_smartctl_json(json.dumps(report), "nvme0")


def test_the_excerpt_holds_the_issue_figures() -> None:
    assert excerpt_values() == {
        "critical_warning": 4,
        "temperature": 28,
        "available_spare": 100,
        "available_spare_threshold": 10,
        "percentage_used": 100,
    }


def test_the_parser_reads_a_worn_out_drive_with_reliability_degraded() -> None:
    health = issue_537_health()
    assert health.smart_passed is False
    assert health.endurance_used_pct == 100
    assert health.nvme is not None
    assert health.nvme.critical_warnings == [NvmeCriticalWarning.RELIABILITY_DEGRADED]
    assert health.temperature_c == 28


def test_the_failed_verdict_is_critical_and_carries_the_wear() -> None:
    """smartctl fails the drive on its critical warning: `disk.smart.failed` reports it with
    the warning and the 100 % endurance used; `disk.ssd.worn` leaves a failed drive to it."""
    findings, _ = run([issue_537_health()])
    [failed] = of_rule(findings, "disk.smart.failed")
    assert failed.severity.value == "critical"
    facts = {f.name: f.value for f in failed.evidence[0].facts}
    assert facts["critical warning"] == "reliability degraded"
    assert facts["endurance used"] == 100
    assert of_rule(findings, "disk.ssd.worn") == []
