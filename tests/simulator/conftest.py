"""Snapshots written once per session from the bundled demo and the scenario specs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import FIXTURES, SPECS

from pinchpoint.simulator import load_spec, write_snapshot

REFERENCE = FIXTURES / "snapshots" / "procfs-mpt3sas"


@pytest.fixture(scope="session")
def demo_root() -> Path:
    """The bundled demo host, written once per process (read-only for tests)."""
    return shared_demo_root()


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Write a scenario spec of tests/fixtures/specs once and return its snapshot root."""
    written: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in written:
            out = tmp_path_factory.mktemp(name) / "snapshot"
            write_snapshot(load_spec(SPECS / f"{name}.toml"), out)
            written[name] = out
        return written[name]

    return get
