"""Snapshots written once per session from the bundled demo and the scenario specs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.simulator import demo_spec, load_spec, write_snapshot

REFERENCE = FIXTURES / "snapshots" / "procfs-mpt3sas"


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled demo host, written once (read-only for tests)."""
    out = tmp_path_factory.mktemp("demo") / "snapshot"
    write_snapshot(demo_spec(), out)
    return out


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
