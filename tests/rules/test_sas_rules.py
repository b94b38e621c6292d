"""The SAS rules on simulated hosts (`tests/fixtures/specs`) and on the real mpt3sas capture."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Phy
from pinchpoint.rules import sas
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, EntityOverride, RuleSettings
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

REAL_MPT3SAS = FIXTURES / "snapshots" / "procfs-mpt3sas"


@pytest.fixture(scope="module")
def inventories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    """The inventory of each simulated host these tests use, simulated once."""
    found = {}
    for name in (
        "three_chains_of_two",
        "all_dual_pathed",
        "disk_missing_one_path",
        "degraded_hba_phy",
        "mpi3mr_no_transport",
        "degraded_sas_port",
        "phy_errors_sweep1",
        "phy_errors_sweep2",
    ):
        out = tmp_path_factory.mktemp(name)
        write_snapshot(load_spec(SPECS / f"{name}.toml"), out)
        found[name] = collect_inventory(SnapshotSource(out))
    found["real"] = collect_inventory(SnapshotSource(REAL_MPT3SAS))
    return found


def run(
    inventory: Inventory, previous: Inventory | None = None, config: Config | None = None
) -> tuple[list[Finding], list[SkippedRule]]:
    """The SAS rules' findings and skipped rules for one host."""
    context = RuleContext(inventory=inventory, previous=previous)
    findings, skipped, _ = evaluate(context, sas.RULES, config)
    return findings, skipped


def of_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


@pytest.mark.parametrize("host", ["three_chains_of_two", "real"])
def test_a_healthy_host_gives_no_sas_finding(inventories: dict[str, Inventory], host: str) -> None:
    findings, skipped = run(inventories[host])
    assert findings == []
    assert [s.rule for s in skipped] == ["sas.phy.errors"]  # no earlier sweep


def test_the_real_12g_hba_on_a_6g_expander_is_not_a_downgraded_link(
    inventories: dict[str, Inventory],
) -> None:
    real = inventories["real"]
    slow = [
        p
        for h in real.sas.hbas
        for port in h.ports
        for p in port.phys
        if p.negotiated_gbps == 6.0 and p.maximum_hw_gbps == 12.0
    ]
    assert len(slow) == 4  # the capture does hold 12 G phys running at 6 G …
    findings, _ = run(real)
    assert of_rule(findings, "sas.link.downgraded") == []  # … by design: the expander is 6 G


def test_a_lane_slower_than_both_its_ends_is_a_downgraded_link(
    inventories: dict[str, Inventory],
) -> None:
    findings, _ = run(inventories["degraded_hba_phy"])
    assert [f.rule for f in findings] == ["sas.link.downgraded"]
    finding = findings[0]
    assert finding.entity.name == "0000:03:00.0 SAS9300-8e connector 0 phy 2"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["negotiated"] == 6.0
    assert facts["this end's maximum"] == 12.0
    assert facts["far end's maximum"] == 12.0


def test_an_enclosure_with_one_of_two_paths_names_the_port_that_does_not_reach_it(
    inventories: dict[str, Inventory],
) -> None:
    inventory = inventories["all_dual_pathed"].model_copy(deep=True)
    # One I/O module's cable pulled, as the sweep would see it: JBOD-012 loses its B-side port.
    jbod = next(e for e in inventory.sas.enclosures if e.name == "JBOD-012")
    kept = "hba:0000:03:00.0/connector:0"
    assert kept in jbod.hba_port_ids and len(jbod.hba_port_ids) == 2
    jbod.hba_port_ids = [kept]
    jbod.paths = 1
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


def test_both_paths_through_one_hba_is_no_adapter_redundancy(
    inventories: dict[str, Inventory],
) -> None:
    findings, _ = run(inventories["mpi3mr_no_transport"])
    same = of_rule(findings, "sas.enclosure.same_hba")
    assert [f.entity.name for f in same] == ["JBOD-A"]
    summary = same[0].evidence[0].summary
    assert "one adapter, 0000:03:00.0" in summary
    assert "0000:03:00.0 target 0x5000ccabc601e0fe" in summary
    assert of_rule(findings, "sas.enclosure.single_path") == []


def test_a_disk_missing_one_path_is_named_by_bay(inventories: dict[str, Inventory]) -> None:
    findings, _ = run(inventories["disk_missing_one_path"])
    assert [(f.rule, f.entity.name) for f in findings] == [
        ("sas.disk.missing_path", "JBOD-B slot 5 (SLOT 06)")
    ]
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts["paths"] == 1
    assert facts["paths of its peers"] == 2
    assert facts["not reached through"] == "0000:04:00.0 SAS9300-8e connector 0"
    assert len(findings[0].evidence[0].peers) == 23


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


def _drop_phy(inventory: Inventory, connector: int, phy_identifier: int) -> Inventory:
    """The inventory as the kernel shows a wide port whose lane lost its link: the phy leaves
    the port (`num_phys` falls) and idles."""
    changed = inventory.model_copy(deep=True)
    hba = changed.sas.hbas[0]
    port = next(p for p in hba.ports if p.connector == connector)
    phy = next(p for p in port.phys if p.phy_identifier == phy_identifier)
    port.phys.remove(phy)
    port.width -= 1
    lost = {"negotiated_gbps": None, "negotiated_text": "Unknown"}
    hba.idle_phys.append(Phy(**{**phy.model_dump(exclude={"link_up"}), **lost}))
    return changed


def test_a_wide_port_that_lost_a_lane_is_degraded(inventories: dict[str, Inventory]) -> None:
    inventory = _drop_phy(inventories["three_chains_of_two"], connector=0, phy_identifier=3)
    findings, _ = run(inventory)
    assert [f.rule for f in findings] == ["sas.port.degraded"]
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts == {
        "phys up": 3,
        "port width": 3,
        "connector lanes": 4,
        "peers' width": 4,
        "bandwidth lost": 25.0,
        "phy 3": "Unknown",
    }
    assert findings[0].entity.name.endswith("connector 0")


def test_a_narrow_port_to_a_disk_is_not_a_degraded_wide_port(
    inventories: dict[str, Inventory],
) -> None:
    real = inventories["real"]
    narrow = [p for h in real.sas.hbas for p in h.ports if p.width == 1]
    assert narrow  # the real capture has a disk cabled straight to one phy
    findings, _ = run(real)
    assert of_rule(findings, "sas.port.degraded") == []


def test_simulated_lanes_down_in_both_shapes(inventories: dict[str, Inventory]) -> None:
    """degraded_sas_port.toml: hba1's connector 0 was built without its lane 2 (a 3-wide
    port, the phy idle, "Unknown"); hba2's connector 1 keeps its switched-off lane 5 in the
    port ("Phy disabled"). Both are 3 of 4 lanes; nothing else of the SAS rules fires."""
    findings, _ = run(inventories["degraded_sas_port"])
    assert sorted((f.rule, f.entity.name) for f in findings) == [
        ("sas.port.degraded", "0000:03:00.0 SAS9300-8e connector 0"),
        ("sas.port.degraded", "0000:81:00.0 SAS9300-8e connector 1"),
    ]
    by_name = {f.entity.name: f.evidence[0] for f in findings}
    built_without = by_name["0000:03:00.0 SAS9300-8e connector 0"]
    facts = {f.name: f.value for f in built_without.facts}
    assert (facts["phys up"], facts["port width"], facts["connector lanes"]) == (3, 3, 4)
    assert facts["phy 2"] == "Unknown"
    assert "2 (Unknown, not in the port)" in built_without.summary
    switched_off = by_name["0000:81:00.0 SAS9300-8e connector 1"]
    facts = {f.name: f.value for f in switched_off.facts}
    assert (facts["phys up"], facts["port width"], facts["bandwidth lost"]) == (3, 4, 25.0)
    assert "5 (Phy disabled)" in switched_off.summary


def test_a_lane_down_on_the_only_expander_port_is_found_by_its_connector(
    tmp_path: Path,
) -> None:
    """One HBA connector to one JBOD, lane 1 found without link: no peer port to compare
    with, but the connector's fourth lane idles without link beside a 3-wide port."""
    data = {
        "hba": [{"name": "h1"}],
        "enclosure": [{"name": "E1", "bays": 4, "io_modules": 1}],
        "chain": [{"hba": "h1", "enclosures": ["E1"]}],
        "lane_down": [{"hba": "h1", "phy": 1}],
    }
    write_snapshot(spec_from_data(data), tmp_path / "host")
    findings, _ = run(collect_inventory(SnapshotSource(tmp_path / "host")))
    (finding,) = findings
    assert finding.rule == "sas.port.degraded"
    assert finding.title.endswith("connector 0: 3 of 4 phys up")
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert (facts["port width"], facts["connector lanes"], facts["peers' width"]) == (3, 4, 3)


def test_phy_errors_between_two_simulated_sweeps(inventories: dict[str, Inventory]) -> None:
    """phy_errors_sweep1.toml then phy_errors_sweep2.toml: hba1 phy 1's counters rose; the
    expander phy that kept its 3 old errors and hba2's phy whose counter was reset say
    nothing."""
    before, after = inventories["phy_errors_sweep1"], inventories["phy_errors_sweep2"]
    assert run(before)[0] == [] and run(after)[0] == []  # alone, old totals say nothing
    findings, skipped = run(after, previous=before)
    assert skipped == []
    (finding,) = findings
    assert finding.rule == "sas.phy.errors"
    assert finding.entity.name == "0000:03:00.0 SAS9300-8e connector 0 phy 1"
    assert finding.title.endswith("772 new phy errors since the last sweep")
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["invalid dword count"] == 400
    assert facts["running disparity error count"] == 368
    assert facts["loss of dword sync count"] == 4
    assert "phy reset problem count" not in facts
    findings, _ = run(after, previous=after)
    assert findings == []


def _with_errors(inventory: Inventory, invalid_dwords: int, disparity: int) -> Inventory:
    """The inventory with phy 1 of the first HBA port showing these counters."""
    changed = inventory.model_copy(deep=True)
    phy = changed.sas.hbas[0].ports[0].phys[1]
    phy.errors.invalid_dword_count = invalid_dwords
    phy.errors.running_disparity_error_count = disparity
    return changed


def test_phy_errors_rising_between_two_sweeps(inventories: dict[str, Inventory]) -> None:
    healthy = inventories["three_chains_of_two"]
    before = _with_errors(healthy, invalid_dwords=10, disparity=0)
    after = _with_errors(healthy, invalid_dwords=57, disparity=3)
    findings, skipped = run(after, previous=before)
    assert skipped == []
    assert [f.rule for f in findings] == ["sas.phy.errors"]
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts["invalid dword count"] == 47
    assert facts["running disparity error count"] == 3
    assert findings[0].entity.name == "0000:03:00.0 SAS9300-8e connector 0 phy 1"


def test_phy_errors_that_stay_or_were_reset_are_not_reported(
    inventories: dict[str, Inventory],
) -> None:
    healthy = inventories["three_chains_of_two"]
    same = _with_errors(healthy, invalid_dwords=10, disparity=2)
    findings, _ = run(same, previous=same)
    assert findings == []
    reset = _with_errors(healthy, invalid_dwords=0, disparity=0)  # counters went backwards
    findings, _ = run(reset, previous=same)
    assert findings == []


def test_phy_errors_without_an_earlier_sweep_are_skipped_with_the_reason(
    inventories: dict[str, Inventory],
) -> None:
    _, skipped = run(inventories["three_chains_of_two"])
    assert skipped == [
        SkippedRule(rule="sas.phy.errors", reason="no earlier sweep of this host to compare with")
    ]


def test_a_host_without_sas_skips_every_sas_rule() -> None:
    empty = Inventory.model_validate({"host": {"source": "snapshot"}})
    findings, skipped = run(empty)
    assert findings == []
    assert {s.rule for s in skipped} == {r.id for r in sas.RULES}
    assert all("no SAS HBA on this host" in s.reason for s in skipped)
