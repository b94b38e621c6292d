"""`pinchpoint stats show`: the breakdown along the hierarchy, on the simulated demo host.

The demo is field case 1 as found: JBOD-003 and JBOD-012 have one SAS path where the others
have two, under the same streaming write. Grouped by enclosure they must stand out by their
queue per disk and their share of slow I/Os (end to end: simulator → snapshot → inventory →
diskstats samples + zpool iostat -w → attach → aggregate → table/JSON).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import IMPORTS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.cli.stats.show import parse_duration_s
from pinchpoint.model.breakdown import Breakdown, GroupLevel, SlowerBasis

runner = CliRunner()
PERFMON = IMPORTS / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"
SINGLE_PATHED = {"JBOD-003", "JBOD-012"}


@pytest.fixture(scope="module")
def demo_snapshot() -> Path:
    """The demo host with its workload, simulated once per process."""
    return shared_demo_root()


def show_json(*args: str) -> Breakdown:
    result = runner.invoke(app, ["stats", "show", *args, "--json"])
    assert result.exit_code == 0, result.output
    return Breakdown.model_validate_json(result.stdout)


def test_the_single_pathed_jbods_stand_out_by_queue_per_disk(demo_snapshot: Path) -> None:
    found = show_json("--snapshot", str(demo_snapshot), "--by", "enclosure")
    (level,) = found.levels
    assert level.level is GroupLevel.ENCLOSURE
    by_name = {g.name: g for g in level.groups}
    assert len(by_name) == 6 and found.intervals >= 2
    assert all(g.members == 60 and g.measured == 60 for g in level.groups)
    queues = {name: g.queue_per_member for name, g in by_name.items()}
    assert all(q is not None and q > 0 for q in queues.values())
    slowest_two = sorted(queues, key=lambda n: queues[n] or 0.0)[-2:]
    assert set(slowest_two) == SINGLE_PATHED
    others = max(q or 0.0 for n, q in queues.items() if n not in SINGLE_PATHED)
    assert min(queues[n] or 0.0 for n in SINGLE_PATHED) > 1.5 * others
    for name in SINGLE_PATHED:
        assert (by_name[name].queue_vs_peers or 0.0) > 1.5
        assert "1 path of 2" in (by_name[name].detail or "")


def test_the_share_of_slow_ios_comes_from_the_zpool_histograms(demo_snapshot: Path) -> None:
    found = show_json(
        "--snapshot", str(demo_snapshot), "--by", "enclosure", "--slower-than", "220ms"
    )
    assert found.slower_than_ms == pytest.approx(220.0)
    groups = found.levels[0].groups
    assert all(g.slower_basis is SlowerBasis.HISTOGRAMS for g in groups)
    shares = {g.name: g.share_slower or 0.0 for g in groups}
    assert min(shares[n] for n in SINGLE_PATHED) > max(
        s for n, s in shares.items() if n not in SINGLE_PATHED
    )


def test_every_sas_level_adds_up(demo_snapshot: Path) -> None:
    found = show_json(
        "--snapshot",
        str(demo_snapshot),
        *("--by", "disk", "--by", "enclosure", "--by", "chain", "--by", "hba-port", "--by", "hba"),
    )
    levels = {lv.level: lv for lv in found.levels}
    disks = levels[GroupLevel.DISK].groups
    assert len(disks) == 360
    total = sum(g.iops for g in disks)
    for level in (GroupLevel.ENCLOSURE, GroupLevel.CHAIN, GroupLevel.HBA_PORT, GroupLevel.HBA):
        assert sum(g.iops for g in levels[level].groups) == pytest.approx(total, rel=1e-9)
    assert found.unmatched == []


def test_the_table_names_the_groups_and_marks_the_outliers(demo_snapshot: Path) -> None:
    result = runner.invoke(
        app, ["stats", "show", "--snapshot", str(demo_snapshot), "--by", "enclosure"]
    )
    assert result.exit_code == 0, result.output
    for name in ("JBOD-001", "JBOD-003", "JBOD-012", "queue/disk", "> 220 ms", "p99 ms"):
        assert name in result.stdout
    row = next(line for line in result.stdout.splitlines() if "JBOD-003" in line)
    assert "×" in row  # its queue per disk against the median of its peers
    calm = next(line for line in result.stdout.splitlines() if "JBOD-002" in line)
    assert "×" not in calm


def test_the_demo_option_shows_the_bundled_host() -> None:
    """End to end with `--demo` (simulates the demo into a temporary directory)."""
    found = show_json("--demo", "--by", "enclosure")
    queues = {g.name: g.queue_per_member or 0.0 for g in found.levels[0].groups}
    assert set(sorted(queues, key=queues.__getitem__)[-2:]) == SINGLE_PATHED


def test_a_snapshot_without_samples_says_there_are_no_load_figures(
    procfs_snapshot: Path,
) -> None:
    result = runner.invoke(
        app, ["stats", "show", "--snapshot", str(procfs_snapshot), "--by", "hba"]
    )
    assert result.exit_code == 0, result.output
    assert "no load figures" in result.stdout
    assert "Traceback" not in result.output


def test_an_imported_windows_host_stands_alone(procfs_snapshot: Path) -> None:
    found = show_json(
        "--snapshot", str(procfs_snapshot), "--import", str(PERFMON), "--kind", "perfmon"
    )
    assert "LogicalDisk(H:)" in found.unmatched
    assert not any("_Total" in name for name in found.unmatched)  # a sum, not a volume
    volume = next(g for g in found.standalone if g.name == "LogicalDisk(H:)")
    assert volume.level is GroupLevel.STANDALONE
    assert volume.iops > 0 and volume.await_ms is not None


def test_damaged_samples_are_reported_and_the_rest_still_works(
    demo_snapshot: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "damaged"
    shutil.copytree(demo_snapshot, copy, symlinks=True)
    (copy / "samples" / "3" / "proc" / "diskstats").write_bytes(b"\x00\xff garbage\n8 0 sda 1 2\n")
    (copy / "samples" / "5" / "proc" / "uptime").write_text("")
    (copy / "commands" / "zpool" / "iostat-w.txt").write_text("not a histogram\n")
    result = runner.invoke(
        app, ["stats", "show", "--snapshot", str(copy), "--by", "enclosure", "--json"]
    )
    assert result.exit_code == 0, result.output
    found = Breakdown.model_validate_json(result.stdout)
    assert found.notes  # what was skipped is said
    groups = found.levels[0].groups
    assert all(g.iops >= 0 and (g.queue_per_member or 0.0) >= 0 for g in groups)
    queues = {g.name: g.queue_per_member or 0.0 for g in groups}
    assert set(sorted(queues, key=queues.__getitem__)[-2:]) == SINGLE_PATHED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--demo", "--snapshot", "x"], "exclude each other"),
        (["--snapshot", "/nonexistent/snapshot"], "/nonexistent/snapshot"),
        (["--snapshot", ".", "--slower-than", "fast"], "not a duration"),
        (["--snapshot", ".", "--kind", "perfmon"], "1 --kind options for 0 --import files"),
        (["--snapshot", ".", "--import", "/nonexistent.csv"], "no such file"),
        (["--snapshot", ".", "--seconds", "0"], "--seconds must be above 0"),
    ],
)
def test_bad_options_give_one_clear_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["stats", "show", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_an_unknown_level_is_refused() -> None:
    result = runner.invoke(app, ["stats", "show", "--by", "jbod"])
    assert result.exit_code == 2
    assert "jbod" in result.output


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("220ms", 0.22), ("0.5s", 0.5), ("300us", 0.0003), ("300µs", 0.0003), ("220", 0.22)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration_s(text) == pytest.approx(seconds)


def test_the_json_is_the_breakdown_model(demo_snapshot: Path) -> None:
    result = runner.invoke(
        app, ["stats", "show", "--snapshot", str(demo_snapshot), "--by", "hba", "--json"]
    )
    document = json.loads(result.stdout)
    assert set(document) >= {"levels", "slower_than_ms", "unmatched", "notes", "standalone"}
