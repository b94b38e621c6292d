"""The fleet rules over fleet facts (what a central service keeps per host) find exactly what
they found over whole inventories (`legacy_judges.py`, the judges before fleet facts): on a
mixed fleet of simulated clients (field case 3) and storage hosts (firmware behind), and on
every subset of it, the findings are equal field for field, in the same order."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Mapping

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.base import Hit, Limits, RuleContext
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.derived.fleet_facts import fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.simulator import load_spec, write_snapshot
from tests.rules.fleet import legacy_judges

STORAGE = """
[host]
hostname = "{name}"

[[hba]]
name = "hba1"
firmware = "{hba}"

[[enclosure]]
name = "JBOD-A"
bays = {bays}

[enclosure.disk]
revision = "{disk}"

[[chain]]
hba = "hba1"
enclosures = ["JBOD-A"]
"""


def _snapshot_inventory(tmp: pytest.TempPathFactory, name: str, text: str) -> Inventory:
    spec = tmp.mktemp(name) / "spec.toml"
    spec.write_text(text, encoding="utf-8")
    write_snapshot(load_spec(spec), spec.parent / "snapshot")
    return collect_inventory(SnapshotSource(spec.parent / "snapshot"))


@pytest.fixture(scope="module")
def mixed_fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    """Five clients (two at 100 Mb/s) and five storage hosts with disks and HBAs at two or
    three levels, one of them with another disk count (another capacity, another model)."""
    client = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    found = {}
    for number in range(1, 6):
        name = f"client-{number:02d}"
        text = client.replace('"client-01"', f'"{name}"')
        if number in (2, 5):
            text = text.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
        found[name] = _snapshot_inventory(tmp_path_factory, name, text)
    levels = {
        "store-01": ("16.00.12.00", "A3D0", 6),
        "store-02": ("16.00.12.00", "A3D0", 6),
        "store-03": ("16.00.12.00", "A1G0", 6),
        "store-04": ("16.00.10.00", "A3D0", 6),
        "store-05": ("16.00.08.00", "A2B0", 4),
    }
    for name, (hba, disk, bays) in levels.items():
        text = STORAGE.format(name=name, hba=hba, disk=disk, bays=bays)
        found[name] = _snapshot_inventory(tmp_path_factory, name, text)
    return found


LegacyJudge = Callable[[Mapping[str, Inventory]], Iterator[Hit]]
LEGACY: dict[str, LegacyJudge] = {
    "fleet.nic.peer_outlier": legacy_judges.nic_peer_outlier,
    "fleet.firmware.mismatch": legacy_judges.firmware_mismatch,
}


def _legacy(hosts: Mapping[str, Inventory]) -> list[Finding]:
    """The findings of the judges before fleet facts, through the same engine and catalog."""

    def judge_of(old: LegacyJudge) -> Callable[[RuleContext, Limits], Iterator[Hit]]:
        return lambda _context, _limits: old(hosts)

    rules = [dataclasses.replace(r, judge=judge_of(LEGACY[r.id])) for r in FLEET_RULES]
    context = fleet_context(FleetFacts(hosts=sorted(hosts)))  # the input is present
    findings, skipped, _ = evaluate(context, rules)
    assert skipped == []
    return findings


def test_the_fleet_rules_over_facts_find_what_they_found_over_inventories(
    mixed_fleet: dict[str, Inventory],
) -> None:
    findings, skipped, ran = evaluate(fleet_context(fleet_facts(mixed_fleet)), FLEET_RULES)
    assert (skipped, ran) == ([], 2)
    assert {f.rule for f in findings} == set(LEGACY)  # both rules find something here
    assert len(findings) >= 5
    assert [f.model_dump() for f in findings] == [f.model_dump() for f in _legacy(mixed_fleet)]


def test_every_subset_of_the_fleet_agrees(mixed_fleet: dict[str, Inventory]) -> None:
    names = sorted(mixed_fleet)
    compared = 0
    for size in range(3, len(names) + 1, 2):
        for subset in itertools.combinations(names, size):
            hosts = {n: mixed_fleet[n] for n in subset}
            new, _, _ = evaluate(fleet_context(fleet_facts(hosts)), FLEET_RULES)
            assert [f.model_dump() for f in new] == [f.model_dump() for f in _legacy(hosts)]
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
