"""The simulated hosts the queue rule tests share — field case 4's HDDs
(`tests/fixtures/specs/queue_too_deep.toml`) and SSDs held to 2 I/Os
(`tests/fixtures/specs/ssd_queue_too_shallow.toml`) — simulated once per session, and how they
run the queue rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.queue import RULES
from pinchpoint.simulator import HostSpec, load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics


def simulated(factory: pytest.TempPathFactory, spec: Path | HostSpec) -> RuleContext:
    host = spec if isinstance(spec, HostSpec) else load_spec(spec)
    out = factory.mktemp("queue") / "snapshot"
    write_snapshot(host, out)
    source = SnapshotSource(out)
    inventory = collect_inventory(source)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    return RuleContext(
        inventory=inventory, intervals=gathered.intervals, imported=gathered.imported
    )


def findings(
    context: RuleContext, config: Config | None = None, rule: str = "queue.hdd.too_deep"
) -> list[Finding]:
    found, skipped, _ = evaluate(context, RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == rule]


def shallow_findings(context: RuleContext, config: Config | None = None) -> list[Finding]:
    return findings(context, config, "queue.ssd.too_shallow")


def changed(context: RuleContext, inventory: Inventory) -> RuleContext:
    """The same statistics with another inventory (the module's fixtures stay untouched)."""
    return RuleContext(inventory=inventory, intervals=context.intervals, imported=context.imported)


def with_queue_depth(context: RuleContext, depth: int) -> RuleContext:
    inventory = context.inventory.model_copy(deep=True)
    for disk in inventory.sas.disks:
        disk.paths = [p.model_copy(update={"queue_depth": depth}) for p in disk.paths]
    return changed(context, inventory)


def with_figures(context: RuleContext, **values: float) -> RuleContext:
    """The same host with some figures of every device replaced (garbled or idle input)."""
    intervals = [
        IntervalFigures(
            interval_s=i.interval_s,
            devices=[
                DeviceFigures.model_validate({**d.model_dump(by_alias=False), **values})
                for d in i.devices
            ],
        )
        for i in context.intervals
    ]
    return RuleContext(inventory=context.inventory, intervals=intervals)


@pytest.fixture(scope="session")
def deep(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "queue_too_deep.toml")


@pytest.fixture(scope="session")
def flash(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "ssd_queue_too_shallow.toml")
