"""`GET /v1/inventory/nvme` and `/v1/inventory/iscsi` on a service sweeping a simulated host
with an NVMe/TCP subsystem and iSCSI sessions; their findings come with the sweep."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fixture_paths import ROOT

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot
from tests.api.conftest import Server, demo_settings, start_server

SPECS = ROOT / "pinchpoint" / "simulator" / "specs"


@pytest.fixture(scope="module")
def paths_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("paths")
    nvme = load_spec(SPECS / "nvme_tcp_single_path.toml").model_dump(exclude_defaults=True)
    iscsi = load_spec(SPECS / "iscsi_single_session.toml").model_dump(exclude_defaults=True)
    write_snapshot(spec_from_data(nvme | {"iscsi_session": iscsi["iscsi_session"]}), base / "s")
    settings = demo_settings(base / "data", target=TargetKind.SNAPSHOT, snapshot=base / "s")
    handle = start_server(settings)
    try:
        handle.wait_for_report()
        yield handle
    finally:
        handle.stop()


def test_nvme_subsystems_with_paths_and_ana_state(paths_server: Server) -> None:
    with paths_server.client() as client:
        subsystems = client.get("/v1/inventory/nvme").json()
    local, target = subsystems
    assert local["transports"] == ["pcie"]
    assert target["nqn"] == "nqn.1988-11.com.dell:powerstore:00:f03028e73ef7D032D81E"
    assert [(c["name"], c["state"], c["adapter"]) for c in target["controllers"]] == [
        ("nvme1", "connecting", "interface ens1f0"),
        ("nvme2", "live", "interface ens1f1"),
    ]
    paths = target["namespaces"][0]["paths"]
    assert [(p["name"], p["ana_state"]) for p in paths] == [
        ("nvme1c1n1", "non-optimized"),
        ("nvme1c2n1", "optimized"),
    ]


def test_iscsi_sessions_and_the_findings(paths_server: Server) -> None:
    with paths_server.client() as client:
        sessions = client.get("/v1/inventory/iscsi").json()
        findings = client.get("/v1/findings").json()
    assert [(s["name"], s["state"], s["portal"]) for s in sessions] == [
        ("session1", "FREE", "10.8.100.6:3260"),
        ("session2", "LOGGED_IN", "10.8.101.6:3260"),
    ]
    items = findings["items"] if isinstance(findings, dict) else findings
    rules = sorted(f["rule"] for f in items)
    assert rules.count("nvme.subsystem.single_path") == 2
    assert rules.count("iscsi.target.single_path") == 2
