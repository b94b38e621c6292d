"""The fleet rules over fleet facts (what a central service keeps per host) find exactly what
they found over whole inventories (`legacy_judges.py`, the judges before fleet facts): on a
mixed fleet of simulated clients (field case 3) and storage hosts (firmware behind), and on
every subset of it, the findings are equal field for field, in the same order."""

from __future__ import annotations

import itertools

import pytest

from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.derived.fleet_facts import fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from tests.rules.fleet.legacy_judges import LEGACY, legacy_findings
from tests.rules.fleet.mixed_fleet import mixed_fleet_inventories


@pytest.fixture(scope="module")
def mixed_fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    return mixed_fleet_inventories(tmp_path_factory)


def test_the_fleet_rules_over_facts_find_what_they_found_over_inventories(
    mixed_fleet: dict[str, Inventory],
) -> None:
    findings, skipped, ran = evaluate(fleet_context(fleet_facts(mixed_fleet)), FLEET_RULES)
    assert (skipped, ran) == ([], 2)
    assert {f.rule for f in findings} == set(LEGACY)  # both rules find something here
    assert len(findings) >= 5
    assert [f.model_dump() for f in findings] == [
        f.model_dump() for f in legacy_findings(mixed_fleet)
    ]


def test_every_subset_of_the_fleet_agrees(mixed_fleet: dict[str, Inventory]) -> None:
    names = sorted(mixed_fleet)
    compared = 0
    for size in range(3, len(names) + 1, 2):
        for subset in itertools.combinations(names, size):
            hosts = {n: mixed_fleet[n] for n in subset}
            new, _, _ = evaluate(fleet_context(fleet_facts(hosts)), FLEET_RULES)
            assert [f.model_dump() for f in new] == [f.model_dump() for f in legacy_findings(hosts)]
            compared += 1
    assert compared == 120 + 252 + 120 + 10  # sizes 3, 5, 7, 9 of ten hosts


def test_facts_taken_through_json_judge_the_same(mixed_fleet: dict[str, Inventory]) -> None:
    """What the store keeps is the facts' JSON: read back, they judge the same."""
    facts = fleet_facts(mixed_fleet)
    again = FleetFacts.model_validate_json(facts.model_dump_json())
    assert again == facts
    before = evaluate(fleet_context(facts), FLEET_RULES)[0]
    after = evaluate(fleet_context(again), FLEET_RULES)[0]
    assert [f.model_dump() for f in before] == [f.model_dump() for f in after]
