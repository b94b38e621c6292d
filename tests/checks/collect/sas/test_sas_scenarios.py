"""End to end on simulated hosts: spec → snapshot (kernel layout, sg_ses text) → inventory.

Real captures cannot show these cases; the project's simulator writes them in the real layout.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.sas import Enclosure
from pinchpoint.simulator import demo_spec, load_spec, spec_from_data, write_snapshot


def simulate(tmp: Path, spec_name: str | None) -> Path:
    spec = demo_spec() if spec_name is None else load_spec(SPECS / f"{spec_name}.toml")
    out = tmp / (spec_name or "demo")
    write_snapshot(spec, out)
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    return collect_inventory(SnapshotSource(simulate(tmp_path_factory.mktemp("demo"), None)))


def scenario(tmp_path: Path, name: str) -> Inventory:
    return collect_inventory(SnapshotSource(simulate(tmp_path, name)))


def by_name(inventory: Inventory) -> dict[str, Enclosure]:
    return {e.name: e for e in inventory.sas.enclosures}


# -- field case 1: the demo host ---------------------------------------------------------------


def test_demo_has_three_hbas_six_jbods_and_360_disks(demo: Inventory) -> None:
    fabric = demo.sas
    assert len(fabric.hbas) == 3
    assert sorted(by_name(demo)) == [
        "JBOD-001",
        "JBOD-002",
        "JBOD-003",
        "JBOD-007",
        "JBOD-00B",
        "JBOD-012",
    ]
    assert len(fabric.disks) == 360
    assert fabric.path_count == 6 * 60 + 4 * 60
    assert sum(len(e.ses_devices) for e in fabric.enclosures) == 10
    # each I/O module cabled: a main expander and two sub-expanders of the H4060-J
    assert len(fabric.expanders) == 10 * 3
    assert {x.product for x in fabric.expanders} == {"4U60_STOR_ENCL"}
    # The simulator draws the SAS fabric only: those parts read clean, the others say why not.
    assert [p for p in demo.problems if p.part in ("sas", "ses", "enclosure")] == []
    assert {p.part for p in demo.problems} <= {"network", "health"}


def test_demo_jbods_003_and_012_have_one_path_of_two(demo: Inventory) -> None:
    enclosures = by_name(demo)
    for name in ("JBOD-003", "JBOD-012"):
        assert (enclosures[name].hba_ports, enclosures[name].hba_ports_expected) == (1, 2)
        # the H4060-J has three expanders per I/O module: the reason counts the modules
        assert enclosures[name].hba_ports_expected_reason == (
            "its SES configuration declares 2 I/O modules"
        )
        assert enclosures[name].io_modules == 2
    for name in ("JBOD-001", "JBOD-002", "JBOD-007", "JBOD-00B"):
        assert (enclosures[name].hba_ports, enclosures[name].hba_ports_expected) == (2, 2)


def cabled_through_module_a(
    tmp_path: Path, *, io_modules: int, expanders_per_io_module: int
) -> Enclosure:
    """A small JBOD cabled to one HBA through its I/O module A only, as collected."""
    spec = spec_from_data(
        {
            "host": {"hostname": "one-jbod"},
            "hba": [{"name": "hba1", "pci_address": "0000:03:00.0"}],
            "enclosure": [
                {
                    "name": "JBOD-1",
                    "bays": 4,
                    "io_modules": io_modules,
                    "expanders_per_io_module": expanders_per_io_module,
                }
            ],
            "chain": [{"hba": "hba1", "io_module": "A", "enclosures": ["JBOD-1"]}],
        }
    )
    write_snapshot(spec, tmp_path / "one-jbod")
    (enclosure,) = collect_inventory(SnapshotSource(tmp_path / "one-jbod")).sas.enclosures
    return enclosure


def test_a_two_module_single_expander_jbod_expects_two_paths(tmp_path: Path) -> None:
    enclosure = cabled_through_module_a(tmp_path, io_modules=2, expanders_per_io_module=1)
    assert (enclosure.hba_ports, enclosure.hba_ports_expected) == (1, 2)
    assert enclosure.hba_ports_expected_reason == "its SES configuration declares 2 I/O modules"


def test_a_one_module_jbod_of_three_expanders_expects_one_path(tmp_path: Path) -> None:
    enclosure = cabled_through_module_a(tmp_path, io_modules=1, expanders_per_io_module=3)
    assert (enclosure.hba_ports, enclosure.hba_ports_expected, enclosure.io_modules) == (1, 1, 1)


def test_demo_disks_carry_their_enclosure_hba_port_count(demo: Inventory) -> None:
    enclosures = {e.id: e.name for e in demo.sas.enclosures}
    per_enclosure = Counter(
        (enclosures[d.enclosure_id], d.hba_ports) for d in demo.sas.disks if d.enclosure_id
    )
    assert per_enclosure[("JBOD-003", 1)] == 60
    assert per_enclosure[("JBOD-012", 1)] == 60
    assert per_enclosure[("JBOD-001", 2)] == 60
    dual = demo.sas.disks[0]
    assert len({p.target_sas_address for p in dual.paths}) == dual.hba_ports


def test_demo_chains_are_four_and_two_deep_in_cabling_order(demo: Inventory) -> None:
    names = {e.id: e.name for e in demo.sas.enclosures}
    chains = {
        (c.hba_port_id.split("/")[0], c.hba_port_id[-1]): [names[e] for e in c.enclosure_ids]
        for c in demo.sas.chains
    }
    assert chains[("hba:0000:03:00.0", "0")] == ["JBOD-001", "JBOD-003", "JBOD-007", "JBOD-012"]
    assert chains[("hba:0000:81:00.0", "0")] == ["JBOD-007", "JBOD-001"]  # 003, 012 bypassed
    assert chains[("hba:0000:04:00.0", "0")] == ["JBOD-002", "JBOD-00B"]
    assert chains[("hba:0000:81:00.0", "1")] == ["JBOD-00B", "JBOD-002"]
    assert sorted(c.depth for c in demo.sas.chains) == [2, 2, 2, 4]


def test_demo_slots_come_from_ses_with_names_and_status(demo: Inventory) -> None:
    enclosure = by_name(demo)["JBOD-003"]
    assert (enclosure.vendor, enclosure.product, enclosure.bay_count) == ("HGST", "H4060-J", 60)
    assert enclosure.nickname == "JBOD-003"
    assert [s.index for s in enclosure.slots] == list(range(60))
    first = enclosure.slots[0]
    disks = {d.id: d for d in demo.sas.disks}
    assert first.disk_id is not None
    assert first.descriptor == f"SLOT 00,{disks[first.disk_id].serial}"  # as an H4060-J says
    assert first.status == "OK"
    assert first.occupied is True
    assert all(s.disk_id for s in enclosure.slots)


def test_demo_hbas_sit_on_their_numa_nodes(demo: Inventory) -> None:
    assert {h.pci_address: h.numa_node for h in demo.sas.hbas} == {
        "0000:03:00.0": 0,
        "0000:81:00.0": 1,
        "0000:04:00.0": 0,
    }


# -- other layouts -----------------------------------------------------------------------------


def test_all_dual_pathed_has_no_short_enclosure(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "all_dual_pathed")
    assert all((e.hba_ports, e.hba_ports_expected) == (2, 2) for e in inventory.sas.enclosures)
    assert all(d.hba_ports == 2 for d in inventory.sas.disks)


def test_three_chains_of_two_use_six_ports(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "three_chains_of_two")
    assert sorted(c.depth for c in inventory.sas.chains) == [2] * 6
    assert len({c.hba_id for c in inventory.sas.chains}) == 3


def test_a_sas_switch_is_no_enclosure_and_fans_out_into_branches(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "sas_switch")
    assert len(inventory.sas.enclosures) == 4
    for chain in inventory.sas.chains:
        assert len(chain.switch_ids) == 1
        assert chain.enclosure_count == 4
        assert chain.depth == 1
        assert len(chain.branches) == 4
    switch = next(e for e in inventory.sas.expanders if e.enclosure_id is None)
    assert switch.product == "SAS_SWITCH"


def test_a_4u60_with_three_expanders_per_iom_is_one_enclosure_one_hop(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "jbod_4u60")
    (enclosure,) = inventory.sas.enclosures
    assert enclosure.bay_count == 60
    assert len(enclosure.expander_ids) == 6
    assert (enclosure.hba_ports, enclosure.hba_ports_expected) == (2, 2)
    assert all(c.depth == 1 for c in inventory.sas.chains)
    assert len(inventory.sas.disks) == 60


def test_one_disk_missing_one_path_is_visible_on_that_disk_only(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "disk_missing_one_path")
    short = [d for d in inventory.sas.disks if d.hba_ports == 1]
    assert len(short) == 1
    assert short[0].slot == 5
    enclosure = next(e for e in inventory.sas.enclosures if e.id == short[0].enclosure_id)
    assert (enclosure.name, enclosure.hba_ports, enclosure.hba_ports_expected) == ("JBOD-B", 2, 2)


def test_a_degraded_hba_phy_shows_its_rate_and_what_both_ends_could_do(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "degraded_hba_phy")
    hba = next(h for h in inventory.sas.hbas if h.pci_address == "0000:03:00.0")
    phy = next(p for port in hba.ports for p in port.phys if p.phy_identifier == 2)
    assert phy.negotiated_gbps == 6.0
    assert phy.maximum_hw_gbps == 12.0
    assert phy.far_end_max_gbps == 12.0


def test_an_enclosure_without_encserv_is_found_through_scsi_type_13(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "no_encserv")
    enclosure = by_name(inventory)["JBOD-B"]
    assert all(not s.in_enclosure_class for s in enclosure.ses_devices)
    assert enclosure.bay_count == 24
    assert all(s.disk_id for s in enclosure.slots)
    notes = [p for p in inventory.problems if p.kind is ProblemKind.UNSUPPORTED]
    assert notes and all("no /sys/class/enclosure entry" in p.reason for p in notes)


def test_an_hba_without_sas_transport_still_shows_disks_and_enclosure(tmp_path: Path) -> None:
    inventory = scenario(tmp_path, "mpi3mr_no_transport")
    (hba,) = inventory.sas.hbas
    assert hba.driver == "mpi3mr"
    assert not hba.sas_transport
    assert hba.ports == []
    (enclosure,) = inventory.sas.enclosures
    assert (enclosure.hba_ports, enclosure.hba_ports_expected) == (2, 2)
    assert len(inventory.sas.disks) == 24
    assert "registers no SAS transport class" in "\n".join(p.reason for p in inventory.problems)


def test_single_pathed_disks_still_show_both_ports_from_ses(demo: Inventory) -> None:
    """Port B of a dual-ported disk in JBOD-003 has no path, but SES lists its address."""
    jbod = by_name(demo)["JBOD-003"]
    disks = [d for d in demo.sas.disks if d.enclosure_id == jbod.id]
    assert all(d.hba_ports == 1 for d in disks)
    assert all(len(d.port_sas_addresses) == 2 for d in disks)
    assert all(d.serial for d in disks)
    assert jbod.serial
