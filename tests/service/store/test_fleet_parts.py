"""A pushed inventory's fleet facts taken from its parts' JSON, each part made models of just
the fields the facts read (`service/store/fleet_parts.py`), are the facts of the whole
inventory: on simulated hosts that reach every kind of device the facts name (SAS disks,
HBAs, expanders and I/O modules, AHCI and NVMe disks, iSCSI and NVMe-oF LUNs left out, NICs of
several models); a field the facts do not read is not there to be read; bad JSON is refused."""

from __future__ import annotations

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Expander
from pinchpoint.rules.derived.fleet_facts import host_fleet_facts
from pinchpoint.service.store.bodies import PartError, split_inventory
from pinchpoint.service.store.fleet_parts import fact_part, fact_part_read
from pinchpoint.simulator import load_spec, write_snapshot

HOSTS = (
    "mixed_firmware",  # SAS: disks, HBAs, expanders, I/O modules at several levels
    "ahci_mixed_firmware",
    "nvme_mixed_firmware",
    "iscsi_two_arrays_firmware",
    "nvme_tcp_two_arrays_firmware",
    "san_host",  # FC LUNs under dm-multipath
    "sas_switch",
    "storage_networks",
    "fleet_client",
)


def _inventory(tmp: pytest.TempPathFactory, spec: str) -> Inventory:
    out = tmp.mktemp(spec) / "snapshot"
    write_snapshot(load_spec(SPECS / f"{spec}.toml"), out)
    return collect_inventory(SnapshotSource(out))


def _facts_from_parts(inventory: Inventory) -> object:
    split = split_inventory(inventory)
    models = {
        part.name: fact_part(part.name, part.json)
        for part in split.parts
        if part.json is not None and fact_part_read(part.name)
    }
    lean = Inventory.model_construct(
        format_version=split.format_version, host=inventory.host, **models
    )
    return host_fleet_facts("pushed", lean)


@pytest.mark.parametrize("spec", HOSTS)
def test_the_facts_of_the_lean_parts_are_those_of_the_whole_inventory(
    tmp_path_factory: pytest.TempPathFactory, spec: str
) -> None:
    inventory = _inventory(tmp_path_factory, spec)
    whole = host_fleet_facts("pushed", inventory)
    assert _facts_from_parts(inventory) == whole
    if spec in ("mixed_firmware", "ahci_mixed_firmware", "nvme_mixed_firmware"):
        assert whole.models  # the devices were found: the comparison compared something


def test_a_field_the_facts_do_not_read_is_not_there(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    inventory = _inventory(tmp_path_factory, "mixed_firmware")
    sas = fact_part("sas", split_inventory(inventory).parts[0].json or b"")
    expander = sas.expanders[0]
    assert isinstance(expander, Expander) and expander.revision
    with pytest.raises(AttributeError):
        _ = expander.phys  # left out: reading it is an error, never an empty list


def test_a_part_the_facts_do_not_read_is_not_made() -> None:
    assert not fact_part_read("zfs") and fact_part("zfs", b"{}") is None


@pytest.mark.parametrize(
    ("name", "raw", "said"),
    [
        ("sas", b'{"disks":[{"id":7}]}', "inventory.sas.disks.0.id"),
        ("health", b'{"disks":[{"id":"disk:a"}]}', "inventory.health.disks.0.device"),
        ("block", b'{"devices":"sda"}', "inventory.block.devices"),
        ("sas", b"[1,", "inventory.sas"),
    ],
)
def test_bad_json_is_refused_with_the_field_named(name: str, raw: bytes, said: str) -> None:
    with pytest.raises(PartError, match=said.replace(".", r"\.")):
        fact_part(name, raw)
