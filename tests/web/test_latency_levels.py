"""The latency page on a SAN host and on a pool with reads and writes, at two window sizes
(issue 18): every level and drill-down it offers answers (FC adapter → its ports → their
LUNs), and the heat map says what it draws — read, write or both, total wait or device time —
with a selector to choose."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SPECS
from playwright.sync_api import Browser, expect

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot
from tests.api.test_latency_series import TOTAL_WAIT, zfs_spec
from tests.web.conftest import LAPTOP, QUIET, TABLET, Server, Visit, start_web_server, visit_on

pytestmark = pytest.mark.browser
SIZES = {"laptop": LAPTOP, "tablet": TABLET}


def sampled_server(base: Path, spec: Path | dict[str, Any]) -> Server:
    snapshot = base / "snapshot"
    write_snapshot(load_spec(spec) if isinstance(spec, Path) else spec_from_data(spec), snapshot)
    return start_web_server(base / "data", target=TargetKind.SNAPSHOT, snapshot=snapshot)


@pytest.fixture(scope="module")
def san_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = sampled_server(tmp_path_factory.mktemp("web-san"), SPECS / "san_host.toml")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pool_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = sampled_server(tmp_path_factory.mktemp("web-pool"), zfs_spec(0.5))
    try:
        yield server
    finally:
        server.stop()


def fits(visit: Visit) -> None:
    overflow = visit.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than the window"
    assert visit.console_errors == [] and visit.page_errors == []
    assert visit.page.locator("#notice.error").count() == 0


@pytest.mark.parametrize("size", SIZES)
def test_a_san_host_drills_from_an_adapter_to_its_ports_and_luns(
    browser: Browser, san_server: Server, size: str
) -> None:
    inventory = san_server.service.store.latest_inventory()
    assert inventory is not None
    adapter = inventory.fc.adapters[0]
    for visit in visit_on(browser, san_server, SIZES[size]):
        page = visit.open(f"/latency?entity={adapter.id}")
        expect(page.locator("[data-slot=heat-title]")).to_contain_text("(FC adapter)")
        expect(page.locator("[data-slot=members-title]")).to_contain_text("FC ports")
        ports = page.locator("[data-slot=members] tbody tr")
        expect(ports).to_have_count(len(adapter.port_ids))  # its own port, not the other's
        assert "0" not in ports.first.locator("td").nth(1).inner_text().split()  # IOPS figures
        visit.screenshot(f"latency-san-adapter-{size}")
        fits(visit)
        ports.first.locator("button").click()
        visit.wait_ready()
        expect(page.locator("[data-slot=heat-title]")).to_contain_text("(FC port)")
        luns = page.locator("[data-slot=members] tbody tr")
        expect(luns).to_have_count(len(inventory.multipath.maps))
        expect(page.locator("[data-slot=crumbs]")).to_contain_text(adapter.pci_address)
        visit.screenshot(f"latency-san-port-{size}")
        fits(visit)
        luns.first.locator("button").click()
        visit.wait_ready()
        expect(page.locator("[data-slot=heat-title]")).to_contain_text("(LUN)")
        expect(page.locator("[data-slot=members]")).to_contain_text("nothing to drill into")
        fits(visit)
        for level, name in (("fc-adapter", "FC adapter"), ("fc-port", "FC port"), ("lun", "LUN")):
            page.get_by_label("Level").select_option(level)
            visit.wait_ready()
            expect(page.locator("[data-slot=heat-title]")).to_contain_text(f"({name})")
            fits(visit)


@pytest.mark.parametrize("size", SIZES)
def test_the_heat_map_says_what_it_draws_and_the_user_chooses(
    browser: Browser, pool_server: Server, size: str
) -> None:
    for visit in visit_on(browser, pool_server, SIZES[size]):
        page = visit.open("/latency")
        title = page.locator("[data-slot=heat-title]")
        expect(title).to_contain_text(f"read + write · {TOTAL_WAIT}")
        both = int(page.locator("[data-slot=heatmap]").get_attribute("data-cells") or 0)
        assert both > 0
        choices = page.locator("[data-slot=kind]")
        labels = choices.locator("option").all_inner_texts()
        assert labels[1:] == [
            f"read + write · {TOTAL_WAIT}",
            f"read · {TOTAL_WAIT}",
            f"write · {TOTAL_WAIT}",
        ]
        choices.select_option(label=f"write · {TOTAL_WAIT}")
        visit.wait_ready()
        expect(title).to_contain_text(f"write · {TOTAL_WAIT}")
        expect(title).not_to_contain_text("read")
        assert "kind=total_wait%2Fwrite" in page.url
        visit.screenshot(f"latency-write-only-choice-{size}")
        fits(visit)


def test_the_demos_write_only_pool_is_not_called_read(visit: Visit) -> None:
    """The demo's streaming write: no read histogram, and the title says so."""
    page = visit.open("/latency")
    title = page.locator("[data-slot=heat-title]")
    expect(title).to_contain_text(f"write · {TOTAL_WAIT}")
    expect(title).not_to_contain_text("read")
    assert page.locator("[data-slot=kind]").is_disabled()  # nothing else to choose


@pytest.fixture(scope="module")
def confirming_san(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The SAN host after its first sweep, findings raised only after two: all pending."""
    base = tmp_path_factory.mktemp("web-san-pending")
    write_snapshot(load_spec(SPECS / "san_host.toml"), base / "snapshot")
    server = start_web_server(
        base / "data",
        target=TargetKind.SNAPSHOT,
        snapshot=base / "snapshot",
        schedule=QUIET,
        raise_after=2,
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("size", SIZES)
def test_the_overview_tiles_and_chart_count_the_same_findings(
    browser: Browser, confirming_san: Server, size: str
) -> None:
    """Issue 18: the tiles counted open findings (none yet: they wait for a second sweep)
    while the chart beside them counted the sweep's findings (one critical, six warnings)."""
    summary = confirming_san.service.store.report_summaries(limit=1).items[0]
    for visit in visit_on(browser, confirming_san, SIZES[size]):
        page = visit.open("/")
        option = visit.chart_option("trend")
        for series in option["series"]:
            severity = series["name"]
            tile = page.locator(f'[data-slot=counts] [data-severity="{severity}"]')
            shown = int(tile.get_attribute("data-count") or -1)
            assert shown == series["data"][-1] == getattr(summary.findings, severity)
            expect(tile.locator(".n")).to_have_text(str(shown))
            expect(tile).to_contain_text("0 open")  # none confirmed yet, and it says so
        assert summary.findings.critical == 1 and summary.findings.warning > 0
        visit.screenshot(f"overview-san-{size}")
        fits(visit)


@pytest.mark.parametrize("size", SIZES)
def test_the_findings_badge_never_overlaps_its_title(
    browser: Browser, web_server: Server, size: str
) -> None:
    """Issue 18: "critical · open" ran under the title in a 96 px column."""
    for visit in visit_on(browser, web_server, SIZES[size]):
        page = visit.open("/findings")
        summaries = page.locator(".finding > summary")
        assert summaries.count() >= 4
        for i in range(summaries.count()):
            summary = summaries.nth(i)
            badge = summary.locator(".sev").first.bounding_box()
            title = summary.locator(".title").bounding_box()
            assert badge is not None and title is not None
            beside = badge["x"] + badge["width"] <= title["x"]
            below = badge["y"] + badge["height"] <= title["y"]
            assert beside or below, f"finding {i}: the badge overlaps the title"
        visit.screenshot(f"findings-{size}")
        fits(visit)


@pytest.mark.parametrize("size", SIZES)
def test_a_bay_with_a_missing_path_says_so_not_ok(
    browser: Browser, web_server: Server, size: str
) -> None:
    """Issue 18: a warning glyph beside "OK" ("▲ OK") on the single-pathed JBOD's bays."""
    for visit in visit_on(browser, web_server, SIZES[size]):
        # the demo's H4060-J drawer draws compact bays: the glyph, the words in its label
        page = visit.open("/enclosures/JBOD-003")
        states = page.locator(".bays .bay .bay-state").all_inner_texts()
        assert len(states) == 60 and set(states) == {"▲"}
        labels = [b.get_attribute("aria-label") or "" for b in page.locator(".bays .bay").all()]
        assert all(": missing path, 1 of 2 paths" in label for label in labels), labels[:3]
        assert not any("OK" in label for label in labels)
        healthy = visit.open("/enclosures/JBOD-001").locator(".bays .bay")
        assert set(healthy.locator(".bay-state").all_inner_texts()) == {"✔"}
        assert all(
            ": OK, 2 of 2 paths" in (b.get_attribute("aria-label") or "") for b in healthy.all()
        )
        visit.screenshot(f"enclosure-jbod-003-{size}")
        fits(visit)


def test_percentiles_of_a_few_points_are_drawn_as_marks(visit: Visit) -> None:
    """A line of one point draws nothing: right after the service starts (one 10 s point) the
    percentiles were in the legend but not on the chart. Below three points each is marked."""
    visit.open("/latency")
    lines = [s for s in visit.chart_option("heatmap")["series"] if s["type"] == "line"]
    assert [s["name"] for s in lines] == ["p50", "p90", "p99", "p99.9"]
    for line in lines:
        assert line["data"], line["name"]
        assert line["showSymbol"] is (len(line["data"]) < 3), line["name"]
