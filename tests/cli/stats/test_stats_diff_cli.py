"""`pinchpoint stats diff` on sample directories, snapshots and a series; `stats watch` live."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES
from typer.testing import CliRunner

import pinchpoint.cli.stats.diff as diff
from pinchpoint.checks.collect.diskstats import LiveSampler
from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.cli import app

FIXTURES = ALL_FIXTURES / "diskstats"
SERIES = FIXTURES / "series"
SYSSTAT_KEYS = {
    "r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s", "drqm/s",
    "rrqm", "wrqm", "drqm", "r_await", "w_await", "d_await", "f_await",
    "rareq-sz", "wareq-sz", "dareq-sz", "aqu-sz", "util",
}  # fmt: skip

runner = CliRunner()


def said(output: str) -> str:
    """Output with the error console's line wrapping undone."""
    return " ".join(output.split())


def sample_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """Samples 0 and 1 of the series as two plain sample directories."""
    first, second = tmp_path / "a", tmp_path / "b"
    shutil.copytree(SERIES / "samples" / "0", first)
    shutil.copytree(SERIES / "samples" / "1", second)
    return first, second


def test_diff_of_two_sample_directories_as_json(tmp_path: Path) -> None:
    first, second = sample_dirs(tmp_path)
    result = runner.invoke(app, ["stats", "diff", str(first), str(second), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["interval_s"] == 10.0
    devices = {d["device"]: d for d in report["devices"]}
    assert set(devices) == {"sda", "dm-0"}  # whole devices with I/O; not sda3, not idle loops
    sda = devices["sda"]
    assert set(sda) >= SYSSTAT_KEYS and sda["reset"] is False
    assert sda["r/s"] == 120.0 and sda["util"] == 95.0 and sda["r_await"] == 0.4
    assert sda["f/s"] == 4.0 and sda["f_await"] == 0.3


def test_all_and_partitions_show_more(tmp_path: Path) -> None:
    first, second = sample_dirs(tmp_path)
    result = runner.invoke(
        app, ["stats", "diff", str(first), str(second), "--json", "--all", "--partitions"]
    )
    names = [d["device"] for d in json.loads(result.stdout)["devices"]]
    assert len(names) == 15 and {"sda3", "loop0", "sr0"} <= set(names)


def test_diff_table_reads_like_iostat(tmp_path: Path) -> None:
    first, second = sample_dirs(tmp_path)
    result = runner.invoke(app, ["stats", "diff", str(first), str(second)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "10.00 s" in said(result.stdout)
    header = next(line for line in result.stdout.splitlines() if line.startswith("Device"))
    assert header.split() == [
        "Device", "r/s", "w/s", "f/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "%rrqm", "%wrqm",
        "r_await", "w_await", "f_await", "rareq-sz", "wareq-sz", "aqu-sz", "%util",
    ]  # fmt: skip
    sda = next(line for line in result.stdout.splitlines() if line.startswith("sda"))
    assert sda.split()[1:3] == ["120.00", "240.00"] and sda.split()[-1] == "95.00"


def test_snapshot_with_samples_diffs_each_interval() -> None:
    result = runner.invoke(app, ["stats", "diff", str(SERIES), "--json"])
    assert result.exit_code == 0, result.output
    intervals = json.loads(result.stdout)["intervals"]
    assert [i["interval_s"] for i in intervals] == [10.0, 10.05]
    second_sda = next(d for d in intervals[1]["devices"] if d["device"] == "sda")
    assert second_sda["w/s"] == pytest.approx(9000 / 10.05)
    text = runner.invoke(app, ["stats", "diff", str(SERIES)], env={"COLUMNS": "200"})
    assert "samples/0 → samples/1" in text.stdout and "samples/1 → samples/2" in text.stdout


def test_snapshot_tarballs_are_read(tmp_path: Path) -> None:
    archive = tmp_path / "series.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(SERIES, arcname="series")
    result = runner.invoke(app, ["stats", "diff", str(archive), "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["intervals"]) == 2


def test_a_reset_device_is_shown_and_flagged(tmp_path: Path) -> None:
    first, second = sample_dirs(tmp_path)
    (first / "proc" / "uptime").write_text("60.00 100.00\n")  # later, with lower counters
    result = runner.invoke(app, ["stats", "diff", str(second), str(first), "--json"])
    report = json.loads(result.stdout)
    assert {d["device"] for d in report["devices"] if d["reset"]} == {"sda", "dm-0"}
    assert all(d["r/s"] == 0.0 for d in report["devices"])
    assert any("counters went backwards" in p for p in report["problems"])


def test_missing_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", "diff", str(tmp_path / "nope"), str(SERIES)])
    assert result.exit_code == 2
    assert "no snapshot at" in said(result.output) and "Traceback" not in result.output


def test_not_a_snapshot_is_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in ([str(junk), str(SERIES)], [str(empty), str(SERIES)]):
        result = runner.invoke(app, ["stats", "diff", *args])
        assert result.exit_code == 2, result.output
        line = said(result.output)
        assert line.count("error:") == 1, line
        assert line.count("pinchpoint capture") == 1, line  # the advice once, not twice


def test_garbled_archive_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    result = runner.invoke(app, ["stats", "diff", str(bad)])
    assert result.exit_code == 2 and "not a readable snapshot archive" in said(result.output)


def test_one_sample_alone_cannot_be_diffed(tmp_path: Path) -> None:
    first, _second = sample_dirs(tmp_path)
    result = runner.invoke(app, ["stats", "diff", str(first)])
    assert result.exit_code == 2 and "holds one sample" in said(result.output)


def test_sample_without_uptime_reports_the_problem(tmp_path: Path) -> None:
    first, second = sample_dirs(tmp_path)
    (second / "proc" / "uptime").unlink()
    result = runner.invoke(app, ["stats", "diff", str(first), str(second), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["devices"] == []
    assert any("no clock" in p for p in report["problems"])


def test_watch_samples_this_host_for_real() -> None:
    result = runner.invoke(app, ["stats", "watch", "--count", "2", "--interval", "0.2", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2
    assert all(line["interval_s"] > 0 and line["problems"] == [] for line in lines)
    assert all(set(d) >= SYSSTAT_KEYS for line in lines for d in line["devices"])


def test_watch_prints_plain_tables_when_piped() -> None:
    result = runner.invoke(
        app, ["stats", "watch", "--count", "2", "--interval", "0.2", "--top", "3"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.count("busiest") == 2


def test_watch_all_gives_every_device_idle_ones_and_partitions_too() -> None:
    result = runner.invoke(
        app, ["stats", "watch", "--count", "1", "--interval", "0.1", "--json", "--all"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    names = [line.split()[2] for line in Path("/proc/diskstats").read_text().splitlines()]
    assert {d["device"] for d in report["devices"]} <= set(names)
    assert len(report["devices"]) >= len(names) - len(report["appeared"])


def replaying(monkeypatch: pytest.MonkeyPatch, path: Path, texts: list[str]) -> None:
    """`stats watch` reads `path`, which holds the next of `texts` at each tick."""

    class Replaying(LiveSampler):
        def tick(self) -> DiskstatsTable:
            if texts:
                path.write_text(texts.pop(0))
            return super().tick()

    monkeypatch.setattr(diff, "LiveSampler", lambda: Replaying(str(path)))


def series_text(n: int) -> str:
    return (SERIES / "samples" / str(n) / "proc" / "diskstats").read_text()


def test_watch_shows_the_top_busiest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = {}
    for top in (1, 2):
        replaying(monkeypatch, tmp_path / "diskstats", [series_text(0), series_text(1)])
        result = runner.invoke(app, ["stats", "watch", "-n", "1", "-i", "0.05", "--json",
                                     "--top", str(top)])  # fmt: skip
        assert result.exit_code == 0, result.output
        shown[top] = [d["device"] for d in json.loads(result.stdout)["devices"]]
    assert shown[2] == ["sda", "dm-0"] and shown[1] == ["sda"]  # sda: 95 %util


def test_watch_reports_skipped_lines_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = "8 0 sdz 1 2 3\n"
    replaying(monkeypatch, tmp_path / "diskstats", [series_text(0), series_text(1) + bad])
    result = runner.invoke(app, ["stats", "watch", "-n", "1", "-i", "0.05", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [d["device"] for d in report["devices"]] == ["sda", "dm-0"]
    assert len(report["problems"]) == 1 and "1 line skipped" in report["problems"][0]


def test_watch_of_an_unreadable_file_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch, tmp_path / "nothing", [])
    result = runner.invoke(app, ["stats", "watch", "-n", "1"])
    assert result.exit_code == 2
    assert "no block device counters" in said(result.output)
