"""The API serves a report's status: `partial` with its reasons on a host where most rules could
not run (a simulated VM), `findings` on the demo host; the list of reports carries it too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fixture_paths import SPECS

from pinchpoint.rules.catalog import CATALOG
from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import READ_TOKEN, Server, demo_settings, start_server

HEADERS = {"Authorization": f"Bearer {READ_TOKEN}"}
TIMEOUT = 60  # a loaded test machine


@pytest.fixture
def vm_server(tmp_path: Path) -> Iterator[Server]:
    snapshot = tmp_path / "vm-guest"
    write_snapshot(load_spec(SPECS / "vm_guest.toml"), snapshot)
    server = start_server(
        demo_settings(tmp_path / "data", target=TargetKind.SNAPSHOT, snapshot=snapshot)
    )
    try:
        server.wait_for_report()
        yield server
    finally:
        server.stop()


def test_a_vm_report_is_partial_with_reasons(vm_server: Server) -> None:
    latest = httpx.get(
        f"{vm_server.url}/v1/reports/latest", headers=HEADERS, timeout=TIMEOUT
    ).json()
    assert latest["status"] == "partial"
    assert (
        latest["status_reasons"][0] == f"{len(CATALOG) - 7} of {len(CATALOG)} rules could not run"
    )
    listed = httpx.get(f"{vm_server.url}/v1/reports", headers=HEADERS, timeout=TIMEOUT).json()
    assert [item["status"] for item in listed["items"]] == ["partial"]


def test_the_demo_report_has_findings(demo_server: Server) -> None:
    latest = httpx.get(
        f"{demo_server.url}/v1/reports/latest", headers=HEADERS, timeout=TIMEOUT
    ).json()
    assert latest["status"] == "findings" and latest["status_reasons"] == []
    listed = httpx.get(f"{demo_server.url}/v1/reports", headers=HEADERS, timeout=TIMEOUT).json()
    assert listed["items"][0]["status"] == "findings"
