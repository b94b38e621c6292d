"""`sas.disk.missing_path` on a simulated host with one disk missing a path."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from tests.rules.sas.conftest import run


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
