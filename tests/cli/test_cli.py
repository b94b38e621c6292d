"""The `pinchpoint` command as a user runs it: inventory, capture, simulate."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from fixture_paths import FIXTURES
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.inventory import Inventory

runner = CliRunner()


def test_inventory_of_a_snapshot_draws_the_fabric(procfs_snapshot: Path) -> None:
    result = runner.invoke(app, ["inventory", "--snapshot", str(procfs_snapshot)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "HBA 0000:03:00.0" in out
    assert "HBA 9400-8i8e" in out
    assert "connector 2" in out and "4×12 Gb/s" in out
    assert "connector 3" in out and "4×6 Gb/s" in out
    assert "chain of 1 enclosure" in out
    assert "paths 1/1" in out
    assert "SAS2X36" in out


def test_inventory_json_is_the_typed_model(procfs_snapshot: Path) -> None:
    result = runner.invoke(app, ["inventory", "--snapshot", str(procfs_snapshot), "--json"])
    assert result.exit_code == 0, result.output
    inventory = Inventory.model_validate_json(result.stdout)
    assert len(inventory.sas.disks) == 4
    assert json.loads(result.stdout)["sas"]["chains"][0]["depth"] == 1


def test_disks_table_lists_every_disk(procfs_snapshot: Path) -> None:
    result = runner.invoke(app, ["inventory", "--snapshot", str(procfs_snapshot), "--disks"])
    assert result.exit_code == 0, result.output
    for wwid in ("naa.5000c500b32d1a9c", "naa.5000c500b3928e24", "naa.5000cca26128b1f4"):
        assert wwid in result.output


def test_a_missing_snapshot_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["inventory", "--snapshot", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no snapshot at" in result.output


def test_capture_of_this_host_reads_back_offline(tmp_path: Path) -> None:
    """This machine may have no SAS hardware at all: the snapshot then has no SAS part."""
    out = tmp_path / "snap"
    result = runner.invoke(app, ["capture", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "pinchpoint-snapshot"
    assert manifest["version"] == 1
    assert "captured_at" in manifest
    again = runner.invoke(app, ["inventory", "--snapshot", str(out), "--json"])
    assert again.exit_code == 0, again.output
    offline = Inventory.model_validate_json(again.stdout)
    live = runner.invoke(app, ["inventory", "--json"])
    assert offline.sas == Inventory.model_validate_json(live.stdout).sas


def test_capture_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "keep.txt").write_text("mine")
    result = runner.invoke(app, ["capture", str(tmp_path / "snap")])
    assert result.exit_code == 2
    assert "not empty" in result.output
    assert (tmp_path / "snap" / "keep.txt").read_text() == "mine"


def test_capture_tar_writes_one_archive(tmp_path: Path) -> None:
    result = runner.invoke(app, ["capture", str(tmp_path / "host"), "--tar"])
    assert result.exit_code == 0, result.output
    archive = tmp_path / "host.tar.gz"
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "host/manifest.json" in names
    again = runner.invoke(app, ["inventory", "--snapshot", str(archive), "--json"])
    assert again.exit_code == 0, again.output


def test_capture_with_samples_gives_stats_diff_a_series(tmp_path: Path) -> None:
    """`capture --samples 3` keeps this host's diskstats three times; `stats diff` reads them."""
    archive = tmp_path / "host.tar.gz"
    result = runner.invoke(
        app, ["capture", str(tmp_path / "host"), "--tar", "--samples", "3", "--interval", "0.2"]
    )
    assert result.exit_code == 0, result.output
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    for n in range(3):
        assert f"host/samples/{n}/proc/diskstats" in names
        assert f"host/samples/{n}/proc/uptime" in names
    diff = runner.invoke(app, ["stats", "diff", str(archive), "--json", "--all"])
    assert diff.exit_code == 0, diff.output
    intervals = json.loads(diff.stdout)["intervals"]
    assert len(intervals) == 2
    assert all(0.1 <= i["interval_s"] <= 5 for i in intervals)
    assert intervals[0]["devices"], "this machine has at least one block device"


def test_demo_shows_the_two_single_pathed_jbods() -> None:
    result = runner.invoke(app, ["inventory", "--demo"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "DEMO: simulated host" in out
    for name in ("JBOD-003", "JBOD-012"):
        line = next(x for x in out.splitlines() if name in x and "paths" in x)
        assert "✖ paths 1/2" in line
    assert "chain of 4 enclosures" in out
    assert "SAS fabric: 3 HBAs, 6 enclosures, 360 disks, 600 disk paths" in out
    assert "HGST H4060-J" in out and "slots 60/60 occupied" in out


def test_simulate_writes_a_snapshot_that_inventory_reads(tmp_path: Path) -> None:
    spec = FIXTURES / "specs" / "disk_missing_one_path.toml"
    out = tmp_path / "sim"
    result = runner.invoke(app, ["simulate", str(spec), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["simulated"] is True
    shown = runner.invoke(app, ["inventory", "--snapshot", str(out)], env={"COLUMNS": "200"})
    assert "23 × 2 paths, 1 × 1 path (slot 5)" in shown.output


def test_simulate_names_the_bad_field_of_a_spec(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text('[[hba]]\nname = "hba1"\nphys = "eight"\n')
    result = runner.invoke(app, ["simulate", str(spec), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "phys" in result.output
    missing = runner.invoke(app, ["simulate", str(tmp_path / "none.toml"), "--out", "x"])
    assert missing.exit_code == 2
    assert "no such spec file" in missing.output


def test_counted_steps_fill_the_progress_bar() -> None:
    """smartctl reports `done/total`: the bar shows it; other steps just name themselves."""
    from pinchpoint.cli import console

    progress = console.progress_bar()
    task = progress.add_task("inventory", total=None)
    report = console.progress_reporter(progress, task)
    report("smartctl 48/144")
    state = progress.tasks[0]
    assert (state.description, state.total, state.completed) == ("smartctl", 144, 48)
    report("reading ZFS pools")
    state = progress.tasks[0]
    assert (state.description, state.total) == ("reading ZFS pools", None)


def test_stats_by_controller_on_a_simulated_ahci_host(tmp_path: Path) -> None:
    """Disks off the SAS fabric (issue 15): the inventory lists them by controller and port,
    `stats show` groups them so."""
    spec = tmp_path.parent / "spec.toml"
    spec.write_text(
        "[[ahci]]\npci_address = '0000:00:17.0'\n[[ahci.disk]]\n[[ahci.disk]]\n"
        "[workload]\nsamples = 3\n[[workload.load]]\ndevices = ['sda', 'sdb']\niops = 50\n",
        encoding="utf-8",
    )
    out = tmp_path / "host"
    assert runner.invoke(app, ["simulate", str(spec), "--out", str(out)]).exit_code == 0
    inventory = runner.invoke(app, ["inventory", "--snapshot", str(out)])
    assert inventory.exit_code == 0, inventory.output
    assert "Disks on other controllers" in inventory.output and "ata2" in inventory.output
    result = runner.invoke(app, ["stats", "show", "--snapshot", str(out), "--by", "controller"])
    assert result.exit_code == 0, result.output
    assert "AHCI 0000:00:17.0" in result.output and "ahci, 2 disks" in result.output
    ports = runner.invoke(
        app, ["stats", "show", "--snapshot", str(out), "--by", "controller-port", "--json"]
    )
    assert ports.exit_code == 0, ports.output
    (level,) = json.loads(ports.stdout)["levels"]
    assert [g["name"] for g in level["groups"]] == [
        "AHCI 0000:00:17.0 ata1",
        "AHCI 0000:00:17.0 ata2",
    ]


def test_inventory_shows_enclosure_elements_in_trouble(tmp_path: Path) -> None:
    """The simulated enclosure_faults host: each enclosure's summary, and a row per element in
    trouble with its reading and its own limits."""
    from pinchpoint.simulator import DEMO_SPEC_PATH, load_spec, write_snapshot

    out = tmp_path / "faults"
    write_snapshot(load_spec(DEMO_SPEC_PATH.parent / "enclosure_faults.toml"), out)
    result = runner.invoke(app, ["inventory", "--snapshot", str(out)], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    assert "Enclosure elements with a problem" in result.output
    assert "2 power supplies, 4 fans, 2 temperature sensors 31–64 °C, 2 expanders: 3 in" in (
        result.output
    )
    assert "▲ power supply 1 (PSU 2) reports Critical" in result.output
    row = next(
        line
        for line in result.output.splitlines()
        if line.startswith("│ JBOD-A") and "TEMP IOM A" in line
    )
    assert "64 °C" in row and "warn 60 / crit 70 °C" in row
