"""`sas.chain.too_deep` with its maximum set host-wide and per chain."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config, EntityOverride, RuleSettings
from tests.rules.sas.conftest import of_rule, run


def test_a_chain_deeper_than_the_configured_maximum(inventories: dict[str, Inventory]) -> None:
    inventory = inventories["all_dual_pathed"]
    config = Config(rules={"sas.chain.too_deep": RuleSettings(thresholds={"max_enclosures": 3})})
    findings, _ = run(inventory, config=config)
    deep = of_rule(findings, "sas.chain.too_deep")
    assert len(deep) == 2  # the chain of 4, seen from its A and its B side
    assert all(f.title == "4 enclosures in one chain (at most 3)" for f in deep)
    # Overridden for one of the two ports, only the other is reported.
    override = EntityOverride(entity=deep[0].entity.id, thresholds={"max_enclosures": 4})
    config.rules["sas.chain.too_deep"].overrides.append(override)
    findings, _ = run(inventory, config=config)
    assert [f.entity.id for f in of_rule(findings, "sas.chain.too_deep")] == [deep[1].entity.id]
