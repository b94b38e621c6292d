"""`fc.queue_depth.low` on field case 2's simulated SAN host."""

from __future__ import annotations

from pathlib import Path

from tests.rules.conftest import findings, host_context


def test_field_case_2_lun_queue_depth_of_30_is_full(san_host: Path) -> None:
    found = findings(host_context(san_host), "fc.queue_depth.low")
    assert sorted(f.entity.name.split()[0] for f in found) == ["mpatha", "mpathb", "mpathc"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["queue depth per path"] == 30
    assert facts["lpfc_lun_queue_depth"] == 30
    assert isinstance(facts["queue reached"], float) and facts["queue reached"] >= 48


def test_queue_depth_64_is_not_low(san_host: Path) -> None:
    context = host_context(san_host)
    for port in context.inventory.fc.ports:
        port.luns = [lun.model_copy(update={"queue_depth": 64}) for lun in port.luns]
    assert findings(context, "fc.queue_depth.low") == []
