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
