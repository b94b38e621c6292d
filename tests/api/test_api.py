"""The REST API over real HTTP: a uvicorn server on loopback serving the demo host (field case
1: JBODs ending 003 and 012 single-pathed)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api.conftest import ADMIN_TOKEN, READ_TOKEN, Server

SINGLE_PATHED = ("003", "012")

MUTATING = [
    ("post", "/v1/checks", None),
    ("post", "/v1/mutes", {"rule": "sas.chain.imbalance", "entity_id": "x", "reason": "r"}),
    ("delete", "/v1/mutes/1", None),
    ("post", "/v1/maintenance/enclosures/x/locate", {"on": True}),
    ("post", "/v1/maintenance/enclosures/x/slots/1/locate", {"on": True}),
    ("post", "/v1/snapshots", None),
    ("post", "/v1/stats", None),
    ("post", "/v1/pushed-reports", None),
    ("post", "/v1/pushed-reports/by-digest", None),
]


def test_health_and_readiness(demo_server: Server) -> None:
    with demo_server.client(token=None) as anonymous:
        health = anonymous.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
    with demo_server.client() as client:
        ready = client.get("/readyz").json()
    assert ready["ready"] is True, ready
    assert ready["database"] == "sqlite"
    assert "demo host" in ready["target"]
    assert ready["last_sweep_age_s"] is not None


def test_readiness_judges_the_last_sweep_by_the_setting(fresh_server: Server) -> None:
    service = fresh_server.service
    with fresh_server.client(token=None) as anonymous:
        assert anonymous.get("/readyz").json()["reasons"] == ["no sweep has succeeded yet"]
        service.settings.stale_sweep_after_s = 600
        service.runner.counters.last_success = datetime.now(UTC) - timedelta(seconds=500)
        assert anonymous.get("/readyz").json()["ready"] is True
        service.runner.counters.last_success = datetime.now(UTC) - timedelta(seconds=700)
        stale = anonymous.get("/readyz")
    assert stale.status_code == 503
    (reason,) = stale.json()["reasons"]
    assert reason.startswith("the last successful sweep is 7") and reason.endswith(" s old")


@pytest.mark.parametrize(("method", "path", "body"), MUTATING)
def test_every_mutating_route_needs_the_admin_token(
    demo_server: Server, method: str, path: str, body: object
) -> None:
    with demo_server.client(token=None) as anonymous:
        answer = anonymous.request(method, path, json=body)
        assert answer.status_code == 401
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.headers["www-authenticate"].startswith("Bearer")
    with demo_server.client(READ_TOKEN) as reader:
        assert reader.request(method, path, json=body).status_code == 403
    with demo_server.client("wrong-token") as stranger:
        assert stranger.request(method, path, json=body).status_code == 401


def test_reads_need_a_token_unless_opened(demo_server: Server) -> None:
    with demo_server.client(token=None) as anonymous:
        denied = anonymous.get("/v1/reports/latest")
    assert denied.status_code == 401
    problem = denied.json()
    assert set(problem) >= {"type", "title", "status", "detail"} and problem["status"] == 401
    with demo_server.client(ADMIN_TOKEN) as admin:
        assert admin.get("/v1/reports/latest").status_code == 200


def test_latest_report_names_the_single_pathed_jbods(demo_server: Server) -> None:
    with demo_server.client() as client:
        answer = client.get("/v1/reports/latest")
    assert answer.status_code == 200
    report = answer.json()
    single = [f for f in report["findings"] if f["rule"] == "sas.enclosure.single_path"]
    assert sorted(f["entity"]["name"][-3:] for f in single) == sorted(SINGLE_PATHED)
    assert report["host"]["source"] == "demo"
    assert int(answer.headers["x-report-id"]) >= 1


def test_report_formats_and_listing(demo_server: Server) -> None:
    with demo_server.client() as client:
        listing = client.get("/v1/reports", params={"limit": 5}).json()
        assert listing["total"] >= 1 and listing["items"]
        report_id = listing["items"][0]["id"]
        html = client.get(f"/v1/reports/{report_id}", params={"format": "html"})
        markdown = client.get(f"/v1/reports/{report_id}", params={"format": "markdown"})
        missing = client.get("/v1/reports/999999")
        bad_format = client.get(f"/v1/reports/{report_id}", params={"format": "pdf"})
    assert html.headers["content-type"].startswith("text/html") and "<html" in html.text.lower()
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert "single_path" in markdown.text
    assert missing.status_code == 404 and missing.json()["status"] == 404
    assert bad_format.status_code == 422
    assert "format" in bad_format.json()["detail"]


def test_inventory_resources(demo_server: Server) -> None:
    with demo_server.client() as client:
        enclosures = client.get("/v1/inventory/enclosures").json()
        hbas = client.get("/v1/inventory/hbas").json()
        one = client.get(f"/v1/inventory/enclosures/{enclosures[0]['id']}").json()
        disks = client.get("/v1/inventory/disks", params={"limit": 10}).json()
        single = client.get("/v1/inventory/disks", params={"hba_ports": 1, "limit": 2000}).json()
        old_name = client.get("/v1/inventory/disks", params={"paths": 1, "limit": 2000}).json()
        disk = client.get(f"/v1/inventory/disks/{disks['items'][0]['id']}").json()
        nics = client.get("/v1/inventory/nics")
        fc = client.get("/v1/inventory/fc-ports")
        multipath = client.get("/v1/inventory/multipath")
        unknown = client.get("/v1/inventory/enclosures/nope")
    assert len(enclosures) >= 6 and hbas
    assert old_name == single  # the deprecated name of the filter, until 0.3.0
    assert one["id"] == enclosures[0]["id"]
    assert len(disks["items"]) == 10 and disks["total"] > 10
    single_enclosures = {d["enclosure_id"] for d in single["items"]}
    names = {e["id"]: e["name"] for e in enclosures}
    assert sorted(names[e][-3:] for e in single_enclosures) == sorted(SINGLE_PATHED)
    assert disk["id"] == disks["items"][0]["id"]
    assert nics.status_code == fc.status_code == multipath.status_code == 200
    for nic in nics.json():  # error counters and carrier changes, for net.link.errors
        assert nic["counters"]["statistics"]["rx_crc_errors"] == 0
        assert nic["counters"]["carrier_changes"] >= 1
    assert unknown.status_code == 404


def test_maintenance_view_shows_paths_per_enclosure(demo_server: Server) -> None:
    with demo_server.client() as client:
        view = client.get("/v1/maintenance/enclosures").json()
    for enclosure in view:
        single = enclosure["name"][-3:] in SINGLE_PATHED
        assert enclosure["hba_ports"] == (1 if single else 2), enclosure["name"]
        assert enclosure["hba_ports_expected"] == 2
        assert len(enclosure["cabling"]) == enclosure["hba_ports"]
        assert enclosure["slots"] and enclosure["slots_occupied"] > 0
        rules = {f["rule"] for f in enclosure["findings"]}
        assert ("sas.enclosure.single_path" in rules) is single


def test_locate_is_refused_on_the_demo(demo_server: Server) -> None:
    with demo_server.client() as client:
        enclosure = client.get("/v1/inventory/enclosures").json()[0]["id"]
    with demo_server.admin() as admin:
        answer = admin.post(f"/v1/maintenance/enclosures/{enclosure}/locate", json={"on": True})
        slot = admin.post(
            f"/v1/maintenance/enclosures/{enclosure}/slots/0/locate", json={"on": False}
        )
        bad = admin.post(f"/v1/maintenance/enclosures/{enclosure}/locate", json={"on": "maybe"})
    assert answer.status_code == slot.status_code == 409
    assert "demo" in answer.json()["detail"]
    assert bad.status_code == 422 and "body: on" in bad.json()["detail"]


def test_rules_catalog_with_thresholds(demo_server: Server) -> None:
    with demo_server.client() as client:
        rules = client.get("/v1/rules").json()
        one = client.get("/v1/rules/sas.chain.too_deep").json()
        missing = client.get("/v1/rules/sas.nope")
    assert len(rules) >= 31
    assert {t["name"] for t in one["thresholds"]} >= {"max_enclosures"}
    assert one["markdown"] and one["severity"] == one["default_severity"]
    assert missing.status_code == 404


def test_findings_and_a_mute_round_trip(fresh_server: Server) -> None:
    sweep = fresh_server.service.runner.request("test")
    assert fresh_server.service.runner.wait(sweep.id, 180) is not None
    with fresh_server.client() as client:
        found = client.get(
            "/v1/findings", params={"rule": "sas.enclosure.single_path", "state": "open"}
        ).json()
    assert found["total"] == 2
    target = found["items"][0]
    assert target["first_seen"] and target["times_seen"] == 1
    with fresh_server.admin() as admin:
        made = admin.post(
            "/v1/mutes",
            json={
                "rule": target["rule"],
                "entity_id": target["entity"]["id"],
                "hours": 4,
                "reason": "recabling booked",
            },
        )
        assert made.status_code == 201, made.text
        mute = made.json()
        assert made.headers["location"] == f"/v1/mutes/{mute['id']}"
        unknown_rule = admin.post(
            "/v1/mutes", json={"rule": "no.such", "entity_id": "x", "reason": "r"}
        )
        assert unknown_rule.status_code == 422
        missing_reason = admin.post("/v1/mutes", json={"rule": target["rule"], "entity_id": "x"})
        assert missing_reason.status_code == 422
        assert "body: reason" in missing_reason.json()["detail"]
    with fresh_server.client() as client:
        muted = client.get("/v1/findings", params={"state": "muted"}).json()
        listed = client.get("/v1/mutes").json()
    assert [m["id"] for m in listed] == [mute["id"]]
    assert [f["id"] for f in muted["items"]] == [target["id"]]
    with fresh_server.admin() as admin:
        assert admin.delete(f"/v1/mutes/{mute['id']}").status_code == 204
        assert admin.delete(f"/v1/mutes/{mute['id']}").status_code == 404
    with fresh_server.client() as client:
        assert client.get("/v1/mutes").json() == []


def test_sweeps_run_one_at_a_time_while_reads_are_served(fresh_server: Server) -> None:
    with fresh_server.admin() as admin:
        first = admin.post("/v1/checks")
        second = admin.post("/v1/checks")
    assert first.status_code == second.status_code == 202
    assert first.headers["location"] == f"/v1/checks/{first.json()['id']}"
    reads_during_sweep = 0
    with fresh_server.client() as client:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            states = [client.get(f"/v1/checks/{s.json()['id']}").json() for s in (first, second)]
            assert client.get("/healthz").status_code == 200
            if states[0]["state"] == "running":
                reads_during_sweep += 1
            if all(s["state"] in ("done", "failed") for s in states):
                break
            time.sleep(0.2)
    one, two = states
    assert one["state"] == two["state"] == "done", states
    assert reads_during_sweep > 0
    assert two["started_at"] >= one["finished_at"]  # never in parallel
    assert one["report_id"] != two["report_id"]
    with fresh_server.client() as client:
        diff = client.get(f"/v1/reports/{one['report_id']}/diff/{two['report_id']}").json()
        missing = client.get(f"/v1/reports/{one['report_id']}/diff/999999")
    assert diff["new"] == [] and diff["resolved"] == []
    assert len(diff["persisting"]) == one["findings"]
    assert missing.status_code == 404


def test_metrics_exposition(demo_server: Server) -> None:
    for _ in range(2):  # each tick replays one interval of the demo's statistics
        demo_server.service.sampler.tick()
    with demo_server.client() as client:
        answer = demo_server.fresh_metrics(client)
    assert answer.status_code == 200
    families = {f.name: f for f in text_string_to_metric_families(answer.text)}
    present = {
        s.labels["enclosure"][-3:]: s.value for s in families["pinchpoint_enclosure_paths"].samples
    }
    assert present["003"] == 1 and present["012"] == 1
    assert all(v == 2 for k, v in present.items() if k not in SINGLE_PATHED)
    open_rules = {s.labels["rule"] for s in families["pinchpoint_findings_open"].samples}
    assert "sas.enclosure.single_path" in open_rules
    # work counted per disk (not per path): the demo's 360 disks, most with two paths
    writes = families["pinchpoint_disk_writes_completed"].samples
    assert len(writes) == len({s.labels["disk"] for s in writes}) == 360
    assert all(s.value > 0 for s in writes)
    times = {
        s.labels["disk"]: s.value for s in families["pinchpoint_disk_write_time_seconds"].samples
    }
    assert all(times[s.labels["disk"]] > 0 for s in writes)  # a mean write latency to derive
    info = families["pinchpoint_disk_info"].samples
    assert {s.labels["disk"] for s in info} == set(times)  # each joins its info series


def test_body_limits_and_validation(fresh_server: Server) -> None:
    limit = fresh_server.service.settings.max_body_bytes
    with fresh_server.admin() as admin:
        huge = admin.post(
            "/v1/mutes", content=b"x" * (limit + 1), headers={"content-type": "application/json"}
        )
        garbled = admin.post(
            "/v1/mutes", content=b"{not json", headers={"content-type": "application/json"}
        )
    assert huge.status_code == 413 and huge.json()["status"] == 413
    assert garbled.status_code == 422


def test_a_report_written_by_another_process_is_served_after_a_background_check(
    fresh_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import timedelta

    from pinchpoint.service import runtime
    from pinchpoint.service.store import Store

    service = fresh_server.service
    sweep = service.runner.request("test")
    assert service.runner.wait(sweep.id, 300) is not None
    first = service.view(None)
    assert first is not None
    other = Store.open(service.settings.resolved_database_url())  # another writer
    later = first.report.model_copy(
        update={"generated_at": first.report.generated_at + timedelta(minutes=5)}
    )
    saved = other.save_report(later, inventory=first.inventory, origin="sweep")
    other.close()
    monkeypatch.setattr(runtime, "VIEW_TTL_S", 0.0)
    assert service.fresh_view(None) is first  # served at once, checked in the background
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        current = service.fresh_view(None)
        if current is not None and current.report_id == saved.id:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the newer report was never picked up")
    with fresh_server.client() as client:
        assert client.get("/v1/reports/latest").headers["x-report-id"] == str(saved.id)


def test_scheduled_sweeps_reuse_smart_health_read_within_the_hour(fresh_server: Server) -> None:
    runner = fresh_server.service.runner
    first = runner.wait(runner.request("startup").id, 300)
    scheduled = runner.wait(runner.request("schedule").id, 300)
    asked = runner.wait(runner.request("api").id, 300)
    assert first is not None and scheduled is not None and asked is not None
    assert (first.read_smart, scheduled.read_smart, asked.read_smart) == (True, False, True)
    assert scheduled.state == "done" and scheduled.findings == first.findings
