"""`GET /v1/fleet/findings` is served from the bytes a service keeps for the store's fleet
generation (`Service.fleet_findings_json`): the same bytes as reading the rows, read once per
generation, and made anew at once when another instance's push over the same store changes the
fleet findings (the generation moves in that push's transaction)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from service.store.storetest import T0

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.fleet import FleetNic, HostFleetFacts
from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import ServiceSettings, TargetKind
from pinchpoint.service.store import Store
from pinchpoint.service.store.fleet import judge_with_defaults, keep_fleet_facts
from pinchpoint.service.store.hosts import host_row


def _client(name: str, speed: int) -> HostFleetFacts:
    nic = FleetNic(
        host=name,
        position=0,
        id="nic:a0:36:9f:b9:f0:20",
        driver="igb",
        model="0x8086:0x1521",
        speed_mbps=speed,
        operstate="up",
        ref=EntityRef(kind=EntityKind.NIC, id="nic:a0:36:9f:b9:f0:20", name=f"eno1 on {name}"),
    )
    return HostFleetFacts(host=name, nics=[nic])


def _push(store: Store, facts: HostFleetFacts, minutes: int) -> None:
    """What a push's transaction does with the host's fleet facts."""
    at = T0 + timedelta(minutes=minutes)
    with store._writing() as session:
        keep_fleet_facts(
            session, host_row(session, facts.host, at), facts, at, at, judge_with_defaults
        )


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Service, Store]]:
    """A service over a SQLite store, and a second store over the same file (another central
    instance)."""
    data = tmp_path / "data"
    data.mkdir()
    url = f"sqlite:///{data / 'pinchpoint.db'}"
    mine = Store.open(url)
    other = Store.open(url)
    try:
        yield Service(ServiceSettings(data_dir=data, target=TargetKind.DEMO), store=mine), other
    finally:
        other.close()
        mine.close()


def test_the_kept_answer_is_the_rows_and_moves_with_another_instances_push(
    stores: tuple[Service, Store],
) -> None:
    service, other = stores
    assert service.fleet_findings_json() == b"[]"
    for number in range(1, 5):
        _push(other, _client(f"client-{number:02d}", 100 if number == 3 else 1000), number)
    first = service.fleet_findings_json()
    assert first == service.store.fleet_findings_json()  # byte for byte, read uncached
    assert b"eno1 on client-03" in first
    made = service.fleet_answers.made
    assert service.fleet_findings_json() == first
    assert service.fleet_answers.made == made  # the generation did not move: kept bytes
    _push(other, _client("client-02", 1000), 10)  # the same facts again: nothing changes
    assert service.fleet_findings_json() == first
    assert service.fleet_answers.made == made
    _push(other, _client("client-03", 1000), 11)  # recabled, through the other instance
    assert service.fleet_findings_json() == b"[]" == service.store.fleet_findings_json()
    assert service.fleet_answers.made == made + 1
    _push(other, _client("client-05", 10), 12)
    again = service.fleet_findings_json()
    assert b"eno1 on client-05" in again and again == service.store.fleet_findings_json()
