"""Queue rules on simulated hosts: queue.hdd.too_deep on field case 4
(tests/fixtures/specs/queue_too_deep.toml) and not on streaming writes (the healthy host and
the demo after recabling), queue.ssd.too_shallow on SSDs held to 2 I/Os
(tests/fixtures/specs/ssd_queue_too_shallow.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.findings import Finding
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.queue import RULES
from pinchpoint.simulator import DEMO_SPEC_PATH, HostSpec, load_spec, spec_from_data, write_snapshot
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


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "queue_too_deep.toml")


@pytest.fixture(scope="module")
def flash(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "ssd_queue_too_shallow.toml")


def test_field_case_4_hdds_holding_32_ios_with_a_long_tail(deep: RuleContext) -> None:
    found = findings(deep)
    assert [f.entity.name for f in found] == ["JBOD-Q"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["queue_depth"] == 32
    assert facts["zfs_vdev_sync_read_max_active"] == 35
    assert facts["I/Os allowed per disk"] == 32
    assert facts["HDDs affected"] == 12
    assert facts["recommended"] == 2
    assert facts["I/Os judged"] == "read"  # random 64 KiB reads: each one a seek
    assert facts["mean read size"] == 64.0
    assert facts["latency from"] == "disk_wait/read histograms"  # time on the device
    p90 = facts["p90 latency"]
    assert isinstance(p90, float) and 100 < p90 < 300  # the field saw 148 ms
    assert "read p90" in found[0].title
    assert "zfs_vdev_*_max_active" in found[0].remediation


def test_a_tail_limit_above_the_p90_silences_it(deep: RuleContext) -> None:
    config = parse_config(
        {"rules": {"queue.hdd.too_deep": {"tail_p90_ms": 1e7}}}, RULES, "test.toml"
    )
    assert findings(deep, config) == []


def test_ssds_are_not_judged(deep: RuleContext) -> None:
    inventory = deep.inventory.model_copy(deep=True)
    for disk in inventory.sas.disks:
        disk.rotational = False
    assert findings(changed(deep, inventory)) == []


def test_queue_within_the_allowance_of_two_is_fine(deep: RuleContext) -> None:
    context = with_queue_depth(deep, 2)
    context.inventory.zfs.vdev_queue_parameters = {"zfs_vdev_sync_read_max_active": 2}
    assert findings(context) == []


def test_queues_built_by_a_missing_path_are_not_blamed_on_the_setting(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The demo's single-pathed JBODs hold 8 of ZFS's 10 I/Os; their peers with the same
    setting hold 3: the topology is the cause (latency.group.outlier), not the queue."""
    assert findings(simulated(tmp_path_factory, DEMO_SPEC_PATH)) == []


def host_spec(load: dict[str, object], zfs: bool = False) -> HostSpec:
    """One HBA and a 12-bay JBOD of HDDs at queue depth 32 given `load` (no ZFS: every I/O
    goes straight to the block layer, so the queue holds what the bursts bring)."""
    data: dict[str, object] = {
        "host": {"hostname": "deep-queue-no-zfs"},
        "hba": [{"name": "hba1"}],
        "enclosure": [{"name": "JBOD-Q", "bays": 12, "io_modules": 1, "disk": {"queue_depth": 32}}],
        "chain": [{"hba": "hba1", "io_module": "A", "enclosures": ["JBOD-Q"]}],
        "workload": {
            "samples": 5,
            "interval_s": 10.0,
            "seed": 4,
            "load": [{"enclosures": ["JBOD-Q"], **load}],
        },
    }
    return spec_from_data(data, "test")


def test_random_small_writes_behind_a_deep_queue_are_field_case_4_too(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """8 KiB random writes in bursts of 64, no ZFS and no histograms: judged on their mean
    wait (w_await)."""
    load = {"read_share": 0.0, "io_kib": 8, "iops": 150.0, "pattern": "random", "burst": 64}
    context = simulated(tmp_path_factory, host_spec(load))
    (finding,) = findings(context)
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["I/Os judged"] == "write"
    assert facts["p90 latency"] is None and str(facts["latency from"]).startswith("diskstats")
    wait = facts["mean wait"]
    assert isinstance(wait, float) and wait > 50
    assert "write mean wait" in finding.title


def test_a_sequential_stream_behind_the_same_queue_is_not(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The same disks holding as many 1 MiB sequential reads: the wait is the transfer time
    of the reads ahead, which a queue of 2 would not shorten."""
    load = {"read_share": 1.0, "io_kib": 1024, "iops": 150.0, "pattern": "sequential", "burst": 64}
    context = simulated(tmp_path_factory, host_spec(load))
    disks = context.groups(GroupLevel.DISK)
    assert min(g.queue_per_member or 0.0 for g in disks) > 16  # the queue is deep and full
    assert min(g.await_ms or 0.0 for g in disks) > 50  # … and the wait long
    assert findings(context) == []


@pytest.mark.parametrize(
    "spec",
    [SPECS / "field_case_1_recabled.toml", SPECS / "healthy_host.toml"],
    ids=["demo after recabling", "healthy host"],
)
def test_a_streaming_write_is_not_field_case_4(
    tmp_path_factory: pytest.TempPathFactory, spec: Path
) -> None:
    """The demo after recabling (its streaming write: 1 MiB I/Os in txg bursts of 16) holds
    8–9 of ZFS's 10 async writes per disk with a p90 of seconds; the healthy host under the
    same heavy write too. Neither is a queue setting to lower: no finding."""
    host = load_spec(spec)
    assert host.workload is not None
    heavy = host.workload.load[0].model_copy(update={"mbps": 40.0, "burst": 16})
    host = host.model_copy(update={"workload": host.workload.model_copy(update={"load": [heavy]})})
    context = simulated(tmp_path_factory, host)
    queues = [g.queue_per_member or 0.0 for g in context.groups(GroupLevel.DISK)]
    assert max(queues) > 4  # deeper than an HDD should hold: the rule has to look
    assert findings(context) == []


def test_without_statistics_the_rules_are_skipped(deep: RuleContext) -> None:
    _, skipped, _ = evaluate(RuleContext(inventory=deep.inventory), RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert sorted(reasons) == ["queue.hdd.too_deep", "queue.ssd.too_shallow"]
    assert all("no diskstats samples" in r for r in reasons.values())


def test_garbled_queue_figures_never_crash_the_queue_rules(
    deep: RuleContext, flash: RuleContext
) -> None:
    for context in (deep, flash):
        assert findings(with_figures(context, aqu_sz=float("nan"))) == []
        assert shallow_findings(with_figures(context, aqu_sz=float("nan"))) == []
        zero = RuleContext(
            inventory=context.inventory,
            intervals=[i.model_copy(update={"interval_s": 0.0}) for i in context.intervals],
        )
        assert shallow_findings(zero) == [] and findings(zero) == []


# -- queue.ssd.too_shallow ------------------------------------------------------------------


def test_ssds_held_to_two_ios_with_a_full_queue(flash: RuleContext) -> None:
    found = shallow_findings(flash)
    assert [f.entity.name for f in found] == ["JBOD-F"]
    evidence = found[0].evidence[0]
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["queue_depth"] == 2
    assert facts["I/Os allowed per disk"] == 2
    assert facts["SSDs affected"] == 12
    assert facts["recommended"] == 16
    queue = facts["mean queue per disk"]
    assert isinstance(queue, float) and 1.6 <= queue <= 2.0
    assert "queue_depth = 2" in evidence.summary
    assert "device/queue_depth` (now 2)" in found[0].remediation
    assert findings(flash) == []  # SSDs are not judged as HDDs


def test_ssds_allowed_32_keep_zfs_default_of_10_and_are_fine(flash: RuleContext) -> None:
    assert shallow_findings(with_queue_depth(flash, 32)) == []


def test_a_low_zfs_allowance_is_named_as_the_cap(flash: RuleContext) -> None:
    context = with_queue_depth(flash, 32)
    context.inventory.zfs.vdev_queue_parameters = {
        name: 1
        for name in (
            "zfs_vdev_sync_read_max_active",
            "zfs_vdev_sync_write_max_active",
            "zfs_vdev_async_read_max_active",
            "zfs_vdev_async_write_max_active",
        )
    }
    found = shallow_findings(context)
    assert [f.entity.name for f in found] == ["JBOD-F"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["I/Os allowed per disk"] == 1
    assert "zfs_vdev_*_max_active` parameters (now 1" in found[0].remediation


def test_an_idle_ssd_with_a_low_setting_is_not_held_back(flash: RuleContext) -> None:
    assert shallow_findings(with_figures(flash, aqu_sz=0.3)) == []


def test_the_ssd_minimum_is_configurable(flash: RuleContext) -> None:
    config = parse_config(
        {"rules": {"queue.ssd.too_shallow": {"min_ssd_queue": 2}}}, RULES, "test.toml"
    )
    assert shallow_findings(flash, config) == []


def test_hdds_with_a_shallow_queue_are_not_ssds(deep: RuleContext) -> None:
    assert shallow_findings(with_queue_depth(deep, 2)) == []
