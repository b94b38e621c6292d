"""The maintenance view end to end: each page in a real headless Chromium against a real
service on the demo host (field case 1: JBOD-003 and JBOD-012 cabled with one SAS path)."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Locator, expect

from pinchpoint.api.web import PAGES as WEB_PAGES
from tests.web.conftest import ADMIN_TOKEN, LAPTOP, READ_TOKEN, TABLET, Server, Visit, visit_on

pytestmark = pytest.mark.browser

SINGLE_PATHED = {"JBOD-003", "JBOD-012"}
JBOD_003 = "enclosure:0x5000ccab1e97cfff"
JBOD_012 = "enclosure:0x5000ccabb5e0afff"

# Every route of the web view (pinchpoint/api/web.py PAGES), each opened once at each size.
PAGES = [
    ("overview", "/"),
    ("topology", "/topology"),
    ("enclosures", "/enclosures"),
    ("enclosure", "/enclosures/JBOD-003"),
    ("networks", "/networks"),
    ("latency", f"/latency?entity={JBOD_003}"),
    ("findings", "/findings"),
    ("reports", "/reports"),
    ("report", "/reports?view=1"),
]


def test_the_pages_tested_are_every_route_of_the_view() -> None:
    routes = {urlparse(path).path for _, path in PAGES}
    assert {re.sub(r"/JBOD-003$", "/{enclosure_id}", r) for r in routes} == set(WEB_PAGES)


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[n for n, _ in PAGES])
def test_each_page_loads_without_console_errors(visit: Visit, name: str, path: str) -> None:
    page = visit.open(path)
    visit.screenshot(name)
    visit.screenshot(f"{name}-{LAPTOP['width']}", full_page=False)
    assert visit.console_errors == [] and visit.page_errors == []
    assert page.locator("#notice.error").count() == 0
    expect(page.locator('[data-nav][aria-current="page"]')).to_have_count(1)
    hosts = {urlparse(url).netloc for url in visit.requests if not url.startswith("data:")}
    assert hosts == {urlparse(visit.base_url).netloc}  # every asset from the service itself


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[n for n, _ in PAGES])
def test_each_page_fits_a_tablet(tablet: Visit, name: str, path: str) -> None:
    page = tablet.open(path)
    tablet.screenshot(f"{name}-tablet")
    tablet.screenshot(f"{name}-{TABLET['width']}", full_page=False)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} is {overflow} px wider than a tablet"
    clipped = page.evaluate(
        """() => [...document.querySelectorAll("main table")]
            .filter((t) => t.offsetParent && t.scrollWidth > t.parentElement.clientWidth + 1)
            .map((t) => t.closest("[data-slot]")?.dataset.slot || t.parentElement.className)"""
    )
    assert clipped == [], f"tables on {name} wider than their panel: {clipped}"
    assert tablet.console_errors == [] and tablet.page_errors == []


def test_topology_names_the_single_pathed_jbods(visit: Visit) -> None:
    page = visit.open("/topology")
    callout = page.locator('[data-callout="paths"]')
    expect(callout).to_contain_text("JBOD-003 (1 of 2 paths)")
    expect(callout).to_contain_text("JBOD-012 (1 of 2 paths)")
    named = set(callout.locator("a").all_inner_texts())
    assert named == SINGLE_PATHED
    low = page.locator(".tree .paths-low").all_inner_texts()
    assert low and all("1 of 2 paths" in text for text in low)
    one_path = {
        page.locator(".tree details[data-enclosure]").nth(i).get_attribute("data-enclosure")
        for i in range(page.locator(".tree details[data-enclosure]").count())
        if page.locator(".tree details[data-enclosure]").nth(i).locator(".paths-low").count()
    }
    assert one_path == SINGLE_PATHED


def test_topology_chart_makes_them_larger_by_queued_ios(visit: Visit) -> None:
    page = visit.open("/topology?size=queued")
    expect(page.locator('[data-slot="sunburst"]')).to_have_attribute("data-size", "queued")
    option = visit.chart_option("sunburst")
    values = {item["name"].split(" ")[-1]: item["value"] for item in option["series"][0]["data"]}
    peers = statistics.median(v for name, v in values.items() if name not in SINGLE_PATHED)
    assert all(values[name] > 2 * peers for name in SINGLE_PATHED), values
    ranking = page.locator("[data-slot=ranking] tbody tr").all()
    assert {row.get_attribute("data-enclosure") for row in ranking[:2]} == SINGLE_PATHED
    page.get_by_label("Disks").check(force=True)  # sized by disks every JBOD is the same
    option = visit.chart_option("sunburst")
    assert {item["value"] for item in option["series"][0]["data"]} == {60}
    page.locator("[data-slot=hierarchy]").select_option("hba")
    option = visit.chart_option("sunburst")
    assert [item["name"] for item in option["series"][0]["data"]] == [
        "0000:03:00.0 SAS9300-8e",
        "0000:04:00.0 SAS9300-8e",
        "0000:81:00.0 SAS9300-8e",
    ]
    visit.screenshot("topology-by-hba")
    assert visit.console_errors == []


def test_tree_expands_to_slots_with_the_keyboard(visit: Visit) -> None:
    page = visit.open("/topology")
    summary = page.locator('.tree details[data-enclosure="JBOD-012"] > summary').first
    summary.focus()
    page.keyboard.press("Enter")
    slots = page.locator('.tree details[data-enclosure="JBOD-012"]').first.locator(".slot")
    expect(slots).to_have_count(60)
    expect(slots.first).to_contain_text("▲ 1p")


def test_enclosure_page_shows_one_path_for_them_and_two_for_the_others(
    visit: Visit, web_server: Server
) -> None:
    with web_server.client() as client:
        enclosures = client.get("/v1/maintenance/enclosures").json()
    assert len(enclosures) == 6
    for enclosure in enclosures:
        name = enclosure["name"]
        expected = "1" if name in SINGLE_PATHED else "2"
        page = visit.open(f"/enclosures/{enclosure['id']}")
        expect(page.locator("h1")).to_contain_text(name)
        paths = page.locator('[data-slot="enclosure-paths"] [data-paths]')
        assert paths.get_attribute("data-paths") == expected
        bays = page.locator(".bays button.bay")
        expect(bays).to_have_count(60)
        assert {bays.nth(i).get_attribute("data-paths") for i in range(60)} == {expected}
        rows = page.locator("[data-slot=disks] tbody tr")
        assert {rows.nth(i).get_attribute("data-paths") for i in range(rows.count())} == {expected}
        missing = page.locator(".module.missing")
        expect(missing).to_have_count(1 if name in SINGLE_PATHED else 0)
        if name == "JBOD-012":
            visit.screenshot("enclosure-jbod-012")
    assert visit.console_errors == []


def test_enclosure_bays_and_locate_work_from_the_keyboard(visit: Visit) -> None:
    page = visit.open("/enclosures/JBOD-001")
    locate = page.locator('[data-action="locate-on"]')
    expect(locate).to_be_disabled()
    expect(page.locator('[data-slot="locate-reason"]')).to_contain_text("demo host is simulated")
    bay = page.locator('.bay[data-slot="5"]')
    bay.focus()
    page.keyboard.press("Enter")
    expect(bay).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#enc-bay")).to_have_text("Slot 5")  # "SLOT 05,<serial>": no more
    expect(page.locator("[data-slot=bay] tbody tr")).to_have_count(2)  # one row per path
    expect(page.locator("[data-slot=bay]")).to_contain_text("passed")


def test_latency_heat_map_has_data_and_drills_down(visit: Visit) -> None:
    page = visit.open(f"/latency?entity={JBOD_003}")
    heat = page.locator('[data-slot="heatmap"]')
    assert int(heat.get_attribute("data-cells") or 0) > 0
    option = visit.chart_option("heatmap")
    cells = option["series"][0]["data"]
    assert cells and all(cell[4] > 0 for cell in cells)
    lines = {s["name"]: s["data"] for s in option["series"][1:]}
    assert set(lines) == {"p50", "p90", "p99", "p99.9"} and all(lines.values())
    slowest = max(cell[3] for cell in cells)
    assert slowest > 1000  # JBOD-003's I/Os reach seconds
    members = page.locator("[data-slot=members] tbody tr")
    expect(members).to_have_count(60)
    page.get_by_label("Outlier zoom").select_option("5")
    visit.wait_ready()
    expect(page.locator("[data-slot=heat-note]")).to_contain_text("Zoomed: the slowest 5%")
    assert visit.chart_option("heatmap")["yAxis"][0]["max"] < slowest
    first = page.locator("[data-slot=members] tbody tr button").first
    disk = first.inner_text()
    first.click()
    visit.wait_ready()
    expect(page.locator("[data-slot=heat-title]")).to_contain_text(disk)
    expect(page.locator("[data-slot=crumbs]")).to_contain_text("JBOD-003")
    assert int(page.locator('[data-slot="heatmap"]').get_attribute("data-cells") or 0) > 0
    assert "trail=" in page.url
    visit.screenshot("latency-disk")
    assert visit.console_errors == []


def test_findings_filter_and_show_evidence_and_fix(visit: Visit) -> None:
    page = visit.open("/findings?state=open&severity=critical")
    items = page.locator("details.finding")
    expect(items).to_have_count(3)
    titles = set(items.locator(".title").all_inner_texts())
    assert titles == {
        "JBOD-003 has 1 of 2 SAS paths",
        "JBOD-012 has 1 of 2 SAS paths",
        "JBOD-002 power supply 1 (PSU 2) reports Critical",  # the demo's failed PSU
    }
    items = items.filter(has_text="SAS paths")
    items.first.locator("summary").click()
    body = items.first.locator(".body")
    expect(body.locator(".remedy")).to_contain_text("Cable the enclosure's other I/O module")
    expect(body).to_contain_text("Compared with")
    expect(body.locator("table").first).to_contain_text("paths present1")
    page.get_by_label("Severity").select_option("warning")
    visit.wait_ready()
    expect(page.locator("details.finding .title")).to_have_text(
        [re.compile("Chains of 4 \\+ 2 enclosures")]
    )
    assert "severity=warning" in page.url


def test_reports_history_rendering_and_diff(visit: Visit, web_server: Server) -> None:
    with web_server.admin() as admin:
        assert admin.post("/v1/checks").status_code == 202  # a second report to compare with
    with web_server.client() as client:
        deadline = time.monotonic() + 120
        while client.get("/v1/reports").json()["total"] < 2:
            assert time.monotonic() < deadline, "the second sweep did not finish"
            time.sleep(0.2)
    page = visit.open("/reports")
    rows = page.locator("[data-slot=history] tbody tr")
    assert rows.count() >= 2
    page.click('[data-action="diff"]')
    visit.wait_ready()
    expect(page.locator('[data-diff="persisting"] h3')).to_contain_text("Persisting (4)")
    expect(page.locator('[data-diff="new"] h3')).to_contain_text("New in B (0)")
    page.locator("[data-slot=history] tbody tr a").first.click()
    visit.wait_ready()
    frame = page.frame_locator("[data-slot=frame]")
    expect(frame.locator("body")).to_contain_text("JBOD-003")
    visit.screenshot("reports-diff-and-report")
    assert visit.console_errors == []


def test_a_mute_made_in_the_page_appears_in_the_api(browser: Browser, own_server: Server) -> None:
    visits: Iterator[Visit] = visit_on(browser, own_server, LAPTOP)
    visit = next(visits)
    try:
        page = visit.open("/findings?state=open&rule=sas.enclosure.single_path&entity=JBOD-012")
        finding = page.locator("details.finding").first
        expect(finding.locator(".title")).to_have_text("JBOD-012 has 1 of 2 SAS paths")
        expand(finding)
        finding.get_by_label("Mute for").select_option("168")
        finding.get_by_label("because").fill("recabling booked for Tuesday")
        finding.get_by_role("button", name="Mute").click()
        visit.give_token(ADMIN_TOKEN)  # asked for once, before anything is sent
        expect(page.locator("#notice")).to_contain_text("Muted until")
        with own_server.client() as client:
            mutes = client.get("/v1/mutes").json()
            muted = client.get("/v1/findings", params={"state": "muted"}).json()["items"]
        assert [(m["rule"], m["entity_id"], m["reason"]) for m in mutes] == [
            ("sas.enclosure.single_path", JBOD_012, "recabling booked for Tuesday")
        ]
        assert 167 * 3600 < _seconds_until(mutes[0]["until"]) <= 168 * 3600
        assert [f["entity"]["name"] for f in muted] == ["JBOD-012"]
        page.locator("select[name=state]").select_option("muted")  # inside the application
        expect(page.locator("details.finding .title")).to_have_text(
            ["JBOD-012 has 1 of 2 SAS paths"]
        )
        visit.screenshot("findings-muted")
        expand(page.locator("details.finding").first)
        page.get_by_role("button", name="Lift the mute").click()  # the token is remembered
        expect(page.locator("#notice")).to_contain_text("Mute lifted")
        with own_server.client() as client:
            assert client.get("/v1/mutes").json() == []
        assert visit.console_errors == [] and visit.page_errors == []
    finally:
        visits.close()


def expand(details: Locator) -> None:
    """Open a <details> element (a single finding in the list is open already)."""
    if not details.evaluate("element => element.open"):
        details.locator("summary").click()


def _seconds_until(iso: str) -> float:
    return (datetime.fromisoformat(iso.replace("Z", "+00:00")) - datetime.now(UTC)).total_seconds()


def test_the_token_is_asked_for_once_and_kept_in_memory_only(
    browser: Browser, closed_server: Server
) -> None:
    visits = visit_on(browser, closed_server, LAPTOP)
    visit = next(visits)
    try:
        page = visit.open("/topology", ready=False)
        visit.give_token(READ_TOKEN)
        visit.wait_ready()
        expect(page.locator('[data-callout="paths"]')).to_contain_text("JBOD-003")
        page.click('[data-nav="findings"]')  # a link inside the application: no new prompt
        visit.wait_ready()
        expect(page.locator("#token-dialog")).to_be_hidden()
        stored = page.evaluate(
            "() => [JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie]"
        )
        assert stored == ["{}", "{}", ""]
        page.reload()  # a new page: memory is gone, the token is asked for again
        expect(page.locator("#token-dialog")).to_be_visible()
    finally:
        visits.close()


def test_an_unknown_enclosure_gets_a_clear_message(visit: Visit) -> None:
    page = visit.open("/enclosures/JBOD-999", ready=False)
    notice = page.locator("#notice.error")
    expect(notice).to_contain_text("no enclosure 'JBOD-999'")
    page.click('[data-nav="topology"]')  # the rest of the application still works
    visit.wait_ready()
    expect(page.locator("#notice")).to_be_hidden()


def test_the_overview_chart_says_it_counts_each_reports_findings(
    visit: Visit, web_server: Server
) -> None:
    """The chart counts what each report found (not muted), pending ones included: its title
    says so, and its last bar is the newest report's — the tiles' count too (issue 18; the
    tiles and the chart agreeing on a SAN host: tests/web/test_latency_levels.py)."""
    page = visit.open("/")
    expect(page.locator("#ov-trend")).to_have_text("Findings in each report")
    with web_server.client() as client:
        newest = client.get("/v1/reports", params={"limit": 1}).json()["items"][0]
    option = visit.chart_option("trend")
    last = {series["name"]: series["data"][-1] for series in option["series"]}
    assert last == {k: newest["findings"][k] for k in ("critical", "warning", "info")}
