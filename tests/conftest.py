"""Shared fixtures: paths of the captured snapshots kept in tests/fixtures."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from demo_host import SharedDemoScratch, remove_shared_demo
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


# pytest-xdist's workers inherit COLUMNS=80 from the controller; the CLI's output width must
# be what a pipe gets (cli/console.py), as in a single-process run. Tests that want a width
# set COLUMNS themselves.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)


@pytest.fixture(scope="session", autouse=True)
def one_demo_per_process() -> Iterator[None]:
    """Every demo service and in-process `--demo` run reads one shared simulation of the demo
    host instead of writing its 80,000 files anew (tests/demo_host.py); the simulation itself
    is tested in tests/simulator."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("pinchpoint.checks.source.choose.simulate_demo", SharedDemoScratch)
        patch.setattr("pinchpoint.service.target.simulate_demo", SharedDemoScratch)
        yield
    remove_shared_demo()


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
