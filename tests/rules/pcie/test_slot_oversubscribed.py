"""`pcie.slot.oversubscribed` on simulated hosts: a card on a link narrower than it was built for,
and cards behind one shared link (`tests/fixtures/specs/shared_pcie_link.toml`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.rules.base import RuleContext
from pinchpoint.simulator.snapshot_writer import write_snapshot
from pinchpoint.simulator.spec import spec_from_data
from tests.rules.pcie.conftest import findings


def test_dual_10gbe_at_x4_gen2_is_oversubscribed(hosts: dict[str, RuleContext]) -> None:
    """Two 10 GbE ports (20 Gb/s) on an x8 Gen2 card trained x4 (16 Gb/s): one finding,
    the lane fault as cause, the oversubscription as its consequence."""
    (finding,) = findings(hosts["degraded_network"])
    assert finding.rule == "pcie.link.downgraded"
    assert finding.entity.name == "0000:18:00.0 NIC ens1f0, ens1f1"
    assert [e.rule for e in finding.evidence] == [
        "pcie.link.downgraded",
        "pcie.slot.oversubscribed",
    ]
    facts = {f.name: f.value for f in finding.evidence[1].facts}
    assert facts["ports' combined data rate"] == 20.0
    assert facts["link data rate now"] == 16.0
    assert facts["link data rate built for"] == 32.0


def test_oversubscription_alone_when_the_slot_is_narrow(hosts: dict[str, RuleContext]) -> None:
    """A x8 card in a slot wired x4 is no downgrade, but its ports still exceed the link."""
    inventory = hosts["degraded_network"].inventory.model_copy(deep=True)
    for function in inventory.pcie.functions:
        if function.card_address == "0000:18:00" and function.upstream_link is not None:
            function.upstream_link.max_width = 4
    (finding,) = findings(RuleContext(inventory=inventory))
    assert finding.rule == "pcie.slot.oversubscribed"
    assert "20 Gb/s" in finding.evidence[0].summary


def test_a_card_at_its_own_maximum_is_not_oversubscribed(hosts: dict[str, RuleContext]) -> None:
    """The healthy host's SAS HBAs (8 phys at 12 Gb/s on x8 Gen3): the vendor's design."""
    context = hosts["all_dual_pathed"]
    assert context.inventory.sas.hbas and context.inventory.pcie.functions
    assert findings(context) == []


def shared_spec(**nic_changes: dict[str, Any]) -> dict[str, Any]:
    """shared_pcie_link.toml as data, with some NICs' fields changed (by NIC name)."""
    with open(SPECS / "shared_pcie_link.toml", "rb") as handle:
        data = tomllib.load(handle)
    for nic in data["nic"]:
        nic.update(nic_changes.get(nic["name"], {}))
        if nic_changes.get(nic["name"], {}).get("root_port", "") is None:
            del nic["root_port"]
    return data


def simulated_host(tmp_path: Path, data: dict[str, Any]) -> RuleContext:
    write_snapshot(spec_from_data(data), tmp_path / "host")
    return RuleContext(inventory=collect_inventory(SnapshotSource(tmp_path / "host")))


def test_two_cards_behind_one_link(hosts: dict[str, RuleContext]) -> None:
    """Two dual 25 GbE cards, each fine on its own x8 Gen3 link (50 of 63 Gb/s), hang from
    one bridge port whose link carries 63: 100 Gb/s of ports behind it."""
    (finding,) = findings(hosts["shared_pcie_link"])
    assert finding.rule == "pcie.slot.oversubscribed"
    assert finding.entity.id == "pci:0000:00:02.0"
    assert finding.entity.name == "0000:00:02.0 (NIC ens2f0, ens2f1; NIC ens3f0, ens3f1)"
    assert (
        finding.title == "0000:00:02.0: 2 devices need 100 Gb/s, their shared link carries 63 Gb/s"
    )
    (evidence,) = finding.evidence
    facts = {f.name: f.value for f in evidence.facts if f.entity is None}
    assert facts["devices' combined data rate"] == 100.0
    assert facts["shared link data rate now"] == 63.0
    assert facts["shared link"] == "8 GT/s x8"
    devices = [f for f in evidence.facts if f.entity is not None]
    assert [(f.entity.name, f.value) for f in devices if f.entity] == [
        ("0000:18:00.0 NIC ens2f0, ens2f1", 50.0),
        ("0000:19:00.0 NIC ens3f0, ens3f1", 50.0),
    ]


def test_the_same_cards_on_root_ports_of_their_own_are_fine(tmp_path: Path) -> None:
    data = shared_spec(**{name: {"root_port": None} for name in ("ens3f0", "ens3f1")})
    context = simulated_host(tmp_path, data)
    assert findings(context) == []


def test_the_functions_of_one_device_count_once(tmp_path: Path) -> None:
    """The second pair renumbered 0000:18:01.0/.1 — functions of the first card's device
    (one bus below the port, as ARI numbers them) — share that device's own link: the four
    ports are one card's design (100 Gb/s on a x8 Gen3 card), not two devices crowding a
    link, and the card runs at the link it was built for."""
    moved = {"ens3f0": {"pci_address": "0000:18:01.0"}, "ens3f1": {"pci_address": "0000:18:01.1"}}
    context = simulated_host(tmp_path, shared_spec(**moved))
    assert findings(context) == []


def test_a_narrow_shared_link_counts_each_device_at_most_at_its_own_link(
    hosts: dict[str, RuleContext],
) -> None:
    """With the second card trained x1 (7.9 Gb/s) it can send no more than that up the
    shared link: 50 + 7.9 = 57.9 of 63, no finding from the shared link (the x1 card's own
    downgrade is found on the card)."""
    inventory = hosts["shared_pcie_link"].inventory.model_copy(deep=True)
    for function in inventory.pcie.functions:
        if function.card_address == "0000:19:00":
            function.link.current_width = 1
    found = findings(RuleContext(inventory=inventory))
    assert {(f.rule, f.entity.name) for f in found} == {
        ("pcie.link.downgraded", "0000:19:00.0 NIC ens3f0, ens3f1")
    }
