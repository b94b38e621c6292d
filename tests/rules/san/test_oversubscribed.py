"""`san.oversubscribed` on field case 2's simulated SAN host."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.model.findings import Severity
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import evaluate
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


def test_the_slow_luns_latency_findings_fold_into_the_san_cause(san_host: Path) -> None:
    """With the whole catalog, the LUNs' own critical latency findings are what the
    over-subscribed path does: they fold into its finding, which takes their severity."""
    found, _, _ = evaluate(host_context(san_host), CATALOG)
    (cause,) = [f for f in found if f.rule == "san.oversubscribed"]
    folded = {r.split("@", 1)[0] for r in cause.related}
    assert {"latency.threshold", "latency.disk.overwhelmed"} <= folded
    assert cause.severity is Severity.CRITICAL
    assert {e.rule for e in cause.evidence} >= {"san.oversubscribed", *folded}
    luns = {f.entity.id for f in found if f.rule.startswith("latency.")}
    assert not luns & {r.split("@", 1)[1] for r in cause.related}  # not left standing too
