"""`latency.disk.overwhelmed` (PAL's "disk overwhelmed") on SAN LUNs, PerfMon volumes and the
demo's pool disks."""

from __future__ import annotations

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.model.findings import EntityKind, Severity
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.stats import ImportKind, IntervalFigures
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.latency import RULES
from tests.rules.latency.conftest import changed, findings

PERFMON = FIXTURES / "imports" / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"


def _lun_interval(context: RuleContext, **values: float) -> RuleContext:
    """The SAN host with every device's figures replaced in every interval."""
    intervals = [
        IntervalFigures(interval_s=i.interval_s, devices=[changed(d, **values) for d in i.devices])
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
    assert "above 64 KiB" in evidence.summary


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
    assert facts["disks overwhelmed"] == 60
    assert facts["critical above"] == 35.0
    assert "ms per read" in found[0].title
    assert findings(balanced, "latency.disk.overwhelmed") == []


def test_garbled_figures_never_crash_the_overwhelmed_rule(san: RuleContext) -> None:
    broken = [
        IntervalFigures(
            interval_s=i.interval_s if n else 0.0,
            devices=[changed(d, aqu_sz=float("nan")) if n == 1 else d for d in i.devices],
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


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/*.toml --------------------


def test_virtio_disks_holding_90_ios_each_taking_long(virtio_vm: RuleContext) -> None:
    found = findings(virtio_vm, "latency.disk.overwhelmed")
    assert [f.entity.name for f in found] == ["virtio 0000:08:00.0 vdb", "virtio 0000:09:00.0 vdc"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    queue = facts["mean queue per disk"]
    assert isinstance(queue, float) and 60 < queue < 130  # the "90 I/Os queued"
    assert found[0].severity is Severity.CRITICAL


def test_ahci_disks_overwhelmed_by_controller(ahci_deep: RuleContext) -> None:
    (found,) = findings(ahci_deep, "latency.disk.overwhelmed")
    assert found.entity.name == "AHCI 0000:00:17.0"
    facts = {f.name: f for f in found.evidence[0].facts}
    assert facts["disks overwhelmed"].value == 6
    worst = facts["worst disk's mean latency"]
    assert worst.entity is not None and worst.entity.name == "AHCI 0000:00:17.0 ata4 sdd"


def test_healthy_nvme_host_is_not_overwhelmed(nvme_healthy: RuleContext) -> None:
    assert findings(nvme_healthy, "latency.disk.overwhelmed") == []


def test_stacked_devices_overwhelmed_say_which_member_or_layer(stacked_host: RuleContext) -> None:
    """md0 waits for its slow member sdb; md1 (resyncing) and the dm-crypt volume add their
    own time over fast members; the LVM volume waits for md1."""
    found = {
        f.entity.name: f
        for f in findings(stacked_host, "latency.disk.overwhelmed")
        if f.entity.kind is EntityKind.BLOCK_DEVICE
    }
    assert sorted(found) == [
        "LVM volume vg0-data (dm-0)",
        "dm-crypt volume luks-scratch (dm-1)",
        "md array md0 (raid1)",
        "md array md1 (raid1)",
    ]
    md0 = found["md array md0 (raid1)"]
    assert md0.title.startswith("md array md0 (raid1): queue ")
    assert "its member AHCI 0000:00:17.0 ata2 sdb took" in md0.evidence[-1].summary
    assert "slowest member, AHCI 0000:00:17.0 ata2 sdb" in md0.remediation
    md1 = found["md array md1 (raid1)"]
    assert "I/Os took" in md1.evidence[-1].summary
    assert "spent in the md layer" in md1.evidence[-1].summary
    assert (
        "its member md array md1 (raid1) took"
        in found["LVM volume vg0-data (dm-0)"].evidence[-1].summary
    )
    crypt = found["dm-crypt volume luks-scratch (dm-1)"]
    assert "encryption (dm-crypt)" in crypt.evidence[-1].summary


def test_healthy_stacks_are_not_overwhelmed(stacked_healthy: RuleContext) -> None:
    assert findings(stacked_healthy, "latency.disk.overwhelmed") == []
