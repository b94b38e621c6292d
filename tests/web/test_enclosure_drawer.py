"""The enclosure page draws an H4060-J's 60 bays where they sit in its drawer (5 rows of 12 seen
from above, the front row, bays 0-11, at the bottom, a divider after the sixth bay), legible at
laptop and tablet size in a real headless Chromium on the demo host; the view says so too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import SCREENSHOTS, Server, Visit

pytestmark = pytest.mark.browser

FRONT_ROW = [str(n) for n in range(12)]
REAR_ROW = [str(n) for n in range(48, 60)]


def test_the_enclosure_view_carries_the_drawer_layout(web_server: Server) -> None:
    with web_server.client() as client:
        view = client.get("/v1/views/enclosures/JBOD-003").json()
    layout = view["layout"]
    assert layout["model"] == "HGST H4060-J (Ultrastar Data60)"
    assert (layout["top"], layout["bottom"], layout["gap_after_column"]) == ("rear", "front", 6)
    assert layout["rows"][-1] == list(range(12)) and layout["rows"][0] == list(range(48, 60))
    assert sorted(b["slot"]["index"] for b in view["bays"]) == list(range(60))
    assert {b["slot"]["label"] for b in view["bays"]} == {None}  # "SLOT 05,<serial>": no more
    assert {b["slot"]["name"] for b in view["bays"]} == {f"slot {n}" for n in range(60)}


def _rows(page: Page) -> list[list[str]]:
    """The bay numbers of each drawn row, top to bottom, left to right."""
    rows: list[list[str]] = page.evaluate(
        """() => [...document.querySelectorAll('[data-slot="bays"] .drawer-row')].map(
            (row) => [...row.querySelectorAll('button.bay')].map((b) => b.dataset.slot))"""
    )
    return rows


def _check_drawer(visit: Visit, name: str) -> None:
    page = visit.open("/enclosures/JBOD-003")
    expect(page.locator("#enc-front")).to_have_text("Bays: drawer, seen from above")
    layout = page.locator('[data-slot="layout"]')
    expect(layout).to_contain_text("5 rows of 12, front at the bottom")
    rows = _rows(page)
    assert len(rows) == 5 and rows[-1] == FRONT_ROW and rows[0] == REAR_ROW
    sides = page.locator('[data-slot="bays"] .drawer-side').all_inner_texts()
    assert [s.lower() for s in sides] == ["rear", "front"]
    # every bay on screen, none clipped: its number, glyph and paths fit in its box
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('[data-slot="bays"] button.bay')].map((b) => ({
            width: b.getBoundingClientRect().width,
            clipped: b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1,
            text: b.innerText.replace(/\\s+/g, ' ').trim(),
        }))"""
    )
    assert len(boxes) == 60
    assert min(b["width"] for b in boxes) >= 36, boxes[0]
    assert [b for b in boxes if b["clipped"]] == []
    bay_0 = boxes[48]  # the first bay of the bottom row
    assert bay_0["text"] == "0 ▲ 1/2", bay_0  # JBOD-003: one path of two
    # the divider: the seventh bay of a row starts clear of the sixth
    gap = page.evaluate(
        """() => {
            const row = document.querySelector('[data-slot="bays"] .drawer-row');
            const bays = row.querySelectorAll('button.bay');
            return bays[6].getBoundingClientRect().left - bays[5].getBoundingClientRect().right;
        }"""
    )
    assert gap >= 10
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    drawer = page.locator('[data-slot="bays"]')
    drawer.scroll_into_view_if_needed()
    visit.screenshot(name)
    drawer.screenshot(path=str(SCREENSHOTS / f"{name}-bays.png"))  # the drawer alone, unscaled
    assert visit.console_errors == [] and visit.page_errors == []


def test_the_drawer_is_legible_on_a_laptop(visit: Visit) -> None:
    _check_drawer(visit, "enclosure-drawer-laptop")


def test_the_drawer_is_legible_on_a_tablet(tablet: Visit) -> None:
    _check_drawer(tablet, "enclosure-drawer-tablet")


def test_a_drawer_bay_opens_its_disk(visit: Visit) -> None:
    page = visit.open("/enclosures/JBOD-001")
    bay = page.locator('.bays button.bay[data-slot="57"]')
    expect(bay).to_have_attribute("aria-label", "slot 57: OK, 2 of 2 paths")
    bay.click()
    expect(bay).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#enc-bay")).to_have_text("Slot 57")
    expect(page.locator("[data-slot=bay] tbody tr")).to_have_count(2)
