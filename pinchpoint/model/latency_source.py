"""Where latency figures came from, in the words every place that shows them uses (the report,
the service's statistics API and its latency page): per-I/O latency recorded in the kernel,
averages only (and why), histograms imported from elsewhere, replayed or simulated. A heat map
or a percentile is only as good as its source, so it is never left unsaid (issue 16)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

# The service's words (`GET /v1/stats` latency_note) and the report's, followed by the reason.
AVERAGES_ONLY = "averages only: per-I/O latency is not recorded because "
NOT_ASKED = "it was not asked for (pinchpoint check --record, or the service's record_latency)"


class LatencySourceKind(StrEnum):
    """What the latency figures are made of."""

    EBPF = "ebpf"  # per-I/O latency recorded in the kernel (docs/ebpf.md), here or in a snapshot
    DISKSTATS = "diskstats"  # averages per interval from /proc/diskstats: no distribution
    IMPORTED = "imported"  # histograms read from files or a snapshot (a recording, zpool -w)
    REPLAYED = "replayed"  # the service replaying a snapshot's or the demo's samples
    SIMULATED = "simulated"  # the demo host: made up by the simulator, not measured
    NONE = "none"  # no latency figures at all


class LatencySource(BaseModel):
    """Where a report's (or a series') latency came from: `kind`, the recording's window
    (`seconds`), what it was read from (`origins`) and why it is averages only (`reason`)."""

    kind: LatencySourceKind
    seconds: float | None = Field(default=None, ge=0)
    origins: list[str] = Field(default_factory=list)
    reason: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """The source in one line, as the report prints it."""
        return latency_source_text(self)


def _seconds(value: float | None) -> str:
    return f", {value:.3g} s" if value else ""


def _from(origins: list[str]) -> str:
    return f" ({', '.join(origins)})" if origins else ""


def latency_source_text(source: LatencySource) -> str:
    """`per-I/O latency recorded in the kernel (eBPF), 10 s`, `averages only: per-I/O latency is
    not recorded because …` and so on."""
    kind = source.kind
    if kind is LatencySourceKind.EBPF:
        recorded = f"per-I/O latency recorded in the kernel (eBPF){_seconds(source.seconds)}"
        return recorded + _from(source.origins)
    if kind is LatencySourceKind.DISKSTATS:
        return AVERAGES_ONLY + (source.reason or "no recorder ran")
    if kind is LatencySourceKind.IMPORTED:
        return f"latency histograms imported{_seconds(source.seconds)}{_from(source.origins)}"
    if kind is LatencySourceKind.REPLAYED:
        return f"replayed samples{_from(source.origins)}"
    if kind is LatencySourceKind.SIMULATED:
        return "simulated (the demo host): not measured"
    return "no latency figures" + (f": {source.reason}" if source.reason else "")
