"""`disk.selftest.failed` on real self-test logs — a drive whose short and extended tests
read-failed at LBA 494591083 (SMART fails it too, so `disk.smart.failed` carries the test), and
passing logs that stay quiet — and on the simulated host of smart_faults.toml, whose SAS HDD
and SATA SSD pass SMART but failed their last self-test."""

from __future__ import annotations

import pytest

from pinchpoint.model.health import SelfTest, SelfTestKind, SelfTestOutcome
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config, RuleSettings
from tests.rules.disk.conftest import (
    FAILED_SATA,
    HEALTHY,
    MEDIA_WEAROUT_15,
    MEGARAID_SATA,
    SCT_LIMITS,
    health,
    judge_host,
    of_rule,
    rules_of,
    run,
)

RULE = "disk.selftest.failed"


@pytest.mark.parametrize("name", (*HEALTHY, SCT_LIMITS, MEGARAID_SATA))
def test_real_passing_self_test_logs_are_quiet(name: str) -> None:
    findings, _ = run([health(name)])
    assert of_rule(findings, RULE) == []


def test_a_real_failed_self_test_of_a_failing_disk_is_in_its_smart_finding() -> None:
    findings, _ = run([health(FAILED_SATA)])
    assert rules_of(findings) == ["disk.smart.failed"]
    evidence = findings[0].evidence[0]
    assert "its last self-test (Short offline) failed: Completed: read failure" in (
        evidence.summary
    )
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["first failing LBA"] == 494591083


def test_simulated_failed_self_tests(smart_faults: Inventory) -> None:
    found = {f.entity.name: f for f in of_rule(judge_host(smart_faults), RULE)}
    assert sorted(found) == ["JBOD-H slot 9 (SLOT 10)", "JBOD-S slot 8 (SLOT 09)"]
    sas = found["JBOD-H slot 9 (SLOT 10)"]
    assert sas.severity.value == "critical"
    facts = {f.name: f.value for f in sas.evidence[0].facts}
    assert facts["last self-test"] == "Background long"
    assert facts["result"] == "Failed in segment -->"
    assert facts["first failing LBA"] == 4200736
    assert facts["power-on hours since"] == 2
    sata = found["JBOD-S slot 8 (SLOT 09)"]
    assert "Extended offline" in sata.evidence[0].summary
    assert "Completed: read failure" in sata.evidence[0].summary


def test_no_recent_extended_test_is_information_when_configured() -> None:
    """The Samsung 860's last extended test ran 1884 power-on hours (78 days) before the
    capture, the HD204UI's 206 hours (8 days); the WD4000FYYX logged none."""
    config = Config(rules={RULE: RuleSettings(thresholds={"max_days_since_extended": 30})})
    disks = [
        health("scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json", "sda"),
        health(SCT_LIMITS, "sdb"),
        health(MEGARAID_SATA, "sdc"),
    ]
    findings, _ = run(disks, config=config)
    found = {f.entity.name.split(" ")[0]: f for f in of_rule(findings, RULE)}
    assert sorted(found) == ["sda", "sdc"]
    assert all(f.severity.value == "info" for f in found.values())
    facts = {f.name: f.value for f in found["sda"].evidence[0].facts}
    assert facts["days since the last extended test"] == 78
    assert "no passed extended self-test" in found["sdc"].evidence[0].summary
    assert "smartctl -t long /dev/sdc" in found["sdc"].remediation


def test_the_age_check_is_off_by_default() -> None:
    findings, _ = run([health(MEGARAID_SATA)])
    assert of_rule(findings, RULE) == []


def test_without_smart_data_the_rule_is_skipped_with_the_reason() -> None:
    findings, skipped = run()
    assert findings == []
    reasons = {s.rule: s.reason for s in skipped}
    assert reasons[RULE] == "no SMART data (smartctl not run or not installed)"


def test_log_hours_wrap_at_65536_on_old_drives() -> None:
    """The Intel S3500 has run 67,329 hours; its 16-bit self-test log counts from 0 again
    after 65,535, so a test logged at hour 1,700 ran 93 hours ago, not 65,629."""
    config = Config(rules={RULE: RuleSettings(thresholds={"max_days_since_extended": 30})})
    old = health(MEDIA_WEAROUT_15)
    assert old.power_on_hours == 67329
    old.self_tests = [
        SelfTest(
            kind=SelfTestKind.EXTENDED,
            description="Extended offline",
            outcome=SelfTestOutcome.PASSED,
            status="Completed without error",
            power_on_hours=67329 - 93 - 65536,
        )
    ]
    findings, _ = run([old], config=config)
    assert of_rule(findings, RULE) == []  # 93 hours is within 30 days
