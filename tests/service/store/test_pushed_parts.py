"""Inventories pushed as JSON parts (`Store.save_pushed`, SQLite and PostgreSQL): a part is
stored as the JSON it came in, checked against the model once per content; a part named by
digest only must be held; the fleet findings are those of the same inventories saved as models,
and a report of the inventory the host's facts were taken from keeps them."""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

import pytest
from service.store.storetest import T0, CheckedHost, at
from sqlalchemy import func, select

from pinchpoint.model.findings import Finding, Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store import MissingPartsError, Store, StoreInputError
from pinchpoint.service.store.bodies import (
    InventoryPart,
    PushedInventory,
    digest,
    part_names,
    split_inventory,
)
from pinchpoint.service.store.schema import HostRow, InventoryPartRow, ReportRow
from tests.rules.fleet.legacy_judges import legacy_findings
from tests.rules.fleet.mixed_fleet import mixed_fleet_inventories

EVERY = frozenset(part_names())


@pytest.fixture(scope="module")
def mixed_fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    return mixed_fleet_inventories(tmp_path_factory)


def _pushed(inventory: Inventory, send: Collection[str] = EVERY) -> PushedInventory:
    """`inventory` as an agent pushes it: every part by digest, with the JSON of `send`."""
    split = split_inventory(inventory)
    return PushedInventory(
        format_version=inventory.format_version,
        host=inventory.host,
        parts=tuple(
            InventoryPart(p.name, p.json if p.name in send else None, p.digest) for p in split.parts
        ),
    )


def _report(inventory: Inventory, minutes: float) -> Report:
    return Report(host=inventory.host, generated_at=T0 + timedelta(minutes=minutes))


def _dumps(findings: list[Finding]) -> list[dict[str, object]]:
    return [f.model_dump(mode="json") for f in findings]


def _count(store: Store, row: type[ReportRow] | type[HostRow] | type[InventoryPartRow]) -> int:
    with store._reading() as session:
        return int(session.scalar(select(func.count()).select_from(row)) or 0)


def test_pushed_parts_give_the_inventory_and_the_fleet_findings_of_the_models(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    for minutes, inventory in enumerate(mixed_fleet.values()):
        first = store.save_pushed(_report(inventory, minutes), _pushed(inventory))
        assert store.inventory_of(first.id) == inventory
    kept = store.fleet_findings()
    assert len(kept) >= 5
    assert _dumps(kept) == _dumps(legacy_findings(mixed_fleet))
    # the next sweep of every host: the same parts, named by digest only
    parts = _count(store, InventoryPartRow)
    for minutes, inventory in enumerate(mixed_fleet.values()):
        again = store.save_pushed(_report(inventory, 60 + minutes), _pushed(inventory, ()))
        assert not again.duplicate and not again.inventory_stored
        assert store.inventory_of(again.id) == inventory
    assert _count(store, InventoryPartRow) == parts
    assert _dumps(store.fleet_findings()) == _dumps(kept)
    with store._reading() as session:  # the facts are those of the newest reports
        moved = session.scalars(select(HostRow.fleet_at)).all()
    assert all(at_ >= T0 + timedelta(minutes=60) for at_ in moved)


def test_a_change_pushed_by_parts_updates_the_fleet_findings(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    for minutes, inventory in enumerate(mixed_fleet.values()):
        store.save_pushed(_report(inventory, minutes), _pushed(inventory))
    # client-02 recabled: its NIC now runs at 1000 like client-01's, whose parts it now has
    # (the clients' MACs are the same): the store holds them all, and takes the facts from them
    fixed = mixed_fleet["client-01"].model_copy(deep=True)
    fixed.host = mixed_fleet["client-02"].host
    held = {p.digest for i in mixed_fleet.values() for p in split_inventory(i).parts}
    assert all(p.digest in held for p in split_inventory(fixed).parts)
    store.save_pushed(_report(fixed, 60), _pushed(fixed, ()))
    newest = {**mixed_fleet, "client-02": fixed}
    assert _dumps(store.fleet_findings()) == _dumps(legacy_findings(newest))
    # then its NIC renamed: a `network` part the store lacks, asked for, sent, and judged
    renamed = fixed.model_copy(deep=True)
    renamed.network.nics[0].name = "enp65s0"
    with pytest.raises(MissingPartsError) as missing:
        store.save_pushed(_report(renamed, 65), _pushed(renamed, ()))
    assert missing.value.names == ["network"]
    store.save_pushed(_report(renamed, 65), _pushed(renamed, missing.value.names))
    newest = {**mixed_fleet, "client-02": renamed}
    assert _dumps(store.fleet_findings()) == _dumps(legacy_findings(newest))


def test_a_part_by_digest_the_store_lacks_is_named_and_nothing_is_stored(
    store: Store, demo: CheckedHost
) -> None:
    with pytest.raises(MissingPartsError) as missing:
        store.save_pushed(at(demo.report, 0), _pushed(demo.inventory, ("sas",)))
    assert missing.value.names == sorted(EVERY - {"sas"})
    assert "does not hold these inventory parts: block, fc" in str(missing.value)
    assert (_count(store, ReportRow), _count(store, HostRow), _count(store, InventoryPartRow)) == (
        0,
        0,
        0,
    )


def test_a_pushed_part_the_model_refuses_is_refused_by_field(
    store: Store, demo: CheckedHost
) -> None:
    good = _pushed(demo.inventory)
    for name, raw, says in (
        ("sas", b'{"disks": "all of them"}', "inventory.sas.disks: Input should be a valid array"),
        ("network", b"[1, 2]", "inventory.network: Input should be an object"),
        ("problems", b'[{"part": 7}]', "inventory.problems.0.part: Input should be a"),
        ("block", b'{"devices": [', "inventory.block: Invalid JSON: EOF while parsing"),
    ):
        parts = tuple(
            InventoryPart(name, raw, digest(raw)) if p.name == name else p for p in good.parts
        )
        bad = PushedInventory(good.format_version, good.host, parts)
        with pytest.raises(StoreInputError) as refused:
            store.save_pushed(at(demo.report, 0), bad)
        assert str(refused.value).startswith(says), str(refused.value)
    assert (_count(store, ReportRow), _count(store, InventoryPartRow)) == (0, 0)


def test_an_inventory_of_another_host_is_refused(store: Store, demo: CheckedHost) -> None:
    other = demo.inventory.host.model_copy(update={"hostname": "someone-else"})
    pushed = _pushed(demo.inventory.model_copy(update={"host": other}))
    with pytest.raises(StoreInputError, match="the inventory is of host 'someone-else'"):
        store.save_pushed(at(demo.report, 0), pushed)


def test_the_same_pushed_report_twice_is_one_report(store: Store, demo: CheckedHost) -> None:
    first = store.save_pushed(at(demo.report, 0), _pushed(demo.inventory))
    again = store.save_pushed(at(demo.report, 0), _pushed(demo.inventory, ()))
    whole = store.save_report(at(demo.report, 0), inventory=demo.inventory, origin="push")
    assert (again.id, again.duplicate, whole.id, whole.duplicate) == (
        first.id,
        True,
        first.id,
        True,
    )
    assert _count(store, ReportRow) == 1


def test_a_sweep_saved_as_a_model_and_a_push_by_digest_share_the_parts(
    store: Store, demo: CheckedHost
) -> None:
    """The digests an agent names are those the store keeps parts under: what a sweep saved
    (the model cut into parts) is held for a push of the same content by digest."""
    swept = store.save_report(at(demo.report, 0), inventory=demo.inventory)
    pushed = store.save_pushed(at(demo.report, 5), _pushed(demo.inventory, ()))
    assert pushed.inventory_id == swept.inventory_id is not None
    assert store.inventory_of(pushed.id) == demo.inventory
