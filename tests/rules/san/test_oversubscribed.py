"""`san.oversubscribed` on field case 2's simulated SAN host."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.rules.config import parse_config
from tests.rules.conftest import SAN_RULES, findings, host_context


def test_field_case_2_is_an_oversubscribed_san(san_host: Path) -> None:
    found = findings(host_context(san_host), "san.oversubscribed")
    assert len(found) == 1
    finding = found[0]
    assert finding.entity.name == "db-san-01"
    facts = {f.name: f.value for f in finding.evidence[0].facts if f.entity is None}
    assert facts["LUNs slow while idle"] == 3
    assert facts["FC adapters"] == 2
    assert facts["recommended FC adapters"] == 4
    assert facts["aggregate FC bandwidth"] == 3200
    assert "2 → 4" in finding.remediation
    assert "mpatha" in finding.evidence[0].summary


def test_a_latency_limit_raised_above_the_wait_silences_oversubscribed(san_host: Path) -> None:
    config = parse_config(
        {"rules": {"san.oversubscribed": {"latency_ms": 1000}}}, SAN_RULES, "test.toml"
    )
    assert findings(host_context(san_host), "san.oversubscribed", config) == []
