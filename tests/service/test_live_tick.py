"""A live tick (raw diskstats tables, the disks as columns, one load computation for the work
counters and the groups) records what the tick of the same interval's figures records: each
disk's points, the groups' points and the disks' work counters. The live reads are the demo
snapshot's samples in turn (its /proc/diskstats at each second)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import pinchpoint.service.sampling as sampling
from pinchpoint.checks.collect.diskstats import read_diskstats_table
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.settings import TargetKind
from pinchpoint.service.store import Store
from pinchpoint.service.target import HostTarget
from pinchpoint.simulator import demo_spec, write_snapshot
from pinchpoint.stats.iostat import table_series_figures
from pinchpoint.stats.series import SeriesPoint

T0 = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Inventory]:
    root = tmp_path_factory.mktemp("live-tick") / "demo"
    write_snapshot(demo_spec(), root)
    return root, collect_inventory(SnapshotSource(root))


def samples(root: Path) -> list[Path]:
    found = sorted((root / "samples").iterdir(), key=lambda p: int(p.name))
    return [p / "proc" / "diskstats" for p in found]


@pytest.fixture
def live_reads(
    demo: tuple[Path, Inventory], monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[DiskstatsTable]]:
    """The sampler's live reads patched to the demo's samples in turn, a second apart; the
    tables it read are listed."""
    files = samples(demo[0])
    read: list[DiskstatsTable] = []

    def sample(
        path: str = "",
        leave_out: frozenset[str] = frozenset(),
        previous: DiskstatsTable | None = None,
    ) -> DiskstatsTable:
        table = read_diskstats_table(str(files[len(read) % len(files)]), leave_out, previous)
        table = dataclasses.replace(table, monotonic_s=float(len(read)))
        read.append(table)
        return table

    monkeypatch.setattr(sampling, "read_diskstats_table", sample)
    yield read


def close(mine: SeriesPoint, theirs: SeriesPoint) -> None:
    assert mine.covered_s == theirs.covered_s
    assert mine.values.keys() == theirs.values.keys()
    for metric, value in mine.values.items():
        assert math.isclose(value, theirs.values[metric], rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(
            mine.maxima[metric], theirs.maxima[metric], rel_tol=1e-12, abs_tol=1e-12
        )


def test_a_live_tick_records_what_a_tick_of_its_figures_records(
    demo: tuple[Path, Inventory], live_reads: list[DiskstatsTable], tmp_path: Path
) -> None:
    root, inventory = demo
    live = sampling.StatsSampler(
        HostTarget(TargetKind.LIVE), Store.open(f"sqlite:///{tmp_path}/live.db"), lambda: inventory
    )
    other = sampling.StatsSampler(
        HostTarget(TargetKind.SNAPSHOT, root),
        Store.open(f"sqlite:///{tmp_path}/figures.db"),
        lambda: inventory,
    )
    partitions = frozenset(p.name for d in inventory.block.devices for p in d.partitions)
    assert live.tick(T0) == 0  # the baseline
    ticks = len(samples(root)) - 1  # every interval of the series, none wrapping around
    for second in range(1, ticks + 1):
        now = T0 + timedelta(seconds=second)
        assert live.tick(now) > 0
        before, after = live_reads[-2], live_reads[-1]
        assert not partitions.intersection(after.names)
        interval = table_series_figures([before, after], leave_out=partitions)[0]
        other.record(inventory, interval, [], now)
        other.work.add_tables(inventory, before, after)  # computing its own loads
    end = T0 + timedelta(minutes=1)
    disks = live.members.entities()
    assert len(disks) >= 300 and disks == other.members.entities()
    for disk in disks:
        mine, theirs = (s.member_points(disk, T0, end).points for s in (live, other))
        assert len(mine) == len(theirs) >= 1
        for one, another in zip(mine, theirs, strict=True):
            close(one, another)
    groups = [e for e, (level, _) in live.names.items() if level not in sampling.MEMBER_LEVELS]
    assert groups and live.names == other.names
    host = inventory.host.hostname or ""
    for group in groups:
        mine, theirs = (s.pending_point(host, group) for s in (live, other))
        assert mine is not None and theirs is not None
        close(mine, theirs)
    work = {w.disk: w for w in other.work.totals()}
    assert work and {w.disk for w in live.work.totals()} == set(work)
    for found in live.work.totals():
        assert found == work[found.disk]
    assert any(w.reads + w.writes and w.busy_seconds for w in work.values()), list(work.values())[
        :3
    ]


def test_the_disks_are_compacted_half_a_bucket_after_a_point_outlives_its_tier(
    demo: tuple[Path, Inventory], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on the tick that closes a bucket (it already seals the disks' columns and writes
    the groups' points): half a bucket later, then every bucket."""
    from pinchpoint.model.breakdown import GroupLevel
    from pinchpoint.model.stats import Metric
    from pinchpoint.stats.incremental import MemberColumns

    _, inventory = demo
    sampler = sampling.StatsSampler(
        HostTarget(TargetKind.LIVE), Store.open(f"sqlite:///{tmp_path}/s.db"), lambda: inventory
    )
    compacted: list[int] = []
    compact = sampler.members.compact

    def counted(now: datetime) -> None:
        compacted.append(int((now - T0).total_seconds()))
        compact(now)

    monkeypatch.setattr(sampler.members, "compact", counted)
    members = MemberColumns(["disk:a"], [GroupLevel.DISK], ["a"], {Metric.QUEUE: [1.0]})
    for second in range(0, 650):
        sampler._keep(inventory, [], 1.0, [], T0 + timedelta(seconds=second), members=members)
    # a point added at 0 lives 600 s at least (a first look at 605, nothing to roll up); the
    # first bucket [0, 10) outlives the 10 s tier at 610: compacted at 615, then every 10 s
    assert compacted == [605, 615, 625, 635, 645]
    assert sampler.members.series.tiers[1].points["disk:a"]  # rolled into the minute tier
