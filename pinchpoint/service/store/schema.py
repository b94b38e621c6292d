"""The store's tables, as SQLAlchemy models; `docs/store.md` describes each and
`migrations/versions/` creates them (a test checks both agree).

Bodies (reports, findings, inventory parts) are zlib-compressed JSON: the columns beside them
hold what queries filter and sort on. Every time is stored in UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """A moment in UTC: `timestamptz` in PostgreSQL, a naive UTC text in SQLite; a naive
    datetime given is taken as UTC, and every datetime read back is aware (UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class HostRow(Base):
    """Every host that sent a report."""

    __tablename__ = "hosts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    host_info: Mapped[str | None] = mapped_column(Text)  # HostInfo JSON of its newest report
    # the fleet facts kept of it (`fleet_facts`): their sha256, and the report they are of
    fleet_digest: Mapped[str | None] = mapped_column(String(64))
    fleet_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class InventoryPartRow(Base):
    """One part of an inventory (`sas`, `block`, `health` …), stored once per content."""

    __tablename__ = "inventory_parts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the JSON
    name: Mapped[str] = mapped_column(String(32))
    raw_size: Mapped[int] = mapped_column(BigInteger)  # bytes of JSON before compression
    body: Mapped[bytes] = mapped_column(LargeBinary)


class InventoryRow(Base):
    """An inventory without its host: the list of its parts, stored once per content."""

    __tablename__ = "inventories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the part digests
    format_version: Mapped[int] = mapped_column(Integer)
    raw_size: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class InventoryPartLinkRow(Base):
    """Which part an inventory holds under which name."""

    __tablename__ = "inventory_part_links"

    inventory_id: Mapped[int] = mapped_column(
        ForeignKey("inventories.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    part_id: Mapped[int] = mapped_column(ForeignKey("inventory_parts.id"), index=True)


class ReportRow(Base):
    """One report of one host: its summary as columns, the whole report compressed."""

    __tablename__ = "reports"
    __table_args__ = (
        UniqueConstraint("host_id", "generated_at"),
        CheckConstraint("origin IN ('sweep', 'push', 'upload', 'cli')", name="origin"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_id: Mapped[int] = mapped_column(ForeignKey("hosts.id"))
    generated_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    stored_at: Mapped[datetime] = mapped_column(UtcDateTime)
    origin: Mapped[str] = mapped_column(String(16))
    duration_s: Mapped[float | None] = mapped_column(Float)
    inventory_id: Mapped[int | None] = mapped_column(ForeignKey("inventories.id"), index=True)
    inventory_host: Mapped[str | None] = mapped_column(Text)  # the inventory's HostInfo JSON
    critical: Mapped[int] = mapped_column(Integer)
    warning: Mapped[int] = mapped_column(Integer)
    info: Mapped[int] = mapped_column(Integer)
    muted: Mapped[int] = mapped_column(Integer)
    worst: Mapped[str | None] = mapped_column(String(8))
    rules_evaluated: Mapped[int] = mapped_column(Integer)
    skipped: Mapped[int] = mapped_column(Integer)
    collection_problems: Mapped[int] = mapped_column(Integer)
    body: Mapped[bytes] = mapped_column(LargeBinary)  # the Report, JSON, zlib


class FindingStateRow(Base):
    """One finding of one host across its reports (`pinchpoint/service/findings_state.py`)."""

    __tablename__ = "finding_states"
    __table_args__ = (
        UniqueConstraint("host_id", "finding_id"),
        CheckConstraint("state IN ('pending', 'open', 'resolved')", name="state"),
        Index(None, "state", "severity_rank"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_id: Mapped[int] = mapped_column(ForeignKey("hosts.id"))
    finding_id: Mapped[str] = mapped_column(String)
    rule: Mapped[str] = mapped_column(String, index=True)
    category: Mapped[str] = mapped_column(String(32))
    entity_kind: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[str] = mapped_column(String, index=True)
    entity_name: Mapped[str] = mapped_column(String)
    severity: Mapped[str] = mapped_column(String(8))
    severity_rank: Mapped[int] = mapped_column(SmallInteger)
    state: Mapped[str] = mapped_column(String(8))
    seen_streak: Mapped[int] = mapped_column(Integer)  # consecutive reports holding it
    missing_streak: Mapped[int] = mapped_column(Integer)  # consecutive reports without it
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    times_seen: Mapped[int] = mapped_column(Integer)
    opened_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_report_id: Mapped[int | None] = mapped_column(
        ForeignKey("reports.id", ondelete="SET NULL"), index=True
    )
    body: Mapped[bytes] = mapped_column(LargeBinary)  # the last Finding, JSON, zlib


class MuteRow(Base):
    """A mute for one host (`host`) or every host (`host` NULL)."""

    __tablename__ = "mutes"
    __table_args__ = (Index(None, "rule", "entity_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host: Mapped[str | None] = mapped_column(String)
    rule: Mapped[str] = mapped_column(String)
    entity_id: Mapped[str] = mapped_column(String)
    until: Mapped[datetime | None] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)
    severity_at_mute: Mapped[str | None] = mapped_column(String(8))
    severity_rank_at_mute: Mapped[int | None] = mapped_column(SmallInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_by: Mapped[str | None] = mapped_column(String)


class SeriesPointRow(Base):
    """One statistics point: an entity of a host over one bucket of one resolution."""

    __tablename__ = "series_points"
    __table_args__ = (Index(None, "host", "resolution_s", "start_s"),)

    host: Mapped[str] = mapped_column(String, primary_key=True)
    entity: Mapped[str] = mapped_column(String, primary_key=True)
    resolution_s: Mapped[int] = mapped_column(Integer, primary_key=True)
    start_s: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    body: Mapped[str] = mapped_column(Text)  # the SeriesPoint, JSON


class FleetFactRow(Base):
    """A host's fleet facts of one group (`model/fleet.py`): its NICs of one driver and model,
    or its devices of one kind and model, from its newest inventory; what the fleet rules
    compare across hosts, so that they never read inventories."""

    __tablename__ = "fleet_facts"
    __table_args__ = (Index(None, "kind", "group_key"),)

    host_id: Mapped[int] = mapped_column(
        ForeignKey("hosts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # "nic" or "model"
    group_key: Mapped[str] = mapped_column(String, primary_key=True)  # the group's identity, JSON
    body: Mapped[str] = mapped_column(Text)  # the host's FleetNic list or FleetModel, JSON


class FleetFindingRow(Base):
    """One finding of the fleet rules, kept up to date by the pushes that change its group."""

    __tablename__ = "fleet_findings"
    __table_args__ = (
        UniqueConstraint("finding_id"),
        CheckConstraint("state IN ('open', 'resolved')", name="state"),
        Index(None, "kind", "group_key"),
        Index(None, "state", "severity_rank"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_id: Mapped[int] = mapped_column(ForeignKey("hosts.id", ondelete="CASCADE"), index=True)
    finding_id: Mapped[str] = mapped_column(String)
    rule: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String(16))  # the group it was judged in (fleet_facts)
    group_key: Mapped[str] = mapped_column(String)
    entity_id: Mapped[str] = mapped_column(String)
    entity_name: Mapped[str] = mapped_column(String)
    severity: Mapped[str] = mapped_column(String(8))
    severity_rank: Mapped[int] = mapped_column(SmallInteger)
    state: Mapped[str] = mapped_column(String(8))
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen: Mapped[datetime] = mapped_column(UtcDateTime)
    body: Mapped[bytes] = mapped_column(LargeBinary)  # the Finding, JSON, zlib


class FleetBaselineRow(Base):
    """One group's baseline (`rules/derived/fleet_baselines.py`): what the fleet rules judge
    each member of the group against, moved by the push that changes one member's facts."""

    __tablename__ = "fleet_baselines"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # as in fleet_facts
    group_key: Mapped[str] = mapped_column(String, primary_key=True)
    body: Mapped[str] = mapped_column(Text)  # the NicBaseline or ModelBaseline, JSON


class FleetGenerationRow(Base):
    """The store's fleet generation, one row: bumped in every transaction that changes the
    fleet findings, so that each central instance knows when its kept answer is stale."""

    __tablename__ = "fleet_generation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # always 1
    value: Mapped[int] = mapped_column(BigInteger)


class JobRunRow(Base):
    """When a scheduled job that concerns the whole store (prune, the daily report) last
    started: several instances over one database run each firing once."""

    __tablename__ = "job_runs"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    instance: Mapped[str] = mapped_column(String)  # who ran it: host name and process id
