"""`sas.enclosure.same_hba` on a simulated host whose enclosure is cabled to one HBA twice."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from tests.rules.sas.conftest import of_rule, run


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


def test_two_functions_of_one_card_are_one_adapter(inventories: dict[str, Inventory]) -> None:
    """Both chains of a JBOD pair on two HBAs — but the two HBAs are functions .0 and .1 of one
    card: one card, its slot and its firmware to fail."""
    inventory = inventories["disk_missing_one_path"].model_copy(deep=True)
    second = inventory.sas.hbas[1]
    assert (inventory.sas.hbas[0].pci_address, second.pci_address) == (
        "0000:03:00.0",
        "0000:04:00.0",
    )
    assert of_rule(run(inventory)[0], "sas.enclosure.same_hba") == []
    second.pci_address = "0000:03:00.1"
    same = of_rule(run(inventory)[0], "sas.enclosure.same_hba")
    assert sorted(f.entity.name for f in same) == ["JBOD-A", "JBOD-B"]
    assert all("card 0000:03:00" in f.title for f in same)
