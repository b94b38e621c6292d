"""Two real central instances (`pinchpoint serve --role central`, each its own process) over one
real PostgreSQL database, with agents (threads calling `push_report`) pushing concurrently to
both, some of them the same report to both at once: nothing is lost or doubled, and both
instances answer `/v1/hosts`, `/v1/fleet/findings` and each host's latest report alike. Then a
database outage seen by one instance (a relay in front of PostgreSQL drops its connections and
refuses new ones; the server other tests share is not touched): the push gets 503 with
Retry-After, not 500, and the agent's retry lands the report once the database is back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from central_cluster import ADMIN, Central, DatabaseRelay, start_central
from fixture_paths import SPECS
from postgres_db import create_database, drop_database
from pydantic import SecretStr
from sqlalchemy import Engine

from pinchpoint.checks.source import open_snapshot
from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.config import Config
from pinchpoint.rules.derived.fleet_facts import fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.service.checkup import check_source
from pinchpoint.service.fleet import push_report
from pinchpoint.service.runtime import VIEW_TTL_S
from pinchpoint.service.store import Store
from pinchpoint.simulator import load_spec, write_snapshot

CLIENTS = 6
SLOW = 3  # client-03's switch port offers only 10/100
REPORTS_EACH = 3
TOKEN = SecretStr(ADMIN)


def _clients(tmp: Path) -> dict[str, tuple[Report, Inventory]]:
    base = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    made = {}
    for number in range(1, CLIENTS + 1):
        name = f"client-{number:02d}"
        text = base.replace('"client-01"', f'"{name}"')
        if number == SLOW:
            text = text.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
        spec = tmp / f"{name}.toml"
        spec.write_text(text, encoding="utf-8")
        write_snapshot(load_spec(spec), tmp / name)
        with open_snapshot(tmp / name) as source:
            checkup = check_source(source, kind=None, live=False, config=Config())
        made[name] = (checkup.report, checkup.inventory)
    return made


@pytest.fixture(scope="module")
def database(postgres_admin: Engine) -> Iterator[str]:
    url = create_database(postgres_admin)
    try:
        yield url
    finally:
        drop_database(postgres_admin, url)


@pytest.fixture(scope="module")
def relay(database: str) -> Iterator[tuple[DatabaseRelay, str]]:
    relay, through = DatabaseRelay.to(database)
    try:
        yield relay, through
    finally:
        relay.close()


@pytest.fixture(scope="module")
def centrals(
    database: str, relay: tuple[DatabaseRelay, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Central, Central]]:
    """Instance A straight on the database, instance B through the relay."""
    first = start_central(database, tmp_path_factory.mktemp("central-a"))
    try:
        second = start_central(relay[1], tmp_path_factory.mktemp("central-b"))
    except BaseException:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def _get(central: Central, path: str, **params: str) -> httpx.Response:
    with central.client() as client:
        answer = client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    return answer


def test_two_instances_take_concurrent_pushes_once_and_answer_alike(
    centrals: tuple[Central, Central], tmp_path: Path
) -> None:
    a, b = centrals
    clients = _clients(tmp_path)
    # each host's three reports, 5 minutes apart; the second is sent to both at once
    plan: list[tuple[str, Report, Inventory, Central]] = []
    for name, (report, inventory) in clients.items():
        for k in range(REPORTS_EACH):
            moment = report.generated_at + timedelta(minutes=5 * k)
            pushed = report.model_copy(update={"generated_at": moment})
            plan.append((name, pushed, inventory, a if k % 2 == 0 else b))
            if k == 1:
                plan.append((name, pushed, inventory, a))
    start = threading.Barrier(len(plan))
    ids: dict[tuple[str, str], set[int]] = {}
    failures: list[BaseException] = []
    lock = threading.Lock()

    def agent(name: str, report: Report, inventory: Inventory, central: Central) -> None:
        try:
            start.wait(timeout=60)
            stored = push_report(central.url, TOKEN, report, inventory)
            with lock:
                ids.setdefault((name, report.generated_at.isoformat()), set()).add(stored)
        except BaseException as err:
            with lock:
                failures.append(err)

    threads = [threading.Thread(target=agent, args=step) for step in plan]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert failures == []
    assert len(ids) == CLIENTS * REPORTS_EACH  # every report, once each
    assert all(len(same) == 1 for same in ids.values())  # twice sent, one id

    for name in clients:
        lists = [_get(c, "/v1/reports", host=name, limit="50").json() for c in (a, b)]
        assert lists[0] == lists[1]
        assert lists[0]["total"] == REPORTS_EACH
        assert {r["id"] for r in lists[0]["items"]} == {
            next(iter(v)) for k, v in ids.items() if k[0] == name
        }
    assert _get(a, "/v1/hosts").json() == _get(b, "/v1/hosts").json()
    assert [h["name"] for h in _get(a, "/v1/hosts").json()] == sorted(clients)

    fleet = [_get(c, "/v1/fleet/findings").json() for c in (a, b)]
    assert fleet[0] == fleet[1]
    expected = evaluate(
        fleet_context(fleet_facts({n: inv for n, (_r, inv) in clients.items()})), FLEET_RULES
    )[0]
    assert fleet[0] == [f.model_dump(mode="json") for f in expected]
    assert [f["entity"]["name"] for f in fleet[0]] == ["eno1 on client-03"]

    # each host's latest report: the same on both instances, the newest pushed
    for name in clients:
        newest = max(at for host, at in ids if host == name)
        want = str(next(iter(ids[(name, newest)])))
        got = [_get(c, "/v1/reports/latest", host=name) for c in (a, b)]
        assert [g.headers["X-Report-Id"] for g in got] == [want, want]
        assert got[0].json() == got[1].json()

    # B has client-01's view cached; A takes a newer report: B serves it within VIEW_TTL_S
    # (its cached view is checked against the store once older than that)
    report, inventory = clients["client-01"]
    later = report.model_copy(update={"generated_at": report.generated_at + timedelta(hours=2)})
    stored = push_report(a.url, TOKEN, later, inventory)
    pushed_at = time.monotonic()
    while _get(b, "/v1/reports/latest", host="client-01").headers["X-Report-Id"] != str(stored):
        assert time.monotonic() - pushed_at < VIEW_TTL_S * 2 + 5, "B kept serving a stale report"
        time.sleep(0.25)


def test_a_push_through_one_instance_changes_the_others_fleet_answer_at_once(
    centrals: tuple[Central, Central], database: str, tmp_path: Path
) -> None:
    """B serves `/v1/fleet/findings` from bytes kept per fleet generation: a push through A
    that changes the fleet findings shows in B's very next answer, byte for byte what reading
    the rows gives."""
    a, b = centrals
    clients = _clients(tmp_path)
    later = timedelta(hours=3)

    def push_through_a(name: str, inventory: Inventory, after: timedelta) -> None:
        report = clients[name][0]
        moved = report.model_copy(update={"generated_at": report.generated_at + after})
        push_report(a.url, TOKEN, moved, inventory)

    def uncached() -> bytes:
        with Store.open(database) as store:
            return store.fleet_findings_json()

    kept = _get(b, "/v1/fleet/findings").content
    assert _get(b, "/v1/fleet/findings").content == kept == uncached()
    # client-05's port renegotiated at 100 Mb/s, as client-03's: pushed through A
    slow = clients["client-05"][1].model_copy(deep=True)
    for nic in slow.network.nics:
        nic.speed_mbps = 100 if nic.speed_mbps else nic.speed_mbps
    push_through_a("client-05", slow, later)
    changed = _get(b, "/v1/fleet/findings")
    assert changed.content != kept
    assert changed.content == uncached()
    assert "eno1 on client-05" in [f["entity"]["name"] for f in changed.json()]
    # and back: its port fixed, the finding resolved; B's next answer says so
    push_through_a("client-05", clients["client-05"][1], later + timedelta(minutes=5))
    assert _get(b, "/v1/fleet/findings").content == kept == uncached()


def test_a_push_during_a_database_outage_is_retried_and_lands(
    centrals: tuple[Central, Central], relay: tuple[DatabaseRelay, str], tmp_path: Path
) -> None:
    a, b = centrals
    proxy = relay[0]
    (report, inventory) = _clients(tmp_path)["client-01"]
    late = report.model_copy(update={"generated_at": report.generated_at + timedelta(hours=1)})
    body = {"report": late.model_dump(mode="json"), "inventory": None}
    proxy.down()
    try:
        refused = httpx.post(
            f"{b.url}/v1/pushed-reports",
            json=body,
            headers={"Authorization": f"Bearer {ADMIN}"},
            timeout=60,
        )
        assert refused.status_code == 503, refused.text
        assert refused.headers["Retry-After"] == "5"
        assert refused.json()["type"].endswith("/store-unavailable")
        # the agent pushes now; the database comes back two seconds later
        threading.Timer(2.0, proxy.up).start()
        started = time.monotonic()
        stored = push_report(b.url, TOKEN, late, inventory)
        waited = time.monotonic() - started
    finally:
        proxy.up()
    assert waited >= 4.5  # it waited the Retry-After (5 s), not its own first backoff (0.5 s)
    assert proxy.refused >= 1
    answer = _get(a, f"/v1/reports/{stored}").json()  # the other instance sees it
    assert answer["generated_at"].startswith(late.generated_at.isoformat()[:19])
    summaries = _get(a, "/v1/reports", host="client-01").json()
    assert sum(1 for r in summaries["items"] if r["id"] == stored) == 1
