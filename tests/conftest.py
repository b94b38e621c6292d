"""Shared fixtures: paths of the captured snapshots kept in tests/fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, TESTS

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


from postgres_db import postgres_admin  # noqa: E402  (the fixture, for every test directory)

__all__ = ["postgres_admin"]


SERVER_TEST_DIRS = ("api", "web")  # start uvicorn servers whose threads live for the session


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that start servers last: their threads stay up for the session, and a
    process with other threads must not fork, so the inventory's forked-child tests would
    quietly stop testing the fork after them."""
    tests_root = TESTS

    def starts_servers(item: pytest.Item) -> bool:
        try:
            relative = Path(str(item.path)).relative_to(tests_root)
        except ValueError:
            return False
        return relative.parts[0] in SERVER_TEST_DIRS

    items.sort(key=starts_servers)
