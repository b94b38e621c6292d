"""Pushes to a central service over real HTTP (uvicorn, PostgreSQL): an agent names its
inventory's parts by digest and sends the JSON of only those the central lacks; an older
agent's whole push is still taken; the same report twice is one; bad bodies on either route
are 4xx naming what is wrong, and store nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest
from pydantic import SecretStr

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.fleet import BY_DIGEST_PATH, PUSH_PATH, push_report
from pinchpoint.service.store.bodies import part_names, split_inventory
from tests.api.conftest import ADMIN_TOKEN, Server
from tests.api.test_uploads_stats_fleet import fleet_reports

TOKEN = SecretStr(ADMIN_TOKEN)


@pytest.fixture(scope="module")
def client_host(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Inventory]:
    """One simulated fleet client's report and inventory, made once for the pushes below."""
    return fleet_reports(tmp_path_factory.mktemp("fleet"), count=1, slow=0)[0]


def _whole(report: Report, inventory: Inventory | None) -> bytes:
    """The body an agent older than pushes by digest sends."""
    return json.dumps(
        {
            "report": report.model_dump(mode="json"),
            "inventory": inventory.model_dump(mode="json") if inventory else None,
            "duration_s": 1.5,
        }
    ).encode()


def _by_digest(
    report: Report, inventory: Inventory, bodies: dict[str, object] | None = None
) -> dict[str, object]:
    split = split_inventory(inventory)
    return {
        "report": report.model_dump(mode="json"),
        "inventory": {
            "format_version": inventory.format_version,
            "host": inventory.host.model_dump(mode="json"),
            "parts": {p.name: p.digest for p in split.parts},
        },
        "bodies": bodies or {},
    }


def test_an_agent_sends_only_the_parts_the_central_lacks(
    central_server: Server, client_host: tuple[Report, Inventory]
) -> None:
    report, inventory = client_host
    sent: list[tuple[str, int]] = []

    def record(request: httpx.Request) -> None:
        sent.append((request.url.path, len(request.content)))

    with httpx.Client(timeout=60, event_hooks={"request": [record]}) as http:
        first = push_report(central_server.url, TOKEN, report, inventory, client=http)
        # the first push: the central holds none of the parts, asks for them, gets them
        assert [path for path, _ in sent] == [BY_DIGEST_PATH, BY_DIGEST_PATH]
        whole = len(_whole(report, inventory))
        assert sent[0][1] < whole / 4 < sent[1][1]
        sent.clear()
        later = report.model_copy(update={"generated_at": report.generated_at + timedelta(1)})
        second = push_report(central_server.url, TOKEN, later, inventory, client=http)
        again = push_report(central_server.url, TOKEN, later, inventory, client=http)
    # the next sweep, the same hardware: one request, the digests only; sent again: one report
    assert [path for path, _ in sent] == [BY_DIGEST_PATH, BY_DIGEST_PATH]
    assert all(size < whole / 4 for _, size in sent)
    assert again == second != first
    store = central_server.service.store
    assert store.inventory_of(first) == inventory == store.inventory_of(second)
    assert store.report_summaries(host="client-01").total == 2


def test_an_older_agents_whole_push_is_taken_once(
    central_server: Server, client_host: tuple[Report, Inventory]
) -> None:
    report, inventory = client_host
    with central_server.admin() as admin:
        answers = [
            admin.post(PUSH_PATH, content=_whole(report, inventory), headers=_json())
            for _ in range(2)
        ]
        bare = report.model_copy(update={"generated_at": report.generated_at + timedelta(1)})
        without = admin.post(PUSH_PATH, content=_whole(bare, None), headers=_json())
    assert [a.status_code for a in answers] == [201, 201] and without.status_code == 201
    assert answers[0].json()["id"] == answers[1].json()["id"]
    store = central_server.service.store
    assert store.inventory_of(answers[0].json()["id"]) == inventory
    assert store.report_summaries(host="client-01").total == 2
    # a push by digest of the same content finds every part held
    later = report.model_copy(update={"generated_at": report.generated_at + timedelta(2)})
    with central_server.admin() as admin:
        taken = admin.post(BY_DIGEST_PATH, json=_by_digest(later, inventory))
    assert taken.status_code == 201, taken.text


def _json() -> dict[str, str]:
    return {"Content-Type": "application/json"}


def test_bad_pushes_are_4xx_naming_what_is_wrong_and_store_nothing(
    central_server: Server, client_host: tuple[Report, Inventory]
) -> None:
    report, inventory = client_host
    good = _by_digest(report, inventory)
    sas = inventory.sas.model_dump(mode="json")
    split = {p.name: p.digest for p in split_inventory(inventory).parts}

    def changed(**fields: object) -> dict[str, object]:
        body = json.loads(json.dumps(good))
        for path, value in fields.items():
            *outer, last = path.split("__")
            where = body
            for key in outer:
                where = where[key]
            where[last] = value
        return body

    cases: list[tuple[object, int, str]] = [
        (
            changed(inventory__parts__sas="xyz"),
            422,
            "body: inventory.parts.sas: String should match pattern",
        ),
        (
            changed(bodies__sas={**sas, "disks": []}),
            422,
            "inventory.parts.sas: the JSON sent in bodies.sas has another digest",
        ),
        (
            changed(inventory__parts__sas=None, bodies__sas={"disks": "all of them"}),
            422,
            "body: inventory.parts.sas: Input should be a valid string",
        ),
        (
            changed(bodies__sas={"disks": "all of them"}),
            422,
            "has another digest",
        ),
        (
            changed(inventory__parts={"sas": split["sas"]}, bodies__sas={"disks": "all"}),
            422,
            "has another digest",
        ),
        (
            changed(inventory__parts={}, bodies__sas={"disks": "all of them"}),
            422,
            "inventory.sas.disks: Input should be a valid array",
        ),
        (
            changed(inventory__parts={}, bodies__sas={"disks": [{"id": "\ud800"}]}),
            422,
            "inventory.sas: not JSON the store can keep",
        ),
        (
            changed(inventory__parts={f"part{n}": "0" * 64 for n in range(65)}),
            422,
            "body: inventory.parts: Dictionary should have at most 64 items",
        ),
        (changed(report__host__hostname="../../etc/x"), 422, "body: report.host.hostname: host"),
        (
            changed(inventory__host__hostname="someone-else"),
            422,
            "the inventory is of host 'someone-else', the report of 'client-01'",
        ),
        (["a", "list"], 422, "body: (whole): Input should be a valid dictionary"),
    ]
    with central_server.admin() as admin:
        for body, status, says in cases:
            answer = admin.post(BY_DIGEST_PATH, content=json.dumps(body), headers=_json())
            assert answer.status_code == status, (says, answer.text)
            assert says in answer.json()["detail"], (says, answer.text)
        missing = admin.post(BY_DIGEST_PATH, json=good)
        broken = admin.post(BY_DIGEST_PATH, content=b'{"report": ', headers=_json())
        whole = json.loads(_whole(report, inventory))
        whole["inventory"]["sas"] = {"disks": "all of them"}
        refused = admin.post(PUSH_PATH, json=whole)
        whole["inventory"]["sas"] = {"disks": [{"id": "\ud800"}]}  # a lone surrogate
        unkept = admin.post(PUSH_PATH, content=json.dumps(whole), headers=_json())
        hosts = admin.get("/v1/hosts").json()
    # every part named, none held: 409 naming them all, for the agent to send again
    assert missing.status_code == 409 and missing.json()["type"].endswith("/missing-parts")
    assert missing.json()["missing"] == sorted(part_names())
    assert broken.status_code == 422 and "JSON decode error" in broken.json()["detail"]
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].startswith("inventory.sas.disks: Input should be a valid")
    assert unkept.status_code == 422 and "not JSON the store can keep" in unkept.text
    assert hosts == []


def test_the_openapi_document_describes_the_parts_of_a_whole_push(central_server: Server) -> None:
    with central_server.client() as client:
        document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    raw = schemas["RawInventory"]["properties"]
    assert raw["sas"]["title"] == "SasFabric" and "Disk" in schemas
    assert raw["sas"]["properties"]["disks"]["items"]["$ref"].endswith("/Disk")
    by_digest = schemas["InventoryByDigest"]["properties"]["parts"]
    assert by_digest["additionalProperties"]["pattern"] == "^[0-9a-f]{64}$"
