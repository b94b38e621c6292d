"""The fleet as the store knows it: every host that sent a report, when, how many, and its open,
muted and pending findings."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import HostInfo
from pinchpoint.report.summary import SeverityCounts
from pinchpoint.service.findings_state import OPEN, PENDING
from pinchpoint.service.store.database import (
    Database,
    StoreInputError,
    dialect_insert,
    moment_or_now,
)
from pinchpoint.service.store.mute_holds import holds_clause
from pinchpoint.service.store.records import HostRecord
from pinchpoint.service.store.schema import FindingStateRow, HostRow, ReportRow


def host_name(report: Report) -> str:
    """The name a report is stored under; a report naming no host is refused."""
    host = (report.host.hostname or "").strip()
    if not host:
        raise StoreInputError(
            "the report names no host (host.hostname is empty): reports are stored by host name"
        )
    return host


def host_row(session: Session, host: str, at: datetime) -> HostRow:
    """The row of `host`, added (first and last seen `at`) when it has none yet."""
    session.execute(
        dialect_insert(session, HostRow)
        .values(name=host, first_seen=at, last_seen=at, host_info=None)
        .on_conflict_do_nothing(index_elements=["name"])
    )
    return session.scalars(select(HostRow).where(HostRow.name == host)).one()


class HostStore(Database):
    """The store's hosts."""

    def hosts(self, *, now: datetime | None = None) -> list[HostRecord]:
        """Every host that sent a report, by name (mutes as they stand at `now`)."""
        moment = moment_or_now(now)
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
