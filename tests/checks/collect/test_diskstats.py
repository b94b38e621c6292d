"""Reading /proc/diskstats through a source: samples and series from snapshots, their
missing and garbled files, and the live host (read into tables, ticks of the live sampler)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.collect.diskstats import (
    LiveSampler,
    live_sample,
    read_diskstats_table,
    read_sample,
    read_sample_series,
)
from pinchpoint.checks.parse.diskstats import parse_diskstats, parse_diskstats_table
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import ProblemKind
from pinchpoint.stats.iostat import busiest_devices, table_interval_figures

FIXTURES = ALL_FIXTURES / "diskstats"
UBUNTU_20 = FIXTURES / "jc__proc_diskstats_ubuntu_20field.txt"
SERIES = FIXTURES / "series"
WHEN = datetime(2026, 11, 22, tzinfo=UTC)


# --- samples from a source -------------------------------------------------------------------


def make_sample_dir(root: Path, diskstats: str | None, uptime: str | None) -> Path:
    (root / "proc").mkdir(parents=True)
    if diskstats is not None:
        (root / "proc" / "diskstats").write_text(diskstats)
    if uptime is not None:
        (root / "proc" / "uptime").write_text(uptime)
    return root


def test_sample_from_a_plain_sample_directory(tmp_path: Path) -> None:
    root = make_sample_dir(tmp_path / "a", UBUNTU_20.read_text(), "31.17 58.02\n")
    sample = read_sample(SnapshotSource(root))
    assert sample.uptime_s == 31.17 and len(sample.devices) == 15 and sample.problems == []


def test_missing_files_become_problems(tmp_path: Path) -> None:
    root = make_sample_dir(tmp_path / "a", None, None)
    log = ProblemLog()
    sample = read_sample(SnapshotSource(root), log=log)
    assert sample.devices == [] and sample.uptime_s is None
    subjects = {p.subject: p for p in sample.problems}
    assert subjects["/proc/diskstats"].kind is ProblemKind.MISSING
    assert "no block device counters" in subjects["/proc/diskstats"].reason
    assert "no clock" in subjects["/proc/uptime"].reason
    assert len(log.problems()) == 2


def test_garbled_uptime_and_empty_diskstats_are_problems(tmp_path: Path) -> None:
    root = make_sample_dir(tmp_path / "a", "", "yesterday\n")
    sample = read_sample(SnapshotSource(root))
    reasons = " | ".join(p.reason for p in sample.problems)
    assert "empty file" in reasons and "expected seconds since boot, found 'yesterday'" in reasons
    assert all(p.kind is ProblemKind.GARBLED for p in sample.problems)


def test_skipped_lines_are_reported_with_the_sample(tmp_path: Path) -> None:
    root = make_sample_dir(tmp_path / "a", "garbage\n" + UBUNTU_20.read_text(), "1.00 1.00\n")
    sample = read_sample(SnapshotSource(root))
    assert len(sample.devices) == 15 and sample.skipped.count == 1
    assert sample.problems[0].reason.startswith('1 line skipped, first (line 1): "garbage"')


def test_series_in_numeric_order() -> None:
    samples = read_sample_series(SnapshotSource(SERIES))
    assert [s.uptime_s for s in samples] == [31.17, 41.17, 51.22]
    assert [next(d.reads for d in s.devices if d.device == "sda") for s in samples] == [
        14200,
        15400,
        15700,
    ]
    assert samples[0].taken_at is not None  # the manifest's capture time


def test_series_order_is_numeric_not_alphabetic(tmp_path: Path) -> None:
    for n in (0, 2, 10, 1):
        make_sample_dir(tmp_path / "samples" / str(n), UBUNTU_20.read_text(), f"{n}.00 0.00\n")
    (tmp_path / "samples" / "notes").mkdir()
    samples = read_sample_series(SnapshotSource(tmp_path))
    assert [s.uptime_s for s in samples] == [0.0, 1.0, 2.0, 10.0]


def test_without_samples_the_top_level_file_is_one_sample(procfs_snapshot: Path) -> None:
    samples = read_sample_series(SnapshotSource(procfs_snapshot))
    assert len(samples) == 1
    assert {d.device for d in samples[0].devices} >= {"sda", "sdb", "sdc", "vda", "nvme0n1"}


def test_series_with_one_sample_missing_its_uptime(tmp_path: Path) -> None:
    shutil.copytree(SERIES, tmp_path / "s")
    (tmp_path / "s" / "samples" / "1" / "proc" / "uptime").unlink()
    samples = read_sample_series(SnapshotSource(tmp_path / "s"))
    assert [s.uptime_s for s in samples] == [31.17, None, 51.22]
    assert samples[1].problems[0].subject == "/samples/1/proc/uptime"


# --- live ------------------------------------------------------------------------------------


def test_live_sample_reads_this_host() -> None:
    sample = live_sample()
    assert sample.problems == [] and sample.monotonic_s is not None and sample.uptime_s is None
    assert sample.devices, "this Linux host lists block devices in /proc/diskstats"


def test_live_sample_of_a_missing_file_is_a_problem(tmp_path: Path) -> None:
    sample = live_sample(str(tmp_path / "nothing"))
    assert sample.devices == [] and "no block device counters" in sample.problems[0].reason


def test_unreadable_file_is_an_empty_table_with_the_problem(tmp_path: Path) -> None:
    t = read_diskstats_table(str(tmp_path / "nothing"))
    assert t.names == [] and t.problems[0].kind is ProblemKind.UNREADABLE
    assert "no block device counters" in t.problems[0].reason
    figures = table_interval_figures(
        t, parse_diskstats_table(UBUNTU_20.read_bytes(), t.monotonic_s + 1, WHEN)
    )
    assert figures.devices == [] and len(figures.appeared) == 15
    assert any("no block device counters" in p for p in figures.problems)


def test_two_real_ticks_on_this_host() -> None:
    sampler = LiveSampler()
    assert sampler.sample() is None
    first = sampler.tick()
    Path("/proc/diskstats").read_bytes()  # some work between the ticks
    second = sampler.tick()
    assert sampler.previous is first and sampler.current is second
    assert first.names and first.problems == [] and second.monotonic_s > first.monotonic_s
    figures = table_interval_figures(first, second)
    assert figures.interval_s > 0 and len(figures.devices) == len(second.names)
    assert all(f.r_s >= 0 and f.util >= 0 for f in figures.devices)
    shown = busiest_devices(first, second, 5)
    assert len(shown) <= 5 and set(shown) <= set(second.names)
    whole = sampler.sample()
    assert whole is not None and [d.device for d in whole.devices] == second.names
    devices, _ = parse_diskstats(Path("/proc/diskstats").read_text())
    assert {d.device for d in devices} == set(second.names)
