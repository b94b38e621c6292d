"""`/proc/net/dev` read from this machine and from snapshot samples, with their missing,
empty and garbled files."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.collect.netdev import (
    live_net_dev_sample,
    read_net_dev_sample,
    read_net_dev_series,
)
from pinchpoint.checks.parse.netdev import parse_net_dev
from pinchpoint.checks.source import LiveSource, SnapshotSource
from pinchpoint.model.problems import ProblemKind

FIXTURES = ALL_FIXTURES / "netdev"
PROCFS = (FIXTURES / "procfs__proc_net_dev.txt").read_text()


def snapshot(root: Path, samples: dict[int, tuple[str | bytes | None, str | None]]) -> Path:
    """A snapshot directory with `samples/<n>/proc/net/dev` and `proc/uptime` (None: absent)."""
    (root / "manifest.json").parent.mkdir(parents=True, exist_ok=True)
    for n, (net_dev, uptime) in samples.items():
        proc = root / "samples" / str(n) / "proc"
        (proc / "net").mkdir(parents=True)
        if isinstance(net_dev, bytes):
            (proc / "net" / "dev").write_bytes(net_dev)
        elif net_dev is not None:
            (proc / "net" / "dev").write_text(net_dev)
        if uptime is not None:
            (proc / "uptime").write_text(uptime)
    return root


def test_this_machines_own_table() -> None:
    sample = live_net_dev_sample()
    assert sample.problems == [] and sample.skipped.count == 0
    assert sample.monotonic_s is not None
    names = [i.interface for i in sample.interfaces]
    assert "lo" in names and len(names) == len(set(names))
    through_source, _ = parse_net_dev(LiveSource().read_text("/proc/net/dev"))
    assert [i.interface for i in through_source] == names


def test_empty_and_binary_files_are_reported_not_fatal(tmp_path: Path) -> None:
    root = snapshot(
        tmp_path / "snap",
        {0: ("", "100.00 150.00\n"), 1: (b"\x00\x7fELF\xff\xfe:\x01\x02\n" * 3, "110.00 1\n")},
    )
    empty, binary = read_net_dev_series(SnapshotSource(root))
    assert empty.interfaces == [] and empty.uptime_s == 100.0
    assert [p.kind for p in empty.problems] == [ProblemKind.GARBLED]
    assert "empty file" in empty.problems[0].reason
    assert binary.interfaces == [] and binary.skipped.count == 3
    assert "3 lines skipped" in binary.problems[0].reason


def test_missing_files_are_problems_and_the_sample_still_stands(tmp_path: Path) -> None:
    root = snapshot(tmp_path / "snap", {0: (None, "5.00 1\n"), 1: (PROCFS, None)})
    first, second = read_net_dev_series(SnapshotSource(root))
    assert first.interfaces == [] and first.uptime_s == 5.0
    assert "no network interface counters" in first.problems[0].reason
    assert len(second.interfaces) == 4 and second.uptime_s is None
    assert "no clock for this sample" in second.problems[0].reason


def test_garbled_uptime_is_a_problem(tmp_path: Path) -> None:
    root = snapshot(tmp_path / "snap", {0: (PROCFS, "soon\n")})
    (sample,) = read_net_dev_series(SnapshotSource(root))
    assert sample.uptime_s is None and "expected seconds since boot" in sample.problems[0].reason


def test_a_snapshot_without_a_series_is_one_sample(tmp_path: Path) -> None:
    (tmp_path / "proc" / "net").mkdir(parents=True)
    (tmp_path / "proc" / "net" / "dev").write_text(PROCFS)
    (tmp_path / "proc" / "uptime").write_text("7654.32 100.00\n")
    (sample,) = read_net_dev_series(SnapshotSource(tmp_path))
    assert len(sample.interfaces) == 4 and sample.uptime_s == 7654.32
    assert read_net_dev_sample(SnapshotSource(tmp_path)).interfaces == sample.interfaces
