"""`disk.ssd.worn` on real captures — an Intel DC S3500 whose Media_Wearout_Indicator is 15
(85 % used), an NVMe P4500 at 75 % (below the line), healthy SSDs — and on the simulated host
of smart_faults.toml: SATA SSDs at 97 % and 85 % and an NVMe SSD at 90 %."""

from __future__ import annotations

import json

import pytest

from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config, RuleSettings
from tests.rules.disk.conftest import (
    HEALTHY,
    MEDIA_WEAROUT_15,
    NVME_USED_75,
    SMARTCTL,
    health,
    judge_host,
    of_rule,
    run,
)

RULE = "disk.ssd.worn"


@pytest.mark.parametrize("name", (*HEALTHY, NVME_USED_75))
def test_real_drives_with_life_left_are_quiet(name: str) -> None:
    findings, _ = run([health(name)])
    assert of_rule(findings, RULE) == []


def test_media_wearout_indicator_15_is_a_warning() -> None:
    findings, _ = run([health(MEDIA_WEAROUT_15, "sdf")])
    [finding] = of_rule(findings, RULE)
    assert finding.severity.value == "warning"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["endurance used"] == 85
    assert str(facts["read from"]).startswith("attribute 233 Media_Wearout_Indicator")
    assert facts["spare left"] == 100
    assert facts["power-on hours"] == 67329
    assert "85 % of its rated endurance used (warning at 80 %)" in finding.evidence[0].summary


def test_the_lines_are_configurable() -> None:
    config = Config(rules={RULE: RuleSettings(thresholds={"warning_pct": 70, "critical_pct": 85})})
    disks = [health(MEDIA_WEAROUT_15, "sdf"), health(NVME_USED_75, "nvme6")]
    findings, _ = run(disks, config=config)
    severity = {f.entity.name.split(" ")[0]: f.severity.value for f in of_rule(findings, RULE)}
    assert severity == {"sdf": "critical", "nvme6": "warning"}


def test_nvme_spare_below_its_threshold_is_critical() -> None:
    """The P4500's spare set below its threshold of 10 (smartctl's own verdict left as
    captured, so the drive is judged here and not by disk.smart.failed)."""
    report = json.loads((SMARTCTL / NVME_USED_75).read_text())
    report["nvme_smart_health_information_log"]["available_spare"] = 4
    findings, _ = run([parse_smartctl_json(json.dumps(report), "nvme6")])
    [finding] = of_rule(findings, RULE)
    assert finding.severity.value == "critical"
    assert "spare 4 % below the drive's threshold 10 %" in finding.evidence[0].summary


def test_simulated_worn_ssds(smart_faults: Inventory) -> None:
    found = {f.entity.name: f.severity.value for f in of_rule(judge_host(smart_faults), RULE)}
    assert found == {
        "JBOD-S slot 2 (SLOT 03)": "critical",
        "JBOD-S slot 5 (SLOT 06)": "warning",
        "nvme0 (Micron_7300_MTFDHBE1T6TDG MSAASW574UT)": "warning",
    }


def test_without_smart_data_the_rule_is_skipped_with_the_reason() -> None:
    findings, skipped = run()
    assert findings == []
    reasons = {s.rule: s.reason for s in skipped}
    assert reasons[RULE] == "no SMART data (smartctl not run or not installed)"
