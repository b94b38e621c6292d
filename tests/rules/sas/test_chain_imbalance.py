"""`sas.chain.imbalance` on the simulated chains of 4 and 2."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config, RuleSettings
from tests.rules.sas.conftest import run


def test_chains_of_4_and_2_give_the_balanced_layout_and_the_moves(
    inventories: dict[str, Inventory],
) -> None:
    findings, _ = run(inventories["all_dual_pathed"])
    assert [f.rule for f in findings] == ["sas.chain.imbalance"]
    finding = findings[0]
    assert "JBOD-001 → JBOD-003 → JBOD-007 → JBOD-012" in finding.entity.name
    assert finding.title == "Chains of 4 + 2 enclosures; balanced: 2 + 2 + 2"
    facts = finding.evidence[0].facts
    moves = [f.value for f in facts if f.name == "move"]
    assert moves == [
        "move JBOD-007 and JBOD-012 to a new chain cabled from 0000:03:00.0 SAS9300-8e "
        "connector 1 and 0000:04:00.0 SAS9300-8e connector 1"
    ]
    assert "3 chains of 2 + 2 + 2" in finding.remediation
    assert len(finding.evidence) == 1  # no statistics: no queue comparison


def test_a_chain_difference_within_the_threshold_is_accepted(
    inventories: dict[str, Inventory],
) -> None:
    config = Config(rules={"sas.chain.imbalance": RuleSettings(thresholds={"max_difference": 2})})
    findings, _ = run(inventories["all_dual_pathed"], config=config)
    assert findings == []
