"""Where a check's latency figures came from (`model/latency_source.py`), decided from what its
statistics hold: a kernel recording (this host's, a snapshot's, an imported one), other
histograms imported, or diskstats averages only — and then why nothing better was there."""

from __future__ import annotations

from collections.abc import Sequence

from pinchpoint.model.inventory import SourceKind
from pinchpoint.model.latency_source import LatencySource, LatencySourceKind
from pinchpoint.model.stats import ImportedStats, ImportKind

LIVE_RECORDING = "ebpf"  # the source name of what this host's recorder counted (not a file)
SNAPSHOT_HAS_NONE = "the snapshot carries no recording (capture --record-seconds N)"


def _seconds(imported: ImportedStats) -> float:
    """The window a recording covers: its entities' last point."""
    return max((p.offset_s or 0.0 for e in imported.entities for p in e.points[-1:]), default=0.0)


def latency_source(
    host: SourceKind,
    imported: Sequence[ImportedStats],
    averages: bool,
    why_not_recorded: str,
) -> LatencySource:
    """The source of the latency in `imported` (and in diskstats, `averages`: there are two
    samples or more) on a host read as `host`; `why_not_recorded` is said when there are
    averages only."""
    if host is SourceKind.DEMO:
        return LatencySource(kind=LatencySourceKind.SIMULATED)
    with_histograms = [i for i in imported if any(e.histograms for e in i.entities)]
    recorded = [i for i in with_histograms if i.kind is ImportKind.EBPF]
    if recorded:
        return LatencySource(
            kind=LatencySourceKind.EBPF,
            seconds=max(_seconds(i) for i in recorded),
            origins=[i.source_name for i in recorded if i.source_name != LIVE_RECORDING],
        )
    if with_histograms:
        return LatencySource(
            kind=LatencySourceKind.IMPORTED, origins=[i.source_name for i in with_histograms]
        )
    if averages:
        return LatencySource(kind=LatencySourceKind.DISKSTATS, reason=why_not_recorded)
    if imported:
        return LatencySource(
            kind=LatencySourceKind.IMPORTED,
            origins=[i.source_name for i in imported],
            reason="averages only: no histograms in what was imported",
        )
    return LatencySource(kind=LatencySourceKind.NONE, reason="no diskstats samples")
