"""`check` and `stats show` read a snapshot's diskstats samples into raw tables and compute
figures for whole devices only (issue 5's speed-up). Everything the rules and the breakdown see
must be what the models path gives: every sample as `DiskstatsCounters`, every device's
`iostat -x` figures (`read_sample_series` + `series_figures`, as `stats diff` still computes them).

Compared on the demo host (field case 1: 360 disks, 600 paths, 1,200 partitions, 13 samples) and on
the 1,920-path benchmark host (3,840 partitions, 7 samples), both simulated; damaged series are
made from the demo's samples."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import SPECS

from pinchpoint.checks.collect.diskstats import (
    read_sample,
    read_sample_series,
    read_table,
    read_table_series,
)
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.diskstats import table_sample
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.base import Input, RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.derived.breakdown import breakdown
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics, listed_partitions
from pinchpoint.stats.iostat import series_figures, table_series_figures

NOW = datetime(2026, 11, 22, tzinfo=UTC)


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    """A temporary directory in a roomy tmpfs where there is one: the 1,920-path host is
    122,000 files (3 s there, 20-50 s on this VM's disk)."""
    with tempfile.TemporaryDirectory(prefix="pinchpoint-fast-path-", dir=scratch_dir()) as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module", params=["demo", "bench_1920_stats"])
def host(request: pytest.FixtureRequest, scratch: Path) -> tuple[SnapshotSource, Inventory]:
    name = request.param
    if name == "demo":
        source = SnapshotSource(shared_demo_root())
    else:
        write_snapshot(load_spec(SPECS / f"{name}.toml"), scratch / name)
        source = SnapshotSource(scratch / name)
    return source, collect_inventory(source)


def test_tables_hold_exactly_the_samples_of_the_models_path(
    host: tuple[SnapshotSource, Inventory],
) -> None:
    source, _ = host
    samples = read_sample_series(source)
    tables = read_table_series(source)
    assert len(tables) == len(samples) >= 7
    assert [table_sample(t) for t in tables] == samples  # counters, clocks, skips, problems


def test_figures_of_every_device_are_those_of_the_models_path(
    host: tuple[SnapshotSource, Inventory],
) -> None:
    source, _ = host
    assert table_series_figures(read_table_series(source)) == series_figures(
        read_sample_series(source)
    )


def test_leaving_out_the_partitions_leaves_the_whole_devices_figures_unchanged(
    host: tuple[SnapshotSource, Inventory],
) -> None:
    source, inventory = host
    partitions = listed_partitions(inventory)
    every = series_figures(read_sample_series(source))
    whole = table_series_figures(read_table_series(source), partitions)
    assert len(partitions) * 3 == len(every[0].devices) * 2  # 2 partitions a path (ZFS)
    for fast, slow in zip(whole, every, strict=True):
        kept = [f for f in slow.devices if f.device not in partitions]
        assert fast.devices == kept
        assert (fast.interval_s, fast.appeared, fast.vanished, fast.problems) == (
            slow.interval_s,
            slow.appeared,
            slow.vanished,
            slow.problems,
        )


def test_breakdown_and_findings_are_those_of_every_devices_figures(
    host: tuple[SnapshotSource, Inventory],
) -> None:
    source, inventory = host
    gathered = gather_statistics(source, inventory, live=False)
    every = series_figures(read_sample_series(source))
    fast = RuleContext(
        inventory=inventory,
        intervals=gathered.intervals,
        imported=gathered.imported,
        net_intervals=gathered.net_intervals,
    )
    slow = RuleContext(
        inventory=inventory,
        intervals=every,
        imported=gathered.imported,
        net_intervals=gathered.net_intervals,
    )
    assert fast.derived(breakdown).levels and fast.derived(breakdown) == slow.derived(breakdown)
    found_fast, skipped_fast, ran_fast = evaluate(fast, CATALOG, now=NOW)
    found_slow, skipped_slow, ran_slow = evaluate(slow, CATALOG, now=NOW)
    assert fast.missing(Input.DISK_STATS) is None and ran_fast >= 15  # the load rules ran
    assert [f.model_dump() for f in found_fast] == [f.model_dump() for f in found_slow]
    assert (skipped_fast, ran_fast) == (skipped_slow, ran_slow)


# -- damaged series: the same problems as the models path, the rest stands -----------------------


@pytest.fixture(scope="module")
def demo_snapshot() -> Path:
    return shared_demo_root()


def damaged(demo_snapshot: Path, tmp_path: Path, sample: int, damage: str) -> Path:
    """A copy of the demo's first three samples with one sample's files damaged."""
    for n in range(3):
        shutil.copytree(
            demo_snapshot / "samples" / str(n), tmp_path / "samples" / str(n), symlinks=True
        )
    proc = tmp_path / "samples" / str(sample) / "proc"
    if damage == "no diskstats":
        (proc / "diskstats").unlink()
    elif damage == "empty diskstats":
        (proc / "diskstats").write_text("")
    elif damage == "garbage line":
        (proc / "diskstats").write_text("garbage\n" + (proc / "diskstats").read_text())
    elif damage == "a device twice":
        lines = (proc / "diskstats").read_text().splitlines(keepends=True)
        (proc / "diskstats").write_text("".join([*lines, lines[0]]))
    elif damage == "no uptime":
        (proc / "uptime").unlink()
    elif damage == "garbled uptime":
        (proc / "uptime").write_text("soon\n")
    return tmp_path


DAMAGES = [
    ("no diskstats", "no block device counters: does not exist"),
    ("empty diskstats", "empty file: no block device counters"),
    ("garbage line", '1 line skipped, first (line 1): "garbage"'),
    ("a device twice", "listed twice; the first line is kept"),
    ("no uptime", "no clock for this sample: does not exist"),
    ("garbled uptime", "expected seconds since boot, found 'soon'"),
]


@pytest.mark.parametrize(("damage", "message"), DAMAGES)
def test_a_damaged_sample_gives_the_problems_of_the_models_path(
    demo_snapshot: Path, tmp_path: Path, damage: str, message: str
) -> None:
    source = SnapshotSource(damaged(demo_snapshot, tmp_path, 1, damage))
    table = read_table(source, "/samples/1")
    assert table.problems == read_sample(source, "/samples/1").problems
    assert message in table.problems[0].reason
    assert [table_sample(t) for t in read_table_series(source)] == read_sample_series(source)


@pytest.mark.parametrize(("damage", "message"), DAMAGES)
def test_a_damaged_sample_is_noted_and_the_other_intervals_stand(
    demo_snapshot: Path, tmp_path: Path, damage: str, message: str
) -> None:
    source = SnapshotSource(damaged(demo_snapshot, tmp_path, 2, damage))
    inventory = collect_inventory(SnapshotSource(demo_snapshot))
    gathered = gather_statistics(source, inventory, live=False, network=False)
    assert any(message in note for note in gathered.notes), gathered.notes
    first, second = gathered.intervals
    assert len(first.devices) == 600 and first.interval_s > 0  # samples 0 → 1 untouched
    expected = series_figures(read_sample_series(source))
    partitions = listed_partitions(inventory)
    assert second.devices == [f for f in expected[1].devices if f.device not in partitions]
    assert second.problems == expected[1].problems
