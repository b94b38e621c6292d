"""/docs (Swagger UI) and /redoc (ReDoc) in the real Chromium: drawn from the service's own
assets, with every request to this service's origin (no CDN), no console error (a CSP refusal
is one), at laptop and tablet size."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.web.conftest import Visit

# A selector each viewer draws for one operation of the API, once it has read the document.
OPERATION = {
    "/docs": "[id^=operations-checks_and_reports-latest_report]",
    "/redoc": "[data-section-id^='tag/checks']",
}


def foreign_requests(visit: Visit) -> list[str]:
    own = urlsplit(visit.base_url).netloc
    return [url for url in visit.requests if urlsplit(url).netloc not in (own, "")]


@pytest.mark.parametrize("path", sorted(OPERATION))
@pytest.mark.parametrize("size", ["laptop", "tablet"])
def test_the_api_documentation_renders_offline(
    visit: Visit, tablet: Visit, path: str, size: str
) -> None:
    tab = visit if size == "laptop" else tablet
    page = tab.open(path, ready=False)
    page.wait_for_selector(OPERATION[path], state="attached", timeout=30_000)
    assert "/v1/reports/latest" in page.content()
    tab.screenshot(f"api-docs{path.replace('/', '-')}-{size}")
    assert foreign_requests(tab) == []
    assert tab.console_errors == []
    assert tab.page_errors == []
