"""SES pages in the inventory: garbled, truncated, missing, failing and hung `sg_ses`."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from fixture_paths import FIXTURES
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.sas import ses
from pinchpoint.checks.source import LiveSource, SnapshotSource
from pinchpoint.checks.source.commands import Command, CommandResult
from pinchpoint.model.problems import ProblemKind
from pinchpoint.simulator import load_spec, write_snapshot

SPEC = FIXTURES / "specs" / "no_encserv.toml"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ses") / "host"
    write_snapshot(load_spec(SPEC), out)
    return out


@pytest.fixture
def host(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "host"
    shutil.copytree(pristine, copy, symlinks=True)
    return copy


def sg_for(root: Path, name: str) -> list[str]:
    inventory = collect_inventory(SnapshotSource(root))
    found = next(e for e in inventory.sas.enclosures if e.name == name)
    return [sg for s in found.ses_devices for sg in s.sg_devices]


def test_garbled_pages_are_named_and_the_sysfs_facts_stand(host: Path) -> None:
    for sg in sg_for(host, "JBOD-A"):
        (host / f"commands/sg_ses/{sg}.aes.txt").write_text("lorem ipsum\n\x00\x01 dolor\n")
        (host / f"commands/sg_ses/{sg}.cf.txt").write_bytes(os.urandom(300))
    inventory = collect_inventory(SnapshotSource(host))
    jbod_a = next(e for e in inventory.sas.enclosures if e.logical_id.endswith("efff"))
    assert len(jbod_a.slots) == 24  # /sys/class/enclosure still gives the bays
    garbled = [p for p in inventory.problems if p.kind is ProblemKind.GARBLED]
    assert len(garbled) == 4
    assert all("sg_ses" in p.subject for p in garbled)
    assert len(inventory.sas.disks) == 48


class CountingSource(SnapshotSource):
    """A snapshot that notes which sg_ses outputs the collector asked for."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.asked: list[str] = []

    def run(self, command: Command) -> CommandResult:
        self.asked.append(command.key)
        return super().run(command)


def test_only_the_first_io_module_is_asked_for_every_page(host: Path) -> None:
    source = CountingSource(host)
    collect_inventory(source)
    per_device = Counter(
        key.split("/")[1].split(".")[0] for key in source.asked if key.startswith("sg_ses/")
    )
    assert sorted(per_device.values()) == [1, 1, 6, 6]  # 2 enclosures × (6 pages + cf)


def test_empty_and_truncated_pages_are_read_from_the_other_io_module(host: Path) -> None:
    source = CountingSource(host)
    collect_inventory(source)
    full = Counter(
        key.split("/")[1].split(".")[0] for key in source.asked if key.startswith("sg_ses/")
    )
    primaries = [sg for sg, count in full.items() if count == 6]
    sg = next(s for s in primaries if s in sg_for(host, "JBOD-B"))
    es = host / f"commands/sg_ses/{sg}.es.txt"
    text = es.read_text()
    es.write_text(text[: len(text) // 2])
    (host / f"commands/sg_ses/{sg}.snic.txt").write_text("")
    inventory = collect_inventory(SnapshotSource(host))
    jbod_b = next(e for e in inventory.sas.enclosures if e.name == "JBOD-B")
    assert jbod_b.bay_count == 24
    assert jbod_b.nickname == "JBOD-B"
    assert all(s.status == "OK" for s in jbod_b.slots)
    # the elements come whole from the other I/O module, not cut from the first one's page
    assert jbod_b.elements is not None and len(jbod_b.elements) == 15
    assert jbod_b.elements[0].reported_by != next(
        d.id for d in jbod_b.ses_devices if sg in d.sg_devices
    )
    lines = "\n".join(p.line() for p in inventory.problems)
    assert f"sg_ses --page=es /dev/{sg}" in lines and "ended early" in lines
    assert f"sg_ses --page=snic /dev/{sg}" in lines


def test_missing_pages_read_as_not_collected(host: Path) -> None:
    shutil.rmtree(host / "commands")
    inventory = collect_inventory(SnapshotSource(host))
    jbod_b = next(e for e in inventory.sas.enclosures if e.product == "JBOD24-12G")
    assert jbod_b.nickname is None
    assert len(inventory.sas.disks) == 48
    not_collected = [p for p in inventory.problems if p.kind is ProblemKind.NOT_COLLECTED]
    assert len(not_collected) >= 10
    assert "holds no output of `sg_ses --page=cf" in not_collected[0].reason


def test_a_hung_sg_ses_times_out_and_the_inventory_completes(
    host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "PATH", str(fake_tool_dir(tmp_path, "sg_ses", f"exec {shutil.which('sleep')} 60"))
    )
    monkeypatch.setattr(ses, "SG_SES_TIMEOUT_S", 0.3)
    inventory = collect_inventory(LiveSource(root=str(host)))
    timeouts = [p for p in inventory.problems if p.kind is ProblemKind.TIMEOUT]
    assert timeouts, "each hung sg_ses is reported"
    assert "did not finish within 0.3 s and was stopped" in timeouts[0].reason
    assert len(inventory.sas.disks) == 48
    assert len(inventory.sas.enclosures) == 2


def test_a_missing_sg_ses_is_reported_once_per_kind(
    host: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    inventory = collect_inventory(LiveSource(root=str(host)))
    missing = [
        p for p in inventory.problems if p.kind is ProblemKind.TOOL_MISSING and p.part == "ses"
    ]
    assert missing and "sg_ses is not installed" in missing[0].reason
    assert len(missing) <= 11  # ten listed, then one line counting the rest
    assert len(inventory.sas.disks) == 48


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg3-utils is not installed")
def test_the_real_sg_ses_failing_on_an_absent_device_is_reported(host: Path) -> None:
    """The simulated /dev/sgN do not exist on this machine: the real tool says so and fails."""
    inventory = collect_inventory(LiveSource(root=str(host)))
    failed = [p for p in inventory.problems if p.kind is ProblemKind.FAILED and p.part == "ses"]
    assert failed
    assert "sg_ses exited with status" in failed[0].reason
    assert len(inventory.sas.disks) == 48


def test_a_garbled_threshold_page_leaves_the_elements_without_limits(host: Path) -> None:
    for sg in sg_for(host, "JBOD-A"):
        (host / f"commands/sg_ses/{sg}.th.txt").write_bytes(b"\x00\x01binary\xff" * 20)
    inventory = collect_inventory(SnapshotSource(host))
    jbod_a = next(e for e in inventory.sas.enclosures if e.name == "JBOD-A")
    assert jbod_a.elements is not None and len(jbod_a.elements) == 15
    assert all(e.limits is None for e in jbod_a.elements)
    temperatures = [e.temperature_c for e in jbod_a.elements if e.temperature_c is not None]
    assert len(temperatures) == 2  # the status page's readings stand
    garbled = [p for p in inventory.problems if "--page=th" in p.subject]
    assert len(garbled) == 2 and all(p.kind is ProblemKind.GARBLED for p in garbled)
    assert "no 'Threshold In diagnostic page' header (got binary data" in garbled[0].reason
    jbod_b = next(e for e in inventory.sas.enclosures if e.name == "JBOD-B")
    assert jbod_b.elements is not None
    assert all(e.limits is not None for e in jbod_b.elements if e.temperature_c is not None)


def test_a_snapshot_from_before_the_threshold_page_keeps_its_elements(host: Path) -> None:
    """Snapshots captured before `th` was read: elements from the status page, no limits, and
    "not collected" naming the page."""
    for page in (host / "commands" / "sg_ses").glob("*.th.txt"):
        page.unlink()
    inventory = collect_inventory(SnapshotSource(host))
    for enclosure in inventory.sas.enclosures:
        assert enclosure.elements is not None and len(enclosure.elements) == 15
        assert all(e.limits is None for e in enclosure.elements)
    missing = [p for p in inventory.problems if "--page=th" in p.subject]
    assert missing and all(p.kind is ProblemKind.NOT_COLLECTED for p in missing)
