"""Snapshot uploads, statistics in and out, and a central service taking pushed reports."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS
from pydantic import SecretStr

from pinchpoint.checks.source import open_snapshot
from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.config import Config
from pinchpoint.service.checkup import check_source
from pinchpoint.service.fleet import PushError, push_report
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import ADMIN_TOKEN, Server, demo_settings, start_server

ZPOOL_W = FIXTURES / "imports" / "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt"


def snapshot_archive(spec_text: str, tmp_path: Path, name: str) -> bytes:
    """A `capture --tar` style archive (one top directory) of a simulated host."""
    spec_file = tmp_path / f"{name}.toml"
    spec_file.write_text(spec_text, encoding="utf-8")
    tree = tmp_path / name
    write_snapshot(load_spec(spec_file), tree)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(tree, arcname=name)
    return buffer.getvalue()


def test_snapshot_upload_is_analysed_as_a_host_of_its_own(
    demo_server: Server, tmp_path: Path
) -> None:
    spec = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    body = snapshot_archive(spec, tmp_path, "client-01")
    with demo_server.admin() as admin:
        answer = admin.post(
            "/v1/snapshots", content=body, headers={"content-type": "application/gzip"}
        )
    assert answer.status_code == 201, answer.text
    result = answer.json()
    assert result["host"].endswith("(snapshot)")
    with demo_server.client() as client:
        report = client.get(f"/v1/reports/{result['report_id']}").json()
        hosts = {h["name"] for h in client.get("/v1/hosts").json()}
    assert report["host"]["hostname"] == result["host"]
    assert result["host"] in hosts and len(hosts) >= 2


def hostile_archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = b"owned"
        member = tarfile.TarInfo("snap/../../escaped.txt")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("body", "status"),
    [(b"", 400), (b"this is not a tar archive", 400), (hostile_archive(), 422)],
    ids=["empty", "garbled", "path-traversal"],
)
def test_hostile_or_broken_uploads_are_refused(
    demo_server: Server, body: bytes, status: int
) -> None:
    with demo_server.admin() as admin:
        answer = admin.post(
            "/v1/snapshots", content=body, headers={"content-type": "application/gzip"}
        )
    assert answer.status_code == status, answer.text
    assert answer.json()["detail"]
    uploads = demo_server.service.settings.resolved_data_dir() / "uploads"
    assert not (uploads.parent / "escaped.txt").exists()
    assert_upload_scratch_is_gone(uploads)


def assert_upload_scratch_is_gone(uploads: Path) -> None:
    """Nothing left of an upload: at most this process's empty scratch directory."""
    if uploads.exists():
        assert [p for p in uploads.rglob("*") if not p.is_dir()] == []
        assert all(p.name.split("-")[0].isdigit() for p in uploads.iterdir())


def gzip_tar(members: list[tuple[str, bytes | None, str]]) -> bytes:
    """A gzip tar of (name, data, link target) members, a manifest first."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        manifest = b'{"format": "pinchpoint-snapshot", "version": 1, "hostname": "h"}'
        for name, data, target in [("snap/manifest.json", manifest, ""), *members]:
            member = tarfile.TarInfo(name)
            if target:
                member.type = tarfile.SYMTYPE
                member.linkname = target
                archive.addfile(member)
            else:
                member.size = len(data or b"")
                archive.addfile(member, io.BytesIO(data or b""))
    return buffer.getvalue()


def cut(body: bytes, keep: int) -> bytes:
    return body[:keep]


GOOD_FILES = [(f"snap/sys/f{i}", os.urandom(3000), "") for i in range(30)]


@pytest.mark.parametrize(
    ("body", "status", "said"),
    [
        (gzip_tar([("snap/sys/" + "/".join(["p" * 200] * 25), b"x", "")]), 422, "longer than"),
        (gzip_tar([("snap/sys/out", None, "../../../etc")]), 422, "snap/sys/out"),
        (
            gzip_tar([("snap/sys/d", None, "../.."), ("snap/sys/d/planted", b"x", "")]),
            422,
            "snap/sys/d",
        ),
        (cut(gzip_tar(GOOD_FILES), 40_000), 400, "truncated"),
        (gzip_tar(GOOD_FILES)[:-8], 400, ""),  # the gzip trailer (CRC, length) cut off
        (gzip_tar([("snap/sys/zeros", bytes(8 * 1024 * 1024), "")]), 413, "bomb"),
    ],
    ids=["5000-char-member", "link-out", "through-link", "truncated", "no-trailer", "bomb"],
)
def test_hostile_member_paths_and_broken_gzip_are_4xx_and_leave_nothing(
    demo_server: Server, body: bytes, status: int, said: str
) -> None:
    with demo_server.admin() as admin:
        answer = admin.post(
            "/v1/snapshots", content=body, headers={"content-type": "application/gzip"}
        )
    assert answer.status_code == status, answer.text
    assert said in answer.json()["detail"]
    assert_upload_scratch_is_gone(demo_server.service.settings.resolved_data_dir() / "uploads")


def test_an_upload_past_the_limit_gets_413(tmp_path: Path) -> None:
    server = start_server(demo_settings(tmp_path, max_upload_bytes=4096), first_sweep=False)
    try:
        with server.admin() as admin:
            answer = admin.post(
                "/v1/snapshots",
                content=b"\x1f\x8b" + b"\0" * 8192,
                headers={"content-type": "application/gzip"},
            )
        assert answer.status_code == 413
    finally:
        server.stop()


def test_statistics_series_along_the_hierarchy(demo_server: Server) -> None:
    sampler = demo_server.service.sampler
    for _ in range(3):
        assert sampler.tick() > 0
    with demo_server.client() as client:
        groups = client.get("/v1/stats", params={"by": "enclosure"}).json()
        assert groups["series"], groups
        busiest = max(groups["series"], key=lambda s: len(s["points"]))
        point = busiest["points"][-1]
        assert point["values"]["read_iops"] + point["values"]["write_iops"] > 0
        drill = client.get("/v1/stats", params={"entity": busiest["entity"], "by": "disk"}).json()
        one = client.get("/v1/stats", params={"entity": busiest["entity"]}).json()
        neither = client.get("/v1/stats")
        backwards = client.get(
            "/v1/stats",
            params={"by": "disk", "from": "2026-01-02T00:00:00Z", "to": "2026-01-01T00:00:00Z"},
        )
    assert drill["series"] and all(s["level"] == "disk" for s in drill["series"])
    assert any(s["points"] for s in drill["series"])
    assert one["series"][0]["entity"] == busiest["entity"]
    assert neither.status_code == 200 and neither.json()["by"] == "enclosure"  # the default
    assert backwards.status_code == 422 and "from" in backwards.json()["detail"]
    with_histograms = [
        p for s in groups["series"] for p in s["points"] if p["histogram"] and p["percentiles_ms"]
    ]
    assert with_histograms, "the demo's ZFS histograms should reach the heat map"


def test_statistics_files_and_json_histograms_are_accepted(demo_server: Server) -> None:
    with demo_server.admin() as admin:
        zpool = admin.post(
            "/v1/stats",
            params={"kind": "zpool-iostat-w"},
            content=ZPOOL_W.read_bytes(),
            headers={"content-type": "text/plain"},
        )
        histograms = admin.post(
            "/v1/stats",
            json={
                "points": [
                    {
                        "entity": "sda",
                        "at": "2026-11-22T10:00:00Z",
                        "duration_s": 10,
                        "values": {"read_iops": 120.0},
                        "histograms": {"read": {"counts": {"80": 5, "81": 7}}},
                    }
                ]
            },
        )
        garbled = admin.post(
            "/v1/stats", content=b"\x00\x01garbage", headers={"content-type": "text/plain"}
        )
        unknown = admin.post(
            "/v1/stats",
            content=b"date,value\nyesterday,3\n",
            headers={"content-type": "text/plain"},
        )
        empty = admin.post("/v1/stats", content=b"", headers={"content-type": "text/plain"})
        no_points = admin.post("/v1/stats", json={"points": []})
    assert zpool.status_code == 201, zpool.text
    assert zpool.json()["points"] > 0 and zpool.json()["kind"] == "zpool-iostat-w"
    assert histograms.status_code == 201, histograms.text
    assert histograms.json()["points"] == 1
    assert garbled.status_code == 422 and "binary" in garbled.json()["detail"]
    assert unknown.status_code == 422 and "unknown format" in unknown.json()["detail"]
    assert empty.status_code == 400
    assert no_points.status_code == 422 and "nothing in it could be used" in no_points.text


def fleet_reports(tmp_path: Path, count: int, slow: int) -> list[tuple[Report, Inventory]]:
    """`count` simulated clients; client `slow` has a switch port offering only 10/100."""
    base = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    made = []
    for number in range(1, count + 1):
        text = base.replace('"client-01"', f'"client-{number:02d}"')
        if number == slow:
            text = text.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
        spec = tmp_path / f"client-{number:02d}.toml"
        spec.write_text(text, encoding="utf-8")
        tree = tmp_path / f"client-{number:02d}"
        write_snapshot(load_spec(spec), tree)
        with open_snapshot(tree) as source:
            checkup = check_source(source, kind=None, live=False, config=Config())
        made.append((checkup.report, checkup.inventory))
    return made


def test_agents_push_to_a_central_service_and_the_fleet_rule_finds_field_case_3(
    central_server: Server, tmp_path: Path
) -> None:
    for report, inventory in fleet_reports(tmp_path, count=4, slow=3):
        stored = push_report(central_server.url, _secret(ADMIN_TOKEN), report, inventory)
        assert stored >= 1
    with central_server.client() as client:
        hosts = sorted(h["name"] for h in client.get("/v1/hosts").json())
        fleet = client.get("/v1/fleet/findings").json()
        reports = client.get("/v1/reports", params={"host": "client-03"}).json()
    assert hosts == ["client-01", "client-02", "client-03", "client-04"]
    assert reports["total"] == 1
    assert [f["entity"]["name"] for f in fleet] == ["eno1 on client-03"]
    assert fleet[0]["rule"] == "fleet.nic.peer_outlier"
    assert "100 Mb/s" in fleet[0]["title"]


def test_a_push_with_the_read_token_or_to_an_agent_is_refused(
    central_server: Server, demo_server: Server, tmp_path: Path
) -> None:
    report, inventory = fleet_reports(tmp_path, count=1, slow=0)[0]
    with pytest.raises(PushError, match="HTTP 403"):
        push_report(
            central_server.url, _secret("read-token-for-tests-0123456789"), report, inventory
        )
    with pytest.raises(PushError, match="HTTP 409"):
        push_report(demo_server.url, _secret(ADMIN_TOKEN), report, inventory, attempts=1)


def _secret(value: str) -> SecretStr:
    return SecretStr(value)


def test_check_and_serve_push_to_a_central_service(central_server: Server, tmp_path: Path) -> None:
    spec = tmp_path / "client.toml"
    spec.write_text((SPECS / "fleet_client.toml").read_text(encoding="utf-8"), encoding="utf-8")
    tree = tmp_path / "client"
    write_snapshot(load_spec(spec), tree)
    pinchpoint = str(Path(sys.executable).with_name("pinchpoint"))
    done = subprocess.run(
        [
            pinchpoint,
            "check",
            "--snapshot",
            str(tree),
            "--format",
            "json",
            "--push-to",
            central_server.url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PINCHPOINT_PUSH_TOKEN": ADMIN_TOKEN},
    )
    assert done.returncode in (0, 1), done.stderr
    assert "report pushed to" in done.stderr
    agent = start_server(
        demo_settings(tmp_path / "agent", push_to=central_server.url, push_token=ADMIN_TOKEN),
        first_sweep=False,
    )
    try:
        sweep = agent.service.runner.request("test")
        assert agent.service.runner.wait(sweep.id, 300) is not None
    finally:
        agent.stop()
    with central_server.client() as client:
        hosts = sorted(h["name"] for h in client.get("/v1/hosts").json())
    assert hosts == ["client-01", "demo-storage-head"]


def test_the_service_removes_upload_scratch_left_by_a_killed_process_at_start_up(
    tmp_path: Path,
) -> None:
    """A process killed mid-upload (`kill -9`) leaves `uploads/<pid>-<start>/…`: the next
    service to start removes it; entries that are not process scratch stay."""
    child = subprocess.Popen(["true"])
    child.wait()
    uploads = tmp_path / "uploads"
    stale = uploads / f"{child.pid}-7" / "snapshot-abc"
    stale.mkdir(parents=True)
    (stale / "upload.tar.gz").write_bytes(b"\x1f\x8b" + bytes(1000))
    other = uploads / "not-scratch"
    other.mkdir()
    server = start_server(demo_settings(tmp_path), first_sweep=False)
    try:
        assert not stale.parent.exists()
        assert other.exists()
    finally:
        server.stop()
