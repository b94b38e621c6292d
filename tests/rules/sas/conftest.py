"""The simulated hosts (`tests/fixtures/specs`) and the real mpt3sas capture the SAS rule tests
share, simulated once per session, and how they run the SAS rules."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import sas
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

REAL_MPT3SAS = FIXTURES / "snapshots" / "procfs-mpt3sas"


@pytest.fixture(scope="session")
def inventories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    """The inventory of each simulated host these tests use, simulated once."""
    found = {}
    for name in (
        "three_chains_of_two",
        "all_dual_pathed",
        "disk_missing_one_path",
        "degraded_hba_phy",
        "mpi3mr_no_transport",
        "degraded_sas_port",
        "phy_errors_sweep1",
        "phy_errors_sweep2",
    ):
        out = tmp_path_factory.mktemp(name)
        write_snapshot(load_spec(SPECS / f"{name}.toml"), out)
        found[name] = collect_inventory(SnapshotSource(out))
    found["real"] = collect_inventory(SnapshotSource(REAL_MPT3SAS))
    return found


def run(
    inventory: Inventory, previous: Inventory | None = None, config: Config | None = None
) -> tuple[list[Finding], list[SkippedRule]]:
    """The SAS rules' findings and skipped rules for one host."""
    context = RuleContext(inventory=inventory, previous=previous)
    findings, skipped, _ = evaluate(context, sas.RULES, config)
    return findings, skipped


def of_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]
