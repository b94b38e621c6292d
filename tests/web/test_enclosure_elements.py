"""The enclosure page's power, cooling and sensors panel in a real headless Chromium, against a
real `pinchpoint serve` on a snapshot of the simulated enclosure_faults host (a failed PSU, a
stopped fan, a sensor over its warning limit, a failed and a missing I/O module), and the view
the page reads (`GET /v1/views/enclosures/{id}`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import DEMO_SPEC_PATH, load_spec, write_snapshot
from tests.api.conftest import QUIET
from tests.web.conftest import LAPTOP, Server, Visit, start_web_server, visit_on

FAULTS_SPEC = DEMO_SPEC_PATH.parent / "enclosure_faults.toml"


@pytest.fixture(scope="module")
def faults_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web-enclosure-faults")
    snapshot = root / "snapshot"
    write_snapshot(load_spec(FAULTS_SPEC), snapshot)
    server = start_web_server(
        root / "data", schedule=QUIET, target=TargetKind.SNAPSHOT, snapshot=snapshot
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def faults_visit(browser: Browser, faults_server: Server) -> Iterator[Visit]:
    yield from visit_on(browser, faults_server, LAPTOP)


def test_the_view_carries_the_elements_and_their_troubles(faults_server: Server) -> None:
    with faults_server.client() as client:
        view = client.get("/v1/views/enclosures/JBOD-A").json()
        raw = client.get("/v1/inventory/enclosures").json()
    assert view["elements_summary"] == (
        "2 power supplies, 4 fans, 2 temperature sensors 31–64 °C, 2 expanders: 3 in trouble"
    )
    by_name = {e["name"]: e for e in view["elements"]}
    assert by_name["power supply 1 (PSU 2)"]["severity"] == "critical"
    assert by_name["power supply 0 (PSU 1)"]["severity"] is None
    hot = by_name["temperature sensor 0 (TEMP IOM A)"]
    assert (hot["reading"], hot["high_warning"], hot["high_critical"]) == ("64 °C", 60, 70)
    assert hot["problem"] == "reports Noncritical; at 64 °C, over its 60 °C warning limit"
    assert "sas connector" not in {e["element_type"].lower() for e in view["elements"]}
    jbod_a = next(e for e in raw if e["name"] == "JBOD-A")
    assert len(jbod_a["elements"]) == 15  # /v1/inventory/enclosures: every element
    assert jbod_a["status_summary"] == ["CRIT", "NON-CRIT"]


def test_the_page_shows_psu_fan_and_temperature_state(faults_visit: Visit) -> None:
    page = faults_visit.open("/enclosures/JBOD-A")
    expect(page.locator('[data-slot="elements-summary"]')).to_contain_text("3 in trouble")
    rows = page.locator('[data-slot="elements"] tbody tr')
    expect(rows).to_have_count(10)  # 2 PSUs, 4 fans, 2 sensors, 2 expanders
    psu = page.locator('[data-element="power supply 1 (PSU 2)"]')
    assert psu.get_attribute("data-severity") == "critical"
    expect(psu).to_contain_text("reports Critical")
    hot = page.locator('[data-element="temperature sensor 0 (TEMP IOM A)"]')
    assert hot.get_attribute("data-severity") == "warning"
    expect(hot).to_contain_text("64 °C")
    expect(hot).to_contain_text("warn 60 / crit 70 °C")
    fine = page.locator('[data-element="cooling 0 (FAN 1)"]')
    assert fine.get_attribute("data-severity") == "ok"
    expect(fine).to_contain_text("rpm")
    page.locator('[data-slot="elements"]').scroll_into_view_if_needed()
    faults_visit.screenshot("enclosure-elements-jbod-a")
    assert faults_visit.console_errors == [] and faults_visit.page_errors == []
