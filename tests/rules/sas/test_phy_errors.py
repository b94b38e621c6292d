"""`sas.phy.errors` between two sweeps, simulated and made up."""

from __future__ import annotations

from pinchpoint.model.findings import SkippedRule
from pinchpoint.model.inventory import Inventory
from tests.rules.sas.conftest import run


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
