"""The findings page speaks as the terminal does (issue 18, "Consistent"): a remediation's
Markdown is rendered — commands in `<code>`, no raw backticks — at two window sizes; a finding
folded into another links to the page that shows what it measured; a title that names its
entity is not followed by the entity again; the API carries the rendered fix and the links."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SPECS
from playwright.sync_api import Browser, Locator, expect

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.web.conftest import LAPTOP, QUIET, TABLET, Server, Visit, start_web_server, visit_on

pytestmark = pytest.mark.browser
SIZES = {"laptop": LAPTOP, "tablet": TABLET}


@pytest.fixture(scope="module")
def zfs_faults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A simulated host with a degraded pool: `zfs.pool.degraded`, whose fix names commands."""
    base = tmp_path_factory.mktemp("web-zfs-faults")
    snapshot = base / "snapshot"
    write_snapshot(load_spec(SPECS / "zfs_faults.toml"), snapshot)
    server = start_web_server(
        base / "data", target=TargetKind.SNAPSHOT, snapshot=snapshot, schedule=QUIET
    )
    try:
        yield server
    finally:
        server.stop()


def _expand(finding: Locator) -> Locator:
    """Open a finding (a single one in the list is open already) and give its body."""
    if not finding.evaluate("element => element.open"):
        finding.locator("summary").click()
    return finding.locator(".body")


@pytest.mark.parametrize("size", SIZES)
def test_the_fix_is_rendered_with_code_not_backticks(
    browser: Browser, zfs_faults: Server, size: str, tmp_path: Path
) -> None:
    visits: Iterator[Visit] = visit_on(browser, zfs_faults, SIZES[size])
    visit = next(visits)
    try:
        page = visit.open("/findings?state=&rule=zfs.pool.degraded")
        finding = page.locator("details.finding").first
        remedy = _expand(finding).locator(".remedy")
        expect(remedy.locator("code").first).to_be_visible()
        codes = remedy.locator("code").all_inner_texts()
        assert "zpool replace tank <old> <new>" in codes, codes  # its <old> is text, not a tag
        assert "`" not in remedy.inner_text()
        assert remedy.locator("script, [onclick], img").count() == 0
        visit.screenshot(f"findings-remediation-{size}")
        assert visit.console_errors == [] and visit.page_errors == []
    finally:
        next(visits, None)


def test_the_api_carries_the_rendered_fix(zfs_faults: Server) -> None:
    with zfs_faults.client() as client:
        items = client.get("/v1/findings", params={"rule": "zfs.pool.degraded"}).json()["items"]
    assert items
    record = items[0]
    assert "`zpool replace tank <old> <new>`" in record["finding"]["remediation"]  # as it was
    # rendered, the host's and the rule's text escaped: <old> is no tag
    assert "<code>zpool replace tank &lt;old&gt; &lt;new&gt;</code>" in record["remediation_html"]
    assert "`" not in record["remediation_html"]


def test_a_folded_finding_links_to_what_it_measured(visit: Visit) -> None:
    page = visit.open("/findings?state=open&rule=sas.enclosure.single_path&entity=JBOD-003")
    finding = page.locator("details.finding").first
    # the title names JBOD-003: the entity is not said a second time beside it
    expect(finding.locator(".title")).to_have_text("JBOD-003 has 1 of 2 SAS paths")
    expect(finding.locator("summary .hint")).to_have_count(0)
    link = _expand(finding).locator("a.related")
    expect(link).to_have_text("latency.group.outlier on JBOD-003")
    href = link.get_attribute("href") or ""
    assert href.startswith("/latency?entity=enclosure%3A"), href
    visit.screenshot("findings-related")
    link.click()
    visit.wait_ready()
    assert "/latency?entity=enclosure" in page.url
    assert visit.console_errors == [] and visit.page_errors == []


def test_the_api_gives_each_related_finding_an_id_and_links(web_server: Server) -> None:
    with web_server.client() as client:
        items = client.get(
            "/v1/findings", params={"rule": "sas.enclosure.single_path", "entity": "JBOD-003"}
        ).json()["items"]
        (record,) = items
        (related,) = record["related_findings"]
        assert related["id"] == record["finding"]["related"][0]
        assert related["rule"] == "latency.group.outlier"
        assert related["entity_id"] == record["entity"]["id"]
        assert related["href"].startswith("/latency?entity=")
        rule = client.get(related["rule_href"])
    assert rule.status_code == 200 and rule.json()["id"] == "latency.group.outlier"
    assert "<code>pinchpoint inventory</code>" in rule.json()["remediation_html"]
