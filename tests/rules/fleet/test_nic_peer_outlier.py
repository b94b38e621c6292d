"""`fleet.nic.peer_outlier` through the engine: on a fleet of simulated clients
(`tests/fixtures/specs/fleet_client.toml`, field case 3) one NIC at 100 Mb/s among identical
NICs at 1000; on one host alone the rule is skipped with the reason."""

from __future__ import annotations

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG, FLEET_RULES
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.derived.fleet_facts import fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.rules.fleet import nic_peer_outlier
from pinchpoint.simulator import load_spec, write_snapshot

RULE = "fleet.nic.peer_outlier"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    """Four clients; client-03's switch port offers only 10/100."""
    base = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    found = {}
    for number in range(1, 5):
        name = f"client-{number:02d}"
        text = base.replace('"client-01"', f'"{name}"')
        if number == 3:
            text = text.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
        spec = tmp_path_factory.mktemp(name) / "spec.toml"
        spec.write_text(text, encoding="utf-8")
        write_snapshot(load_spec(spec), spec.parent / "snapshot")
        found[name] = collect_inventory(SnapshotSource(spec.parent / "snapshot"))
    return found


NIC_RULE = [nic_peer_outlier.RULE]


def test_the_fleet_rules_are_in_the_catalog() -> None:
    assert [r.id for r in FLEET_RULES] == [RULE, "fleet.firmware.mismatch"]
    assert all(r in CATALOG and r.category == "fleet" for r in FLEET_RULES)


def test_one_nic_slower_than_its_identical_peers_on_the_other_hosts(
    fleet: dict[str, Inventory],
) -> None:
    findings, skipped, ran = evaluate(fleet_context(fleet_facts(fleet)), NIC_RULE)
    assert (skipped, ran) == ([], 1)
    (finding,) = findings
    nic = next(n for n in fleet["client-03"].network.nics if n.name == "eno1")
    assert finding.id == f"{RULE}@client-03/{nic.id}"  # the host in the id: one per host
    assert finding.entity.id == nic.id and finding.entity.name == "eno1 on client-03"
    assert finding.severity is Severity.WARNING
    assert finding.title == (
        "eno1 on client-03 runs at 100 Mb/s; most identical NICs in the fleet run at 1 Gb/s"
    )
    (evidence,) = finding.evidence
    assert evidence.rule == RULE  # stamped by the engine
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["host"] == "client-03" and facts["peers' speed"] == 1000
    assert sorted(p.name for p in evidence.peers) == [
        "eno1 on client-01",
        "eno1 on client-02",
        "eno1 on client-04",
    ]


def test_two_hosts_are_too_few_to_stand_out(fleet: dict[str, Inventory]) -> None:
    two = {name: fleet[name] for name in ("client-01", "client-03")}
    findings, _, ran = evaluate(fleet_context(fleet_facts(two)), NIC_RULE)
    assert findings == [] and ran == 1


def test_the_config_applies_to_the_fleet_rule(fleet: dict[str, Inventory]) -> None:
    nic = next(n for n in fleet["client-03"].network.nics if n.name == "eno1")
    data = {
        "rules": {RULE: {"severity": "critical"}},
        "mute": [{"rule": RULE, "entity": nic.id, "reason": "cable ordered"}],
    }
    config = parse_config(data, CATALOG, "test.toml")
    (finding,) = evaluate(fleet_context(fleet_facts(fleet)), NIC_RULE, config)[0]
    assert finding.severity is Severity.CRITICAL
    assert finding.muted is not None and finding.muted.reason == "cable ordered"


def test_on_one_host_the_fleet_rule_is_skipped_with_the_reason(
    fleet: dict[str, Inventory],
) -> None:
    findings, skipped, _ = evaluate(RuleContext(inventory=fleet["client-03"]), NIC_RULE)
    assert findings == []
    (skip,) = skipped
    assert skip.rule == RULE and "runs on a central service across hosts" in skip.reason
