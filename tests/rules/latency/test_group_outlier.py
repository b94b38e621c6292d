"""`latency.group.outlier` on field case 1 (the demo): the two single-pathed JBODs stand out, and
their finding joins the missing cable's."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES
from tests.rules.latency.conftest import findings


def test_field_case_1_the_two_single_pathed_jbods_stand_out(demo: RuleContext) -> None:
    found = findings(demo, "latency.group.outlier")
    assert sorted(f.entity.name for f in found) == ["JBOD-003", "JBOD-012"]
    evidence = found[0].evidence[0]
    assert "1 path of 2, chain of 4" in evidence.summary
    assert len(evidence.peers) == 5
    facts = {f.name: f.value for f in evidence.facts if f.entity is None}
    assert isinstance(facts["queue per disk"], float) and facts["queue per disk"] > 2 * float(
        str(facts["peers' median queue per disk"])
    )


def test_the_demo_latency_folds_into_the_single_path_finding(demo: RuleContext) -> None:
    found, _, _ = evaluate(demo, CATALOG)
    single = [f for f in found if f.rule == "sas.enclosure.single_path"]
    assert sorted(f.entity.name for f in single) == ["JBOD-003", "JBOD-012"]
    for finding in single:
        assert f"latency.group.outlier@{finding.entity.id}" in finding.related
        assert "latency.group.outlier" in {e.rule for e in finding.evidence}
    assert not [f for f in found if f.category in ("latency", "queue")]


def test_outlier_limits_are_configurable(demo: RuleContext) -> None:
    config = parse_config(
        {"rules": {"latency.group.outlier": {"min_ratio": 10.0}}}, RULES, "test.toml"
    )
    assert findings(demo, "latency.group.outlier", config) == []


def test_group_outlier_needs_statistics(demo: RuleContext) -> None:
    bare = RuleContext(inventory=demo.inventory)
    _, skipped, _ = evaluate(bare, RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert "no diskstats samples" in reasons["latency.group.outlier"]


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/*.toml --------------------


def test_an_ahci_controller_whose_disks_wait_longer_than_its_peers(
    ahci_three: RuleContext,
) -> None:
    (found,) = findings(ahci_three, "latency.group.outlier")
    assert found.entity.kind.value == "controller"
    assert found.entity.name == "AHCI 0000:06:00.0"
    assert [p.name for p in found.evidence[0].peers] == ["AHCI 0000:00:17.0", "AHCI 0000:05:00.0"]
    facts = {f.name: f.value for f in found.evidence[0].facts}
    assert facts["disks measured"] == 3
    assert "PCIe link" in found.remediation  # a controller's fix, not a SAS cabling one


def test_single_disk_controllers_are_left_to_the_disk_rule(nvme_healthy: RuleContext) -> None:
    """An NVMe controller holds one drive: comparing controllers would repeat
    latency.disk.outlier; the healthy host is quiet."""
    assert findings(nvme_healthy, "latency.group.outlier") == []
