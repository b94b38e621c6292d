"""Statistics summed along the hierarchy (disk → enclosure → chain → HBA port → HBA, LUN → FC
port → FC adapter), on the hand-built inventory of test_attach."""

from __future__ import annotations

import pytest
from stats.test_attach import (
    DUAL,
    FC_ADAPTER,
    FC_PORT,
    HBA,
    LONE_LUN,
    LUN,
    PORT_A,
    PORT_B,
    SINGLE,
    small_inventory,
)

from pinchpoint.model.breakdown import Breakdown, GroupFigures, GroupLevel, SlowerBasis
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.sas import SasFabric
from pinchpoint.model.stats import (
    DeviceFigures,
    EntityStats,
    HistogramKind,
    ImportedStats,
    ImportKind,
    IntervalFigures,
    Metric,
    StatPoint,
    StatsEntityKind,
)
from pinchpoint.stats.aggregate import ALL_LEVELS, breakdown, histogram_family


def figures(
    device: str, r: float, w: float, r_await: float, w_await: float, aqu: float
) -> DeviceFigures:
    return DeviceFigures(
        device=device,
        r_s=r,
        w_s=w,
        rkb_s=r * 64,
        wkb_s=w * 128,
        r_await=r_await,
        w_await=w_await,
        aqu_sz=aqu,
        util=50.0,
    )


def two_intervals() -> list[IntervalFigures]:
    """Ten seconds each; sdb (the single-pathed disk) queues more."""
    first = IntervalFigures(
        interval_s=10.0,
        devices=[
            figures("sda", 100, 50, 4.0, 8.0, 2.0),
            figures("sda1", 100, 50, 4.0, 8.0, 2.0),  # a partition: already in sda
            figures("sdc", 100, 50, 4.0, 8.0, 2.0),
            figures("sdb", 200, 100, 20.0, 40.0, 9.0),
            figures("dm-3", 300, 0, 2.0, 0.0, 1.5),
            figures("sdk", 150, 0, 2.0, 0.0, 0.7),
            figures("sdl", 150, 0, 2.0, 0.0, 0.8),
            figures("sdm", 10, 0, 1.0, 0.0, 0.1),
            figures("loop0", 5, 0, 0.1, 0.0, 0.0),  # in no inventory
        ],
    )
    second = IntervalFigures(
        interval_s=30.0,
        devices=[
            figures("sda", 300, 50, 4.0, 8.0, 4.0),
            figures("sdc", 300, 50, 4.0, 8.0, 4.0),
            figures("sdb", 200, 100, 20.0, 40.0, 9.0),
        ],
    )
    return [first, second]


def group(result: Breakdown, level: GroupLevel, group_id: str) -> GroupFigures:
    found = next(lv for lv in result.levels if lv.level is level)
    return next(g for g in found.groups if g.id == group_id)


def zpool_histograms() -> ImportedStats:
    """What the zpool iostat -w importer gives: the pool, a mirror and one leaf."""
    slow = LatencyHistogram()
    slow.record_seconds(0.010, 990)
    slow.record_seconds(0.300, 10)  # 1% slower than 220 ms
    fast = LatencyHistogram()
    fast.record_seconds(0.002, 1000)
    return ImportedStats(
        kind=ImportKind.ZPOOL_IOSTAT_W,
        source_name="iostat-w.txt",
        entities=[
            EntityStats(
                name="tank",
                kind=StatsEntityKind.POOL,
                histograms={HistogramKind.TOTAL_WAIT_READ: slow},
            ),
            EntityStats(
                name="mirror-0",
                kind=StatsEntityKind.VDEV,
                parent="tank",
                histograms={HistogramKind.TOTAL_WAIT_READ: slow},
            ),
            EntityStats(
                name="/dev/disk/by-id/wwn-0x5000cca5488507cc-part1",
                kind=StatsEntityKind.VDEV,
                parent="mirror-0",
                histograms={
                    HistogramKind.TOTAL_WAIT_READ: slow,
                    HistogramKind.TOTAL_WAIT_WRITE: fast,
                    HistogramKind.DISK_WAIT_READ: fast,  # another family: not merged in
                },
            ),
        ],
    )


def test_a_dual_pathed_disk_sums_its_paths_and_partitions_are_not_added() -> None:
    result = breakdown(small_inventory(), [GroupLevel.DISK], two_intervals())
    disk = group(result, GroupLevel.DISK, DUAL)
    # sda: (100·10 + 300·30)/40 = 250 r/s; sdc the same; the partition sda1 adds nothing
    assert disk.read_iops == pytest.approx(500.0)
    assert disk.write_iops == pytest.approx(100.0)
    assert disk.read_mb_s == pytest.approx(500.0 * 64 * 1024 / 1e6)  # SI MB/s
    # aqu-sz: each path (2·10 + 4·30)/40 = 3.5, summed: 7 I/Os active or waiting on the disk
    assert disk.queue_per_member == pytest.approx(7.0)
    assert disk.await_ms == pytest.approx((4.0 * 500 + 8.0 * 100) / 600)
    assert disk.measured == 1 and disk.members == 1
    assert disk.slower_basis is SlowerBasis.MEANS_ONLY
    assert disk.p99_ms is None and disk.share_slower is None
    assert "sda+sdc" in (disk.detail or "")
    assert result.intervals == 2 and result.measured_s == 40.0


def test_an_enclosure_sums_its_disks_and_averages_the_queue_per_disk() -> None:
    result = breakdown(small_inventory(), [GroupLevel.ENCLOSURE], two_intervals())
    single = group(result, GroupLevel.ENCLOSURE, "enclosure:2")
    dual = group(result, GroupLevel.ENCLOSURE, "enclosure:1")
    assert single.name == "JBOD-002"
    assert single.queue_per_member == pytest.approx(9.0)
    assert dual.queue_per_member == pytest.approx(7.0)
    assert single.queue_vs_peers is not None and dual.queue_vs_peers is not None
    assert single.queue_vs_peers > 1.0 > dual.queue_vs_peers
    assert "1 path of 1" in (single.detail or "")


def test_chains_ports_and_hbas_carry_the_paths_through_them() -> None:
    result = breakdown(
        small_inventory(),
        [GroupLevel.CHAIN, GroupLevel.HBA_PORT, GroupLevel.HBA],
        two_intervals(),
    )
    port_a = group(result, GroupLevel.HBA_PORT, PORT_A)
    port_b = group(result, GroupLevel.HBA_PORT, PORT_B)
    assert port_a.members == 2 and port_b.members == 1  # sda+sdb, sdc
    assert port_a.read_iops == pytest.approx(250.0 + 200.0)
    assert port_b.read_iops == pytest.approx(250.0)
    assert port_a.queue_per_member == pytest.approx((3.5 + 9.0) / 2)
    chain_a = group(result, GroupLevel.CHAIN, f"chain:{PORT_A}")
    assert chain_a.read_iops == port_a.read_iops
    assert "JBOD-001 → JBOD-002" in chain_a.name
    hba = group(result, GroupLevel.HBA, HBA)
    assert hba.read_iops == pytest.approx(700.0)
    assert hba.members == 2
    assert hba.name == "0000:03:00.0 SAS9300-8e"


def test_luns_use_their_multipath_map_and_fc_levels_their_paths() -> None:
    result = breakdown(
        small_inventory(),
        [GroupLevel.LUN, GroupLevel.FC_PORT, GroupLevel.FC_ADAPTER],
        two_intervals(),
    )
    lun = group(result, GroupLevel.LUN, LUN)
    assert lun.name == "mpatha (360060160ade32800f2e3baf47665e211)"
    # dm-3 was measured 10 s of the 40: its figures, not its paths' (never counted twice)
    assert lun.read_iops == pytest.approx(300.0)
    assert lun.queue_per_member == pytest.approx(1.5)
    lone = group(result, GroupLevel.LUN, LONE_LUN)
    assert lone.read_iops == pytest.approx(10.0)
    port = group(result, GroupLevel.FC_PORT, FC_PORT)
    assert port.read_iops == pytest.approx(150.0 + 10.0)  # sdk and sdm; sdl uses another port
    assert sorted(port.member_ids) == sorted([LUN, LONE_LUN])
    adapter = group(result, GroupLevel.FC_ADAPTER, FC_ADAPTER)
    assert adapter.read_iops == port.read_iops
    assert adapter.name == "0000:04:00.0 LPe31002"


def test_histograms_give_p99_and_the_share_slower_than_the_threshold() -> None:
    result = breakdown(
        small_inventory(),
        [GroupLevel.DISK, GroupLevel.ENCLOSURE, GroupLevel.HBA],
        two_intervals(),
        [zpool_histograms()],
        slower_than_s=0.220,
    )
    assert result.histogram_kinds == [
        HistogramKind.TOTAL_WAIT_READ,
        HistogramKind.TOTAL_WAIT_WRITE,
    ]
    disk = group(result, GroupLevel.DISK, DUAL)
    assert disk.slower_basis is SlowerBasis.HISTOGRAMS
    assert (
        disk.histogram is not None and disk.histogram.count == 2000
    )  # read + write, not disk_wait
    assert disk.share_slower == pytest.approx(10 / 2000)
    assert disk.p99_ms is not None and 5.0 < disk.p99_ms < 12.0
    enclosure = group(result, GroupLevel.ENCLOSURE, "enclosure:1")
    assert enclosure.share_slower == disk.share_slower
    other = group(result, GroupLevel.ENCLOSURE, "enclosure:2")
    assert other.slower_basis is SlowerBasis.MEANS_ONLY and other.share_slower is None
    assert group(result, GroupLevel.HBA, HBA).histogram == disk.histogram
    # the pool and the mirror are sums of leaves, neither attached nor listed as unmatched
    assert "tank" not in result.unmatched and "mirror-0" not in result.unmatched
    assert any("different times" in note for note in result.notes)


def test_histogram_families_prefer_the_whole_latency() -> None:
    assert histogram_family([]) == ()
    assert histogram_family([zpool_histograms()])[0] is HistogramKind.TOTAL_WAIT_READ
    written = LatencyHistogram()
    written.record_seconds(0.004, 10)
    fio = ImportedStats(
        kind=ImportKind.FIO_JSON,
        source_name="fio.json",
        entities=[
            EntityStats(
                name="job",
                kind=StatsEntityKind.JOB,
                histograms={HistogramKind.WRITE: written, HistogramKind.READ: LatencyHistogram()},
            )
        ],
    )
    # a write-only job: its empty read histogram names nothing (issue 18: "read" on writes)
    assert histogram_family([fio]) == (HistogramKind.WRITE,)
    fio.entities[0].histograms[HistogramKind.WRITE] = LatencyHistogram()
    assert histogram_family([fio]) == ()


def test_a_windows_host_without_inventory_stands_alone() -> None:
    perfmon = ImportedStats(
        kind=ImportKind.PERFMON_CSV,
        source_name="sql01.csv",
        host="SQL01",
        entities=[
            EntityStats(
                name="H:",
                kind=StatsEntityKind.VOLUME,
                points=[
                    StatPoint(interval_s=15.0, values={}),  # the blank first sample
                    StatPoint(
                        interval_s=15.0,
                        values={
                            Metric.READ_IOPS: 40.0,
                            Metric.READ_LATENCY_MS: 900.0,
                            Metric.QUEUE: 30.0,
                            Metric.IDLE_PCT: 60.0,
                        },
                    ),
                    StatPoint(interval_s=None, values={Metric.READ_IOPS: 1.0}),
                ],
            )
        ],
    )
    result = breakdown(small_inventory(), ALL_LEVELS, imports=[perfmon])
    assert result.unmatched == ["H:"]
    (volume,) = result.standalone
    assert volume.level is GroupLevel.STANDALONE and volume.name == "H:"
    assert volume.read_iops == pytest.approx(20.0)  # 40/s for 15 s of 30
    assert volume.await_ms == pytest.approx(900.0)
    assert volume.util_pct == pytest.approx(20.0)
    assert any("1 point without an interval length" in note for note in result.notes)


def test_bad_intervals_and_resets_are_noted_and_the_rest_still_counts() -> None:
    intervals = two_intervals()
    intervals.append(IntervalFigures(interval_s=0.0, problems=["zero-length interval"]))
    intervals.append(
        IntervalFigures(interval_s=float("nan"), devices=[figures("sdb", 1e9, 0, 0, 0, 1e9)])
    )
    reset = figures("sdb", 0, 0, 0, 0, 0).model_copy(update={"reset": True})
    negative = figures("sdc", -5.0, -1.0, -3.0, -3.0, -2.0)
    intervals.append(IntervalFigures(interval_s=10.0, devices=[reset, negative]))
    result = breakdown(small_inventory(), [GroupLevel.DISK], intervals)
    single = group(result, GroupLevel.DISK, SINGLE)
    assert single.read_iops == pytest.approx(200.0)  # the reset interval left out
    dual = group(result, GroupLevel.DISK, DUAL)
    assert dual.read_iops >= 0 and dual.write_iops >= 0
    assert dual.queue_per_member is not None and dual.queue_per_member >= 0
    notes = "\n".join(result.notes)
    assert "zero-length interval" in notes
    assert "interval 2 left out" in notes and "interval 3 left out" in notes
    assert "sdb: counters went backwards (device reset); 1 interval left out" in notes
    assert result.intervals == 3


def test_devices_in_no_inventory_are_listed_and_kept_when_they_did_io() -> None:
    result = breakdown(small_inventory(), [GroupLevel.DISK], two_intervals())
    assert result.unmatched == ["loop0"]
    assert [g.name for g in result.standalone] == ["loop0"]


def test_no_figures_at_all_is_a_breakdown_of_empty_groups_never_a_crash() -> None:
    result = breakdown(small_inventory(), ALL_LEVELS)
    for level in result.levels:
        for found in level.groups:
            assert found.slower_basis is SlowerBasis.NO_FIGURES
            assert found.queue_per_member is None and found.iops == 0.0
    empty = breakdown(small_inventory().model_copy(update={"sas": SasFabric()}))
    assert all(lv.note for lv in empty.levels if lv.level in (GroupLevel.DISK, GroupLevel.HBA))


def test_the_breakdown_survives_a_json_round_trip() -> None:
    result = breakdown(small_inventory(), ALL_LEVELS, two_intervals(), [zpool_histograms()])
    assert Breakdown.model_validate_json(result.model_dump_json()) == result
