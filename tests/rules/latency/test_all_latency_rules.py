"""The latency rules together (`pinchpoint.rules.latency.RULES`): nothing on a balanced host
with the same work on every disk, nor on healthy md, LVM and dm-crypt stacks, nor on a real
capture with md and dm devices; an import without latencies is no latency series."""

from __future__ import annotations

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.model.block import StackLayer
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.stats import ImportKind
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES
from pinchpoint.stats.block_disks import stacked_devices
from tests.rules.latency.conftest import host_context

PERFMON = FIXTURES / "imports" / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"


def test_no_latency_finding_on_a_balanced_host_with_the_same_work(balanced: RuleContext) -> None:
    found, skipped, _ = evaluate(balanced, RULES)
    assert found == []
    assert not skipped


def test_an_import_without_latencies_is_no_latency_series() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    for entity in imported.entities:
        for point in entity.points:
            point.values = {m: v for m, v in point.values.items() if "latency" not in m.value}
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    _, skipped, _ = evaluate(context, RULES)
    assert {s.rule for s in skipped} >= {"latency.threshold", "latency.disk.overwhelmed"}


def test_no_latency_finding_on_healthy_md_lvm_and_crypt_stacks(
    stacked_healthy: RuleContext,
) -> None:
    """md arrays, an LVM volume and a dm-crypt volume over healthy disks: no rule fires on the
    stacks nor on their members."""
    found, skipped, _ = evaluate(stacked_healthy, RULES)
    assert skipped == []
    assert found == []


def test_a_real_capture_with_md_and_dm_devices_has_no_latency_finding() -> None:
    """procfs's fixture sysfs (tests/fixtures/snapshots/procfs-mpt3sas): md arrays over sd disks
    (their `slaves/` not captured: the array's own `md/dev-*` list names the members) and an
    LVM volume, one diskstats sample (no interval): the stacks are seen with their members, and
    the latency rules are skipped for want of an interval instead of judging."""
    snapshot = FIXTURES / "snapshots" / "procfs-mpt3sas"
    context = host_context(snapshot)
    stacks = {s.device.name: s for s in stacked_devices(context.inventory)}
    assert {"md0", "md10", "dm-0"} <= set(stacks)
    md10 = stacks["md10"]
    assert md10.layer is StackLayer.MD and md10.device.md_level == "raid10"
    assert [m.name for m in md10.members] == ["sdu", "sdv", "sdw", "sdx"]  # its md/dev-* list
    # a member that is a disk of the SAS fabric is named by its enclosure and slot
    assert md10.members[1].ref.name == "4U60_STOR_ENCL 0x5000ccab020094ff slot 58"
    assert stacks["dm-0"].layer is StackLayer.LVM
    found, skipped, _ = evaluate(context, RULES)
    assert found == []
    assert {s.rule for s in skipped} == {r.id for r in RULES}
