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


# --- disks off the SAS fabric (issue 15): the example specs of pinchpoint/simulator/specs ----

EXAMPLE_SPECS = Path(__file__).resolve().parents[2] / "pinchpoint" / "simulator" / "specs"


def example_host(factory: pytest.TempPathFactory, name: str) -> RuleContext:
    """The inventory and statistics of an example spec, simulated."""
    out = factory.mktemp(name) / "snapshot"
    write_snapshot(load_spec(EXAMPLE_SPECS / f"{name}.toml"), out)
    return host_context(out)


@pytest.fixture(scope="session")
def ahci_deep(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """Six SATA HDDs at NCQ 32 holding ~30 I/Os (one failing), four SATA SSDs at NCQ 1."""
    return example_host(tmp_path_factory, "ahci_deep_queue")


@pytest.fixture(scope="session")
def ahci_three(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """Three AHCI controllers of three HDDs each; the disks of 0000:06:00.0 3× slower."""
    return example_host(tmp_path_factory, "ahci_slow_controller")


@pytest.fixture(scope="session")
def virtio_vm(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """A VM whose two virtio data disks hold ~90 I/Os with ~350 ms waits."""
    return example_host(tmp_path_factory, "virtio")


@pytest.fixture(scope="session")
def nvme_healthy(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """Four evenly loaded NVMe SSDs and two idle SATA HDDs: nothing to find."""
    return example_host(tmp_path_factory, "nvme_host")
