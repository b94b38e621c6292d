"""Disks are named by their enclosure and slot: the slot is looked for where element order puts
it before the slots are searched, and the names are the ones a search of the lists gives, also
after the lists or the models in them changed, whatever the slots' order or numbering."""

from __future__ import annotations

from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.sas import Disk, Enclosure, SasFabric, Slot
from pinchpoint.naming import disk_ref


def _enclosure(name: str, slots: int = 60, label: str = "Bay") -> Enclosure:
    return Enclosure(
        id=f"enclosure:{name}",
        logical_id=f"5000ccab0000{name}",
        nickname=name,
        slots=[
            Slot(id=f"{name}/{n}", index=n, descriptor=f"{label} {n + 1}") for n in range(slots)
        ],
    )


def _inventory(*enclosures: Enclosure) -> Inventory:
    disks = [Disk(id="disk:a", enclosure_id="enclosure:JBOD-002", slot=4, wwid="naa.5000a")]
    return Inventory(
        host=HostInfo(source=SourceKind.SNAPSHOT),
        sas=SasFabric(enclosures=list(enclosures), disks=disks),
    )


def test_a_disk_is_named_by_its_enclosure_and_slot_label() -> None:
    inventory = _inventory(_enclosure("JBOD-001"), _enclosure("JBOD-002"))
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Bay 5)"


def test_names_follow_changes_made_after_the_first_name() -> None:
    inventory = _inventory(_enclosure("JBOD-001"), _enclosure("JBOD-002"))
    disk = inventory.sas.disks[0]
    assert disk_ref(disk, inventory).name == "JBOD-002 slot 4 (Bay 5)"
    # renamed in place: the name is read from the model at each call
    inventory.sas.enclosures[1].nickname = "SHELF-2"
    assert disk_ref(disk, inventory).name == "SHELF-2 slot 4 (Bay 5)"
    # the slots replaced by a list of another labelling
    inventory.sas.enclosures[1].slots = _enclosure("X", label="SLOT").slots
    assert disk_ref(disk, inventory).name == "SHELF-2 slot 4 (SLOT 5)"
    # a slot renumbered in place: the index's entry no longer carries the number
    inventory.sas.enclosures[1].slots[4].index = 99
    assert disk_ref(disk, inventory).name == "SHELF-2 slot 4"
    # an enclosure put in place of another in the same list, and one appended
    inventory.sas.enclosures[1] = _enclosure("JBOD-002", label="Disk")
    inventory.sas.enclosures[1].nickname = "NEW-2"
    assert disk_ref(disk, inventory).name == "NEW-2 slot 4 (Disk 5)"
    inventory.sas.enclosures[1].id = "enclosure:gone"
    assert disk_ref(disk, inventory).name == "naa.5000a"
    inventory.sas.enclosures.append(_enclosure("JBOD-002", label="Drive"))
    assert disk_ref(disk, inventory).name == "JBOD-002 slot 4 (Drive 5)"


def test_the_first_enclosure_and_slot_of_an_id_are_the_ones_named() -> None:
    first, second = _enclosure("JBOD-002", label="First"), _enclosure("JBOD-002", label="Second")
    second.nickname = "OTHER"
    first.slots.insert(0, Slot(id="dup", index=4, descriptor="Front 4"))
    inventory = _inventory(first, second)
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Front 4)"


def test_a_few_slots_are_searched_and_named_alike() -> None:
    inventory = _inventory(_enclosure("JBOD-002", slots=6))
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Bay 5)"
    inventory.sas.disks[0].slot = 7
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 7"


def test_slots_numbered_from_one_or_out_of_order_are_named_alike() -> None:
    from_one = _enclosure("JBOD-002", slots=0)
    from_one.slots = [Slot(id=f"s{n}", index=n, descriptor=f"Front {n}") for n in range(1, 61)]
    inventory = _inventory(from_one)
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Front 4)"
    from_one.slots.reverse()
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Front 4)"


def test_a_repeated_slot_number_names_the_first_listed() -> None:
    shelf = _enclosure("JBOD-002")
    shelf.slots.insert(4, Slot(id="dup", index=4, descriptor="Front 4"))
    inventory = _inventory(shelf)
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Front 4)"
    shelf.slots[4], shelf.slots[5] = shelf.slots[5], shelf.slots[4]
    assert disk_ref(inventory.sas.disks[0], inventory).name == "JBOD-002 slot 4 (Bay 5)"
