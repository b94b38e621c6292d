"""Recorded per-I/O latency joined to the topology: a snapshot of a simulated host
(`three_chains_of_two.toml`, 6 JBODs × 24 disks) carrying a recording in the recorder's own
format, whose histograms are the real ones of a loop device under fio
(`tests/fixtures/ebpf/`), a different multiple for each disk. Each recorded device lands on its
disk, named as every other view names it, and each enclosure's, chain's and HBA's histogram is
exactly the sum of its disks'."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.histogram import merged
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import HistogramKind, ImportKind
from pinchpoint.naming import disk_ref
from pinchpoint.rules.config import Config
from pinchpoint.service.checkup import check_source
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.gather import gather_statistics

RAW = FIXTURES / "ebpf" / "local__biolat_loop0_fio_randrw_qd8_all_devices.jsonl"
LOOP0 = 7 << 20
SIZE = 2  # the recorder's kind of size rows (bytes, not nanoseconds)


def _recording_for(inventory: Inventory, snapshot: Path, slow: str | None = None) -> dict[str, int]:
    """Write the real loop0 rows as each disk's first path, disk n with n % 4 + 1 times the
    counts (the disks of enclosure `slow` 16 times slower: every latency 4 octaves up); the
    multiple of each disk id."""
    final = json.loads(RAW.read_text(encoding="utf-8").splitlines()[-1])
    totals = [row for row in final["totals"] if row[0] == LOOP0]
    buckets = [row for row in final["buckets"] if row[0] == LOOP0]
    final["totals"], final["buckets"] = [], []
    multiples = {}
    names = {e.id: e.name for e in inventory.sas.enclosures}
    for number, disk in enumerate(inventory.sas.disks):
        octaves = 4 if slow is not None and names.get(disk.enclosure_id or "") == slow else 0
        name = disk.paths[0].block_device
        major, minor = (snapshot / f"sys/class/block/{name}/dev").read_text().split(":")
        dev = int(major) << 20 | int(minor)
        times = number % 4 + 1
        multiples[disk.id] = times
        factor = {kind: 1 if kind == SIZE else 2**octaves for kind in range(4)}
        final["totals"] += [
            [dev, op, kind, n * times, s * times * factor[kind], m * factor[kind]]
            for _, op, kind, n, s, m in totals
        ]
        final["buckets"] += [
            [dev, op, kind, b if kind == SIZE else b + 8 * octaves, n * times]
            for _, op, kind, b, n in buckets
        ]
    out = snapshot / "commands" / "biolat" / "recording.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(final) + "\n", encoding="utf-8")
    return multiples


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> tuple[Inventory, Path, dict[str, int]]:
    snapshot = tmp_path_factory.mktemp("recorded") / "host"
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), snapshot)
    shutil.rmtree(snapshot / "samples", ignore_errors=True)  # the recording alone
    inventory = collect_inventory(SnapshotSource(snapshot))
    return inventory, snapshot, _recording_for(inventory, snapshot)


def test_each_recorded_device_lands_on_its_disk(
    host: tuple[Inventory, Path, dict[str, int]],
) -> None:
    inventory, snapshot, multiples = host
    statistics = gather_statistics(SnapshotSource(snapshot), inventory, live=False)
    (recorded,) = [i for i in statistics.imported if i.kind is ImportKind.EBPF]
    assert len(recorded.entities) == len(inventory.sas.disks) == 144
    result = breakdown(inventory, [GroupLevel.DISK], imports=statistics.imported)
    assert result.histogram_kinds == [HistogramKind.READ, HistogramKind.WRITE]
    assert result.unmatched == [] and result.standalone == []
    (disks,) = result.levels
    names = {disk_ref(d, inventory).name for d in inventory.sas.disks}
    assert {g.name for g in disks.groups} == names  # named as every other view names them
    one = min(g.histogram.count for g in disks.groups if g.histogram)
    for group in disks.groups:
        assert group.histogram is not None
        assert group.histogram.count == one * multiples[group.id]


@pytest.mark.parametrize("level", [GroupLevel.ENCLOSURE, GroupLevel.CHAIN, GroupLevel.HBA])
def test_a_group_is_exactly_the_sum_of_its_disks(
    host: tuple[Inventory, Path, dict[str, int]], level: GroupLevel
) -> None:
    inventory, snapshot, _ = host
    statistics = gather_statistics(SnapshotSource(snapshot), inventory, live=False)
    result = breakdown(inventory, [GroupLevel.DISK, level], imports=statistics.imported)
    disks, groups = result.levels
    by_disk = {g.id: g.histogram for g in disks.groups if g.histogram is not None}
    assert groups.groups
    for group in groups.groups:
        members = [by_disk[m] for m in group.member_ids if m in by_disk]
        assert group.histogram is not None and members
        expected = merged(members)
        assert group.histogram.counts == expected.counts
        assert group.histogram.count == expected.count and group.histogram.sum_ns == expected.sum_ns
        assert group.p99_ms == pytest.approx(expected.percentile_s(99) * 1000)


@pytest.mark.parametrize(("slow", "expected"), [(None, set()), ("JBOD-003", {"JBOD-003"})])
def test_the_rules_judge_recorded_latency(
    tmp_path: Path, slow: str | None, expected: set[str]
) -> None:
    """A host with ZFS and a workload (diskstats samples and zpool histograms): the recorded
    histograms come first, and one enclosure 16 times slower is the group outlier by its p99
    (the diskstats figures are the same for every enclosure); with none slower, no finding."""
    snapshot = tmp_path / "host"
    write_snapshot(load_spec(SPECS / "three_chains_of_two_loaded.toml"), snapshot)
    inventory = collect_inventory(SnapshotSource(snapshot))
    _recording_for(inventory, snapshot, slow)
    checkup = check_source(SnapshotSource(snapshot), kind=None, live=False, config=Config())
    kinds = {i.kind for i in checkup.statistics.imported}
    assert kinds == {ImportKind.EBPF, ImportKind.ZPOOL_IOSTAT_W}
    # the report says its latency was recorded in the kernel, and where it was read from
    assert checkup.report.latency is not None
    assert checkup.report.latency.kind == "ebpf"
    assert checkup.report.latency.origins == ["commands/biolat/recording.json"]
    latency = [f for f in checkup.report.findings if f.rule.startswith("latency.")]
    assert {f.entity.name for f in latency} == expected
    for finding in latency:
        assert finding.rule == "latency.group.outlier"
        facts = {f.name: f.value for e in finding.evidence for f in e.facts}
        assert any("p99" in name for name in facts), facts
