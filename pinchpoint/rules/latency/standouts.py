"""How the latency outlier rules compare a group (or a disk) with its peers: robust statistics
on the figures of the breakdown, so healthy noise never fires."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pinchpoint.model.breakdown import GroupFigures
from pinchpoint.model.findings import Fact
from pinchpoint.rules.base import Limits, Threshold
from pinchpoint.units import quantity_text

MAD_SCALE = 1.4826  # MAD × this estimates the standard deviation of normal noise


@dataclass(frozen=True)
class Measure:
    """One figure compared among peers: how to read it, its unit, its threshold name."""

    name: str
    unit: str
    read: Callable[[GroupFigures], float | None]
    min_effect: str  # the threshold holding the smallest difference that counts


@dataclass(frozen=True)
class Standout:
    """A figure of one group against the median of its peers."""

    measure: Measure
    value: float
    median: float
    robust_z: float

    @property
    def ratio(self) -> float:
        return self.value / self.median if self.median > 0 else math.inf


def per_member_iops(group: GroupFigures) -> float:
    return group.iops / group.measured if group.measured else 0.0


def comparable(groups: Sequence[GroupFigures], limits: Limits) -> list[GroupFigures]:
    """Groups with load enough to compare: measured, and at least `min_iops` per disk."""
    return [g for g in groups if g.measured and per_member_iops(g) >= limits.number("min_iops")]


@dataclass(frozen=True)
class PeerFigure:
    """What a measure of a set of peers is compared with: the median and its scaled spread."""

    median: float
    spread: float  # MAD_SCALE × the median absolute deviation from `median`


def peer_figures(
    peers: Sequence[GroupFigures], measures: Sequence[Measure]
) -> list[PeerFigure | None]:
    """Each measure's `PeerFigure` over `peers`, None where fewer than 3 peers have a finite
    value. The same for every member of the set: a rule judging each member against the set
    makes them once (60 disks of an enclosure: the medians of 60 values once, not 60 times)."""
    found: list[PeerFigure | None] = []
    for measure in measures:
        values = [v for g in peers if (v := measure.read(g)) is not None and math.isfinite(v)]
        if len(values) < 3:
            found.append(None)
            continue
        median = statistics.median(values)
        spread = MAD_SCALE * statistics.median(abs(v - median) for v in values)
        found.append(PeerFigure(median, spread))
    return found


def standouts(
    group: GroupFigures,
    peers: Sequence[GroupFigures],
    measures: Sequence[Measure],
    limits: Limits,
    figures: Sequence[PeerFigure | None] | None = None,
) -> list[Standout]:
    """The figures in which `group` stands out above `peers` (itself included): at least
    `min_ratio` × their median, `min_robust_z` median absolute deviations above it, and more
    than the measure's smallest difference that matters. `figures`: `peer_figures(peers,
    measures)`, made once by a caller judging every member of `peers`."""
    if figures is None:
        figures = peer_figures(peers, measures)
    found = []
    for measure, among in zip(measures, figures, strict=True):
        value = measure.read(group)
        if value is None or not math.isfinite(value) or among is None:
            continue
        median, spread = among.median, among.spread
        difference = value - median
        z = difference / spread if spread > 0 else (math.inf if difference > 0 else 0.0)
        if (
            value >= limits.number("min_ratio", group.id) * median
            and difference >= limits.number(measure.min_effect, group.id)
            and z >= limits.number("min_robust_z", group.id)
        ):
            found.append(Standout(measure, value, median, z))
    return found


def standout_facts(found: Sequence[Standout]) -> list[Fact]:
    """Each figure that stands out and its peers' median, as facts."""
    facts = []
    for s in found:
        facts.append(Fact(name=s.measure.name, value=round(s.value, 2), unit=s.measure.unit))
        facts.append(
            Fact(
                name=f"peers' median {s.measure.name}",
                value=round(s.median, 2),
                unit=s.measure.unit,
            )
        )
    return facts


def standout_sentence(found: Sequence[Standout]) -> str:
    """`mean wait 40.1 ms against a median of 10 ms (4.0×); p99 latency 6.05 s against a
    median of 793 ms (7.6×); …`: latencies in the unit their size calls for (`units.py`)."""
    return "; ".join(
        f"{s.measure.name} {quantity_text(s.value, s.measure.unit)} against a median of "
        f"{quantity_text(s.median, s.measure.unit)} ({s.ratio:.1f}×)"
        for s in found
    )


OUTLIER_THRESHOLDS = {
    "min_ratio": Threshold(1.5, "A figure must be at least this many times the peers' median."),
    "min_robust_z": Threshold(
        3.5, "…and this many scaled median absolute deviations above the median."
    ),
    "min_queue_difference": Threshold(1.0, "Smallest queue difference that counts.", "I/Os"),
    "min_wait_difference_ms": Threshold(5.0, "Smallest mean-wait difference that counts.", "ms"),
    "min_p99_difference_ms": Threshold(20.0, "Smallest p99 difference that counts.", "ms"),
    "min_share_difference_pct": Threshold(
        5.0, "Smallest difference in the share of slow I/Os that counts.", "%"
    ),
    "min_peers": Threshold(3, "Fewest groups (with itself) to compare; fewer: no verdict."),
    "min_iops": Threshold(1.0, "Per-disk IOPS below which a group is idle, not compared."),
    "max_load_ratio": Threshold(
        2.0, "A group doing more than this times the median work per disk is not judged."
    ),
}
