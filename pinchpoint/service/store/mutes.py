"""Mutes: a rule silenced on one entity, for one host or every host, until an expiry or for
good, with a reason. When one holds for a finding is `mute_holds.py`."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from pinchpoint.model.findings import Mute, Severity
from pinchpoint.service.store.database import (
    Database,
    StoreInputError,
    moment_or_now,
    rowcount,
    utc,
)
from pinchpoint.service.store.records import MuteRecord
from pinchpoint.service.store.schema import MuteRow


def mute_model(row: MuteRow) -> Mute:
    """A stored mute as the rules engine takes it."""
    return Mute(
        rule=row.rule,
        entity_id=row.entity_id,
        until=row.until,
        reason=row.reason,
        severity_at_mute=Severity(row.severity_at_mute) if row.severity_at_mute else None,
    )


def mute_record(row: MuteRow, now: datetime) -> MuteRecord:
    """A stored mute as the API shows it."""
    return MuteRecord(
        id=row.id,
        host=row.host,
        rule=row.rule,
        entity_id=row.entity_id,
        until=row.until,
        reason=row.reason,
        severity_at_mute=Severity(row.severity_at_mute) if row.severity_at_mute else None,
        created_at=row.created_at,
        created_by=row.created_by,
        active=row.until is None or row.until > now,
    )


def unexpired_mutes(session: Session, host: str | None, now: datetime) -> list[MuteRow]:
    """Unexpired mutes for `host` and every host (host None: of any host), by id."""
    query = select(MuteRow).where(or_(MuteRow.until.is_(None), MuteRow.until > now))
    if host is not None:
        query = query.where(or_(MuteRow.host.is_(None), MuteRow.host == host))
    return list(session.scalars(query.order_by(MuteRow.id)))


class MuteStore(Database):
    """The store's mutes."""

    def add_mute(
        self,
        mute: Mute,
        *,
        host: str | None = None,
        created_by: str | None = None,
        now: datetime | None = None,
    ) -> MuteRecord:
        """Store `mute` for `host` (None: every host)."""
        moment = moment_or_now(now)
        for name in ("rule", "entity_id", "reason"):
            if not getattr(mute, name).strip():
                raise StoreInputError(f"a mute needs a {name.replace('_', ' ')}")
        if host is not None and not host.strip():
            raise StoreInputError("the mute's host is empty: give a host name, or None for all")
        until = utc(mute.until) if mute.until is not None else None
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
        moment = moment_or_now(now)
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
            return rowcount(session.execute(delete(MuteRow).where(MuteRow.id == mute_id))) > 0

    def active_mutes(self, host: str, now: datetime | None = None) -> list[Mute]:
        """The unexpired mutes for `host` (its own and every host's), for `build_report`."""
        with self._reading() as session:
            return [mute_model(row) for row in unexpired_mutes(session, host, moment_or_now(now))]
