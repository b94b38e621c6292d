"""`sas.port.degraded`: lanes down in both shapes the kernel shows them, and narrow ports that
are no fault."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Phy
from pinchpoint.simulator import spec_from_data, write_snapshot
from tests.rules.sas.conftest import of_rule, run


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
