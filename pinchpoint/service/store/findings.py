"""Findings across reports: one row per finding of a host with its state, counts and newest
body (`finding_states`), moved by each report a host sends, and listed with filters and pages.

How a state moves is decided in `pinchpoint/service/findings_state.py`; this module reads the
rows, asks it, and writes the answer back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, exists, func, or_, select
from sqlalchemy.orm import Session

from pinchpoint.model.findings import EntityKind, EntityRef, Finding, Report, Severity
from pinchpoint.service.events import FindingTransition, TransitionKind
from pinchpoint.service.findings_state import (
    RESOLVED,
    FindingState,
    Progress,
    missed,
    notification_order,
    seen,
    shown_state,
    stored_state,
    unseen,
)
from pinchpoint.service.store.bodies import pack, unpack
from pinchpoint.service.store.database import Database, check_page, moment_or_now
from pinchpoint.service.store.mute_holds import holding_mute, holds_clause
from pinchpoint.service.store.mutes import mute_record, unexpired_mutes
from pinchpoint.service.store.records import FindingRecord, Page
from pinchpoint.service.store.schema import FindingStateRow, HostRow, MuteRow

MuteTest = Callable[[Finding], bool]


def finding_of(row: FindingStateRow) -> Finding:
    """The last body stored for a finding state."""
    return Finding.model_validate_json(unpack(row.body))


def _update(row: FindingStateRow, **values: object) -> None:
    """Set the row's columns whose value changes (setting a mapped attribute costs ten times
    reading it, and a save moves thousands of rows)."""
    for name, value in values.items():
        if getattr(row, name) != value:
            setattr(row, name, value)


def _describe(row: FindingStateRow, finding: Finding) -> None:
    """Copy what queries filter on from the finding's newest body."""
    _update(
        row,
        rule=finding.rule,
        category=finding.category,
        entity_kind=finding.entity.kind.value,
        entity_id=finding.entity.id,
        entity_name=finding.entity.name,
        severity=finding.severity.value,
        severity_rank=finding.severity.rank,
        body=pack(finding.model_dump_json()),
    )


def _progress(row: FindingStateRow) -> Progress:
    return Progress(
        state=row.state,
        first_seen=row.first_seen,
        last_seen=row.last_seen,
        seen_streak=row.seen_streak,
        missing_streak=row.missing_streak,
        times_seen=row.times_seen,
        opened_at=row.opened_at,
        resolved_at=row.resolved_at,
    )


def _keep(row: FindingStateRow, progress: Progress, before: Progress | None = None) -> None:
    """Write `progress` into the row: what changed since `before` (None: everything)."""
    old = vars(before) if before is not None else {}
    for name, value in vars(progress).items():
        if name not in old or old[name] != value:
            setattr(row, name, value)


def advance_states(
    session: Session,
    *,
    host_id: int,
    host: str,
    report: Report,
    report_id: int,
    raise_after: int,
    resolve_after: int,
    muted: MuteTest,
) -> list[FindingTransition]:
    """Move the host's finding states by one report; the transitions no mute holds for, in
    the order they are told."""
    present = {finding.id: finding for finding in report.findings}
    at = report.generated_at
    rows = {
        row.finding_id: row
        for row in session.scalars(
            select(FindingStateRow).where(
                FindingStateRow.host_id == host_id,
                or_(
                    FindingStateRow.state != RESOLVED,
                    FindingStateRow.finding_id.in_(list(present)),
                ),
            )
        )
    }
    transitions: list[FindingTransition] = []

    def note(kind: TransitionKind, finding: Finding, previous: Severity | None) -> None:
        if not muted(finding):
            transitions.append(
                FindingTransition(
                    kind=kind,
                    host=host,
                    finding=finding,
                    severity=finding.severity,
                    previous_severity=previous,
                    at=at,
                    report_id=report_id,
                )
            )

    for finding_id, finding in present.items():
        row = rows.get(finding_id)
        if row is None:
            row = FindingStateRow(host_id=host_id, finding_id=finding_id)
            _keep(row, unseen(at))
            _describe(row, finding)
            session.add(row)
        previous = Severity(row.severity)
        before = _progress(row)
        move = seen(
            before, at, raise_after=raise_after, severity=finding.severity, previous=previous
        )
        _keep(row, move.progress, before)
        row.last_report_id = report_id
        _describe(row, finding)
        if move.transition is not None:
            worsened = move.transition is TransitionKind.WORSENED
            note(move.transition, finding, previous if worsened else None)
    for finding_id, row in rows.items():
        if finding_id in present or row.state == RESOLVED:
            continue
        before = _progress(row)
        move = missed(before, at, resolve_after=resolve_after)
        _keep(row, move.progress, before)
        if move.transition is TransitionKind.RESOLVED:
            note(TransitionKind.RESOLVED, finding_of(row), None)
    return notification_order(transitions)


def _finding_record(
    row: FindingStateRow, host: str, mutes: Sequence[MuteRow], now: datetime
) -> FindingRecord:
    finding = finding_of(row)
    mute = holding_mute(mutes, host, finding, now)
    return FindingRecord(
        host=host,
        id=row.finding_id,
        rule=row.rule,
        category=row.category,
        severity=Severity(row.severity),
        title=finding.title,
        entity=EntityRef(kind=EntityKind(row.entity_kind), id=row.entity_id, name=row.entity_name),
        state=shown_state(row.state, mute is not None),
        first_seen=row.first_seen,
        last_seen=row.last_seen,
        times_seen=row.times_seen,
        opened_at=row.opened_at,
        resolved_at=row.resolved_at,
        finding=finding,
        mute=mute_record(mute, now) if mute is not None else None,
    )


class FindingStore(Database):
    """The store's findings across reports."""

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
        check_page(limit, offset)
        moment = moment_or_now(now)
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
            where.append(FindingStateRow.state == stored_state(state))
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
            mutes = unexpired_mutes(session, None, moment) if rows else []
        return Page[FindingRecord](
            items=[_finding_record(row, name, mutes, moment) for row, name in rows],
            total=total or 0,
            limit=limit,
            offset=offset,
        )
