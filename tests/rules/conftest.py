"""What the SAN and FC rule tests share: the simulated SAN hosts of field case 2
(`tests/fixtures/specs/san_host.toml`, `san_port_down.toml`), simulated once per session, and
how they run the SAN and FC rules together."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.rules import fc, san
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics

SAN_RULES = (*san.RULES, *fc.RULES)


def host_context(snapshot: Path, statistics: bool = True) -> RuleContext:
    """The inventory of a snapshot and, when asked, its statistics: what `check` evaluates."""
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    if not statistics:
        return RuleContext(inventory=inventory)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    return RuleContext(
        inventory=inventory, intervals=gathered.intervals, imported=gathered.imported
    )


def findings(context: RuleContext, rule: str, config: Config | None = None) -> list[Finding]:
    found, skipped, _ = evaluate(context, SAN_RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == rule]


@pytest.fixture(scope="session")
def san_host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("san") / "san_host"
    write_snapshot(load_spec(SPECS / "san_host.toml"), out)
    return out


@pytest.fixture(scope="session")
def port_down(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("san") / "san_port_down"
    write_snapshot(load_spec(SPECS / "san_port_down.toml"), out)
    return out
