"""The Storage networks page in a real headless Chromium at laptop and tablet size, against a
real `pinchpoint serve` on a snapshot of the simulated storage_networks host (NVMe/TCP with a
path stuck connecting, a FREE iSCSI session, FC ports and NICs with error counters), on the
real procfs capture (its FC port statistics, NIC and NVMe subsystems), and on a SAS-only host
(no link, no section); and the views the page reads, which answer 404 for what is not there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS
from playwright.sync_api import Browser, expect

from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import QUIET
from tests.web.conftest import LAPTOP, TABLET, Server, start_web_server, visit_on

pytestmark = pytest.mark.browser

PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
SIZES = {"laptop": LAPTOP, "tablet": TABLET}


def serve(root: Path, snapshot: Path) -> Server:
    return start_web_server(
        root / "data", schedule=QUIET, target=TargetKind.SNAPSHOT, snapshot=snapshot
    )


@pytest.fixture(scope="module")
def san_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web-networks")
    write_snapshot(load_spec(SPECS / "storage_networks.toml"), root / "snapshot")
    server = serve(root, root / "snapshot")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def sas_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web-sas-only")
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), root / "snapshot")
    server = serve(root, root / "snapshot")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def procfs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = serve(tmp_path_factory.mktemp("web-procfs"), PROCFS)
    try:
        yield server
    finally:
        server.stop()


def test_the_view_and_one_entity_of_each(san_server: Server) -> None:
    with san_server.client() as client:
        view = client.get("/v1/views/networks").json()
        assert view["sections"] == ["nvme", "iscsi", "nics", "fc"]
        nqn = view["nvme"][1]["nqn"]
        one = client.get(f"/v1/views/nvme/{nqn}").json()
        assert one["id"] == view["nvme"][1]["id"]
        assert client.get("/v1/views/nvme/nvme-subsys1").json()["nqn"] == nqn
        sessions = client.get("/v1/views/iscsi/iqn.2003-01.org.linux-iscsi.array1:port-a")
        assert [s["state"] for s in sessions.json()] == ["FREE"]
        assert client.get("/v1/views/nics/ens1f0").json()["counters"][2]["value"] == 3
        port = view["fc_ports"][0]
        assert client.get(f"/v1/views/fc-ports/{port['id']}").json()["name"] == port["name"]
        assert client.get(f"/v1/views/fc-ports/{port['scsi_host']}").status_code == 200
        wwpn = port["wwpn"].removeprefix("0x")
        colons = ":".join(wwpn[i : i + 2] for i in range(0, len(wwpn), 2))
        assert client.get(f"/v1/views/fc-ports/{colons}").json()["id"] == port["id"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/views/nvme/nqn.nothing",
        "/v1/views/iscsi/session999",
        "/v1/views/nics/eth9",
        "/v1/views/nics/veth0",
        "/v1/views/fc-ports/host99",
        "/v1/views/fc-ports/0xzz",
        "/v1/views/nvme/%00%1b%5B31m",
        "/v1/views/iscsi/" + "x" * 5000,
        "/v1/views/fc-ports/..%2F..%2Fetc%2Fpasswd",
        "/v1/views/networks?host=nobody",
    ],
)
def test_unknown_entities_answer_404_not_5xx(san_server: Server, path: str) -> None:
    with san_server.client() as client:
        answer = client.get(path)
    assert answer.status_code == 404, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("size", SIZES)
def test_the_page_shows_each_network_and_flags_what_a_finding_names(
    browser: Browser, san_server: Server, size: str
) -> None:
    for visit in visit_on(browser, san_server, SIZES[size]):
        page = visit.open("/networks")
        expect(page.locator('[data-nav="networks"]')).to_have_attribute("aria-current", "page")
        expect(page.locator('[data-slot="summary"]')).to_contain_text(
            "san-client · 2 NVMe · 2 iSCSI · 2 FC ports · 2 NICs"
        )
        for section in ("nvme", "iscsi", "fc", "nics"):
            expect(page.locator(f'section[data-section="{section}"]')).to_be_visible()
        expect(page.locator("[data-chip]")).to_have_count(4)
        array = page.locator('[data-subsystem^="nvme-subsys:nqn.1988-11.com.dell"]')
        assert array.get_attribute("data-severity") == "warning"
        expect(array.locator('[data-controller="nvme1"]')).to_contain_text("connecting")
        flagged = array.locator('tr[data-flagged="true"]')
        expect(flagged).to_have_count(2)  # nvme1's path to each namespace
        expect(flagged.first).to_contain_text("nvme1")
        expect(array.locator('tr[data-path][data-ana="optimized"]')).to_have_count(2)
        local = page.locator('[data-subsystem^="nvme-subsys:nqn.2014.08.org.nvmexpress"]')
        assert local.get_attribute("data-severity") == "ok"
        dead = page.locator('[data-session="session1"]')
        expect(dead.locator('[data-slot="session-state"]')).to_contain_text("FREE")
        expect(dead).to_contain_text("iqn.2003-01.org.linux-iscsi.array1:port-a")
        expect(dead.locator('tr[data-lun][data-severity="warning"]')).to_have_count(2)
        expect(dead.locator("tr[data-lun]").first).to_contain_text("(vpd_pg83)")
        expect(page.locator('[data-slot="fc"] tbody tr')).to_have_count(2)
        expect(page.locator('tr[data-nic="ens1f0"]')).to_contain_text("4")  # carrier changes
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than the window"
        visit.screenshot(f"networks-san-client-{size}")
        assert visit.console_errors == [] and visit.page_errors == []


@pytest.mark.parametrize("size", SIZES)
def test_the_real_procfs_capture(browser: Browser, procfs_server: Server, size: str) -> None:
    for visit in visit_on(browser, procfs_server, SIZES[size]):
        page = visit.open("/networks")
        expect(page.locator('section[data-section="fc"]')).to_be_visible()
        expect(page.locator('section[data-section="nics"]')).to_be_visible()
        host0 = page.locator('tr[data-port^="host0"]')
        expect(host0).to_contain_text("0x1000e0071bce95f2")
        expect(page.locator('tr[data-nic="eth0"]')).to_have_count(1)
        expect(page.locator('section[data-section="iscsi"]')).to_be_hidden()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than the window"
        visit.screenshot(f"networks-procfs-{size}")
        assert visit.console_errors == [] and visit.page_errors == []


def test_a_host_without_such_devices_has_no_link_and_no_section(
    browser: Browser, sas_server: Server
) -> None:
    for visit in visit_on(browser, sas_server, LAPTOP):
        page = visit.open("/")
        expect(page.locator('[data-nav="topology"]')).to_have_count(1)
        expect(page.locator('[data-nav="networks"]')).to_have_count(0)
        page = visit.open("/networks")
        expect(page.locator('[data-slot="summary"]')).to_contain_text("has no NVMe subsystems")
        for section in ("nvme", "iscsi", "fc", "nics"):
            expect(page.locator(f'section[data-section="{section}"]')).to_be_hidden()
        expect(page.locator("[data-chip]")).to_have_count(0)
        visit.screenshot("networks-sas-only")
        assert visit.console_errors == [] and visit.page_errors == []
