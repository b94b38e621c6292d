"""Each disk's work since the service started: paths summed (a multipath map instead of its
paths), partitions and devices outside the fabric left out, the busiest path's busy time, from
replayed figures and from the live sampler's raw diskstats tables; totals never go down."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from fixture_paths import FIXTURES
from stats.test_attach import DUAL, LONE_LUN, LUN, SINGLE, small_inventory

from pinchpoint.checks.collect.diskstats import read_table_series
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.simulator import demo_spec, write_snapshot
from pinchpoint.stats.disk_work import (
    DiskWork,
    DiskWorkTotals,
    _interval_work,
    counted_devices,
)
from pinchpoint.stats.iostat import counter_load, interval_centiseconds

SERIES = FIXTURES / "diskstats" / "series"


def interval(*devices: DeviceFigures, seconds: float = 10.0) -> IntervalFigures:
    return IntervalFigures(interval_s=seconds, devices=list(devices))


def by_disk(totals: DiskWorkTotals) -> dict[str, DiskWork]:
    return {work.disk: work for work in totals.totals()}


def test_paths_are_summed_a_map_counts_instead_of_its_paths() -> None:
    inventory = small_inventory()
    assert counted_devices(
        inventory, ["sda", "sdc", "sdb", "dm-3", "sdk", "sdl", "sdm", "sdz"]
    ) == {
        "sda": DUAL,
        "sdc": DUAL,
        "sdb": SINGLE,
        "dm-3": LUN,  # its paths sdk and sdl count through it, not again
        "sdm": LONE_LUN,
    }
    totals = DiskWorkTotals()
    totals.add_interval(
        inventory,
        interval(
            DeviceFigures(device="sda", r_s=100.0, r_await=2.0, rkb_s=400.0, aqu_sz=1.0, util=40.0),
            DeviceFigures(
                device="sdc", r_s=300.0, r_await=6.0, rkb_s=1200.0, aqu_sz=2.0, util=70.0
            ),
            DeviceFigures(device="sdb", w_s=50.0, w_await=4.0, wkb_s=200.0, util=10.0),
            DeviceFigures(device="dm-3", r_s=500.0, r_await=1.0),
            DeviceFigures(device="sdk", r_s=250.0, r_await=1.0),
            DeviceFigures(device="sdl", r_s=250.0, r_await=1.0),
            DeviceFigures(device="sdz", r_s=7.0, r_await=1.0),  # not in the inventory
        ),
    )
    found = by_disk(totals)
    assert set(found) == {DUAL, SINGLE, LUN}
    dual = found[DUAL]
    assert dual.reads == pytest.approx(4000)
    assert dual.read_bytes == pytest.approx(1600 * 1024 * 10)
    assert dual.read_seconds == pytest.approx((2.0 * 100 + 6.0 * 300) * 10 / 1000)  # 20 s
    assert dual.read_seconds / dual.reads == pytest.approx(0.005)  # the mean read latency
    assert dual.busy_seconds == pytest.approx(7.0)  # the busier path's 70 %, not 110 %
    assert dual.queued_seconds == pytest.approx(30.0)  # queues add up: 3 I/Os × 10 s
    assert dual.writes == 0 and dual.write_seconds == 0
    single = found[SINGLE]
    assert single.writes == pytest.approx(500) and single.write_seconds == pytest.approx(2.0)
    assert single.written_bytes == pytest.approx(200 * 1024 * 10)
    assert found[LUN].reads == pytest.approx(5000)
    assert totals.intervals == 1


def test_totals_only_grow_a_reset_or_vanished_path_adds_nothing() -> None:
    inventory = small_inventory()
    totals = DiskWorkTotals()
    both = (
        DeviceFigures(device="sda", r_s=10.0, r_await=1.0),
        DeviceFigures(device="sdc", r_s=10.0, r_await=1.0),
    )
    totals.add_interval(inventory, interval(*both))
    first = by_disk(totals)[DUAL].reads
    totals.add_interval(
        inventory,
        interval(
            DeviceFigures(device="sda", r_s=10.0, r_await=1.0),
            DeviceFigures(device="sdc", reset=True),
        ),
    )
    second = by_disk(totals)[DUAL].reads
    totals.add_interval(inventory, interval(DeviceFigures(device="sda", r_s=10.0)))  # sdc gone
    third = by_disk(totals)[DUAL].reads
    totals.add_interval(inventory, interval(*both, seconds=0.0))  # no interval: nothing
    assert (first, second, third) == pytest.approx((200.0, 300.0, 400.0))
    assert by_disk(totals)[DUAL].reads == pytest.approx(400.0)
    assert totals.intervals == 3


def test_the_live_tables_give_the_counters_deltas() -> None:
    """The real capture's series (tests/fixtures/diskstats/SOURCES.md): sample 0 → 1 adds
    1,200 reads, 96,000 sectors, 480 read ms, 2,400 writes and 9,500 busy ms to sda over 10 s;
    its partition sda3 grows too and must not count twice."""
    tables = read_table_series(SnapshotSource(SERIES))
    totals = DiskWorkTotals()
    totals.add_tables(small_inventory(), tables[0], tables[1])
    dual = by_disk(totals)[DUAL]  # sda is a path of DUAL; sdc, its other, is not in the capture
    assert dual.reads == pytest.approx(1200)
    assert dual.read_bytes == pytest.approx(96_000 * 512)
    assert dual.read_seconds == pytest.approx(0.48)
    assert dual.writes == pytest.approx(2400)
    assert dual.busy_seconds == pytest.approx(9.5)
    totals.add_tables(small_inventory(), tables[1], tables[2])
    assert by_disk(totals)[DUAL].reads > dual.reads


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Inventory, list[DiskstatsTable]]:
    """The demo host (dual-pathed SAS disks, multipathed FC LUNs) and its diskstats samples."""
    root = tmp_path_factory.mktemp("disk-work") / "demo"
    write_snapshot(demo_spec(), root)
    source = SnapshotSource(root)
    return collect_inventory(source), read_table_series(source)


def device_by_device(
    inventory: Inventory, before: DiskstatsTable, after: DiskstatsTable
) -> dict[str, list[float]]:
    """What an interval adds per disk, device by device (`counter_load`, then `_merge`)."""
    itv, _ = interval_centiseconds(before, after)
    assert itv is not None and itv > 0
    work: dict[str, list[float]] = {}
    for name, disk in counted_devices(inventory, after.names).items():
        load = counter_load(
            before.counters(before.index[name]), after.counters(after.index[name]), itv
        )
        assert load is not None
        DiskWorkTotals._merge(work, disk, _interval_work(load, itv / 100))
    return work


def test_the_live_columns_add_what_device_by_device_adds(
    demo: tuple[Inventory, list[DiskstatsTable]],
) -> None:
    """Column by column, every tick, the same totals to the last bit as adding each device's
    work to its disk's; and still the same once the totals go back to being kept by disk (a
    replayed interval) and on to columns again."""
    inventory, tables = demo
    assert len(tables) >= 3
    totals = DiskWorkTotals()
    expected: dict[str, list[float]] = {}
    pairs = list(itertools.pairwise(tables))
    for before, after in [*pairs, *pairs[:2]]:
        if any(after.counters(at) < before.counters(at) for at in range(len(after.names))):
            continue  # a counter went back: not the columns' case
        totals.add_tables(inventory, before, after)
        for disk, grown in device_by_device(inventory, before, after).items():
            total = expected.setdefault(disk, [0.0] * 8)
            for i, value in enumerate(grown):
                total[i] += value
    assert totals.intervals >= 2
    assert totals._live is not None  # added as columns
    found = {w.disk: list(w.model_dump(exclude={"disk"}).values()) for w in totals.totals()}
    assert found == expected
    assert any(total[1] > 0 and total[6] > 0 for total in found.values())  # writes, busy
    paths = Counter(counted_devices(inventory, tables[0].names).values())
    assert max(paths.values()) == 2 and min(paths.values()) == 1  # dual-pathed and single
    totals.add_interval(inventory, IntervalFigures(interval_s=1.0, devices=[]))  # by disk again
    assert {w.disk: list(w.model_dump(exclude={"disk"}).values()) for w in totals.totals()} == found
    before, after = pairs[0]
    totals.add_tables(inventory, before, after)  # columns again, from the totals by disk
    assert totals._live is not None
    for disk, grown in device_by_device(inventory, before, after).items():
        for i, value in enumerate(grown):
            expected[disk][i] += value
    assert {
        w.disk: list(w.model_dump(exclude={"disk"}).values()) for w in totals.totals()
    } == expected
