"""`fc.lun.single_path` on the real CLARiiON capture, as captured and changed by hand."""

from __future__ import annotations

from fixture_paths import FIXTURES

from pinchpoint.model.fc import FcLun
from tests.rules.conftest import findings, host_context

CLARIION = FIXTURES / "fc" / "ucs-qla2432-clariion"


def test_clariion_luns_run_through_two_ports_of_one_card() -> None:
    """The real capture's two QLE2462 ports are functions .0 and .1 of one PCI device
    (0000:04:00): two adapters to the kernel, one card to fail."""
    found = findings(host_context(CLARIION, statistics=False), "fc.lun.single_path")
    assert found and all("one FC adapter card (0000:04:00)" in f.title for f in found)
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert (facts["adapters used"], facts["adapter cards used"]) == (2, 1)


def test_luns_with_paths_on_two_cards_are_redundant() -> None:
    context = host_context(CLARIION, statistics=False)
    second = context.inventory.fc.adapters[1]
    second.card_address = "0000:05:00"  # the second port on a card of its own
    assert findings(context, "fc.lun.single_path") == []


def test_luns_with_both_paths_on_one_adapter() -> None:
    context = host_context(CLARIION, statistics=False)
    first, second = context.inventory.fc.ports
    second.adapter_id = first.adapter_id
    found = findings(context, "fc.lun.single_path")
    assert found and all("one FC adapter" in f.title for f in found)
    assert {f.entity.name for f in found} >= {"L004 (360060160ade32800f2e3baf47665e211)"}


def test_controller_luns_are_not_counted() -> None:
    context = host_context(CLARIION, statistics=False)
    first, second = context.inventory.fc.ports
    second.luns = []
    first.luns = [
        lun.model_copy(update={"scsi_type": 12}) if isinstance(lun, FcLun) else lun
        for lun in first.luns
    ]
    assert findings(context, "fc.lun.single_path") == []
