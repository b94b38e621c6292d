"""Inventories in the store: stored once per content, part by part, and read back equal."""

from __future__ import annotations

from datetime import timedelta

from service.store.storetest import T0, CheckedHost, at
from sqlalchemy import create_engine, func, select

from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store import Store
from pinchpoint.service.store.bodies import part_names
from pinchpoint.service.store.schema import InventoryPartRow, InventoryRow


def _count(url: str, model: type[InventoryRow] | type[InventoryPartRow]) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(model)).scalar_one())
    finally:
        engine.dispose()


def _resampled(inventory: Inventory, minutes: int) -> Inventory:
    """The same host read again later: only `captured_at` differs."""
    host = inventory.host.model_copy(
        update={
            "captured_at": T0 + timedelta(minutes=minutes),
            "source_location": f"sweep {minutes}",
        }
    )
    return inventory.model_copy(update={"host": host})


def test_the_same_inventory_saved_twice_is_one_row(
    store: Store, store_url: str, demo: CheckedHost
) -> None:
    first = store.save_report(at(demo.report, 0), inventory=_resampled(demo.inventory, 0))
    second = store.save_report(at(demo.report, 5), inventory=_resampled(demo.inventory, 5))
    assert first.inventory_stored and not second.inventory_stored
    assert first.inventory_id == second.inventory_id is not None
    assert _count(store_url, InventoryRow) == 1
    assert _count(store_url, InventoryPartRow) == len(part_names())
    # each report keeps its own host block (captured_at differs), the parts are shared
    assert store.inventory_of(first.id) == _resampled(demo.inventory, 0)
    assert store.inventory_of(second.id) == _resampled(demo.inventory, 5)


def test_a_changed_part_is_stored_alone(
    store: Store, store_url: str, demo: CheckedHost, recabled: CheckedHost
) -> None:
    store.save_report(at(demo.report, 0), inventory=demo.inventory)
    # the recabled host: its SAS fabric differs, its ZFS pool and NICs do not
    changed = recabled.inventory
    saved = store.save_report(at(recabled.report, 5), inventory=changed)
    assert saved.inventory_stored
    assert _count(store_url, InventoryRow) == 2
    different = [
        name for name in part_names() if getattr(demo.inventory, name) != getattr(changed, name)
    ]
    assert "sas" in different and "zfs" not in different
    assert _count(store_url, InventoryPartRow) == len(part_names()) + len(different)
    assert store.inventory_of(saved.id) == changed


def test_latest_inventory_is_that_of_the_newest_report_with_one(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    assert store.latest_inventory() is None
    store.save_report(at(demo.report, 0), inventory=demo.inventory)
    store.save_report(at(recabled.report, 5))  # no inventory with this one
    assert store.latest_inventory("demo-storage-head") == demo.inventory
    assert store.latest_inventory() == demo.inventory
    assert store.latest_inventory("store02") is None
    bare = store.save_report(at(demo.report, 10))
    assert store.inventory_of(bare.id) is None
    assert store.inventory_of(123_456) is None


def test_identical_hosts_share_inventory_parts(
    store: Store, store_url: str, demo: CheckedHost
) -> None:
    """A fleet of identical hosts: their inventories differ only in the host block."""
    for index, name in enumerate(("store01", "store02", "store03")):
        host = demo.inventory.host.model_copy(update={"hostname": name})
        store.save_report(
            at(demo.report, index, host=name),
            inventory=demo.inventory.model_copy(update={"host": host}),
        )
    assert _count(store_url, InventoryRow) == 1
    restored = store.latest_inventory("store02")
    assert restored is not None and restored.host.hostname == "store02"
    assert restored.sas == demo.inventory.sas
