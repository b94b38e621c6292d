"""The views the pages read, over real HTTP on the demo host (field case 1: JBOD-003 and
JBOD-012 single-pathed, so their disks queue about three times as much as their peers')."""

from __future__ import annotations

import statistics

import pytest

from tests.web.conftest import Server

SINGLE_PATHED = {"JBOD-003", "JBOD-012"}


def test_topology_tree_holds_every_enclosure_with_paths_and_findings(web_server: Server) -> None:
    with web_server.client() as client:
        answer = client.get("/v1/views/topology")
    assert answer.status_code == 200, answer.text
    view = answer.json()
    names = {e["name"]: e for e in view["enclosures"]}
    assert len(names) == 6
    assert {
        n for n, e in names.items() if e["hba_ports"] < e["hba_ports_expected"]
    } == SINGLE_PATHED
    assert all(names[n]["worst"] == "critical" for n in SINGLE_PATHED)
    assert all(len(e["slots"]) == 60 for e in names.values())
    chained = {
        m["enclosure_id"]
        for h in view["hbas"]
        for p in h["ports"]
        for c in p["chains"]
        for m in c["members"]
    }
    assert chained == {e["id"] for e in view["enclosures"]} and not view["unchained"]
    depths = sorted(c["depth"] for h in view["hbas"] for p in h["ports"] for c in p["chains"])
    assert depths == [2, 2, 2, 4]  # the 4 + 2 chains (each dual-pathed JBOD seen from both sides)


def test_topology_figures_show_the_single_pathed_jbods_queueing_more(web_server: Server) -> None:
    with web_server.client() as client:
        view = client.get("/v1/views/topology").json()
    assert view["sampled"] is True
    queued = {e["name"]: e["figures"]["queued"] for e in view["enclosures"]}
    peers = statistics.median(q for n, q in queued.items() if n not in SINGLE_PATHED)
    for name in SINGLE_PATHED:
        assert queued[name] > 2 * peers, queued
    slow = {e["name"]: e["figures"]["slow_ios"] / e["figures"]["ios"] for e in view["enclosures"]}
    assert min(slow[n] for n in SINGLE_PATHED) > max(
        s for n, s in slow.items() if n not in SINGLE_PATHED
    )
    disks = [s["figures"] for e in view["enclosures"] for s in e["slots"] if s["figures"]]
    assert len(disks) == 360 and all(d["measured"] == 1 for d in disks)


def test_enclosure_view_shows_the_uncabled_io_module(web_server: Server) -> None:
    with web_server.client() as client:
        single = client.get("/v1/views/enclosures/JBOD-003").json()
        double = client.get("/v1/views/enclosures/JBOD-001").json()
    assert [m["seen"] for m in single["io_modules"]] == [True, False]
    assert [len(m["cabled_to"]) for m in double["io_modules"]] == [1, 1]
    assert {b["slot"]["hba_ports"] for b in single["bays"]} == {1}
    assert {len(b["disk_paths"]) for b in double["bays"]} == {2}
    assert single["locate_refusal"] and "demo" in single["locate_refusal"]
    # the demo pool's mirrors span the JBODs: each disk of this one is in it, by its bay
    [pool] = single["pools"]
    leaves = [leaf for top in pool["vdevs"] for leaf in top["children"]]
    mine = {
        leaf["disk_id"]: leaf["place"] for leaf in leaves if leaf["place"].startswith("JBOD-003 ")
    }
    assert mine and set(mine) == {b["slot"]["disk_id"] for b in single["bays"]} - {None}
    assert all(leaf["place"].startswith("JBOD-") for leaf in leaves)
    assert all(b["health"]["verdict"] == "passed" for b in double["bays"])


def test_entities_name_every_group_the_heat_maps_draw(web_server: Server) -> None:
    with web_server.client() as client:
        entities = client.get("/v1/views/entities").json()
    levels = {e["level"] for e in entities}
    assert {"hba", "hba-port", "chain", "enclosure"} <= levels
    assert {e["name"] for e in entities if e["level"] == "enclosure"} >= SINGLE_PATHED


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/v1/views/enclosures/JBOD-999", 404, "no enclosure 'JBOD-999'"),
        ("/v1/views/topology?window_s=5", 422, "window_s"),
        ("/v1/views/topology?slower_than_ms=-1", 422, "slower_than_ms"),
        ("/v1/views/topology?host=nowhere", 404, "no inventory yet for nowhere"),
    ],
)
def test_bad_requests_get_a_clear_problem(
    web_server: Server, path: str, status: int, says: str
) -> None:
    with web_server.client() as client:
        answer = client.get(path)
        assert answer.status_code == status
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert says in answer.text
        assert client.get("/v1/views/topology").status_code == 200  # the rest is intact


def test_views_need_the_read_token_unless_reads_are_open(closed_server: Server) -> None:
    with closed_server.client(token=None) as anonymous:
        assert anonymous.get("/v1/views/topology").status_code == 401
        assert anonymous.get("/topology").status_code == 200  # the shell holds no data
    with closed_server.client() as reader:
        assert reader.get("/v1/views/topology").status_code == 200
        assert reader.get("/v1/views/enclosures/JBOD-003").status_code == 200


def test_pages_and_assets_are_served_from_the_package(web_server: Server) -> None:
    with web_server.client(token=None) as anonymous:
        for path in ("/", "/topology", "/enclosures/JBOD-003", "/latency", "/findings", "/reports"):
            page = anonymous.get(path)
            assert page.status_code == 200, path
            assert page.headers["content-type"].startswith("text/html")
            assert "default-src 'self'" in page.headers["content-security-policy"]
            assert "demo host" in page.text
        vendored = anonymous.get("/static/vendor/echarts/echarts.min.js")
        assert vendored.status_code == 200 and len(vendored.content) > 500_000
        assert anonymous.get("/static/vendor/echarts/LICENSE").status_code == 200
        assert anonymous.get("/static/../web.py").status_code == 404
        assert anonymous.get("/nowhere").status_code == 404
