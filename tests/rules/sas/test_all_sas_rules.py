"""The SAS rules together (`pinchpoint.rules.sas.RULES`): nothing on healthy hosts, every one
skipped with the reason on a host without SAS."""

from __future__ import annotations

import pytest

from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import sas
from tests.rules.sas.conftest import run


@pytest.mark.parametrize("host", ["three_chains_of_two", "real"])
def test_a_healthy_host_gives_no_sas_finding(inventories: dict[str, Inventory], host: str) -> None:
    findings, skipped = run(inventories[host])
    assert findings == []
    assert [s.rule for s in skipped] == ["sas.phy.errors"]  # no earlier sweep


def test_a_host_without_sas_skips_every_sas_rule() -> None:
    empty = Inventory.model_validate({"host": {"source": "snapshot"}})
    findings, skipped = run(empty)
    assert findings == []
    assert {s.rule for s in skipped} == {r.id for r in sas.RULES}
    assert all("no SAS HBA on this host" in s.reason for s in skipped)
