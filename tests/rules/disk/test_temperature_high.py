"""`disk.temperature.high` on real smartctl captures (healthy drives and their own limits stay
quiet) and on the simulated host of smart_faults.toml: a drive 20 °C above its enclosure peers,
one over its trip temperature, a SATA SSD over its SCT limit."""

from __future__ import annotations

import pytest

from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config, RuleSettings
from tests.rules.disk.conftest import (
    HEALTHY,
    SCT_LIMITS,
    health,
    judge_host,
    of_rule,
    run,
)

RULE = "disk.temperature.high"


@pytest.mark.parametrize("name", (*HEALTHY, SCT_LIMITS))
def test_real_drives_within_their_limits_are_quiet(name: str) -> None:
    findings, _ = run([health(name)])
    assert of_rule(findings, RULE) == []


def test_a_configured_maximum_applies_to_real_drives() -> None:
    """The HD204UI reads 27 °C with SCT limits 80/85: quiet, until the site says 25 °C."""
    config = Config(rules={RULE: RuleSettings(thresholds={"max_c": 25})})
    findings, _ = run([health(SCT_LIMITS)], config=config)
    [finding] = of_rule(findings, RULE)
    assert finding.severity.value == "warning"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["temperature"] == 27
    assert facts["drive's warning limit"] == 80
    assert facts["drive's critical limit"] == 85
    assert "at or over the configured maximum 25 °C" in finding.evidence[0].summary


def test_simulated_hot_drives_are_named_by_slot(smart_faults: Inventory) -> None:
    found = {f.entity.name: f for f in of_rule(judge_host(smart_faults), RULE)}
    assert sorted(found) == [
        "JBOD-H slot 4 (SLOT 05)",
        "JBOD-H slot 7 (SLOT 08)",
        "JBOD-S slot 11 (SLOT 12)",
    ]
    over_trip = found["JBOD-H slot 7 (SLOT 08)"]
    assert over_trip.severity.value == "critical"
    assert "critical (trip) limit 85 °C" in over_trip.evidence[0].summary
    assert "shutdown limit" in over_trip.remediation

    peer = found["JBOD-H slot 4 (SLOT 05)"]
    assert peer.severity.value == "warning"
    facts = {f.name: f.value for f in peer.evidence[0].facts}
    assert facts["peers with a reading"] == 11
    assert 31 <= facts["median of enclosure peers"] <= 36  # 31 °C plus up to 5 per drive
    assert facts["above the peers' median"] >= 10
    assert "other drives in JBOD-H" in peer.evidence[0].summary
    assert len(peer.evidence[0].peers) == 11
    assert all(p.name.startswith("JBOD-H slot ") for p in peer.evidence[0].peers)

    # the enclosure's own sensors as context (the simulated SES pages read 31 °C and up)
    sensors = {n: v for n, v in facts.items() if n.startswith("enclosure sensor ")}
    assert sensors and all(isinstance(v, int | float) and 0 < v < 80 for v in sensors.values())

    sct = found["JBOD-S slot 11 (SLOT 12)"]
    assert sct.severity.value == "warning"
    assert "warning limit 60 °C" in sct.evidence[0].summary


def test_the_peer_margin_is_configurable(smart_faults: Inventory) -> None:
    config = Config(rules={RULE: RuleSettings(thresholds={"above_peers_c": 25})})
    names = [f.entity.name for f in of_rule(judge_host(smart_faults, config), RULE)]
    assert "JBOD-H slot 4 (SLOT 05)" not in names  # 17–22 °C above: within 25
    assert "JBOD-H slot 7 (SLOT 08)" in names  # over its trip whatever the margin


def test_too_few_peers_are_not_compared(smart_faults: Inventory) -> None:
    config = Config(rules={RULE: RuleSettings(thresholds={"min_peers": 12})})
    names = [f.entity.name for f in of_rule(judge_host(smart_faults, config), RULE)]
    assert "JBOD-H slot 4 (SLOT 05)" not in names


def test_without_smart_data_the_rule_is_skipped_with_the_reason() -> None:
    findings, skipped = run()
    assert findings == []
    reasons = {s.rule: s.reason for s in skipped}
    assert reasons[RULE] == "no SMART data (smartctl not run or not installed)"


def test_a_drive_reported_twice_is_compared_with_the_other_drives_alone(
    smart_faults: Inventory,
) -> None:
    """Two reports of one drive (its id twice among its enclosure's readings): neither is one
    of its peers, and the median is the other drives' as with one report."""
    inventory = smart_faults.model_copy(deep=True)
    once = {f.entity.name: f for f in of_rule(judge_host(inventory), RULE)}
    hot = once["JBOD-H slot 4 (SLOT 05)"]
    [report] = [h for h in inventory.health.disks if h.id == hot.entity.id]
    inventory.health.disks.append(report.model_copy(update={"temperature_c": 20}))
    twice = {f.entity.name: f for f in of_rule(judge_host(inventory), RULE)}
    facts = {f.name: f.value for f in twice["JBOD-H slot 4 (SLOT 05)"].evidence[0].facts}
    assert facts["peers with a reading"] == 11
    assert twice["JBOD-H slot 4 (SLOT 05)"].evidence == hot.evidence
