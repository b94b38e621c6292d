"""Shared fixtures: paths of the captured snapshots kept in tests/fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
PROCFS_SNAPSHOT = FIXTURES / "snapshots" / "procfs-mpt3sas"


@pytest.fixture
def procfs_snapshot() -> Path:
    """The real mpt3sas capture (read-only: copy it before changing anything)."""
    return PROCFS_SNAPSHOT


@pytest.fixture
def procfs_copy(tmp_path: Path) -> Path:
    """A private copy of the real capture that a test may damage."""
    target = tmp_path / "snapshot"
    shutil.copytree(PROCFS_SNAPSHOT, target, symlinks=True)
    return target
