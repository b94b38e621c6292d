"""The SAS inventory of a real host: Broadcom HBA 9400-8i8e (mpt3sas) with an HGST 4U60 JBOD."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import open_snapshot
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.model.sas import AttachedKind

HBA = "hba:0000:03:00.0"
ENCLOSURE = "enclosure:0x5000ccab020094ff"


@pytest.fixture(scope="module")
def inventory() -> Inventory:
    root = FIXTURES / "snapshots" / "procfs-mpt3sas"
    with open_snapshot(root) as source:
        return collect_inventory(source)


def test_host_identity_comes_from_the_manifest(inventory: Inventory) -> None:
    assert inventory.host.source is SourceKind.SNAPSHOT
    assert inventory.host.hostname == "procfs-fixture"


def test_the_hba_is_read_from_its_scsi_host_and_pci_function(inventory: Inventory) -> None:
    (hba,) = inventory.sas.hbas
    assert hba.id == HBA
    assert hba.scsi_host == "host11"
    assert hba.driver == "mpt3sas"
    assert hba.board_name == "HBA 9400-8i8e"
    assert hba.firmware == "03.00.04.00"
    assert hba.host_sas_address == "0x500062b2047b51c4"
    assert hba.can_queue == 7056
    assert hba.pcie is not None
    assert (hba.pcie.current_speed_gts, hba.pcie.current_width) == (8.0, 8)
    assert hba.numa_node is None  # the kernel says -1: no NUMA information


def test_ports_have_their_width_phys_and_connector(inventory: Inventory) -> None:
    ports = {p.name: p for p in inventory.sas.hbas[0].ports}
    assert set(ports) == {"port-11:0", "port-11:1", "port-11:2"}
    wide = ports["port-11:0"]
    assert wide.width == 4
    assert [p.phy_identifier for p in wide.phys] == [8, 9, 10, 11]
    assert wide.connector == 2
    assert [p.negotiated_gbps for p in wide.phys] == [12.0] * 4
    assert wide.attached_kind is AttachedKind.EXPANDER
    direct = ports["port-11:2"]
    assert direct.width == 1
    assert direct.attached_kind is AttachedKind.END_DEVICE


def test_six_gbit_phys_to_a_sas2_expander_carry_the_far_end_limit(inventory: Inventory) -> None:
    """12 G HBA phys on a 6 G LSI SAS2X36 run at 6 G by design: the model says why."""
    port = next(p for p in inventory.sas.hbas[0].ports if p.name == "port-11:1")
    for phy in port.phys:
        assert phy.negotiated_gbps == 6.0
        assert phy.maximum_hw_gbps == 12.0
        assert phy.far_end_max_gbps == 6.0
        assert phy.far_end_max_source is not None
        assert "SAS2X36" in phy.far_end_max_source


def test_both_expanders_are_found_and_the_hgst_one_belongs_to_the_4u60(
    inventory: Inventory,
) -> None:
    expanders = {e.product: e for e in inventory.sas.expanders}
    assert set(expanders) == {"4U60_STOR_ENCL", "SAS2X36"}
    assert expanders["4U60_STOR_ENCL"].enclosure_id == ENCLOSURE
    assert expanders["SAS2X36"].enclosure_id is None
    assert expanders["4U60_STOR_ENCL"].upstream_ids == [f"{HBA}/connector:2"]


def test_the_three_jbod_disks_sit_in_their_bays_with_one_path(inventory: Inventory) -> None:
    disks = {d.wwid: d for d in inventory.sas.disks}
    assert len(disks) == 4
    bays = {d.slot for d in disks.values() if d.enclosure_id == ENCLOSURE}
    assert bays == {23, 57, 58}
    seagate = disks["naa.5000c500b32d1a9c"]
    assert seagate.protocol == "sata"
    assert seagate.paths[0].block_device == "sdv"
    assert seagate.paths[0].sg_device == "sg23"
    assert seagate.size_bytes == 15628053168 * 512
    assert all(d.hba_ports == 1 for d in disks.values())


def test_the_direct_attached_ssd_is_not_in_any_enclosure(inventory: Inventory) -> None:
    ssd = next(d for d in inventory.sas.disks if d.wwid == "naa.5000cca0506b5f1c")
    assert ssd.direct_attached
    assert ssd.enclosure_id is None
    assert ssd.model == "HUSMM111CLAR1600"


def test_sata_disks_limit_their_expander_phys_to_6_gbit(inventory: Inventory) -> None:
    hgst = next(e for e in inventory.sas.expanders if e.product == "4U60_STOR_ENCL")
    to_sata = [p for p in hgst.phys if p.phy_identifier in (2, 6)]  # bays 58 and 57: SATA
    assert [p.negotiated_gbps for p in to_sata] == [6.0, 6.0]
    assert [p.far_end_max_gbps for p in to_sata] == [6.0, 6.0]
    truncated = next(p for p in hgst.phys if p.phy_identifier == 10)  # its port is not captured
    assert truncated.negotiated_gbps == 6.0
    assert truncated.far_end_max_gbps is None


def test_chains_count_enclosures_not_expanders(inventory: Inventory) -> None:
    chains = {c.hba_port_id: c for c in inventory.sas.chains}
    assert chains[f"{HBA}/connector:2"].enclosure_ids == [ENCLOSURE]
    assert chains[f"{HBA}/connector:2"].depth == 1
    lone = chains[f"{HBA}/connector:3"]
    assert lone.depth == 0
    assert lone.switch_ids == ["expander:0x5003048001e8967f"]


def test_the_enclosure_hba_port_count_is_one_of_one(inventory: Inventory) -> None:
    (enclosure,) = inventory.sas.enclosures
    assert enclosure.hba_ports == 1
    assert enclosure.hba_ports_expected == 1
    assert enclosure.hba_port_ids == [f"{HBA}/connector:2"]


def test_missing_ses_and_enclosure_classes_are_not_reported_as_errors(
    inventory: Inventory,
) -> None:
    """The capture has no SES device: nothing to complain about, and nothing failed."""
    assert not [p for p in inventory.problems if p.kind.value == "failed"]


def test_json_round_trips(inventory: Inventory) -> None:
    again = Inventory.model_validate_json(inventory.model_dump_json())
    assert again == inventory
