"""`sas.link.downgraded` on simulated hosts and the real mpt3sas capture."""

from __future__ import annotations

import re

from pinchpoint.cli.inventory_view import port_label
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Phy
from tests.rules.sas.conftest import of_rule, run


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
    assert finding.title == "0000:03:00.0 SAS9300-8e connector 0 phy 2 runs at 6 Gb/s of 12 Gb/s"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["negotiated"] == 6.0
    assert facts["this end's maximum"] == 12.0
    assert facts["far end's maximum"] == 12.0


# -- one judgement for the rule and the terminal's inventory view ---------------------------


def _marked_by_the_view(inventory: Inventory) -> set[str]:
    """The HBA phys `pinchpoint inventory` marks "below what both ends support"."""
    marked: set[str] = set()
    for hba in inventory.sas.hbas:
        for port in hba.ports:
            found = re.search(r"phy ([\d, ]+) below what both ends support", port_label(port).plain)
            if found is not None:
                ids = {int(n) for n in found[1].split(", ")}
                marked |= {p.id for p in port.phys if p.phy_identifier in ids}
    return marked


def _found_by_the_rule(inventory: Inventory) -> set[str]:
    """The HBA port phys `sas.link.downgraded` finds (the view draws no idle or expander phy)."""
    hba_phys = {p.id for h in inventory.sas.hbas for port in h.ports for p in port.phys}
    findings, _ = run(inventory)
    return {f.entity.id for f in of_rule(findings, "sas.link.downgraded")} & hba_phys


def _slow_hba_phys(inventory: Inventory) -> list[Phy]:
    return [
        p
        for h in inventory.sas.hbas
        for port in h.ports
        for p in port.phys
        if p.negotiated_gbps is not None
        and p.maximum_hw_gbps is not None
        and p.negotiated_gbps < p.maximum_hw_gbps
    ]


def test_the_rule_and_the_inventory_view_agree_on_the_real_capture(
    inventories: dict[str, Inventory],
) -> None:
    """The real capture's 12 G HBA phys on a 6 G expander: neither calls them downgraded."""
    real = inventories["real"]
    assert len(_slow_hba_phys(real)) == 4
    assert _marked_by_the_view(real) == _found_by_the_rule(real) == set()


def test_the_rule_and_the_inventory_view_agree_on_a_slow_lane(
    inventories: dict[str, Inventory],
) -> None:
    inventory = inventories["degraded_hba_phy"]
    marked = _marked_by_the_view(inventory)
    assert len(marked) == 1 and marked == _found_by_the_rule(inventory)


def test_the_rule_and_the_inventory_view_agree_where_they_used_to_differ(
    inventories: dict[str, Inventory],
) -> None:
    """A far end whose maximum is unknown (no verdict: the view used to mark it) and a phy that
    reports only its programmed maximum (judged by it: the view used to skip it)."""
    unknown = inventories["real"].model_copy(deep=True)
    for phy in _slow_hba_phys(unknown):
        phy.far_end_max_gbps = None
    assert _marked_by_the_view(unknown) == _found_by_the_rule(unknown) == set()
    programmed = inventories["degraded_hba_phy"].model_copy(deep=True)
    for phy in _slow_hba_phys(programmed):
        phy.maximum_gbps, phy.maximum_hw_gbps = phy.maximum_hw_gbps, None
    marked = _marked_by_the_view(programmed)
    assert len(marked) == 1 and marked == _found_by_the_rule(programmed)
