"""Requests an attacker or an unlucky client sends get an answer, a 4xx that says what is
wrong where they are wrong, never a 5xx: dates past what `datetime` holds (brought within
range), JSON nested 100,000 deep, host names that are paths."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.model.findings import Report
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import Server
from tests.api.test_uploads_stats_fleet import fleet_reports

EXTREME = (
    "0001-01-01T00:00:00+01:00",  # has no UTC
    "9999-12-31T23:59:59-14:00",  # neither
    "0001-01-01T00:00:00Z",  # an hour before it is not a datetime
    "9999-12-31T23:59:59Z",
)
DEEP = "[" * 100_000 + "]" * 100_000


def test_extreme_dates_are_brought_within_range(fresh_server: Server) -> None:
    """Every date-time the OpenAPI document allows is accepted (schemathesis holds the API to
    it): one outside what the routes compute with counts as the nearer end."""
    for moment in EXTREME:
        _dates_are_accepted(fresh_server, moment)


def _dates_are_accepted(server: Server, moment: str) -> None:
    with server.admin() as admin:
        answers = {
            "since": admin.get("/v1/reports", params={"since": moment}),
            "until": admin.get("/v1/reports", params={"until": moment}),
            "from": admin.get("/v1/stats", params={"from": moment}),
            "to": admin.get("/v1/stats", params={"to": moment}),
            "until ": admin.post(
                "/v1/mutes",
                json={
                    "rule": "sas.enclosure.single_path",
                    "entity_id": "enclosure:x",
                    "reason": "test",
                    "until": moment,
                },
            ),
        }
    mute = answers.pop("until ")
    for field, answer in answers.items():
        # taken as the nearer end of the range; what is left is the route's own judgement: a
        # window that ends before it starts, no inventory yet on a service not swept
        assert answer.status_code in (200, 404, 422), (field, answer.text)
        if answer.status_code == 422:
            assert answer.json()["detail"] == "query: from: must be before `to`", answer.text
    if moment.startswith("0001"):  # 1970: a mute that has already expired is refused as such
        assert mute.status_code == 422 and mute.json()["detail"] == "the expiry is in the past"
    else:
        assert mute.status_code == 201, mute.text
        assert mute.json()["until"].startswith("9000-01-01")


def test_a_date_that_is_not_a_date_is_422_naming_the_field(fresh_server: Server) -> None:
    with fresh_server.admin() as admin:
        answer = admin.get("/v1/reports", params={"since": "0.5"})
    assert answer.status_code == 422
    assert "since: " in answer.json()["detail"] and "ISO 8601" in answer.json()["detail"]


def test_dates_in_range_still_work(fresh_server: Server) -> None:
    with fresh_server.admin() as admin:
        listed = admin.get("/v1/reports", params={"since": "1970-01-01T00:00:00+00:00"})
        shifted = admin.get("/v1/reports", params={"until": "2026-11-22T10:00:00+14:00"})
    assert listed.status_code == 200 and shifted.status_code == 200


def test_deeply_nested_json_is_400(fresh_server: Server) -> None:
    paths = [
        "/v1/stats",
        "/v1/mutes",
        "/v1/pushed-reports",
        "/v1/pushed-reports/by-digest",
        "/v1/stats?kind=iostat-json",
    ]
    with fresh_server.admin() as admin:
        for path in paths:
            answer = admin.post(
                path,
                content='{"points": ' + DEEP + "}",
                headers={"content-type": "application/json; charset=utf-8"},
            )
            assert answer.status_code == 400, (path, answer.text)
            assert answer.json()["detail"] == "body: the JSON nests deeper than 64 levels"
        assert admin.get("/v1/rules").status_code == 200


def test_deep_json_as_a_statistics_file_is_422(fresh_server: Server) -> None:
    """The same text sent as a file (text/plain) reaches the importer, which says so."""
    fresh_server.service.runner.request("test")
    with fresh_server.admin() as admin:
        for _ in range(600):
            answer = admin.post(
                "/v1/stats",
                params={"kind": "iostat-json"},
                content='{"sysstat": ' + DEEP + "}",
                headers={"content-type": "text/plain"},
            )
            if answer.status_code != 409:  # no inventory yet: the sweep is still running
                break
            fresh_server.wait_for_report()
    assert answer.status_code == 422, answer.text
    assert "nests deeper than 64 levels" in answer.json()["detail"]


@pytest.fixture(scope="module")
def client_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """The report of one simulated fleet client, made once for the pushes below."""
    return fleet_reports(tmp_path_factory.mktemp("fleet"), count=1, slow=0)[0][0]


def _pushed(report: Report, **changes: object) -> dict[str, object]:
    body = report.model_dump(mode="json")
    for key, value in changes.items():
        if key == "hostname":
            body["host"]["hostname"] = value  # type: ignore[index]
        else:
            body[key] = value
    return {"report": body}


def test_pushes_named_like_a_path_or_dated_outside_utc_are_422(
    central_server: Server, client_report: Report
) -> None:
    with central_server.admin() as admin:
        for hostname in ("../../../etc/cron.d/x", "..", "a\x1b[31mb", "x" * 300, "a/b", "東京"):
            answer = admin.post(
                "/v1/pushed-reports", json=_pushed(client_report, hostname=hostname)
            )
            assert answer.status_code == 422, (hostname, answer.text)
            detail = answer.json()["detail"]
            assert detail.startswith("body: report.host.hostname: host name "), detail
        for moment in EXTREME[:2]:
            answer = admin.post(
                "/v1/pushed-reports", json=_pushed(client_report, generated_at=moment)
            )
            assert answer.status_code == 422, (moment, answer.text)
            assert "outside the dates UTC can hold" in answer.json()["detail"]
        assert admin.get("/v1/hosts").json() == []
        taken = admin.post("/v1/pushed-reports", json=_pushed(client_report))
        assert taken.status_code == 201, taken.text


def test_a_snapshot_whose_host_is_named_like_a_path_is_422(
    fresh_server: Server, tmp_path: Path
) -> None:
    spec = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    spec_file = tmp_path / "hostile.toml"
    spec_file.write_text(spec.replace('"client-01"', '"../../../etc/cron.d/x"'), encoding="utf-8")
    tree = tmp_path / "client"
    write_snapshot(load_spec(spec_file), tree)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(tree, arcname="client")
    with fresh_server.admin() as admin:
        answer = admin.post(
            "/v1/snapshots",
            content=buffer.getvalue(),
            headers={"content-type": "application/gzip"},
        )
        hosts = admin.get("/v1/hosts").json()
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith("the snapshot's host name '../../../etc/cron.d/x'")
    assert hosts == []
