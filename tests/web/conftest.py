"""The maintenance view in a real headless Chromium (Debian's `chromium`, driven by Playwright for
Python; Playwright's own browser builds are never downloaded) against a real `pinchpoint serve`
on the demo host: uvicorn on a loopback port, the store in a temporary directory, the sampler
ticking every second so that the heat maps and the hierarchy chart have figures.

Screenshots of every page go to tests/web/screenshots/ (kept out of git) for a reviewer; the
window-sized ones of each page at both sizes (`<page>-<width>.png`) are what docs/img keeps."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, sync_playwright

from pinchpoint.service.settings import Schedule
from tests.api.conftest import ADMIN_TOKEN, QUIET, READ_TOKEN, Server, demo_settings, start_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).parent / "screenshots"
SAMPLING = Schedule(sweep="", smart="", daily_report="", prune="", stats_interval_s=1)
LAPTOP = {"width": 1440, "height": 900}
TABLET = {"width": 820, "height": 1180}

__all__ = ["ADMIN_TOKEN", "QUIET", "READ_TOKEN", "Server", "Visit"]


def wait_for_samples(server: Server, ticks: int = 3, timeout_s: float = 60) -> None:
    """Wait until the sampler has recorded `ticks` intervals after the first report."""
    sampler = server.service.sampler
    deadline = time.monotonic() + timeout_s
    while sampler.ticks < ticks:
        if time.monotonic() > deadline:
            raise AssertionError(f"the sampler ticked {sampler.ticks} times, not {ticks}")
        time.sleep(0.2)


def start_web_server(data_dir: Path, **changes: Any) -> Server:
    values: dict[str, Any] = {"open_reads_on_loopback": True, "schedule": SAMPLING}
    values.update(changes)
    server = start_server(demo_settings(data_dir, **values))
    try:
        server.wait_for_report()
        if server.service.settings.schedule.stats_interval_s > 0:
            wait_for_samples(server)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The demo host with open reads, a report and sampled statistics (read-only tests)."""
    server = start_web_server(tmp_path_factory.mktemp("web-demo"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A service of its own, for a test that changes state (mutes)."""
    server = start_web_server(tmp_path / "data", schedule=QUIET)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def closed_server(tmp_path: Path) -> Iterator[Server]:
    """A service whose reads need the read token (the default)."""
    server = start_web_server(tmp_path / "data", schedule=QUIET, open_reads_on_loopback=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (scripts/install-system-deps.sh tools)")
    with sync_playwright() as handle:
        yield handle


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        yield launched
    finally:
        launched.close()


@dataclass
class Visit:
    """A browser tab on one service, recording what went wrong in it."""

    page: Page
    base_url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def open(self, path: str, *, ready: bool = True) -> Page:
        """Load `path` and wait until its page module says it is drawn."""
        self.page.goto(self.base_url + path)
        if ready:
            self.wait_ready()
        return self.page

    def wait_ready(self) -> None:
        self.page.wait_for_selector("main > section[data-ready]", state="attached", timeout=30_000)

    def screenshot(self, name: str, *, full_page: bool = True) -> Path:
        """`name`.png in tests/web/screenshots: the whole page, or only what the window shows
        (docs/img keeps those: `<page>-<width>.png`)."""
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def chart_option(self, slot: str) -> dict[str, Any]:
        """The option of the ECharts instance drawn in `[data-slot=slot]`."""
        option: dict[str, Any] = self.page.evaluate(
            """(slot) => {
                const element = document.querySelector(`[data-slot="${slot}"]`);
                const chart = echarts.getInstanceByDom(element);
                return chart ? JSON.parse(JSON.stringify(chart.getOption())) : null;
            }""",
            slot,
        )
        assert option is not None, f"no chart in [data-slot={slot}]"
        return option

    def give_token(self, token: str) -> None:
        dialog = self.page.locator("#token-dialog")
        dialog.wait_for(state="visible")
        self.page.fill("#token-input", token)
        self.page.click("#token-form button[type=submit]")
        dialog.wait_for(state="hidden")


def visit_on(browser: Browser, server: Server, viewport: dict[str, int]) -> Iterator[Visit]:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = context.new_page()
    visit = Visit(page, server.url)

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            visit.console_errors.append(f"{message.text} at {message.location}")

    page.on("console", console)
    page.on("pageerror", lambda error: visit.page_errors.append(str(error)))
    page.on("request", lambda request: visit.requests.append(request.url))
    try:
        yield visit
    finally:
        context.close()


@pytest.fixture
def visit(browser: Browser, web_server: Server) -> Iterator[Visit]:
    """A fresh tab at laptop size on the shared demo service."""
    yield from visit_on(browser, web_server, LAPTOP)


@pytest.fixture
def tablet(browser: Browser, web_server: Server) -> Iterator[Visit]:
    """A fresh tab at tablet size on the shared demo service."""
    yield from visit_on(browser, web_server, TABLET)
