"""Latency rules on simulated hosts: field case 1 (demo), a balanced host, SAN LUNs, PerfMon;
the demo's JBOD disks judged by absolute limits like any other device."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.stats import DeviceFigures, ImportKind, IntervalFigures
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config, parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES, write_back_entities
from pinchpoint.simulator import (
    DEMO_SPEC_PATH,
    HostSpec,
    load_spec,
    spec_from_data,
    write_snapshot,
)
from pinchpoint.stats.gather import gather_statistics

PERFMON = FIXTURES / "imports" / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"


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


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, DEMO_SPEC_PATH)


@pytest.fixture(scope="module")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "three_chains_of_two_loaded.toml")


@pytest.fixture(scope="module")
def san(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    return simulated(tmp_path_factory, SPECS / "san_host.toml")


# -- latency.group.outlier ------------------------------------------------------------------


def test_field_case_1_the_two_single_pathed_jbods_stand_out(demo: RuleContext) -> None:
    found = findings(demo, "latency.group.outlier")
    assert sorted(f.entity.name for f in found) == ["JBOD-003", "JBOD-012"]
    evidence = found[0].evidence[0]
    assert "1 path of 2, chain of 4" in evidence.summary
    assert len(evidence.peers) == 5
    facts = {f.name: f.value for f in evidence.facts if f.entity is None}
    assert isinstance(facts["queue per disk"], float) and facts["queue per disk"] > 2 * float(
        str(facts["peers' median queue per disk"])
    )


def test_the_demo_latency_folds_into_the_single_path_finding(demo: RuleContext) -> None:
    found, _, _ = evaluate(demo, CATALOG)
    single = [f for f in found if f.rule == "sas.enclosure.single_path"]
    assert sorted(f.entity.name for f in single) == ["JBOD-003", "JBOD-012"]
    for finding in single:
        assert f"latency.group.outlier@{finding.entity.id}" in finding.related
        assert "latency.group.outlier" in {e.rule for e in finding.evidence}
    assert not [f for f in found if f.category in ("latency", "queue")]


def test_no_latency_finding_on_a_balanced_host_with_the_same_work(balanced: RuleContext) -> None:
    found, skipped, _ = evaluate(balanced, RULES)
    assert found == []
    assert not skipped


def test_outlier_limits_are_configurable(demo: RuleContext) -> None:
    config = parse_config(
        {"rules": {"latency.group.outlier": {"min_ratio": 10.0}}}, RULES, "test.toml"
    )
    assert findings(demo, "latency.group.outlier", config) == []


def test_group_outlier_needs_statistics(demo: RuleContext) -> None:
    bare = RuleContext(inventory=demo.inventory)
    _, skipped, _ = evaluate(bare, RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert "no diskstats samples" in reasons["latency.group.outlier"]


# -- latency.disk.outlier -------------------------------------------------------------------


def _changed(figures: DeviceFigures, **values: float) -> DeviceFigures:
    return DeviceFigures.model_validate({**figures.model_dump(by_alias=False), **values})


def _slowed(context: RuleContext, device: str, factor: float) -> RuleContext:
    """The same host with one kernel device's waits and queue multiplied (a failing disk)."""
    intervals = [
        IntervalFigures(
            interval_s=i.interval_s,
            devices=[
                _changed(
                    d,
                    r_await=d.r_await * factor,
                    w_await=d.w_await * factor,
                    aqu_sz=d.aqu_sz * factor,
                )
                if d.device == device
                else d
                for d in i.devices
            ],
        )
        for i in context.intervals
    ]
    return RuleContext(inventory=context.inventory, intervals=intervals)


def _first_disk_devices(inventory: Inventory) -> tuple[str, list[str]]:
    disk = inventory.sas.disks[0]
    return disk.id, [p.block_device for p in disk.paths if p.block_device]


def test_a_disk_four_times_slower_than_its_enclosure(balanced: RuleContext) -> None:
    disk_id, devices = _first_disk_devices(balanced.inventory)
    context = balanced
    for device in devices:
        context = _slowed(context, device, 4.0)
    found = findings(context, "latency.disk.outlier")
    assert [f.entity.id for f in found] == [disk_id]
    assert "JBOD-001" in found[0].title


def test_healthy_disks_are_not_outliers(balanced: RuleContext, demo: RuleContext) -> None:
    assert findings(balanced, "latency.disk.outlier") == []
    assert findings(demo, "latency.disk.outlier") == []


# -- latency.threshold ----------------------------------------------------------------------


def test_san_luns_above_25_ms_are_critical(san: RuleContext) -> None:
    found = findings(san, "latency.threshold")
    assert sorted(f.entity.name.split()[0] for f in found) == ["mpatha", "mpathb", "mpathc"]
    assert all(f.severity is Severity.CRITICAL for f in found)
    assert {e.summary.split(": ")[1].split()[0] for e in found[0].evidence} == {"reads", "writes"}


@pytest.fixture(scope="module")
def demo_with_reads(tmp_path_factory: pytest.TempPathFactory) -> RuleContext:
    """The demo host with 30 % of its pool's I/O reads (1 MiB, as its streaming write)."""
    host = load_spec(DEMO_SPEC_PATH)
    assert host.workload is not None
    mixed = host.workload.load[0].model_copy(update={"read_share": 0.3})
    workload = host.workload.model_copy(update={"load": [mixed], "samples": 5})
    return simulated(tmp_path_factory, host.model_copy(update={"workload": workload}))


def without_zfs(context: RuleContext) -> RuleContext:
    """The same host and statistics with no ZFS in the inventory: its disks are plain disks."""
    inventory = context.inventory.model_copy(update={"zfs": ZfsInventory(present=False)})
    return RuleContext(inventory=inventory, intervals=context.intervals)


def test_the_demo_jbod_disks_are_judged_on_their_reads(demo_with_reads: RuleContext) -> None:
    """Every JBOD's disks read at ≈ 120–430 ms on average, far above PAL's 25 ms: one finding
    per JBOD; those of the single-pathed JBOD-003 and JBOD-012 join the missing cable."""
    found = findings(demo_with_reads, "latency.threshold")
    assert sorted(f.entity.name for f in found) == [
        "JBOD-001",
        "JBOD-002",
        "JBOD-003",
        "JBOD-007",
        "JBOD-00B",
        "JBOD-012",
    ]
    by_name = {f.entity.name: f for f in found}
    for finding in found:
        assert finding.severity is Severity.CRITICAL
        assert [e.summary.split(": ")[1].split()[0] for e in finding.evidence] == ["reads"]
        assert "write-back, not judged" in finding.evidence[0].summary
        facts = {f.name: f.value for f in finding.evidence[0].facts}
        assert facts["disks above the limit"] == facts["disks measured"] == 24
    slow = {f.name: f.value for f in by_name["JBOD-003"].evidence[0].facts}
    fast = {f.name: f.value for f in by_name["JBOD-002"].evidence[0].facts}
    assert float(str(slow["mean read latency"])) > 2 * float(str(fast["mean read latency"]))
    everything, _, _ = evaluate(demo_with_reads, CATALOG)
    single = {f.entity.name: f for f in everything if f.rule == "sas.enclosure.single_path"}
    assert sorted(single) == ["JBOD-003", "JBOD-012"]
    for finding in single.values():
        assert "latency.threshold" in {e.rule for e in finding.evidence}
    standalone = {f.entity.name for f in everything if f.rule == "latency.threshold"}
    assert standalone == {"JBOD-001", "JBOD-002", "JBOD-007", "JBOD-00B"}


def test_the_demo_write_back_is_not_judged_by_absolute_latency(demo: RuleContext) -> None:
    """The demo's disks only write, and those writes are its 72-mirror pool's write-back:
    no absolute-limit finding. The same disks outside a pool are judged on their writes."""
    assert len(write_back_entities(demo.inventory)) == 144
    assert findings(demo, "latency.threshold") == []
    plain = findings(without_zfs(demo), "latency.threshold")
    assert len(plain) == 6
    by_name = {f.entity.name: f for f in plain}
    assert by_name["JBOD-003"].severity is Severity.CRITICAL
    assert "writes of 24 disks average" in by_name["JBOD-003"].title
    facts = {f.name: f.value for f in by_name["JBOD-012"].evidence[0].facts}
    latency = facts["mean write latency"]
    assert isinstance(latency, float) and latency > 300  # 1 path for 96 disks: ≈ 420 ms
    slowest = next(f for f in by_name["JBOD-012"].evidence[0].facts if f.entity is not None)
    assert slowest.entity is not None and slowest.entity.name.startswith("JBOD-012 slot ")


def test_log_devices_are_not_write_back(tmp_path_factory: pytest.TempPathFactory) -> None:
    """zfs_mirror.toml with bay 10 of both JBODs as a log mirror, bay 11 of JBOD-L as cache
    and of JBOD-R as a spare: the data mirrors and the cache hold write-back; the log's
    writes are what synchronous writers wait for, and the idle spare holds nothing."""
    with open(SPECS / "zfs_mirror.toml", "rb") as handle:
        data = tomllib.load(handle)
    pool = data["zfs"]["pool"][0]
    pool["log"] = [{"enclosure": "JBOD-L", "bay": 10}, {"enclosure": "JBOD-R", "bay": 10}]
    pool["cache"] = [{"enclosure": "JBOD-L", "bay": 11}]
    pool["spares"] = [{"enclosure": "JBOD-R", "bay": 11}]
    inventory = simulated(tmp_path_factory, spec_from_data(data)).inventory
    names = {e.id: e.name for e in inventory.sas.enclosures}
    place = {(names[d.enclosure_id or ""], d.slot): d.id for d in inventory.sas.disks}
    judged = write_back_entities(inventory)
    data_disks = {place[(jbod, bay)] for jbod in ("JBOD-L", "JBOD-R") for bay in range(10)}
    assert data_disks <= judged
    assert place[("JBOD-L", 11)] in judged  # cache: L2ARC is filled in the background
    assert place[("JBOD-L", 10)] not in judged and place[("JBOD-R", 10)] not in judged
    assert place[("JBOD-R", 11)] not in judged
    assert len(judged) == 21


def test_perfmon_volume_stands_alone_and_honours_a_per_volume_limit() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    default = findings(context, "latency.threshold")
    by_id = {f.entity.id: f for f in default}
    assert sorted(by_id) == ["volume:LogicalDisk(H:)", "volume:PhysicalDisk(1 H:)"]
    assert by_id["volume:LogicalDisk(H:)"].severity is Severity.CRITICAL
    assert "reads average" in by_id["volume:LogicalDisk(H:)"].title
    log_volume = {
        "entity": "volume:LogicalDisk(H:)",
        "read_warning_ms": 5000.0,
        "read_critical_ms": 6000.0,
        "write_warning_ms": 2.0,
    }
    config = parse_config(
        {"rules": {"latency.threshold": {"override": [log_volume]}}}, RULES, "test.toml"
    )
    tight = {f.entity.id: f for f in findings(context, "latency.threshold", config)}
    assert tight["volume:LogicalDisk(H:)"].severity is Severity.WARNING
    assert "writes average" in tight["volume:LogicalDisk(H:)"].title
    assert tight["volume:PhysicalDisk(1 H:)"].severity is Severity.CRITICAL


def test_garbled_figures_never_crash_the_threshold_rule(san: RuleContext) -> None:
    broken = [
        IntervalFigures(
            interval_s=i.interval_s if n else 0.0,
            devices=[_changed(d, r_await=float("nan")) for d in i.devices],
        )
        for n, i in enumerate(san.intervals)
    ]
    context = RuleContext(inventory=san.inventory, intervals=broken)
    found = findings(context, "latency.threshold")
    assert found and all("reads" not in f.title for f in found)


def test_threshold_is_skipped_without_any_latency_series(demo: RuleContext) -> None:
    _, skipped, _ = evaluate(RuleContext(inventory=demo.inventory), RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert "no latency series" in reasons["latency.threshold"]
    assert "no latency series" in reasons["latency.disk.overwhelmed"]


def test_an_import_without_latencies_is_no_latency_series() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    for entity in imported.entities:
        for point in entity.points:
            point.values = {m: v for m, v in point.values.items() if "latency" not in m.value}
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    _, skipped, _ = evaluate(context, RULES)
    assert {s.rule for s in skipped} >= {"latency.threshold", "latency.disk.overwhelmed"}


# -- latency.disk.overwhelmed ---------------------------------------------------------------


def _lun_interval(context: RuleContext, **values: float) -> RuleContext:
    """The SAN host with every device's figures replaced in every interval."""
    intervals = [
        IntervalFigures(interval_s=i.interval_s, devices=[_changed(d, **values) for d in i.devices])
        for i in context.intervals
    ]
    return RuleContext(inventory=context.inventory, intervals=intervals)


def test_field_case_2_luns_queue_hundreds_at_hundreds_of_ms(san: RuleContext) -> None:
    found = findings(san, "latency.disk.overwhelmed")
    assert sorted(f.entity.name.split()[0] for f in found) == ["mpatha", "mpathb", "mpathc"]
    assert all(f.severity is Severity.CRITICAL for f in found)
    evidence = found[0].evidence[0]
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["mean I/O size"] == 256.0
    assert facts["critical above"] == 35.0
    queue, latency = facts["mean queue"], facts["mean latency"]
    assert isinstance(queue, float) and queue > 100
    assert isinstance(latency, float) and latency > 100
    assert "above 64 KB" in evidence.summary


def test_the_critical_line_depends_on_the_io_size(san: RuleContext) -> None:
    """30 ms per I/O with a queue of 4: critical for 16 KB I/Os, a warning for 256 KB."""
    common = {"r_s": 100.0, "w_s": 100.0, "r_await": 30.0, "w_await": 30.0, "aqu_sz": 4.0}
    small = _lun_interval(san, **common, rkb_s=1600.0, wkb_s=1600.0)
    large = _lun_interval(san, **common, rkb_s=25600.0, wkb_s=25600.0)
    assert {f.severity for f in findings(small, "latency.disk.overwhelmed")} == {Severity.CRITICAL}
    assert {f.severity for f in findings(large, "latency.disk.overwhelmed")} == {Severity.WARNING}


def test_a_slow_lun_without_a_queue_is_not_overwhelmed(san: RuleContext) -> None:
    idle = _lun_interval(san, aqu_sz=0.5)
    assert findings(idle, "latency.disk.overwhelmed") == []
    assert len(findings(idle, "latency.threshold")) == 3  # still slow: the other rule says so


def test_a_queue_with_fast_ios_is_not_overwhelmed(san: RuleContext) -> None:
    fast = _lun_interval(san, r_await=4.0, w_await=4.0)
    assert findings(fast, "latency.disk.overwhelmed") == []


def test_perfmon_volume_overwhelmed_with_small_ios() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    found = findings(context, "latency.disk.overwhelmed")
    # PhysicalDisk(1 H:) has no queue counter in the capture: it cannot be judged.
    assert [f.entity.id for f in found] == ["volume:LogicalDisk(H:)"]
    assert found[0].severity is Severity.CRITICAL
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["critical above"] == 25.0
    size = facts["mean I/O size"]
    assert isinstance(size, float) and 4 < size < 16


def test_overwhelmed_needs_most_of_the_measured_time(san: RuleContext) -> None:
    config = parse_config(
        {"rules": {"latency.disk.overwhelmed": {"min_time_share": 1.01}}}, RULES, "test.toml"
    )
    assert findings(san, "latency.disk.overwhelmed", config) == []


def test_the_demo_pool_disks_reading_behind_the_write_back_are_overwhelmed(
    demo_with_reads: RuleContext, balanced: RuleContext
) -> None:
    """The demo with reads: each disk holds ≈ 3–9 I/Os while its reads take ≈ 120–430 ms
    (1 MiB each: the larger limit, 35 ms); the balanced host's pool only writes: nothing."""
    found = findings(demo_with_reads, "latency.disk.overwhelmed")
    assert len(found) == 6 and all(f.severity is Severity.CRITICAL for f in found)
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["disks overwhelmed"] == 24
    assert facts["critical above"] == 35.0
    assert "ms per read" in found[0].title
    assert findings(balanced, "latency.disk.overwhelmed") == []


def test_garbled_figures_never_crash_the_overwhelmed_rule(san: RuleContext) -> None:
    broken = [
        IntervalFigures(
            interval_s=i.interval_s if n else 0.0,
            devices=[_changed(d, aqu_sz=float("nan")) if n == 1 else d for d in i.devices],
        )
        for n, i in enumerate(san.intervals)
    ]
    found = findings(
        RuleContext(inventory=san.inventory, intervals=broken), "latency.disk.overwhelmed"
    )
    assert len(found) == 3
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    measured = facts["measured time"]
    assert isinstance(measured, float) and measured < sum(i.interval_s for i in san.intervals)
