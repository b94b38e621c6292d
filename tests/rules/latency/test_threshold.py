"""`latency.threshold` on SAN LUNs (field case 2), PerfMon volumes and the demo's JBOD disks, judged
by absolute limits like any other device (their pool's write-back aside)."""

from __future__ import annotations

import re

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.model.findings import EntityKind, Finding, Severity
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.stats import ImportKind, IntervalFigures
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES
from pinchpoint.stats.write_back import write_back_entities
from tests.rules.latency.conftest import changed, findings

PERFMON = FIXTURES / "imports" / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"


def test_san_luns_above_25_ms_are_critical(san: RuleContext) -> None:
    found = findings(san, "latency.threshold")
    assert sorted(f.entity.name.split()[0] for f in found) == ["mpatha", "mpathb", "mpathc"]
    assert all(f.severity is Severity.CRITICAL for f in found)
    assert {e.summary.split(": ")[1].split()[0] for e in found[0].evidence} == {"reads", "writes"}


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
        assert facts["disks above the limit"] == facts["disks measured"] == 60
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
    """The demo's disks only write, and those writes are its 180-mirror pool's write-back:
    no absolute-limit finding. The same disks outside a pool are judged on their writes."""
    assert len(write_back_entities(demo.inventory)) == 360
    assert findings(demo, "latency.threshold") == []
    plain = findings(without_zfs(demo), "latency.threshold")
    assert len(plain) == 6
    by_name = {f.entity.name: f for f in plain}
    assert by_name["JBOD-003"].severity is Severity.CRITICAL
    assert re.fullmatch(
        r"JBOD-003: writes of 60 disks average [\d.,]+ (ms|s) \(limit 25 ms\)",
        by_name["JBOD-003"].title,
    ), by_name["JBOD-003"].title
    facts = {f.name: f.value for f in by_name["JBOD-012"].evidence[0].facts}
    latency = facts["mean write latency"]
    assert isinstance(latency, float) and latency > 300  # 1 path for 240 disks
    slowest = next(f for f in by_name["JBOD-012"].evidence[0].facts if f.entity is not None)
    assert slowest.entity is not None and slowest.entity.name.startswith("JBOD-012 slot ")


def test_perfmon_volume_stands_alone_and_honours_a_per_volume_limit() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    default = findings(context, "latency.threshold")
    by_id = {f.entity.id: f for f in default}
    assert sorted(by_id) == ["volume:LogicalDisk(H:)", "volume:PhysicalDisk(1 H:)"]
    assert by_id["volume:LogicalDisk(H:)"].severity is Severity.CRITICAL
    # latencies and limits as units.py says them (µs/ms/s by magnitude), not "421.3 ms"
    assert by_id["volume:LogicalDisk(H:)"].title == (
        "LogicalDisk(H:): reads average 421 ms (limit 25 ms)"
    )
    assert "warning above 15 ms, critical above 25 ms" in (
        by_id["volume:LogicalDisk(H:)"].evidence[0].summary
    )
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
            devices=[changed(d, r_await=float("nan")) for d in i.devices],
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


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/*.toml --------------------


def test_virtio_disks_with_90_ios_queued_and_slow_waits(virtio_vm: RuleContext) -> None:
    """Each virtio data disk (one per PCI function) by itself; the lightly used boot disk
    is not judged above the line."""
    found = findings(virtio_vm, "latency.threshold")
    assert [f.entity.name for f in found] == ["virtio 0000:08:00.0 vdb", "virtio 0000:09:00.0 vdc"]
    for finding in found:
        assert finding.severity is Severity.CRITICAL
        facts = {f.name: f.value for f in finding.evidence[0].facts}
        latency = facts["mean read latency"]
        assert isinstance(latency, float) and 250 < latency < 600


def test_ahci_disks_reported_by_their_controller(ahci_deep: RuleContext) -> None:
    (found,) = findings(ahci_deep, "latency.threshold")
    assert found.entity.name == "AHCI 0000:00:17.0" and found.entity.kind.value == "controller"
    facts = {f.name: f for f in found.evidence[0].facts}
    assert facts["disks measured"].value == 6
    slowest = facts["slowest disk's mean read latency"]
    assert slowest.entity is not None and slowest.entity.name == "AHCI 0000:00:17.0 ata4 sdd"


def test_healthy_nvme_host_is_below_the_line(nvme_healthy: RuleContext) -> None:
    assert findings(nvme_healthy, "latency.threshold") == []


def _stacked(found: list[Finding]) -> dict[str, Finding]:
    return {f.entity.name: f for f in found if f.entity.kind is EntityKind.BLOCK_DEVICE}


def test_an_md_array_slow_because_of_one_member_points_at_it(stacked_host: RuleContext) -> None:
    """md0 mirrors sda and sdb; sdb takes 6 × a healthy disk's time: md0's reads are above the
    line, and the finding names sdb as the member it waits for."""
    found = _stacked(findings(stacked_host, "latency.threshold"))
    md0 = found["md array md0 (raid1)"]
    assert md0.entity.id.startswith("block:md:")
    assert md0.severity is Severity.CRITICAL
    *_, why = md0.evidence
    assert "its member AHCI 0000:00:17.0 ata2 sdb took" in why.summary
    assert why.summary.endswith("it waits for that member")
    members = {f.entity.name: f.value for f in why.facts if f.entity is not None}
    slow, fast = members["AHCI 0000:00:17.0 ata2 sdb"], members["AHCI 0000:00:17.0 ata1 sda"]
    assert isinstance(slow, float) and isinstance(fast, float) and slow > 5 * fast
    assert md0.remediation.startswith("The device is as slow as its slowest member, AHCI")
    # sdb has its own finding, by its controller, which md0's points at
    (controller,) = [
        f
        for f in findings(stacked_host, "latency.threshold")
        if f.entity.kind.value == "controller"
    ]
    assert "slowest AHCI 0000:00:17.0 ata2 sdb" in controller.evidence[0].summary


def test_an_md_array_slow_over_fast_members_blames_md(stacked_host: RuleContext) -> None:
    """md1's members take some 4 ms, md1 44 ms: the time is md's own (it is resyncing)."""
    md1 = _stacked(findings(stacked_host, "latency.threshold"))["md array md1 (raid1)"]
    *_, why = md1.evidence
    assert "but its 2 members at most" in why.summary
    assert why.summary.endswith("the time is spent in the md layer, not on the disks")
    assert "It is running `resync` now" in md1.remediation
    assert "/sys/block/md1/md/sync_action" in md1.remediation


def test_lvm_over_a_slow_array_and_a_slow_crypt_layer(stacked_host: RuleContext) -> None:
    """vg0-data is as slow as md1 below it (its member explains it); luks-scratch's SSD is
    fast and encryption adds the time."""
    found = _stacked(findings(stacked_host, "latency.threshold"))
    assert sorted(found) == [
        "LVM volume vg0-data (dm-0)",
        "dm-crypt volume luks-scratch (dm-1)",
        "md array md0 (raid1)",
        "md array md1 (raid1)",
    ]
    lvm = found["LVM volume vg0-data (dm-0)"]
    assert "its member md array md1 (raid1) took" in lvm.evidence[-1].summary
    crypt = found["dm-crypt volume luks-scratch (dm-1)"]
    assert "spent in the encryption (dm-crypt)" in crypt.evidence[-1].summary
    assert "but its member AHCI 0000:00:17.0 ata5 sde took 120 µs" in crypt.evidence[-1].summary
    assert "AES instructions" in crypt.remediation


def test_healthy_stacks_are_below_the_line(stacked_healthy: RuleContext) -> None:
    assert findings(stacked_healthy, "latency.threshold") == []


def test_member_share_decides_what_explains_a_stacked_device(stacked_host: RuleContext) -> None:
    """With `member_share` above what sdb's share of md0's latency is, no member explains md0
    and the layer is blamed."""
    config = parse_config(
        {"rules": {"latency.threshold": {"member_share": 5.0}}}, RULES, "test.toml"
    )
    md0 = _stacked(findings(stacked_host, "latency.threshold", config))["md array md0 (raid1)"]
    assert "the time is spent in the md layer" in md0.evidence[-1].summary


def test_a_stacked_device_whose_members_were_not_measured_says_so(
    stacked_host: RuleContext,
) -> None:
    """Without diskstats lines for sda and sdb, md0 is still judged on its own latency, and
    the finding says whether a member explains it is not known."""
    intervals = [
        i.model_copy(update={"devices": [d for d in i.devices if d.device not in ("sda", "sdb")]})
        for i in stacked_host.intervals
    ]
    context = RuleContext(inventory=stacked_host.inventory, intervals=intervals)
    md0 = _stacked(findings(context, "latency.threshold"))["md array md0 (raid1)"]
    assert md0.evidence[-1].summary == (
        "md array md0 (raid1): its members (sda, sdb) have no diskstats figures, so whether one "
        "of them explains its latency is not known"
    )
    assert md0.remediation.startswith("Find where the time goes")  # the rule's own advice
