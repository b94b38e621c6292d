"""`sas.enclosure.single_path` on a simulated host with one I/O module's cable pulled."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from tests.rules.sas.conftest import of_rule, run


def test_an_enclosure_with_one_of_two_paths_names_the_port_that_does_not_reach_it(
    inventories: dict[str, Inventory],
) -> None:
    inventory = inventories["all_dual_pathed"].model_copy(deep=True)
    # One I/O module's cable pulled, as the sweep would see it: JBOD-012 loses its B-side port.
    jbod = next(e for e in inventory.sas.enclosures if e.name == "JBOD-012")
    kept = "hba:0000:03:00.0/connector:0"
    assert kept in jbod.hba_port_ids and len(jbod.hba_port_ids) == 2
    jbod.hba_port_ids = [kept]
    jbod.hba_ports = 1
    findings, _ = run(inventory)
    single = of_rule(findings, "sas.enclosure.single_path")
    assert [f.entity.name for f in single] == ["JBOD-012"]
    evidence = single[0].evidence
    assert len(evidence) == 1  # no statistics: the topology alone
    facts = {f.name: f.value for f in evidence[0].facts}
    assert facts["paths present"] == 1
    assert facts["paths expected"] == 2
    assert facts["not reached through"] == "0000:81:00.0 SAS9300-8e connector 0"
    assert single[0].severity.value == "critical"
