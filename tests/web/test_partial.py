"""A host where most rules could not run (a VM: no SAS, FC, ZFS or SMART) shows "partial" with
the count and the reasons in the maintenance view, never a bare green OK (issues 14 and 18)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SPECS
from playwright.sync_api import Browser, expect

from pinchpoint.rules.catalog import CATALOG
from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.web.conftest import LAPTOP, QUIET, TABLET, Server, Visit, start_web_server, visit_on

pytestmark = pytest.mark.browser


@pytest.fixture
def vm_server(tmp_path: Path) -> Iterator[Server]:
    """A service on the simulated VM guest (tests/fixtures/specs/vm_guest.toml)."""
    snapshot = tmp_path / "vm-guest"
    write_snapshot(load_spec(SPECS / "vm_guest.toml"), snapshot)
    server = start_web_server(
        tmp_path / "data", target=TargetKind.SNAPSHOT, snapshot=snapshot, schedule=QUIET
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def vm_visit(browser: Browser, vm_server: Server) -> Iterator[Visit]:
    yield from visit_on(browser, vm_server, LAPTOP)


def test_the_overview_says_partial_with_the_count_and_reasons(vm_visit: Visit) -> None:
    page = vm_visit.open("/")
    vm_visit.screenshot("overview-partial")
    callout = page.locator('[data-slot="coverage"] [data-status="partial"]')
    expect(callout).to_be_visible()
    expect(callout).to_contain_text("partial")
    expect(callout).to_contain_text(f"of {len(CATALOG)} rules could not run")
    expect(callout).to_contain_text("no SAS HBA on this host")
    expect(page.locator('[data-slot="host"]')).to_contain_text("partial")
    assert vm_visit.console_errors == [] and vm_visit.page_errors == []


def test_the_reports_list_marks_the_report_partial_not_clean(vm_visit: Visit) -> None:
    page = vm_visit.open("/reports")
    vm_visit.screenshot("reports-partial")
    row = page.locator("table tbody tr").first
    expect(row).to_contain_text("partial")
    expect(row).not_to_contain_text("clean")


def test_the_demo_overview_has_no_partial_callout(visit: Visit) -> None:
    page = visit.open("/")
    expect(page.locator('[data-slot="coverage"] [data-status="partial"]')).to_have_count(0)


def test_the_partial_callout_reads_the_same_at_tablet_size(
    browser: Browser, vm_server: Server
) -> None:
    """The second window size of issue 18: the same words, nothing wider than the window."""
    for visit in visit_on(browser, vm_server, TABLET):
        page = visit.open("/")
        visit.screenshot("overview-partial-tablet")
        callout = page.locator('[data-slot="coverage"] [data-status="partial"]')
        expect(callout).to_be_visible()
        expect(callout).to_contain_text(f"of {len(CATALOG)} rules could not run")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        assert visit.console_errors == [] and visit.page_errors == []
