"""Choosing where a host's facts come from: this host, a snapshot, or the demo host."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_host import REAL_SIMULATE_DEMO

from pinchpoint.checks.source import LiveSource, SnapshotSource, choose
from pinchpoint.checks.source.choose import open_source, scratch_dir
from pinchpoint.model.inventory import SourceKind


def test_no_snapshot_and_no_demo_is_this_host() -> None:
    with open_source() as (source, kind):
        assert isinstance(source, LiveSource) and source.root == ""
        assert kind is None


def test_a_snapshot_directory_is_read_as_captured(procfs_snapshot: Path) -> None:
    with open_source(procfs_snapshot) as (source, kind):
        assert isinstance(source, SnapshotSource)
        assert kind is None  # the snapshot's manifest says what it is
        assert source.exists("/sys/class/sas_host")


def test_the_demo_is_simulated_then_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(choose, "simulate_demo", REAL_SIMULATE_DEMO)  # not the tests' shared one
    with open_source(demo=True) as (source, kind):
        assert isinstance(source, SnapshotSource) and kind is SourceKind.DEMO
        root = Path(source.root)
        assert source.list_dir("/sys/class/sas_host")
    assert not root.exists()


def test_a_missing_snapshot_and_both_choices_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no snapshot at"), open_source(tmp_path / "x"):
        pass
    with pytest.raises(ValueError, match="exclude each other"), open_source(tmp_path, demo=True):
        pass


def test_demo_scratch_dir_is_a_roomy_tmpfs_or_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo is written to /dev/shm only where it has room (a container's is often 64 MB)."""
    import os

    class Small:
        f_bavail, f_frsize = 64 * 1024 * 1024 // 4096, 4096

    monkeypatch.setattr(os, "statvfs", lambda _path: Small())
    assert scratch_dir() is None

    def missing(_path: str) -> None:
        raise FileNotFoundError(_path)

    monkeypatch.setattr(os, "statvfs", missing)
    assert scratch_dir() is None
