"""Where a check's latency came from is decided from what its statistics hold: a kernel
recording first (this host's, with its window; a snapshot's or a file's, named), other
histograms imported, diskstats averages with the reason nothing better was there."""

from __future__ import annotations

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.latency_source import NOT_ASKED, LatencySourceKind
from pinchpoint.model.stats import (
    EntityStats,
    HistogramKind,
    ImportedStats,
    ImportKind,
    StatPoint,
    StatsEntityKind,
)
from pinchpoint.stats.latency_source import LIVE_RECORDING, latency_source


def _imported(
    kind: ImportKind, name: str, seconds: float, histograms: bool = True
) -> ImportedStats:
    entity = EntityStats(name="sdb", kind=StatsEntityKind.BLOCK_DEVICE)
    entity.points.append(StatPoint(offset_s=seconds, interval_s=seconds))
    if histograms:
        entity.histograms[HistogramKind.READ] = LatencyHistogram.from_counts(
            {5: 3}, 9000, None, None
        )
    return ImportedStats(kind=kind, source_name=name, entities=[entity])


def test_this_hosts_recording_with_its_window() -> None:
    source = latency_source(
        SourceKind.LIVE, [_imported(ImportKind.EBPF, LIVE_RECORDING, 2.01)], True, NOT_ASKED
    )
    assert source.kind is LatencySourceKind.EBPF
    assert source.seconds == 2.01 and source.origins == [] and source.reason is None


def test_a_snapshots_recording_comes_before_zfs_histograms_and_is_named() -> None:
    imported = [
        _imported(ImportKind.ZPOOL_IOSTAT_W, "zpool/iostat-w.txt", 10),
        _imported(ImportKind.EBPF, "commands/biolat/recording.json", 30),
    ]
    source = latency_source(SourceKind.SNAPSHOT, imported, True, "none in it")
    assert source.kind is LatencySourceKind.EBPF
    assert source.origins == ["commands/biolat/recording.json"] and source.seconds == 30


def test_other_histograms_are_imported() -> None:
    imported = [
        _imported(ImportKind.IOSTAT_TEXT, "iostat.txt", 10, histograms=False),
        _imported(ImportKind.FIO_JSON, "fio.json", 10),
    ]
    source = latency_source(SourceKind.SNAPSHOT, imported, True, "none in it")
    assert source.kind is LatencySourceKind.IMPORTED and source.origins == ["fio.json"]


def test_averages_only_say_why() -> None:
    averages = [_imported(ImportKind.IOSTAT_TEXT, "iostat.txt", 10, histograms=False)]
    source = latency_source(SourceKind.LIVE, averages, True, "not root")
    assert source.kind is LatencySourceKind.DISKSTATS and source.reason == "not root"
    assert source.summary == "averages only: per-I/O latency is not recorded because not root"
    only_files = latency_source(SourceKind.SNAPSHOT, averages, False, "x")
    assert only_files.kind is LatencySourceKind.IMPORTED
    assert only_files.reason is not None and "averages only" in only_files.reason
    nothing = latency_source(SourceKind.SNAPSHOT, [], False, "x")
    assert nothing.kind is LatencySourceKind.NONE


def test_the_demo_is_simulated_whatever_it_carries() -> None:
    imported = [_imported(ImportKind.ZPOOL_IOSTAT_W, "zpool/iostat-w.txt", 10)]
    source = latency_source(SourceKind.DEMO, imported, True, NOT_ASKED)
    assert source.kind is LatencySourceKind.SIMULATED
