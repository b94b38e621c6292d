"""The SAN and FC rules together on field case 2's simulated SAN host: no FC configuration
finding, and the rules that need statistics skipped without them."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.rules.engine import evaluate
from tests.rules.conftest import SAN_RULES, findings, host_context


def test_field_case_2_has_no_fc_port_finding(san_host: Path) -> None:
    context = host_context(san_host)
    for rule in ("fc.port.not_online", "fc.port.downgraded"):
        assert findings(context, rule) == []


def test_field_case_2_luns_all_run_through_its_one_dual_port_card(san_host: Path) -> None:
    """One LPe32002 (two ports, functions .0 and .1 of one card): each LUN's two paths protect
    against a cable or a fabric, not against the card — too few FC adapters, field case 2's
    cause seen from the configuration side."""
    found = findings(host_context(san_host), "fc.lun.single_path")
    assert len(found) == 3
    assert all("one FC adapter card (0000:41:00)" in f.title for f in found)


def test_san_rules_without_statistics_are_skipped_not_passed(san_host: Path) -> None:
    _, skipped, _ = evaluate(host_context(san_host, statistics=False), SAN_RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert "no diskstats samples" in reasons["san.oversubscribed"]
    assert "no diskstats samples" in reasons["fc.queue_depth.low"]
