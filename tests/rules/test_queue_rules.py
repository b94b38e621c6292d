"""queue.hdd.too_deep on field case 4 (tests/fixtures/specs/queue_too_deep.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.checks.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.queue import RULES
from pinchpoint.simulator import DEMO_SPEC_PATH, load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics

SPECS = Path(__file__).parent.parent / "fixtures" / "specs"


def simulated(factory: pytest.TempPathFactory, spec: Path) -> RuleContext:
    out = factory.mktemp("queue") / spec.stem
    write_snapshot(load_spec(spec), out)
    source = SnapshotSource(out)
    inventory = collect_inventory(source)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    return RuleContext(
        inventory=inventory, intervals=gathered.intervals, imported=gathered.imported
    )


def findings(context: RuleContext, config: Config | None = None) -> list[Finding]:
    found, skipped, _ = evaluate(context, RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == "queue.hdd.too_deep"]


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "queue_too_deep.toml")


def test_field_case_4_hdds_holding_32_ios_with_a_long_tail(deep: RuleContext) -> None:
    found = findings(deep)
    assert [f.entity.name for f in found] == ["JBOD-Q"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["queue_depth"] == 32
    assert facts["zfs_vdev_sync_read_max_active"] == 35
    assert facts["I/Os allowed per disk"] == 32
    assert facts["HDDs affected"] == 12
    assert facts["recommended"] == 2
    p90 = facts["p90 latency"]
    assert isinstance(p90, float) and p90 > 50
    assert "zfs_vdev_*_max_active" in found[0].remediation


def test_a_tail_limit_above_the_p90_silences_it(deep: RuleContext) -> None:
    config = parse_config(
        {"rules": {"queue.hdd.too_deep": {"tail_p90_ms": 1e7}}}, RULES, "test.toml"
    )
    assert findings(deep, config) == []


def test_ssds_are_not_judged(deep: RuleContext) -> None:
    for disk in deep.inventory.sas.disks:
        disk.rotational = False
    assert findings(deep) == []


def test_queue_within_the_allowance_of_two_is_fine(deep: RuleContext) -> None:
    for disk in deep.inventory.sas.disks:
        disk.paths = [p.model_copy(update={"queue_depth": 2}) for p in disk.paths]
    deep.inventory.zfs.vdev_queue_parameters = {"zfs_vdev_sync_read_max_active": 2}
    assert findings(deep) == []


def test_queues_built_by_a_missing_path_are_not_blamed_on_the_setting(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The demo's single-pathed JBODs hold 8 of ZFS's 10 I/Os; their peers with the same
    setting hold 3: the topology is the cause (latency.group.outlier), not the queue."""
    assert findings(simulated(tmp_path_factory, DEMO_SPEC_PATH)) == []


def test_without_statistics_the_rule_is_skipped(deep: RuleContext) -> None:
    _, skipped, _ = evaluate(RuleContext(inventory=deep.inventory), RULES)
    assert "no diskstats samples" in skipped[0].reason
