"""The enclosure page's ZFS pools panel in a real headless Chromium at laptop and tablet size,
against a real `pinchpoint serve` on snapshots of the simulated zfs_faults host (the pool "tank"
mirrored across JBOD-L and JBOD-R: JBOD-L bay 3 FAULTED with 1 read, 29 write and 4 checksum
errors, JBOD-L bay 9 OFFLINE, JBOD-R bay 7 ONLINE with 33 checksum errors) and of the same host
healthy (zfs_mirror): which vdev each disk is in, each disk's state, and the bays of a vdev that
is not ONLINE outlined in the front view."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SPECS
from playwright.sync_api import Browser, Page, expect

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import QUIET
from tests.web.conftest import LAPTOP, TABLET, Server, start_web_server, visit_on

pytestmark = pytest.mark.browser

SIZES = {"laptop": LAPTOP, "tablet": TABLET}


def serve(root: Path, spec: str) -> Server:
    write_snapshot(load_spec(SPECS / spec), root / "snapshot")
    return start_web_server(
        root / "data", schedule=QUIET, target=TargetKind.SNAPSHOT, snapshot=root / "snapshot"
    )


@pytest.fixture(scope="module")
def faulted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = serve(tmp_path_factory.mktemp("web-zfs-faults"), "zfs_faults.toml")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def healthy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = serve(tmp_path_factory.mktemp("web-zfs-mirror"), "zfs_mirror.toml")
    try:
        yield server
    finally:
        server.stop()


def outlined(page: Page) -> set[str]:
    """The bays the front view outlines as in a vdev in trouble."""
    found: list[str] = page.eval_on_selector_all(
        '[data-slot="bays"] .bay.vdev-bad', "bays => bays.map(b => b.dataset.slot)"
    )
    return set(found)


def no_wider_than_the_window(page: Page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than the window"


@pytest.mark.parametrize("size", SIZES)
def test_the_faulted_disk_its_vdev_and_their_bays(
    browser: Browser, faulted_server: Server, size: str
) -> None:
    for visit in visit_on(browser, faulted_server, SIZES[size]):
        page = visit.open("/enclosures/JBOD-L")
        panel = page.locator('section[aria-labelledby="enc-pools"]')
        expect(panel.locator('[data-slot="pools-summary"]')).to_have_text(
            "1 pool has disks here; 2 vdevs are not ONLINE"
        )
        pool = panel.locator('.pool[data-pool="tank"]')
        expect(pool.locator(".pool-head")).to_contain_text("DEGRADED")
        expect(pool.locator(".pool-head")).to_contain_text("12 of its disks here, in 12 of its")
        bad = pool.locator("tr.vdev-bad")
        expect(bad).to_have_count(2)
        assert [bad.nth(i).get_attribute("data-vdev") for i in range(2)] == [
            "mirror-3",
            "mirror-9",
        ]
        assert {bad.nth(i).get_attribute("data-state") for i in range(2)} == {"DEGRADED"}
        faulted = bad.nth(0).locator('.device[data-state="FAULTED"]')
        expect(faulted).to_have_text(
            "slot 3 (SLOT 04) FAULTED · read 1 · write 29 · cksum 4 (too many errors)"
        )
        assert faulted.get_attribute("data-bay") == "3"
        partner = bad.nth(0).locator(".device.elsewhere")
        expect(partner).to_have_text("JBOD-R slot 3 (SLOT 04) ONLINE")
        expect(bad.nth(1).locator('.device[data-state="OFFLINE"]')).to_have_text(
            "slot 9 (SLOT 10) OFFLINE"
        )
        # the healthy vdevs folded below, each disk with its state
        fine = pool.locator("details.pool-fine")
        expect(fine.locator("summary")).to_have_text("10 more vdevs ONLINE")
        assert fine.get_attribute("open") is None
        # the front view outlines the bays of the two vdevs in trouble, and says why
        assert outlined(page) == {"3", "9"}
        bay3 = page.locator('[data-slot="bays"] .bay[data-slot="3"]')
        assert bay3.get_attribute("data-vdev") == "tank mirror-3"
        assert "in tank mirror-3 (DEGRADED), this disk FAULTED" in (
            bay3.get_attribute("aria-label") or ""
        )
        expect(panel.locator('[data-slot="pools-key"]')).to_be_visible()
        # a device of this enclosure opens its bay
        faulted.click()
        expect(page.locator("#enc-bay")).to_have_text("Slot 3 (SLOT 04)")
        assert bay3.get_attribute("aria-pressed") == "true"
        no_wider_than_the_window(page)
        panel.scroll_into_view_if_needed()
        visit.screenshot(f"enclosure-pools-jbod-l-{size}")
        assert visit.console_errors == [] and visit.page_errors == []


def test_the_other_side_of_a_degraded_mirror_is_outlined_too(
    browser: Browser, faulted_server: Server
) -> None:
    """JBOD-R's bays 3 and 9 hold the last copy of mirror-3 and mirror-9: outlined (pulling one
    loses data); bay 7 counts checksum errors while ONLINE: its chip shows them, its vdev is
    fine."""
    for visit in visit_on(browser, faulted_server, LAPTOP):
        page = visit.open("/enclosures/JBOD-R")
        assert outlined(page) == {"3", "9"}
        chip = page.locator('section[aria-labelledby="enc-pools"] .device[data-bay="7"]')
        expect(chip).to_have_text("slot 7 (SLOT 08) ONLINE · read 0 · write 0 · cksum 33")
        assert "bad" not in (chip.get_attribute("class") or "").split()
        row = page.locator('tr[data-vdev="mirror-7"]')
        assert row.get_attribute("data-state") == "ONLINE"
        assert "vdev-bad" not in (row.get_attribute("class") or "")
        assert visit.console_errors == [] and visit.page_errors == []


@pytest.mark.parametrize("size", SIZES)
def test_a_healthy_pool_outlines_nothing(
    browser: Browser, healthy_server: Server, size: str
) -> None:
    for visit in visit_on(browser, healthy_server, SIZES[size]):
        page = visit.open("/enclosures/JBOD-L")
        panel = page.locator('section[aria-labelledby="enc-pools"]')
        expect(panel.locator('[data-slot="pools-summary"]')).to_have_text(
            "1 pool has disks here, every vdev ONLINE"
        )
        fine = panel.locator("details.pool-fine")
        expect(fine.locator("summary")).to_have_text("all 12 vdevs ONLINE")
        assert fine.get_attribute("open") is not None  # few enough to show open
        expect(fine.locator("tbody tr")).to_have_count(12)
        expect(fine.locator('.device.here[data-state="ONLINE"]')).to_have_count(12)
        assert outlined(page) == set()
        expect(panel.locator('[data-slot="pools-key"]')).to_be_hidden()
        no_wider_than_the_window(page)
        panel.scroll_into_view_if_needed()
        visit.screenshot(f"enclosure-pools-healthy-{size}")
        assert visit.console_errors == [] and visit.page_errors == []


def test_an_enclosure_without_pool_disks_says_so(browser: Browser, tmp_path: Path) -> None:
    """three_chains_of_two has no ZFS: the panel says no pool has a disk there."""
    server = serve(tmp_path, "three_chains_of_two.toml")
    try:
        for visit in visit_on(browser, server, LAPTOP):
            page = visit.open("/enclosures/JBOD-001")
            panel = page.locator('section[aria-labelledby="enc-pools"]')
            expect(panel.locator('[data-slot="pools"]')).to_have_text(
                "No ZFS pool has a disk in this enclosure."
            )
            expect(panel.locator(".pool")).to_have_count(0)
            assert outlined(page) == set()
            assert visit.console_errors == [] and visit.page_errors == []
    finally:
        server.stop()
