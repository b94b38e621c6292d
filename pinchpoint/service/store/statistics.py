"""Statistics series in the database, with the semantics of the in-memory `HistogramSeries`:
a point lands in its bucket (combined with what is there by `combine_into`), compaction rolls
points that outlived their tier into the next tier's buckets, a query answers at the coarsest
resolution that holds any point of the range.

Rows are (host, entity, resolution, bucket start) with the `SeriesPoint` as JSON; points are
combined in bucket order, as the in-memory series does for points added in time order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Table, delete, insert, select
from sqlalchemy.orm import Session

from pinchpoint.service.store.database import Database, StoreInputError, lock, moment_or_now
from pinchpoint.service.store.schema import SeriesPointRow
from pinchpoint.stats.series import (
    RetentionPolicy,
    SeriesPoint,
    SeriesQuery,
    combine_into,
)

Key = tuple[str, int, int]  # entity, resolution_s, start_s
# the table itself: new rows inserted through Core (an executemany), no ORM object per row
_SERIES_POINTS = cast(Table, SeriesPointRow.__table__)


def _epoch_s(moment: datetime) -> float:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def check_points(host: str, points: Sequence[tuple[str, SeriesPoint]]) -> None:
    """Refuse points the store cannot keep exactly: no host or entity, a bucket start that is
    not a multiple of its resolution, a value that is not a finite number."""
    if not host.strip():
        raise StoreInputError("statistics need a host name")
    for entity, point in points:
        where = f"point of {entity!r} at {point.start_s}"
        if not entity.strip():
            raise StoreInputError(f"a statistics point at {point.start_s} has no entity")
        if point.resolution_s <= 0 or point.start_s % point.resolution_s:
            raise StoreInputError(
                f"{where}: the start must be a multiple of the resolution ({point.resolution_s} s)"
            )
        numbers = [
            ("covered_s", point.covered_s),
            *((f"values[{m}]", v) for m, v in point.values.items()),
            *((f"weights[{m}]", v) for m, v in point.weights.items()),
            *((f"maxima[{m}]", v) for m, v in point.maxima.items()),
        ]
        for name, value in numbers:
            if not math.isfinite(value):
                raise StoreInputError(f"{where}: {name} is {value}, not a finite number")


def _point(row: SeriesPointRow) -> SeriesPoint:
    return SeriesPoint.model_validate_json(row.body)


def _rows_in(
    session: Session, host: str, resolution_s: int, keys: Iterable[Key]
) -> dict[Key, SeriesPointRow]:
    """The stored rows of `keys` (all of one resolution), fetched by their time range."""
    starts = [start for _, _, start in keys]
    if not starts:
        return {}
    wanted = set(keys)
    rows = session.scalars(
        select(SeriesPointRow).where(
            SeriesPointRow.host == host,
            SeriesPointRow.resolution_s == resolution_s,
            SeriesPointRow.start_s >= min(starts),
            SeriesPointRow.start_s <= max(starts),
        )
    )
    found = {(row.entity, row.resolution_s, row.start_s): row for row in rows}
    return {key: row for key, row in found.items() if key in wanted}


def _merge(session: Session, host: str, buckets: dict[Key, list[SeriesPoint]]) -> None:
    """Combine each list of points into its bucket: the stored one, or a new empty one."""
    by_resolution: dict[int, list[Key]] = {}
    for key in buckets:
        by_resolution.setdefault(key[1], []).append(key)
    for resolution_s, keys in by_resolution.items():
        stored = _rows_in(session, host, resolution_s, keys)
        added = []
        for key in keys:
            entity, _, start = key
            row = stored.get(key)
            total = _point(row) if row else SeriesPoint(start_s=start, resolution_s=resolution_s)
            for part in buckets[key]:
                combine_into(total, part)
            body = total.model_dump_json()
            if row is None:
                added.append(
                    {
                        "host": host,
                        "entity": entity,
                        "resolution_s": resolution_s,
                        "start_s": start,
                        "body": body,
                    }
                )
            else:
                row.body = body
        if added:  # the new rows in one statement (executemany), no object per row
            session.execute(insert(_SERIES_POINTS), added)
    session.flush()


def add_points(session: Session, host: str, points: Sequence[tuple[str, SeriesPoint]]) -> None:
    """Add each point to the bucket of its own resolution holding its start."""
    buckets: dict[Key, list[SeriesPoint]] = {}
    for entity, point in points:
        buckets.setdefault((entity, point.resolution_s, point.start_s), []).append(point)
    _merge(session, host, buckets)


def compact(session: Session, host: str, policy: RetentionPolicy, now: datetime) -> None:
    """`HistogramSeries.compact` on the stored points of `host`."""
    now_s = _epoch_s(now)
    tiers = policy.tiers
    for index, limits in enumerate(tiers):
        resolution = limits.resolution_s
        # A point has outlived its tier once its bucket ended `keep_s` ago: start + res <= that.
        last_start = math.floor(now_s - limits.keep_s - resolution)
        expired = (
            SeriesPointRow.host == host,
            SeriesPointRow.resolution_s == resolution,
            SeriesPointRow.start_s <= last_start,
        )
        if index + 1 < len(tiers):
            coarser = tiers[index + 1].resolution_s
            buckets: dict[Key, list[SeriesPoint]] = {}
            for row in session.scalars(
                select(SeriesPointRow)
                .where(*expired)
                .order_by(SeriesPointRow.entity, SeriesPointRow.start_s)
            ):
                start = row.start_s - row.start_s % coarser
                buckets.setdefault((row.entity, coarser, start), []).append(_point(row))
            _merge(session, host, buckets)
        session.execute(
            delete(SeriesPointRow).where(*expired).execution_options(synchronize_session=False)
        )
        session.expunge_all()


def query(
    session: Session,
    host: str,
    entity: str,
    start: datetime,
    end: datetime,
    policy: RetentionPolicy,
    pending: SeriesPoint | None = None,
) -> SeriesQuery:
    """`HistogramSeries.query` on the stored points of `host`, with `pending` (a point of the
    finest tier not stored yet) as if it were stored."""
    start_s, end_s = _epoch_s(start), _epoch_s(end)
    found: list[SeriesPoint] = []
    resolution: int | None = None
    for index, tier in enumerate(policy.tiers):
        rows = list(
            session.scalars(
                select(SeriesPointRow)
                .where(
                    SeriesPointRow.host == host,
                    SeriesPointRow.entity == entity,
                    SeriesPointRow.resolution_s == tier.resolution_s,
                    SeriesPointRow.start_s < end_s,
                    SeriesPointRow.start_s > start_s - tier.resolution_s,
                )
                .order_by(SeriesPointRow.start_s)
            )
        )
        points = [_point(row) for row in rows]
        if (
            index == 0
            and pending is not None
            and pending.start_s < end_s
            and pending.end_s > start_s
        ):
            points.append(pending)
        if points:
            found.extend(points)
            resolution = tier.resolution_s
    if resolution is None:
        return SeriesQuery(entity=entity, resolution_s=None)
    buckets: dict[int, SeriesPoint] = {}
    for point in found:
        bucket_start = point.start_s - point.start_s % resolution
        bucket = buckets.get(bucket_start)
        if bucket is None:
            bucket = buckets[bucket_start] = SeriesPoint(
                start_s=bucket_start, resolution_s=resolution
            )
        combine_into(bucket, point)
    return SeriesQuery(
        entity=entity, resolution_s=resolution, points=[buckets[s] for s in sorted(buckets)]
    )


def entities(session: Session, host: str) -> list[str]:
    """Every entity of `host` with at least one stored point."""
    return list(
        session.scalars(
            select(SeriesPointRow.entity)
            .where(SeriesPointRow.host == host)
            .distinct()
            .order_by(SeriesPointRow.entity)
        )
    )


def hosts(session: Session) -> list[str]:
    """Every host with at least one stored point."""
    return list(
        session.scalars(select(SeriesPointRow.host).distinct().order_by(SeriesPointRow.host))
    )


class SeriesStore(Database):
    """The store's statistics series."""

    def add_series_points(self, host: str, points: Sequence[tuple[str, SeriesPoint]]) -> None:
        """Add points (entity id, point) of `host`; a point landing in a stored bucket is
        combined with it exactly (`combine_into`)."""
        check_points(host, points)
        if not points:
            return
        with self._writing() as session:
            lock(session, f"series:{host}")
            add_points(session, host, points)

    def compact_series(
        self, host: str, policy: RetentionPolicy, now: datetime | None = None
    ) -> None:
        """Roll `host`'s points that outlived their tier into the next, drop what outlived the
        last (`HistogramSeries.compact`, in the database)."""
        with self._writing() as session:
            lock(session, f"series:{host}")
            compact(session, host, policy, moment_or_now(now))

    def query_series(
        self,
        host: str,
        entity: str,
        start: datetime,
        end: datetime,
        policy: RetentionPolicy,
        pending: SeriesPoint | None = None,
    ) -> SeriesQuery:
        """`entity`'s points overlapping [start, end) at the coarsest resolution holding any
        of them (`HistogramSeries.query`), `pending` (the sampler's bucket being filled) with
        them."""
        with self._reading() as session:
            return query(session, host, entity, start, end, policy, pending)

    def series_entities(self, host: str) -> list[str]:
        """Every entity of `host` with a point stored."""
        with self._reading() as session:
            return entities(session, host)

    def series_hosts(self) -> list[str]:
        """Every host with a statistics point stored (to compact them all, including hosts
        that never sent a report)."""
        with self._reading() as session:
            return hosts(session)
