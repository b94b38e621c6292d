"""The report store: every host's reports and inventories, its findings across reports, mutes,
and statistics series, in SQLite or PostgreSQL (`docs/store.md`).

Each call opens its own session (the API reads from several threads while a sweep writes);
each write is one transaction, so a failure part-way leaves what was stored before intact.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    CursorResult,
    Engine,
    Select,
    delete,
    exists,
    func,
    or_,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, aliased, defer, sessionmaker

from pinchpoint.model.findings import EntityKind, EntityRef, Mute, Report, Severity
from pinchpoint.model.inventory import HostInfo, Inventory
from pinchpoint.service.store import series
from pinchpoint.service.store.bodies import (
    SplitInventory,
    join_inventory,
    pack,
    split_inventory,
    unpack,
)
from pinchpoint.service.store.database import (
    LOCK_SPACE,
    StoreError,
    StoreInputError,
    check_schema,
    make_engines,
    migrate_schema,
)
from pinchpoint.service.store.mutes import (
    holding_mute,
    holds_clause,
    mute_model,
    mute_record,
)
from pinchpoint.service.store.records import (
    ORIGINS,
    FindingRecord,
    FindingState,
    HostRecord,
    MuteRecord,
    Origin,
    Page,
    PruneResult,
    ReportDiff,
    ReportSummary,
    SavedReport,
    SeverityCounts,
    StoredReport,
)
from pinchpoint.service.store.schema import (
    FindingStateRow,
    HostRow,
    InventoryPartLinkRow,
    InventoryPartRow,
    InventoryRow,
    MuteRow,
    ReportRow,
)
from pinchpoint.service.store.states import OPEN, PENDING, RESOLVED, advance_states, finding_of
from pinchpoint.stats.series import RetentionPolicy, SeriesPoint, SeriesQuery

MAX_PAGE = 1000


def _utc(moment: datetime) -> datetime:
    """`moment` as an aware UTC datetime (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _now(now: datetime | None) -> datetime:
    return _utc(now) if now is not None else datetime.now(UTC)


def _check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise StoreInputError(f"limit must be between 1 and {MAX_PAGE}, not {limit}")
    if offset < 0:
        raise StoreInputError(f"offset must be 0 or more, not {offset}")


def _lock(session: Session, name: str, *, shared: bool = False) -> None:
    """PostgreSQL: hold an advisory lock on `name` until the transaction ends (SQLite writers
    are serialised by `BEGIN IMMEDIATE` already)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    key = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "big") >> 1
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    session.execute(text(f"SELECT {function}(:space, :key)"), {"space": LOCK_SPACE, "key": key})


def _insert(session: Session, model: type[Any]) -> Any:
    """The dialect's INSERT (for ON CONFLICT DO NOTHING)."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def _rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _host_name(report: Report) -> str:
    host = (report.host.hostname or "").strip()
    if not host:
        raise StoreInputError(
            "the report names no host (host.hostname is empty): reports are stored by host name"
        )
    return host


def _summary(row: ReportRow, host: str) -> ReportSummary:
    return ReportSummary(
        id=row.id,
        host=host,
        generated_at=row.generated_at,
        stored_at=row.stored_at,
        origin=cast(Origin, row.origin),
        duration_s=row.duration_s,
        findings=SeverityCounts(critical=row.critical, warning=row.warning, info=row.info),
        muted=row.muted,
        worst=Severity(row.worst) if row.worst else None,
        rules_evaluated=row.rules_evaluated,
        skipped=row.skipped,
        collection_problems=row.collection_problems,
        has_inventory=row.inventory_id is not None,
    )


def _stored(row: ReportRow) -> StoredReport:
    return StoredReport(
        id=row.id,
        origin=cast(Origin, row.origin),
        duration_s=row.duration_s,
        stored_at=row.stored_at,
        has_inventory=row.inventory_id is not None,
        report=Report.model_validate_json(unpack(row.body)),
    )


def _counts(report: Report) -> dict[str, int]:
    counts = {severity.value: 0 for severity in Severity}
    muted = 0
    for finding in report.findings:
        if finding.muted is not None:
            muted += 1
        else:
            counts[finding.severity.value] += 1
    return {**counts, "muted": muted}


class Store:
    """Reports, inventories, finding states, mutes and statistics series of every host."""

    def __init__(self, writer: Engine, reader: Engine) -> None:
        self._writer = writer
        self._reader = reader
        self._write_session = sessionmaker(writer, expire_on_commit=False)
        self._read_session = sessionmaker(reader, expire_on_commit=False)

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Store:
        """The store at `url` ("sqlite:///PATH" or "postgresql+psycopg://USER@HOST/DB"), its
        schema migrated to the current version (or, with `migrate=False`, checked to be)."""
        writer, reader = make_engines(url)
        try:
            if migrate:
                migrate_schema(writer)
            else:
                check_schema(reader)
        except DBAPIError as err:
            writer.dispose()
            reader.dispose()
            where = writer.url.render_as_string(hide_password=True)
            raise StoreError(f"cannot use the store {where}: {err.orig}") from err
        except BaseException:
            writer.dispose()
            reader.dispose()
            raise
        return cls(writer, reader)

    def close(self) -> None:
        """Close every pooled connection."""
        self._writer.dispose()
        if self._reader is not self._writer:
            self._reader.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def dialect(self) -> str:
        """The database behind the store: "sqlite" or "postgresql"."""
        return self._writer.dialect.name

    def ping(self) -> bool:
        """Whether the database answers (for /readyz)."""
        try:
            with self._reader.connect() as connection:
                connection.execute(text("SELECT 1"))
        except DBAPIError:
            return False
        return True

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A session in one write transaction: committed at the end, rolled back on error."""
        with self._write_session() as session, session.begin():
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._read_session() as session:
            yield session

    # -- reports --------------------------------------------------------------------------

    def save_report(
        self,
        report: Report,
        *,
        inventory: Inventory | None = None,
        duration_s: float | None = None,
        origin: str = "sweep",
        raise_after: int = 2,
        resolve_after: int = 2,
        now: datetime | None = None,
    ) -> SavedReport:
        """Store `report` (and the inventory it was made from) in one transaction, move the
        host's finding states and return the transitions to notify."""
        host = _host_name(report)
        if origin not in ORIGINS:
            raise StoreInputError(f"origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
        for name, value in (("raise_after", raise_after), ("resolve_after", resolve_after)):
            if value < 1:
                raise StoreInputError(f"{name} must be 1 or more, not {value}")
        if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
            raise StoreInputError(f"duration_s must be a duration in seconds, not {duration_s}")
        if inventory is not None and inventory.host.hostname not in (None, "", host):
            raise StoreInputError(
                f"the inventory is of host {inventory.host.hostname!r}, the report of {host!r}"
            )
        stored_at = _now(now)
        generated_at = _utc(report.generated_at)
        body = pack(report.model_dump_json())
        split = split_inventory(inventory) if inventory is not None else None
        packed = self._packed_new_parts(split) if split is not None else {}
        counts = _counts(report)
        worst = report.worst()
        with self._writing() as session:
            _lock(session, "maintenance", shared=True)
            _lock(session, f"host:{host}")
            host_row = self._host_row(session, host, generated_at)
            duplicate = session.scalar(
                select(ReportRow).where(
                    ReportRow.host_id == host_row.id, ReportRow.generated_at == generated_at
                )
            )
            if duplicate is not None:
                return SavedReport(
                    id=duplicate.id,
                    host=host,
                    generated_at=duplicate.generated_at,
                    stored_at=duplicate.stored_at,
                    inventory_id=duplicate.inventory_id,
                    states_advanced=False,
                    duplicate=True,
                )
            newest = session.scalar(
                select(func.max(ReportRow.generated_at)).where(ReportRow.host_id == host_row.id)
            )
            inventory_id, inventory_stored = (
                self._store_inventory(session, split, packed, stored_at)
                if split is not None
                else (None, False)
            )
            row = ReportRow(
                host_id=host_row.id,
                generated_at=generated_at,
                stored_at=stored_at,
                origin=origin,
                duration_s=duration_s,
                inventory_id=inventory_id,
                inventory_host=inventory.host.model_dump_json() if inventory else None,
                critical=counts["critical"],
                warning=counts["warning"],
                info=counts["info"],
                muted=counts["muted"],
                worst=worst.value if worst else None,
                rules_evaluated=report.rules_evaluated,
                skipped=len(report.skipped),
                collection_problems=len(report.collection),
                body=body,
            )
            session.add(row)
            session.flush()
            advanced = newest is None or generated_at > newest
            transitions = []
            if advanced:
                mutes = self._mute_rows(session, host, generated_at)
                transitions = advance_states(
                    session,
                    host_id=host_row.id,
                    host=host,
                    report=report,
                    report_id=row.id,
                    raise_after=raise_after,
                    resolve_after=resolve_after,
                    muted=lambda f: (
                        f.muted is not None
                        or holding_mute(mutes, host, f, generated_at) is not None
                    ),
                )
                host_row.host_info = report.host.model_dump_json()
                host_row.last_seen = generated_at
            host_row.first_seen = min(host_row.first_seen, generated_at)
            return SavedReport(
                id=row.id,
                host=host,
                generated_at=generated_at,
                stored_at=stored_at,
                inventory_id=inventory_id,
                inventory_stored=inventory_stored,
                states_advanced=advanced,
                transitions=transitions,
            )

    def _host_row(self, session: Session, host: str, at: datetime) -> HostRow:
        session.execute(
            _insert(session, HostRow)
            .values(name=host, first_seen=at, last_seen=at, host_info=None)
            .on_conflict_do_nothing(index_elements=["name"])
        )
        return session.scalars(select(HostRow).where(HostRow.name == host)).one()

    def _packed_new_parts(self, split: SplitInventory) -> dict[str, bytes]:
        """The parts not stored yet, compressed before the write transaction begins (the
        transaction compresses any that a prune removed meanwhile)."""
        digests = [part.digest for part in split.parts]
        with self._reading() as session:
            known = set(
                session.scalars(
                    select(InventoryPartRow.digest).where(InventoryPartRow.digest.in_(digests))
                )
            )
        return {p.digest: pack(p.json) for p in split.parts if p.digest not in known}

    def _store_inventory(
        self, session: Session, split: SplitInventory, packed: dict[str, bytes], at: datetime
    ) -> tuple[int, bool]:
        """The id of the inventory `split` (stored now unless it already was), and whether it
        was new."""
        found = session.scalar(select(InventoryRow.id).where(InventoryRow.digest == split.digest))
        if found is not None:
            return found, False
        part_ids: dict[str, int] = {}
        for part in split.parts:
            session.execute(
                _insert(session, InventoryPartRow)
                .values(
                    digest=part.digest,
                    name=part.name,
                    raw_size=len(part.json),
                    body=packed.get(part.digest) or pack(part.json),
                )
                .on_conflict_do_nothing(index_elements=["digest"])
            )
            part_ids[part.name] = session.scalars(
                select(InventoryPartRow.id).where(InventoryPartRow.digest == part.digest)
            ).one()
        inserted = session.execute(
            _insert(session, InventoryRow)
            .values(
                digest=split.digest,
                format_version=split.format_version,
                raw_size=split.raw_size,
                created_at=at,
            )
            .on_conflict_do_nothing(index_elements=["digest"])
        )
        inventory_id = session.scalars(
            select(InventoryRow.id).where(InventoryRow.digest == split.digest)
        ).one()
        if not _rowcount(inserted):
            return inventory_id, False
        session.add_all(
            InventoryPartLinkRow(inventory_id=inventory_id, name=name, part_id=part_id)
            for name, part_id in part_ids.items()
        )
        session.flush()
        return inventory_id, True

    def _report_select(self) -> Select[ReportRow, str]:
        return select(ReportRow, HostRow.name).join(HostRow, HostRow.id == ReportRow.host_id)

    def report(self, report_id: int) -> StoredReport | None:
        """The report stored under `report_id`."""
        with self._reading() as session:
            row = session.get(ReportRow, report_id)
            return _stored(row) if row is not None else None

    def _latest_row(self, session: Session, host: str | None) -> ReportRow | None:
        query = select(ReportRow).order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
        if host is not None:
            query = query.join(HostRow, HostRow.id == ReportRow.host_id).where(HostRow.name == host)
        return session.scalars(query.limit(1)).first()

    def latest_report(self, host: str | None = None) -> StoredReport | None:
        """The newest report of `host` (None: of any host), by generated_at."""
        with self._reading() as session:
            row = self._latest_row(session, host)
            return _stored(row) if row is not None else None

    def report_summaries(
        self,
        *,
        host: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[ReportSummary]:
        """Reports generated in [since, until), newest first."""
        _check_page(limit, offset)
        where: list[ColumnElement[bool]] = []
        if host is not None:
            where.append(HostRow.name == host)
        if since is not None:
            where.append(ReportRow.generated_at >= _utc(since))
        if until is not None:
            where.append(ReportRow.generated_at < _utc(until))
        with self._reading() as session:
            total = session.scalar(
                select(func.count())
                .select_from(ReportRow)
                .join(HostRow, HostRow.id == ReportRow.host_id)
                .where(*where)
            )
            rows = session.execute(
                self._report_select()
                .options(defer(ReportRow.body))  # a summary needs the columns only
                .where(*where)
                .order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
                .limit(limit)
                .offset(offset)
            ).all()
        return Page[ReportSummary](
            items=[_summary(row, name) for row, name in rows],
            total=total or 0,
            limit=limit,
            offset=offset,
        )

    def _inventory(self, session: Session, row: ReportRow) -> Inventory | None:
        if row.inventory_id is None or row.inventory_host is None:
            return None
        inventory = session.get(InventoryRow, row.inventory_id)
        if inventory is None:
            return None
        parts = session.execute(
            select(InventoryPartLinkRow.name, InventoryPartRow.body)
            .join(InventoryPartRow, InventoryPartRow.id == InventoryPartLinkRow.part_id)
            .where(InventoryPartLinkRow.inventory_id == row.inventory_id)
        ).all()
        return join_inventory(
            inventory.format_version,
            row.inventory_host,
            {name: unpack(body) for name, body in parts},
        )

    def inventory_of(self, report_id: int) -> Inventory | None:
        """The inventory saved with report `report_id`, if one was."""
        with self._reading() as session:
            row = session.get(ReportRow, report_id)
            return self._inventory(session, row) if row is not None else None

    def latest_inventory(self, host: str | None = None) -> Inventory | None:
        """The inventory of the newest report of `host` (None: any host) that has one."""
        query = (
            select(ReportRow)
            .where(ReportRow.inventory_id.is_not(None))
            .order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
        )
        if host is not None:
            query = query.join(HostRow, HostRow.id == ReportRow.host_id).where(HostRow.name == host)
        with self._reading() as session:
            row = session.scalars(query.limit(1)).first()
            return self._inventory(session, row) if row is not None else None

    def diff(self, a: int, b: int) -> ReportDiff | None:
        """Findings new in report `b`, resolved since `a`, persisting and worsened; None when
        either report is unknown."""
        with self._reading() as session:
            rows = {
                row.id: (row, name)
                for row, name in session.execute(
                    self._report_select().where(ReportRow.id.in_([a, b]))
                ).all()
            }
        if a not in rows or b not in rows:
            return None
        before = _stored(rows[a][0]).report
        after = _stored(rows[b][0]).report
        old = {finding.id: finding for finding in before.findings}
        new = {finding.id: finding for finding in after.findings}
        persisting = [f for f in after.findings if f.id in old]
        return ReportDiff(
            a=_summary(*rows[a]),
            b=_summary(*rows[b]),
            new=[f for f in after.findings if f.id not in old],
            resolved=[f for f in before.findings if f.id not in new],
            persisting=persisting,
            worsened=[f for f in persisting if f.severity.rank > old[f.id].severity.rank],
        )

    # -- findings across reports ----------------------------------------------------------

    def findings(
        self,
        *,
        host: str | None = None,
        severity: Severity | None = None,
        rule: str | None = None,
        entity: str | None = None,
        state: FindingState | None = None,
        limit: int = 100,
        offset: int = 0,
        now: datetime | None = None,
    ) -> Page[FindingRecord]:
        """Findings of every host (or one) with their state, worst and most recent first;
        `entity` matches an entity id exactly or a part of its name (any case)."""
        _check_page(limit, offset)
        moment = _now(now)
        muted = exists().where(holds_clause(moment))
        where: list[ColumnElement[bool]] = []
        if host is not None:
            where.append(HostRow.name == host)
        if severity is not None:
            where.append(FindingStateRow.severity == Severity(severity).value)
        if rule is not None:
            where.append(FindingStateRow.rule == rule)
        if entity is not None:
            where.append(
                or_(
                    FindingStateRow.entity_id == entity,
                    func.lower(FindingStateRow.entity_name).contains(
                        entity.lower(), autoescape=True
                    ),
                )
            )
        if state is not None:
            state = FindingState(state)
            stored = OPEN if state in (FindingState.OPEN, FindingState.MUTED) else state.value
            where.append(FindingStateRow.state == stored)
            if state is FindingState.OPEN:
                where.append(~muted)
            elif state is FindingState.MUTED:
                where.append(muted)
        joined = select(FindingStateRow, HostRow.name).join(
            HostRow, HostRow.id == FindingStateRow.host_id
        )
        with self._reading() as session:
            total = session.scalar(
                select(func.count())
                .select_from(FindingStateRow)
                .join(HostRow, HostRow.id == FindingStateRow.host_id)
                .where(*where)
            )
            rows = session.execute(
                joined.where(*where)
                .order_by(
                    FindingStateRow.severity_rank.desc(),
                    FindingStateRow.last_seen.desc(),
                    HostRow.name,
                    FindingStateRow.finding_id,
                )
                .limit(limit)
                .offset(offset)
            ).all()
            mutes = self._mute_rows(session, None, moment) if rows else []
        return Page[FindingRecord](
            items=[self._finding_record(row, name, mutes, moment) for row, name in rows],
            total=total or 0,
            limit=limit,
            offset=offset,
        )

    def _finding_record(
        self, row: FindingStateRow, host: str, mutes: Sequence[MuteRow], now: datetime
    ) -> FindingRecord:
        finding = finding_of(row)
        mute = holding_mute(mutes, host, finding, now)
        if row.state == OPEN:
            state = FindingState.MUTED if mute is not None else FindingState.OPEN
        else:
            state = FindingState(row.state)
        return FindingRecord(
            host=host,
            id=row.finding_id,
            rule=row.rule,
            category=row.category,
            severity=Severity(row.severity),
            title=finding.title,
            entity=EntityRef(
                kind=EntityKind(row.entity_kind), id=row.entity_id, name=row.entity_name
            ),
            state=state,
            first_seen=row.first_seen,
            last_seen=row.last_seen,
            times_seen=row.times_seen,
            opened_at=row.opened_at,
            resolved_at=row.resolved_at,
            finding=finding,
            mute=mute_record(mute, now) if mute is not None else None,
        )

    # -- mutes ----------------------------------------------------------------------------

    def _mute_rows(self, session: Session, host: str | None, now: datetime) -> list[MuteRow]:
        """Unexpired mutes for `host` and every host (host None: of any host), by id."""
        query = select(MuteRow).where(or_(MuteRow.until.is_(None), MuteRow.until > now))
        if host is not None:
            query = query.where(or_(MuteRow.host.is_(None), MuteRow.host == host))
        return list(session.scalars(query.order_by(MuteRow.id)))

    def add_mute(
        self,
        mute: Mute,
        *,
        host: str | None = None,
        created_by: str | None = None,
        now: datetime | None = None,
    ) -> MuteRecord:
        """Store `mute` for `host` (None: every host)."""
        moment = _now(now)
        for name in ("rule", "entity_id", "reason"):
            if not getattr(mute, name).strip():
                raise StoreInputError(f"a mute needs a {name.replace('_', ' ')}")
        if host is not None and not host.strip():
            raise StoreInputError("the mute's host is empty: give a host name, or None for all")
        until = _utc(mute.until) if mute.until is not None else None
        if until is not None and until <= moment:
            raise StoreInputError(
                f"the mute would have expired already: until {until.isoformat()} is not after "
                f"{moment.isoformat()}"
            )
        severity = Severity(mute.severity_at_mute) if mute.severity_at_mute else None
        row = MuteRow(
            host=host,
            rule=mute.rule,
            entity_id=mute.entity_id,
            until=until,
            reason=mute.reason,
            severity_at_mute=severity.value if severity else None,
            severity_rank_at_mute=severity.rank if severity else None,
            created_at=moment,
            created_by=created_by,
        )
        with self._writing() as session:
            session.add(row)
            session.flush()
            return mute_record(row, moment)

    def mutes(
        self, *, host: str | None = None, active_only: bool = True, now: datetime | None = None
    ) -> list[MuteRecord]:
        """Mutes by id: for `host` and every host (host None: all of them); unexpired ones
        only unless `active_only` is False."""
        moment = _now(now)
        query = select(MuteRow).order_by(MuteRow.id)
        if host is not None:
            query = query.where(or_(MuteRow.host.is_(None), MuteRow.host == host))
        if active_only:
            query = query.where(or_(MuteRow.until.is_(None), MuteRow.until > moment))
        with self._reading() as session:
            return [mute_record(row, moment) for row in session.scalars(query)]

    def delete_mute(self, mute_id: int) -> bool:
        """Remove a mute; False when there is none of that id."""
        with self._writing() as session:
            return _rowcount(session.execute(delete(MuteRow).where(MuteRow.id == mute_id))) > 0

    def active_mutes(self, host: str, now: datetime | None = None) -> list[Mute]:
        """The unexpired mutes for `host` (its own and every host's), for `build_report`."""
        with self._reading() as session:
            return [mute_model(row) for row in self._mute_rows(session, host, _now(now))]

    # -- hosts ----------------------------------------------------------------------------

    def hosts(self, *, now: datetime | None = None) -> list[HostRecord]:
        """Every host that sent a report, by name (mutes as they stand at `now`)."""
        moment = _now(now)
        muted = exists().where(holds_clause(moment))
        with self._reading() as session:
            hosts = list(session.scalars(select(HostRow).order_by(HostRow.name)))
            reports = dict(
                session.execute(
                    select(ReportRow.host_id, func.count()).group_by(ReportRow.host_id)
                ).all()
            )
            newest = (
                select(ReportRow.host_id, func.max(ReportRow.generated_at).label("at"))
                .group_by(ReportRow.host_id)
                .subquery()
            )
            latest = dict(
                session.execute(
                    select(ReportRow.host_id, ReportRow.id).join(
                        newest,
                        (newest.c.host_id == ReportRow.host_id)
                        & (newest.c.at == ReportRow.generated_at),
                    )
                ).all()
            )
            by_state = (
                select(FindingStateRow.host_id, FindingStateRow.severity, func.count())
                .join(HostRow, HostRow.id == FindingStateRow.host_id)
                .group_by(FindingStateRow.host_id, FindingStateRow.severity)
            )
            open_counts: dict[int, SeverityCounts] = {}
            for host_id, severity, count in session.execute(
                by_state.where(FindingStateRow.state == OPEN, ~muted)
            ):
                counts = open_counts.setdefault(host_id, SeverityCounts())
                setattr(counts, severity, count)
            muted_counts: dict[int, int] = {}
            for host_id, _, count in session.execute(
                by_state.where(FindingStateRow.state == OPEN, muted)
            ):
                muted_counts[host_id] = muted_counts.get(host_id, 0) + count
            pending = dict(
                session.execute(
                    select(FindingStateRow.host_id, func.count())
                    .where(FindingStateRow.state == PENDING)
                    .group_by(FindingStateRow.host_id)
                ).all()
            )
        return [
            HostRecord(
                name=row.name,
                first_seen=row.first_seen,
                last_seen=row.last_seen,
                reports=reports.get(row.id, 0),
                latest_report_id=latest.get(row.id),
                open_findings=open_counts.get(row.id, SeverityCounts()),
                muted_findings=muted_counts.get(row.id, 0),
                pending_findings=pending.get(row.id, 0),
                host=HostInfo.model_validate_json(row.host_info) if row.host_info else None,
            )
            for row in hosts
        ]

    # -- retention ------------------------------------------------------------------------

    def prune(self, *, keep_reports_days: int, now: datetime | None = None) -> PruneResult:
        """Delete reports generated more than `keep_reports_days` ago (never a host's newest),
        then the inventories and parts no report uses, resolved findings not seen since, and
        mutes expired before then."""
        if keep_reports_days < 0:
            raise StoreInputError(f"keep_reports_days must be 0 or more, not {keep_reports_days}")
        cutoff = _now(now) - timedelta(days=keep_reports_days)
        newer = aliased(ReportRow)
        quietly = {"synchronize_session": False}
        with self._writing() as session:
            _lock(session, "maintenance")
            reports = session.execute(
                delete(ReportRow)
                .where(
                    ReportRow.generated_at < cutoff,
                    exists().where(
                        newer.host_id == ReportRow.host_id,
                        newer.generated_at > ReportRow.generated_at,
                    ),
                )
                .execution_options(**quietly)
            )
            inventories = session.execute(
                delete(InventoryRow)
                .where(~exists().where(ReportRow.inventory_id == InventoryRow.id))
                .execution_options(**quietly)
            )
            parts = session.execute(
                delete(InventoryPartRow)
                .where(~exists().where(InventoryPartLinkRow.part_id == InventoryPartRow.id))
                .execution_options(**quietly)
            )
            states = session.execute(
                delete(FindingStateRow)
                .where(FindingStateRow.state == RESOLVED, FindingStateRow.last_seen < cutoff)
                .execution_options(**quietly)
            )
            mutes = session.execute(
                delete(MuteRow)
                .where(MuteRow.until.is_not(None), MuteRow.until < cutoff)
                .execution_options(**quietly)
            )
            return PruneResult(
                reports=_rowcount(reports),
                inventories=_rowcount(inventories),
                inventory_parts=_rowcount(parts),
                finding_states=_rowcount(states),
                mutes=_rowcount(mutes),
            )

    # -- statistics series ----------------------------------------------------------------

    def add_series_points(self, host: str, points: Sequence[tuple[str, SeriesPoint]]) -> None:
        """Add points (entity id, point) of `host`; a point landing in a stored bucket is
        combined with it exactly (`combine_into`)."""
        series.check_points(host, points)
        if not points:
            return
        with self._writing() as session:
            _lock(session, f"series:{host}")
            series.add_points(session, host, points)

    def compact_series(
        self, host: str, policy: RetentionPolicy, now: datetime | None = None
    ) -> None:
        """Roll `host`'s points that outlived their tier into the next, drop what outlived the
        last (`HistogramSeries.compact`, in the database)."""
        with self._writing() as session:
            _lock(session, f"series:{host}")
            series.compact(session, host, policy, _now(now))

    def query_series(
        self, host: str, entity: str, start: datetime, end: datetime, policy: RetentionPolicy
    ) -> SeriesQuery:
        """`entity`'s points overlapping [start, end) at the coarsest resolution holding any
        of them (`HistogramSeries.query`)."""
        with self._reading() as session:
            return series.query(session, host, entity, start, end, policy)

    def series_entities(self, host: str) -> list[str]:
        """Every entity of `host` with a point stored."""
        with self._reading() as session:
            return series.entities(session, host)

    def series_hosts(self) -> list[str]:
        """Every host with a statistics point stored (to compact them all, including hosts
        that never sent a report)."""
        with self._reading() as session:
            return series.hosts(session)
