"""The simulated hosts the PCIe rule tests share, simulated once per session on tmpfs, and how
they run the PCIe rules."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.rules import pcie
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator.snapshot_writer import write_snapshot
from pinchpoint.simulator.spec import load_spec


@pytest.fixture(scope="session")
def hosts() -> Iterator[dict[str, RuleContext]]:
    """Simulated hosts, written to tmpfs where there is one."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as scratch:
        found = {}
        for name in ("degraded_network", "nvme_ssds", "all_dual_pathed", "shared_pcie_link"):
            out = Path(scratch) / name
            write_snapshot(load_spec(SPECS / f"{name}.toml"), out)
            found[name] = RuleContext(inventory=collect_inventory(SnapshotSource(out)))
        yield found


def findings(context: RuleContext) -> list[Finding]:
    return evaluate(context, pcie.RULES)[0]
