"""What a latency histogram holds, in words, and which of a point's histograms a heat map
draws: read and write apart or together, the whole wait or the device's time only.

A point keeps each kind of histogram apart (`total_wait/read`, `total_wait/write`, …); a heat map
draws one family (its read and write merged unless one is chosen) and says which."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pinchpoint.model.histogram import LatencyHistogram, merged
from pinchpoint.model.stats import HistogramKind
from pinchpoint.stats.aggregate import HISTOGRAM_FAMILIES

# What each stage of a kind measures (the part before "/read" or "/write").
STAGE_WORDS = {
    "": "latency",
    "total_wait": "total wait (queue + device)",
    "disk_wait": "device time",
    "syncq_wait": "sync queue wait",
    "asyncq_wait": "async queue wait",
    "scrub_wait": "scrub wait",
    "trim_wait": "trim wait",
    "rebuild_wait": "rebuild wait",
}
DIRECTIONS = ("read", "write")


def _parts(kind: HistogramKind) -> tuple[str, str]:
    """(stage, direction) of a kind: `total_wait/read` → ("total_wait", "read"), `read` →
    ("", "read"), `scrub_wait` → ("scrub_wait", "")."""
    stage, _, direction = kind.value.rpartition("/")
    if not stage and direction not in DIRECTIONS:
        return direction, ""
    return stage, direction


def latency_label(kinds: Iterable[HistogramKind]) -> str:
    """The words for a histogram merged from `kinds`: "read + write · total wait (queue +
    device)", "write · device time"; "" for none."""
    by_stage: dict[str, list[str]] = {}
    for kind in kinds:
        stage, direction = _parts(kind)
        by_stage.setdefault(stage, [])
        if direction and direction not in by_stage[stage]:
            by_stage[stage].append(direction)
    words = []
    for stage, directions in by_stage.items():
        ordered = [d for d in DIRECTIONS if d in directions]
        stage_words = STAGE_WORDS.get(stage, stage.replace("_", " "))
        words.append(f"{' + '.join(ordered)} · {stage_words}" if ordered else stage_words)
    return "; ".join(words)


def default_kinds(present: Iterable[HistogramKind]) -> tuple[HistogramKind, ...]:
    """The kinds a heat map draws when none is chosen: the best family there is (the whole
    wait, else a tool's or the kernel's read/write latency, else the device's time), read and
    write together."""
    have = set(present)
    for family in HISTOGRAM_FAMILIES:
        found = tuple(k for k in family if k in have)
        if found:
            return found
    return tuple(sorted(have))[:1]


def chosen_histogram(
    histograms: Mapping[HistogramKind, LatencyHistogram], wanted: Sequence[HistogramKind] = ()
) -> tuple[tuple[HistogramKind, ...], LatencyHistogram | None]:
    """The kinds drawn from a point's `histograms` (`wanted`, else `default_kinds`), leaving
    out the empty ones (a write-only load's read histogram), and their merge."""
    full = {k: h for k, h in histograms.items() if not h.empty}
    kinds = tuple(k for k in (wanted or default_kinds(full)) if k in full)
    if not kinds:
        return (), None
    return kinds, merged(full[k] for k in kinds)


def latency_choices(available: Iterable[HistogramKind]) -> list[tuple[HistogramKind, ...]]:
    """What a heat map can be asked to draw from `available` kinds: per stage, read and write
    together (when both are there), then each alone; the default family first."""
    have = [k for k in HistogramKind if k in set(available)]
    first = default_kinds(have)
    stages: dict[str, list[HistogramKind]] = {}
    for kind in have:
        stages.setdefault(_parts(kind)[0], []).append(kind)
    choices: list[tuple[HistogramKind, ...]] = []
    for kinds in sorted(stages.values(), key=lambda ks: ks[0] not in first):
        if len(kinds) > 1:
            choices.append(tuple(kinds))
        choices.extend((k,) for k in kinds)
    return choices
