"""Statistics as the API and the heat maps read them: series of one entity, of every group of a
level, or of a group's members (drill-down), each point with its latency histogram and
percentile lines; and statistics files or JSON histograms added to the series.

Groups sampled by the service have series of their own. Where a group has none (statistics that
were imported per disk) its series is summed from its members' on the fly: rates add up,
histograms merge bucket by bucket, queue and utilisation are the members' mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pinchpoint.checks.parse.importers import StatsImportError, parse_stats
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import HistogramKind, ImportKind, Metric
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.attach import attach_names
from pinchpoint.stats.latency_kinds import chosen_histogram, latency_choices, latency_label
from pinchpoint.stats.series import SeriesPoint, SeriesQuery, new_point

if TYPE_CHECKING:
    from pinchpoint.service.runtime import HostView, Service

PERCENTILES = (50.0, 90.0, 99.0, 99.9)
RATES = (Metric.READ_IOPS, Metric.WRITE_IOPS, Metric.READ_KBPS, Metric.WRITE_KBPS)
MEMBER_LEVELS = (GroupLevel.DISK, GroupLevel.LUN)
IMPORT_RESOLUTION_S = 10
# Series per answer: a page of the groups of a level (`limit`, `offset`). The default holds the
# disks of the largest enclosures (106 bays), so a drill-down into one is a single page.
DEFAULT_SERIES = 128
MAX_SERIES = 400


class PointView(BaseModel):
    start: datetime
    resolution_s: int
    covered_s: float
    values: dict[Metric, float] = Field(default_factory=dict)
    maxima: dict[Metric, float] = Field(default_factory=dict)
    # which histograms the row merges (read and write of one family unless `kind` chose) and
    # that in words: "read + write · total wait (queue + device)"
    histogram_kinds: list[HistogramKind] = Field(default_factory=list)
    latency: str = ""
    # heat-map row: [low_s, high_s (None: open-ended), count] per non-empty bucket
    histogram: list[tuple[float, float | None, int]] = Field(default_factory=list)
    ios: int = 0  # I/Os the histogram holds
    percentiles_ms: dict[str, float | None] = Field(default_factory=dict)


class LatencyChoice(BaseModel):
    """Histograms a heat map can draw (the `kind` values to ask for) and their words."""

    kinds: list[HistogramKind]
    label: str


class SeriesView(BaseModel):
    entity: str
    name: str
    level: GroupLevel | None
    resolution_s: int | None
    summed_from_members: int = 0  # members summed on the fly (0: the entity's own series)
    latency: str = Field(
        default="", description="What the points' histograms hold, in words (see `kind`)"
    )
    kinds_available: list[HistogramKind] = Field(
        default_factory=list, description="The histogram kinds the points carry (`kind` choices)"
    )
    latency_choices: list[LatencyChoice] = Field(
        default_factory=list, description="What can be drawn from them, in words (a selector)"
    )
    points: list[PointView] = Field(default_factory=list)


class HistogramPoint(BaseModel):
    """One measurement in the documented JSON form (docs/statistics.md)."""

    entity: str = Field(description="Entity id, or a name the inventory resolves (sdX, by-id…)")
    at: datetime
    duration_s: float = Field(gt=0, le=86400)
    values: dict[Metric, float] = Field(default_factory=dict)
    histograms: dict[HistogramKind, LatencyHistogram] = Field(default_factory=dict)


class HistogramUpload(BaseModel):
    points: list[HistogramPoint] = Field(max_length=100_000)


class StatsImportResult(BaseModel):
    host: str
    kind: str
    entities: int
    attached: int
    points: int
    unmatched: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def point_view(point: SeriesPoint, kinds: Sequence[HistogramKind] = ()) -> PointView:
    """A point with its histograms of `kinds` (default: the best family, read and write
    merged) as heat-map buckets and percentiles, labelled with what they hold."""
    drawn, histogram = chosen_histogram(point.histograms, kinds)
    view = PointView(
        start=point.start,
        resolution_s=point.resolution_s,
        covered_s=point.covered_s,
        values={m: round(v, 6) for m, v in point.values.items()},
        maxima={m: round(v, 6) for m, v in point.maxima.items()},
        histogram_kinds=list(drawn),
        latency=latency_label(drawn),
    )
    if histogram is not None and not histogram.empty:
        view.histogram = [(b.low_s, b.high_s, b.count) for b in histogram.buckets() if b.count]
        view.ios = histogram.count
        for percent in PERCENTILES:
            value = histogram.percentile_s(percent)
            view.percentiles_ms[f"p{percent:g}"] = None if value is None else value * 1000
    return view


def summed(points_by_member: Sequence[Sequence[SeriesPoint]]) -> list[SeriesPoint]:
    """Members' points summed per bucket: rates added, histograms merged, the rest averaged."""
    buckets: dict[int, list[SeriesPoint]] = {}
    for points in points_by_member:
        for point in points:
            buckets.setdefault(point.start_s, []).append(point)
    total = []
    for start in sorted(buckets):
        parts = buckets[start]
        values: dict[Metric, float] = {}
        for metric in {m for p in parts for m in p.values}:
            present = [p.values[metric] for p in parts if metric in p.values]
            values[metric] = sum(present) if metric in RATES else sum(present) / len(present)
        histograms: dict[HistogramKind, LatencyHistogram] = {}
        for part in parts:
            for kind, histogram in part.histograms.items():
                histograms.setdefault(kind, LatencyHistogram()).merge_from(histogram)
        covered = max(p.covered_s for p in parts)
        total.append(new_point(start, parts[0].resolution_s, covered, values, histograms))
    return total


_LEVELS = (
    GroupLevel.ENCLOSURE,
    GroupLevel.CHAIN,
    GroupLevel.HBA_PORT,
    GroupLevel.HBA,
    GroupLevel.CONTROLLER_PORT,
    GroupLevel.CONTROLLER,
    GroupLevel.FC_PORT,
    GroupLevel.FC_ADAPTER,
)
# Groups whose members' series do not add up to their own: a LUN's I/O is split across the FC
# ports its paths use, so the sum of an FC port's LUNs counts the other ports' share too.
_NOT_SUMMED = (GroupLevel.FC_PORT, GroupLevel.FC_ADAPTER)


class _Hierarchy:
    """The host's groups, level by level, from one breakdown: what `series_views` looks up."""

    def __init__(self, inventory: Inventory, extra: GroupLevel | None) -> None:
        levels = list(dict.fromkeys([*MEMBER_LEVELS, *_LEVELS, *([extra] if extra else [])]))
        grouped = breakdown(inventory, levels=levels)
        self.levels = {lb.level: lb.groups for lb in grouped.levels}
        self.groups = {g.id: (lb.level, g) for lb in grouped.levels for g in lb.groups}
        # an FC adapter's ports are its own (the LUNs behind them are shared by every port)
        self.ports_of = {a.id: list(a.port_ids) for a in inventory.fc.adapters}

    def describe(self, entity: str) -> tuple[GroupLevel | None, str, list[str]]:
        """The level, name and member disk ids of `entity`."""
        found = self.groups.get(entity)
        if found is None:
            return None, entity, []
        level, group = found
        return level, group.name, group.member_ids

    def members(self, entity: str, level: GroupLevel) -> list[tuple[str, str]]:
        """(id, name) of the groups of `level` whose disks belong to `entity` (a group, or
        `host` for the whole host)."""
        wanted = self.levels.get(level, [])
        if entity == "host":
            return [(g.id, g.name) for g in wanted]
        if entity not in self.groups:
            raise LookupError(f"no entity {entity!r} with statistics in the inventory")
        if level is GroupLevel.FC_PORT and entity in self.ports_of:
            ports = set(self.ports_of[entity])
            return [(g.id, g.name) for g in wanted if g.id in ports]
        inside = set(self.groups[entity][1].member_ids)
        return [(g.id, g.name) for g in wanted if inside.intersection(g.member_ids)]


def _own_points(
    service: Service,
    host: str,
    entity: str,
    level: GroupLevel | None,
    start: datetime,
    end: datetime,
) -> SeriesQuery:
    """The series kept for `entity` itself: in memory for disks, else in the store."""
    from pinchpoint.service.sampling import group_policy

    if level in MEMBER_LEVELS:
        found = service.sampler.member_points(entity, start, end)
        if found.points:
            return found
    pending = service.sampler.pending_point(host, entity)
    return service.store.query_series(host, entity, start, end, group_policy(), pending)


def _hierarchy(view: HostView, by: GroupLevel | None) -> _Hierarchy:
    """The groups of `view`'s inventory, built once per report and level (a breakdown of the
    1,920-path host costs 0.15 s: more than the page of series it serves)."""
    assert view.inventory is not None
    key = f"stats-hierarchy:{by.value if by else ''}"
    built = view.derived.get(key)
    if not isinstance(built, _Hierarchy):
        built = view.derived[key] = _Hierarchy(view.inventory, by)
    return built


def series_views(
    service: Service,
    view: HostView,
    host: str,
    entity: str | None,
    by: GroupLevel | None,
    start: datetime,
    end: datetime,
    offset: int = 0,
    limit: int = DEFAULT_SERIES,
    kinds: Sequence[HistogramKind] = (),
) -> tuple[int, list[SeriesView]]:
    """The series `GET /v1/stats` answers with: how many there are in all, and the page of
    `limit` of them from `offset`; their histograms of `kinds` (default: the best family)."""
    hierarchy = _hierarchy(view, by)
    if by is None:
        assert entity is not None
        targets = [(entity, *hierarchy.describe(entity)[:2])]
    else:
        targets = [(i, by, n) for i, n in hierarchy.members(entity or "host", by)]
    views = []
    for target_id, level, name in targets[offset : offset + min(limit, MAX_SERIES)]:
        own = _own_points(service, host, target_id, level, start, end)
        series = SeriesView(entity=target_id, name=name, level=level, resolution_s=own.resolution_s)
        points = own.points
        if not points and level not in (*MEMBER_LEVELS, *_NOT_SUMMED):
            member_ids = hierarchy.describe(target_id)[2]
            parts = [
                _own_points(service, host, m, GroupLevel.DISK, start, end).points
                for m in member_ids
            ]
            points = summed([p for p in parts if p])
            series.summed_from_members = sum(1 for p in parts if p)
            series.resolution_s = points[0].resolution_s if points else None
        series.points = [point_view(p, kinds) for p in points]
        available = {k for p in points for k, h in p.histograms.items() if not h.empty}
        series.kinds_available = sorted(available, key=list(HistogramKind).index)
        series.latency_choices = [
            LatencyChoice(kinds=list(c), label=latency_label(c)) for c in latency_choices(available)
        ]
        drawn = dict.fromkeys(k for p in series.points for k in p.histogram_kinds)
        series.latency = latency_label(sorted(drawn, key=list(HistogramKind).index))
        views.append(series)
    return len(targets), views


def _resolve(inventory: Inventory, names: list[str]) -> tuple[dict[str, str], list[str]]:
    """Entity id for each name (ids pass as they are); the names that matched nothing."""
    known = {d.id for d in inventory.sas.disks} | {e.id for e in inventory.sas.enclosures}
    result = attach_names(inventory, [n for n in names if n not in known])
    ids = {n: n for n in names if n in known}
    ids.update({n: a.entity_id for n, a in result.attached.items()})
    return ids, result.unmatched


def import_statistics(
    service: Service,
    inventory: Inventory,
    host: str,
    file: tuple[str, ImportKind | None] | None,
    points: Sequence[HistogramPoint],
) -> StatsImportResult:
    """Add a statistics file (`file`: text and kind) or JSON `points` to `host`'s series;
    names attach to the inventory, the rest are kept under `import:<name>`."""
    stored: list[tuple[str, SeriesPoint]] = []
    problems: list[str] = []
    if file is not None:
        text, kind = file
        try:
            imported = parse_stats(text, kind)
        except StatsImportError as err:
            raise ValueError(str(err)) from None
        ids, unmatched = _resolve(inventory, [e.name for e in imported.entities])
        started = imported.started_at or datetime.now(UTC)
        for entity in imported.entities:
            entity_id = ids.get(entity.name) or f"import:{entity.name}"
            for stat in entity.points:
                at = stat.at or (
                    datetime.fromtimestamp(started.timestamp() + (stat.offset_s or 0), UTC)
                )
                bucket = int(at.timestamp()) // IMPORT_RESOLUTION_S * IMPORT_RESOLUTION_S
                covered = stat.interval_s or IMPORT_RESOLUTION_S
                stored.append(
                    (entity_id, new_point(bucket, IMPORT_RESOLUTION_S, covered, stat.values, {}))
                )
            if entity.histograms:
                bucket = int(started.timestamp()) // IMPORT_RESOLUTION_S * IMPORT_RESOLUTION_S
                point = new_point(bucket, IMPORT_RESOLUTION_S, 0.0, {}, entity.histograms)
                stored.append((entity_id, point))
        problems = list(imported.problems)
        kind_name = imported.kind.value
        entities = len(imported.entities)
    else:
        ids, unmatched = _resolve(inventory, sorted({p.entity for p in points}))
        for item in points:
            entity_id = ids.get(item.entity) or f"import:{item.entity}"
            bucket = int(item.at.timestamp()) // IMPORT_RESOLUTION_S * IMPORT_RESOLUTION_S
            stored.append(
                (
                    entity_id,
                    new_point(
                        bucket, IMPORT_RESOLUTION_S, item.duration_s, item.values, item.histograms
                    ),
                )
            )
        kind_name = "histograms-json"
        entities = len({p.entity for p in points})
    if not stored:
        reasons = "; ".join(problems[:3]) or "no entity carried a point or a histogram"
        raise ValueError(f"nothing in it could be used: {reasons}")
    service.store.add_series_points(host, stored)
    return StatsImportResult(
        host=host,
        kind=kind_name,
        entities=entities,
        attached=entities - len(unmatched),
        points=len(stored),
        unmatched=unmatched,
        problems=problems,
    )
