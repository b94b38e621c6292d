"""The hottest reads answered below FastAPI's routing (api/fast_reads.py): the same bytes and
headers as the routes', only to callers the routes would let read, and every other request
(a refusal, a query string, a body, a foreign `Host`) left to FastAPI as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from pinchpoint.api import fast_reads
from pinchpoint.api.auth import read_allowed
from pinchpoint.service.runtime import Service
from tests.api.conftest import ADMIN_TOKEN, READ_TOKEN, Server, demo_settings

FAST = tuple(fast_reads.ANSWERS)


@pytest.fixture
def served_fast(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths answered below the routing, in order, while a test runs."""
    served: list[str] = []
    for path, answer in list(fast_reads.ANSWERS.items()):

        def counted(
            service: Service,
            gzip: bool,
            path: str = path,
            answer: Callable[..., object] = answer,
        ) -> object:
            found = answer(service, gzip)
            if found is not None:
                served.append(path)
            return found

        monkeypatch.setitem(fast_reads.ANSWERS, path, counted)
    yield served


def _same_answer(fast: httpx.Response, routed: httpx.Response) -> None:
    assert fast.status_code == routed.status_code == 200
    assert fast.content == routed.content
    headers = [(k, v) for k, v in fast.headers.multi_items() if k != "date"]
    assert headers == [(k, v) for k, v in routed.headers.multi_items() if k != "date"]


def _routed_queries(server: Server) -> dict[str, dict[str, str]]:
    """Each fast path's question asked so that only its route can answer it (a parameter
    with the value it has by default)."""
    view = server.service.fresh_view(None)
    assert view is not None
    return {
        "/v1/reports/latest": {"format": "json"},
        "/v1/inventory/enclosures": {"host": view.report.host.hostname},
        "/v1/findings": {"limit": "100"},
    }


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_the_fast_answers_are_the_routes_answers(
    demo_server: Server, served_fast: list[str], encoding: str
) -> None:
    headers = {"Accept-Encoding": encoding}
    with demo_server.client() as client:
        for path, query in _routed_queries(demo_server).items():
            routed = client.get(path, params=query, headers=headers)
            assert served_fast == []
            fast = client.get(path, headers=headers)  # findings: the answer kept for a second
            assert served_fast == [path]
            served_fast.clear()
            _same_answer(fast, routed)
            assert fast.headers["X-Content-Type-Options"] == "nosniff"
            assert fast.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert routed.headers.get("Content-Encoding") is None  # findings: never compressed


def test_large_answers_are_compressed_when_asked(
    demo_server: Server, served_fast: list[str]
) -> None:
    with demo_server.client() as client:
        packed = client.get("/v1/inventory/enclosures", headers={"Accept-Encoding": "GZIP"})
        plain = client.get("/v1/inventory/enclosures", headers={"Accept-Encoding": "identity"})
    assert served_fast == ["/v1/inventory/enclosures"] * 2
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in plain.headers
    assert packed.json() == plain.json()  # httpx decompresses


AUTHORIZATIONS = [
    None,
    f"Bearer {READ_TOKEN}",
    f"bearer {READ_TOKEN}",
    f"BEARER   {READ_TOKEN}",
    f"Bearer {ADMIN_TOKEN}",
    f"Basic {READ_TOKEN}",
    READ_TOKEN,
    "Bearer",
    "Bearer wrong-token",
    f"Bearer {READ_TOKEN}x",
]


@pytest.mark.parametrize("authorization", AUTHORIZATIONS)
def test_a_caller_is_let_through_as_the_route_lets_it(
    demo_server: Server, served_fast: list[str], authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    queries = _routed_queries(demo_server)
    with demo_server.client(token=None) as client:
        for path in ("/v1/reports/latest", "/v1/inventory/enclosures"):
            fast = client.get(path, headers=headers)
            routed = client.get(path, params=queries[path], headers=headers)
            assert fast.status_code == routed.status_code
            if fast.status_code == 200:
                assert served_fast == [path]
            else:
                assert fast.status_code == 401
                assert served_fast == []  # the refusal is the route's own
                assert fast.json() == routed.json()
                assert fast.headers["WWW-Authenticate"] == 'Bearer realm="pinchpoint"'
            served_fast.clear()


def test_read_allowed_follows_the_settings(tmp_path: Path) -> None:
    closed = demo_settings(tmp_path)
    opened = closed.model_copy(update={"open_reads_on_loopback": True})
    no_read_token = closed.model_copy(update={"read_token": None})
    assert opened.reads_open and not closed.reads_open
    assert read_allowed(opened, None)
    assert read_allowed(opened, f"Basic {READ_TOKEN}")  # not a bearer token: no token at all
    assert not read_allowed(opened, "Bearer wrong")  # a wrong token is refused even then
    assert not read_allowed(closed, None)
    assert read_allowed(closed, f"Bearer {READ_TOKEN}")
    assert read_allowed(closed, f"Bearer {ADMIN_TOKEN}")
    assert not read_allowed(no_read_token, f"Bearer {READ_TOKEN}")
    assert read_allowed(no_read_token, f"Bearer {ADMIN_TOKEN}")


def test_what_the_fast_path_does_not_take_goes_through_fastapi(
    demo_server: Server, served_fast: list[str]
) -> None:
    limit = demo_server.service.settings.max_body_bytes
    with demo_server.client() as client:
        foreign = client.get("/v1/reports/latest", headers={"Host": "attacker.example"})
        with_body = client.request("GET", "/v1/reports/latest", content=b" " * (limit + 1))
        head = client.head("/v1/reports/latest")
        routed_head = client.head("/v1/reports/latest", params={"format": "json"})
        other = client.get("/v1/reports/latest/")
        bad_query = client.get("/v1/findings", params={"limit": "0"})
    assert foreign.status_code == 400  # AllowedHosts, outside
    assert foreign.json()["type"].endswith("host-not-allowed")
    assert with_body.status_code == 413  # BodyLimit, inside: a request with a body goes on
    assert head.status_code == routed_head.status_code  # whatever FastAPI says to HEAD
    assert other.status_code in (307, 404)
    assert bad_query.status_code == 422
    assert served_fast == []
