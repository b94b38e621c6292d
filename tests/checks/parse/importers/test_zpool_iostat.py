"""`zpool iostat -wvHp` histograms and `-lvHp` averages: values, tree and bad input."""

from __future__ import annotations

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError, guess_kind, parse_stats
from pinchpoint.model.stats import HistogramKind, ImportKind, Metric, StatsEntityKind

HISTOGRAMS = IMPORTS / "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt"
LATENCY = IMPORTS / "synthetic__zpool_iostat_-lvHp_tank_mirror_2_blocks.txt"
LEAF = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4-part1"


def test_histograms_keep_the_tree_and_full_leaf_paths() -> None:
    imported = import_stats(HISTOGRAMS)
    assert imported.kind is ImportKind.ZPOOL_IOSTAT_W
    tree = [(e.name, e.kind, e.parent) for e in imported.entities]
    assert tree == [
        ("tank", StatsEntityKind.POOL, None),
        ("mirror-0", StatsEntityKind.VDEV, "tank"),
        (LEAF, StatsEntityKind.VDEV, "mirror-0"),
        ("/dev/disk/by-id/wwn-0x5000c500a1b2c3e5-part1", StatsEntityKind.VDEV, "mirror-0"),
    ]


def test_histogram_rows_land_in_their_power_of_two_octave() -> None:
    leaf = next(e for e in import_stats(HISTOGRAMS).entities if e.name == LEAF)
    disk_read = leaf.histograms[HistogramKind.DISK_WAIT_READ]
    # the first block of the leaf: 2+10+60+420+380+40+3+3 reads (rows 2^19 … 2^28 ns)
    assert disk_read.count == 918
    # row 28 (label 536870911) holds the 3 outliers in [268 ms, 537 ms)
    assert disk_read.count_above(0.268435456) == pytest.approx(3)
    assert 0.268 <= (disk_read.max_s() or 0) < 0.537
    # 420 reads in [4.19 ms, 8.39 ms) and 380 in [8.39, 16.8): the median lies in the first
    assert 0.0041943 <= (disk_read.percentile_s(50) or 0) < 0.0083886


def test_only_the_first_block_since_import_is_kept() -> None:
    imported = import_stats(HISTOGRAMS)
    pool = imported.entities[0]
    assert pool.histograms[HistogramKind.TOTAL_WAIT_READ].count == 1893  # not + the 2nd block
    assert any("later interval block" in p for p in imported.problems)


def test_an_idle_histogram_has_no_samples_and_the_rest_imports() -> None:
    leaf = next(e for e in import_stats(HISTOGRAMS).entities if e.name == LEAF)
    scrub = leaf.histograms[HistogramKind.SCRUB_WAIT]
    assert scrub.empty and scrub.percentile_s(99) is None
    assert leaf.histograms[HistogramKind.REBUILD_WAIT].empty


def test_older_zfs_without_trim_and_rebuild_columns() -> None:
    text = "tank\n" + "\n".join(
        f"{(1 << (j + 1)) - 1}\t" + "\t".join(["5" if j == 20 else "0"] * 9) for j in range(37)
    )
    imported = parse_stats(text, ImportKind.ZPOOL_IOSTAT_W)
    histograms = imported.entities[0].histograms
    assert histograms[HistogramKind.SCRUB_WAIT].count == 5
    assert HistogramKind.TRIM_WAIT not in histograms


def test_garbled_and_truncated_rows_are_skipped_and_counted() -> None:
    lines = HISTOGRAMS.read_text().splitlines()[:40]
    lines[5] = "15\t0\tzero\t0\t0\t0\t0\t0\t0\t0\t0\t0"
    lines[6] = "30\t1\t1\t1\t1\t1\t1\t1\t1\t1\t1\t1"  # not 2^n - 1
    lines[38] = lines[38][:14]  # cut short after its first count
    imported = parse_stats("\n".join(lines), ImportKind.ZPOOL_IOSTAT_W)
    assert imported.skipped.count == 3
    assert imported.skipped.first_line_number == 6
    assert imported.entities[0].histograms[HistogramKind.TOTAL_WAIT_READ].count > 0


def test_counts_that_are_not_plain_digits_are_still_read() -> None:
    """zpool prints plain digits; a decimal or decimal-comma count (a hand-edited or converted
    file) takes the slow path and gives the same histogram, a negative one is skipped."""
    rows = {"plain": "5", "decimal": "5.0", "comma": "5,0"}
    found = {}
    for what, cell in rows.items():
        text = "tank\n8388607\t" + "\t".join([cell] + ["0"] * 10)
        pool = parse_stats(text, ImportKind.ZPOOL_IOSTAT_W).entities[0]
        found[what] = pool.histograms[HistogramKind.TOTAL_WAIT_READ]
    assert found["plain"].count == 5
    assert found["decimal"] == found["plain"] == found["comma"]
    negative = "tank\n8388607\t-5" + "\t0" * 10 + "\n16777215\t1" + "\t0" * 10
    imported = parse_stats(negative, ImportKind.ZPOOL_IOSTAT_W)
    assert imported.skipped.count == 1
    assert imported.entities[0].histograms[HistogramKind.TOTAL_WAIT_READ].count == 1


def test_an_empty_cell_is_skipped_not_read_as_zero() -> None:
    text = "tank\n8388607\t5\t\t0" + "\t0" * 8 + "\n16777215\t1" + "\t0" * 10
    imported = parse_stats(text, ImportKind.ZPOOL_IOSTAT_W)
    assert imported.skipped.count == 1
    assert imported.entities[0].histograms[HistogramKind.TOTAL_WAIT_READ].count == 1


def test_latency_averages_per_block() -> None:
    imported = import_stats(LATENCY)
    assert imported.kind is ImportKind.ZPOOL_IOSTAT_L
    leaf = next(e for e in imported.entities if e.name == LEAF)
    assert leaf.parent == "mirror-0"
    first, second = leaf.points
    assert first.values[Metric.READ_IOPS] == 495
    assert first.values[Metric.READ_KBPS] == pytest.approx(30670848 / 1024)
    assert first.values[Metric.READ_LATENCY_MS] == pytest.approx(6.41)
    assert first.values[Metric.DISK_READ_LATENCY_MS] == pytest.approx(5.24)
    assert Metric.READ_LATENCY_MS not in second.values  # "-": no read in that interval
    assert second.values[Metric.WRITE_LATENCY_MS] == pytest.approx(5.12)
    assert second.at is not None and second.at.year == 2026


def test_guess_tells_the_two_zpool_outputs_apart() -> None:
    assert guess_kind(HISTOGRAMS.read_text()) is ImportKind.ZPOOL_IOSTAT_W
    assert guess_kind(LATENCY.read_text()) is ImportKind.ZPOOL_IOSTAT_L


@pytest.mark.parametrize("kind", [ImportKind.ZPOOL_IOSTAT_W, ImportKind.ZPOOL_IOSTAT_L])
def test_text_of_another_format_fails_clearly(kind: ImportKind) -> None:
    with pytest.raises(StatsImportError, match="expected `zpool iostat"):
        parse_stats("hello world\nthis is not zpool output\n", kind)
