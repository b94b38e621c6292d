"""Recording a series of samples (`pinchpoint capture --samples`): diskstats, uptime and
/proc/net/dev, read back as a snapshot's series."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.checks.collect.diskstats import read_sample_series
from pinchpoint.checks.collect.netdev import read_net_dev_series
from pinchpoint.checks.collect.samples import record_samples
from pinchpoint.checks.source import LiveSource, SnapshotSource


def test_record_samples_writes_a_series_a_snapshot_reads(tmp_path: Path) -> None:
    problems = record_samples(tmp_path / "snap", count=3, interval_s=0.05)
    assert problems == []
    samples = read_sample_series(SnapshotSource(tmp_path / "snap"))
    assert len(samples) == 3
    uptimes = [s.uptime_s for s in samples]
    assert all(u is not None for u in uptimes) and uptimes == sorted(uptimes)  # type: ignore[type-var]
    assert all(s.devices for s in samples)


def test_record_samples_from_a_root_without_proc(tmp_path: Path) -> None:
    problems = record_samples(
        tmp_path / "snap", count=2, interval_s=0.0, root=str(tmp_path / "empty")
    )
    assert len(problems) == 4 and "sample not recorded" in problems[0].reason
    assert not (tmp_path / "snap" / "samples").exists()
    assert LiveSource(str(tmp_path)).exists("/snap") is False


def test_record_samples_keeps_proc_net_dev_with_each_sample(tmp_path: Path) -> None:
    problems = record_samples(tmp_path / "snap", count=2, interval_s=0.05)
    assert problems == []
    samples = read_net_dev_series(SnapshotSource(tmp_path / "snap"))
    assert len(samples) == 2
    assert all(s.problems == [] and s.uptime_s is not None for s in samples)
    assert all("lo" in [i.interface for i in s.interfaces] for s in samples)


def test_record_samples_without_proc_net_dev_keeps_the_diskstats(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "diskstats").write_text("   8       0 sda 1 0 8 1 1 0 8 1 0 1 2\n")
    (root / "proc" / "uptime").write_text("10.00 1\n")
    problems = record_samples(tmp_path / "snap", count=1, interval_s=0.0, root=str(root))
    assert len(problems) == 1 and "without interface counters" in problems[0].reason
    assert (tmp_path / "snap" / "samples" / "0" / "proc" / "diskstats").is_file()
    assert not (tmp_path / "snap" / "samples" / "0" / "proc" / "net").exists()
