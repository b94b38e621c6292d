"""The simulated hosts the latency rule tests share — field case 1 (the demo), a balanced host,
a SAN host (field case 2), the demo with reads — simulated once per session, and how they run
the latency rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.stats import DeviceFigures
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES
from pinchpoint.simulator import DEMO_SPEC_PATH, HostSpec, load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics


def host_context(snapshot: Path) -> RuleContext:
    """The inventory and statistics of a snapshot: what `check` evaluates."""
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    return RuleContext(
        inventory=inventory, intervals=gathered.intervals, imported=gathered.imported
    )


def simulated(factory: pytest.TempPathFactory, spec: Path | HostSpec) -> RuleContext:
    out = factory.mktemp("latency") / "snapshot"
    write_snapshot(spec if isinstance(spec, HostSpec) else load_spec(spec), out)
    return host_context(out)


def findings(context: RuleContext, rule: str, config: Config | None = None) -> list[Finding]:
    found, skipped, _ = evaluate(context, RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == rule]


def changed(figures: DeviceFigures, **values: float) -> DeviceFigures:
    return DeviceFigures.model_validate({**figures.model_dump(by_alias=False), **values})


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, DEMO_SPEC_PATH)


@pytest.fixture(scope="session")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "three_chains_of_two_loaded.toml")


@pytest.fixture(scope="session")
def san(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "san_host.toml")


@pytest.fixture(scope="session")
def demo_with_reads(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """The demo host with 30 % of its pool's I/O reads (1 MiB, as its streaming write)."""
    host = load_spec(DEMO_SPEC_PATH)
    assert host.workload is not None
    mixed = host.workload.load[0].model_copy(update={"read_share": 0.3})
    workload = host.workload.model_copy(update={"load": [mixed], "samples": 5})
    return simulated(tmp_path_factory, host.model_copy(update={"workload": workload}))


@pytest.fixture(scope="session")
def stacked_host(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """md0 over a slow sdb, md1 resyncing over fast disks (40 ms its own), an LVM volume on
    md1 and a dm-crypt volume adding 30 ms on a fast SSD (`stacked_md_dm.toml`)."""
    return simulated(tmp_path_factory, SPECS / "stacked_md_dm.toml")


@pytest.fixture(scope="session")
def stacked_healthy(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """The same stacks with every disk healthy, no resync and no time of the layers' own."""
    host = load_spec(SPECS / "stacked_md_dm.toml")
    (ahci,) = host.ahci
    disks = [d.model_copy(update={"service_factor": 1.0}) for d in ahci.disk]
    md = [m.model_copy(update={"layer_ms": 0.0, "sync_action": "idle"}) for m in host.md]
    dm = [d.model_copy(update={"layer_ms": 0.0}) for d in host.dm]
    healthy = host.model_copy(
        update={"ahci": [ahci.model_copy(update={"disk": disks})], "md": md, "dm": dm}
    )
    return simulated(tmp_path_factory, healthy)
