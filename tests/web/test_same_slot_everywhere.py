"""One disk, one name: the same disk rendered through every output — the `inventory` table,
`check` findings and evidence (JSON and Markdown), `stats show`, the API's enclosure, maintenance,
topology and findings answers, and the enclosure page in Chromium — carries the name
`pinchpoint.naming` gives it: the enclosure, the slot number the enclosure reports and the
enclosure's own label beside it (`JBOD-003 slot 5 (SLOT 06)`).

Three hosts: the demo (simulated HGST H4060-J shelves: their labels "SLOT 05,<serial>" name the
slot by its own number, so no label is shown), a real capture (mpt3sas and an HGST 4U60, slots 23,
57 and 58, no labels) and a simulated host with a disk finding (one disk with one path) whose
labels "SLOT 01" … are one above the slot numbers, the case that once put "SLOT 05" on the page and
"slot 4" in the terminal, so that findings and evidence name a disk too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES, SPECS
from playwright.sync_api import Browser, expect
from typer.testing import CliRunner

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source.choose import open_source
from pinchpoint.cli import app
from pinchpoint.model.findings import EntityKind
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk, Enclosure
from pinchpoint.naming import disk_ref, disk_slot_name
from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import Server, demo_settings, start_server
from tests.web.conftest import LAPTOP, visit_on

pytestmark = pytest.mark.browser
runner = CliRunner()
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"


@dataclass
class Host:
    """A host every output is asked about: how to name it on the command line, and a server."""

    label: str
    cli: list[str]  # ["--demo"] or ["--snapshot", DIR]
    server: Server
    inventory: Inventory

    def disk(self, enclosure_name: str, slot: int) -> tuple[Disk, Enclosure]:
        enclosure = next(e for e in self.inventory.sas.enclosures if e.name == enclosure_name)
        disk = next(
            d for d in self.inventory.sas.disks if d.enclosure_id == enclosure.id and d.slot == slot
        )
        return disk, enclosure


def _inventory(snapshot: Path | None, demo: bool) -> Inventory:
    with open_source(snapshot, demo=demo) as (source, kind):
        return collect_inventory(source, kind=kind)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Host]]:
    scratch = tmp_path_factory.mktemp("same-slot")
    one_path = scratch / "one-path"
    write_snapshot(load_spec(SPECS / "disk_missing_one_path.toml"), one_path)
    targets: dict[str, tuple[list[str], dict[str, Any], Path | None, bool]] = {
        "demo": (["--demo"], {"target": TargetKind.DEMO}, None, True),
        "real": (
            ["--snapshot", str(PROCFS)],
            {"target": TargetKind.SNAPSHOT, "snapshot": PROCFS},
            PROCFS,
            False,
        ),
        "one-path": (
            ["--snapshot", str(one_path)],
            {"target": TargetKind.SNAPSHOT, "snapshot": one_path},
            one_path,
            False,
        ),
    }
    started: dict[str, Host] = {}
    try:
        for label, (cli, target, snapshot, demo) in targets.items():
            settings = demo_settings(
                scratch / f"data-{label}", open_reads_on_loopback=True, **target
            )
            server = start_server(settings)
            started[label] = Host(label, cli, server, _inventory(snapshot, demo))
        for host in started.values():
            host.server.wait_for_report()
        yield started
    finally:
        for host in started.values():
            host.server.stop()


# The disk each host is asked about: (enclosure, slot number) and the name every output must use.
CASES = {
    "demo": ("JBOD-003", 5, "JBOD-003 slot 5"),
    "real": ("4U60_STOR_ENCL 0x5000ccab020094ff", 57, "4U60_STOR_ENCL 0x5000ccab020094ff slot 57"),
    "one-path": ("JBOD-B", 5, "JBOD-B slot 5 (SLOT 06)"),
}


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _disk_refs(document: Any, disk_id: str) -> list[str]:
    """Every name given to `disk_id` anywhere in a JSON document (entities, evidence peers)."""
    found = []
    if isinstance(document, dict):
        if document.get("id") == disk_id and document.get("kind") == EntityKind.DISK.value:
            found.append(document["name"])
        for value in document.values():
            found += _disk_refs(value, disk_id)
    elif isinstance(document, list):
        for value in document:
            found += _disk_refs(value, disk_id)
    return found


@pytest.mark.parametrize("label", list(CASES))
def test_every_output_names_the_disk_the_same_way(
    label: str, hosts: dict[str, Host], browser: Browser
) -> None:
    host = hosts[label]
    enclosure_name, number, expected = CASES[label]
    disk, enclosure = host.disk(enclosure_name, number)
    slot = disk_slot_name(disk, enclosure)
    assert disk_ref(disk, host.inventory).name == expected
    assert slot is not None and expected == f"{enclosure.name} {slot}"

    # inventory --disks: the disk's row shows its enclosure and slot
    table = _cli("inventory", *host.cli, "--disks")
    row = next(line for line in table.splitlines() if disk.wwid and disk.wwid in line)
    assert enclosure.name in row and f" {slot} " in row

    # check: every finding, evidence line and peer that names the disk (JSON and Markdown)
    report = json.loads(_cli("check", *host.cli, "--format", "json"))
    named = _disk_refs(report, disk.id)
    assert set(named) <= {expected}
    markdown = _cli("check", *host.cli, "--format", "markdown")
    if named:
        assert expected in markdown
    if label == "one-path":  # the host whose disk finding names this very disk
        finding = next(f for f in report["findings"] if f["rule"] == "sas.disk.missing_path")
        assert finding["entity"]["name"] == expected

    # stats show: the disk's group
    if label != "real":  # the real capture holds no diskstats samples
        stats = json.loads(_cli("stats", "show", *host.cli, "--by", "disk", "--json"))
        (level,) = stats["levels"]
        assert next(g["name"] for g in level["groups"] if g["id"] == disk.id) == expected

    # the API: enclosure view, maintenance view, topology, findings
    with host.server.client() as client:
        view = client.get(f"/v1/views/enclosures/{enclosure.id}").json()
        bay = next(b for b in view["bays"] if b["slot"]["disk_id"] == disk.id)
        assert (bay["slot"]["index"], bay["slot"]["name"]) == (number, slot)
        maintenance = client.get(f"/v1/maintenance/enclosures/{enclosure.id}").json()
        listed = next(s for s in maintenance["slots"] if s["disk_id"] == disk.id)
        assert (listed["index"], listed["name"]) == (number, slot)
        topology = client.get("/v1/views/topology").json()
        node = next(e for e in topology["enclosures"] if e["id"] == enclosure.id)
        assert next(s["name"] for s in node["slots"] if s["disk_id"] == disk.id) == slot
        findings = client.get("/v1/findings", params={"limit": 1000}).json()
        assert set(_disk_refs(findings, disk.id)) <= {expected}
        if label == "one-path":
            assert _disk_refs(findings, disk.id)

    # the enclosure page in Chromium: the slot's button carries the number, its heading the name
    for visit in visit_on(browser, host.server, LAPTOP):
        page = visit.open(f"/enclosures/{enclosure.id}")
        button = page.locator(f'.bay[data-slot="{number}"]')
        expect(button.locator(".bay-no")).to_have_text(str(number))
        button.click()
        expect(page.locator("#enc-bay")).to_have_text(slot.replace("slot", "Slot", 1))
        row = page.locator("[data-slot=disks] tbody tr", has_text=disk.serial or disk.id)
        if disk.serial:
            expect(row.first).to_contain_text(slot)
        visit.screenshot(f"same-slot-{label}")
