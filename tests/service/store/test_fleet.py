"""Fleet facts and fleet findings in the store (SQLite and PostgreSQL): reports pushed by a
mixed fleet leave the fleet findings the judges before fleet facts found on the same hosts'
newest inventories (`tests/rules/fleet/legacy_judges.py`); a push that changes a host updates
its groups' findings; an older report does not move the facts; the same report twice is one;
a store written before fleet facts is filled in from its inventories."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta

import pytest
from service.store.storetest import T0
from sqlalchemy import delete, func, select, update

from pinchpoint.model.findings import Finding, Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store import Store
from pinchpoint.service.store.schema import (
    FleetBaselineRow,
    FleetFactRow,
    FleetFindingRow,
    HostRow,
    ReportRow,
)
from tests.rules.fleet.legacy_judges import legacy_findings
from tests.rules.fleet.mixed_fleet import mixed_fleet_inventories


@pytest.fixture(scope="module")
def mixed_fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    return mixed_fleet_inventories(tmp_path_factory)


def _report(inventory: Inventory, minutes: float) -> Report:
    return Report(host=inventory.host, generated_at=T0 + timedelta(minutes=minutes))


def _push(store: Store, inventory: Inventory, minutes: float) -> int:
    saved = store.save_report(_report(inventory, minutes), inventory=inventory, origin="push")
    return saved.id


def _dumps(findings: list[Finding]) -> list[dict[str, object]]:
    return [f.model_dump(mode="json") for f in findings]


def test_pushed_hosts_give_the_findings_of_their_inventories(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    for minutes, inventory in enumerate(mixed_fleet.values()):
        _push(store, inventory, minutes)
    kept = store.fleet_findings()
    assert len(kept) >= 5
    assert _dumps(kept) == _dumps(legacy_findings(mixed_fleet))
    assert json.loads(store.fleet_findings_json()) == _dumps(kept)


def test_a_push_that_changes_a_host_updates_its_groups(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    for minutes, inventory in enumerate(mixed_fleet.values()):
        _push(store, inventory, minutes)
    before = {f.id for f in store.fleet_findings()}
    # client-02 recabled: its NIC now runs at 1000 like client-01's
    fixed = mixed_fleet["client-01"].model_copy(deep=True)
    fixed.host = fixed.host.model_copy(update={"hostname": "client-02"})
    for nic, old in zip(fixed.network.nics, mixed_fleet["client-02"].network.nics, strict=True):
        nic.id = old.id
    _push(store, fixed, 60)
    newest = {**mixed_fleet, "client-02": fixed}
    after = store.fleet_findings()
    assert _dumps(after) == _dumps(legacy_findings(newest))
    gone = before - {f.id for f in after}
    assert gone and all("client-02" in finding_id for finding_id in gone)
    with store._reading() as session:
        states = dict(
            session.execute(select(FleetFindingRow.finding_id, FleetFindingRow.state)).all()
        )
    assert all(states[finding_id] == "resolved" for finding_id in gone)
    # an older report of client-02 (its old inventory) does not move the facts back
    _push(store, mixed_fleet["client-02"], 30)
    assert _dumps(store.fleet_findings()) == _dumps(after)
    # resolved fleet findings go with the retention; open ones stay
    pruned = store.prune(keep_reports_days=30, now=datetime.now(UTC) + timedelta(days=31))
    assert pruned.fleet_findings == len(gone)
    assert _dumps(store.fleet_findings()) == _dumps(after)


def test_the_same_report_twice_is_one_report(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    inventory = mixed_fleet["store-01"]
    first = store.save_report(_report(inventory, 0), inventory=inventory, origin="push")
    again = store.save_report(_report(inventory, 0), inventory=inventory, origin="push")
    assert (again.id, again.duplicate, first.duplicate) == (first.id, True, False)
    with store._reading() as session:
        assert session.scalar(select(func.count()).select_from(ReportRow)) == 1


def test_a_store_without_fleet_facts_is_filled_in(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    for minutes, inventory in enumerate(mixed_fleet.values()):
        _push(store, inventory, minutes)
    expected = _dumps(store.fleet_findings())
    with store._writing() as session:  # as a store written before revision 0002 is
        session.execute(delete(FleetFindingRow))
        session.execute(delete(FleetFactRow))
        session.execute(delete(FleetBaselineRow))
        session.execute(update(HostRow).values(fleet_at=None, fleet_digest=None))
    assert store.fleet_findings() == []
    assert store.backfill_fleet_facts() == len(mixed_fleet)
    assert _dumps(store.fleet_findings()) == expected
    assert store.backfill_fleet_facts() == 0


def test_hosts_with_the_same_inventory_saved_at_once_are_all_kept(
    store: Store, mixed_fleet: dict[str, Inventory]
) -> None:
    """Eight hosts whose inventories hold the same parts, saved at the same moment: the first
    commit stores the inventory, the others find it (before, PostgreSQL answered the others
    with a unique violation on the part links: an ORM INSERT's rowcount there is -1)."""
    template = mixed_fleet["store-01"]
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def save(number: int) -> None:
        host = template.host.model_copy(update={"hostname": f"twin-{number}"})
        inventory = template.model_copy(update={"host": host})
        try:
            start.wait(timeout=30)
            store.save_report(Report(host=host, generated_at=T0), inventory=inventory)
        except BaseException as err:
            failures.append(err)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert [h.name for h in store.hosts()] == [f"twin-{n}" for n in range(8)]
    assert all(store.latest_inventory(f"twin-{n}") is not None for n in range(8))
