"""Fleet facts and fleet findings: what the fleet rules compare, kept per host and group when
a report is stored, and their findings as rows; when each store-wide scheduled job last ran, so
that several central instances run each firing once (`docs/store.md`).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    """A moment in UTC (the models' UtcDateTime)."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.add_column("hosts", sa.Column("fleet_digest", sa.String(length=64), nullable=True))
    op.add_column("hosts", _time("fleet_at", nullable=True))
    op.create_table(
        "fleet_facts",
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("group_key", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["host_id"], ["hosts.id"], name=op.f("fk_fleet_facts_host_id_hosts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("host_id", "kind", "group_key", name=op.f("pk_fleet_facts")),
    )
    op.create_index(op.f("ix_fleet_facts_kind_group_key"), "fleet_facts", ["kind", "group_key"])
    op.create_table(
        "fleet_findings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("finding_id", sa.String(), nullable=False),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("group_key", sa.String(), nullable=False),
        sa.Column("entity_id", sa.String(), nullable=False),
        sa.Column("entity_name", sa.String(), nullable=False),
        sa.Column("severity", sa.String(length=8), nullable=False),
        sa.Column("severity_rank", sa.SmallInteger(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        _time("first_seen"),
        _time("last_seen"),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint("state IN ('open', 'resolved')", name=op.f("ck_fleet_findings_state")),
        sa.ForeignKeyConstraint(
            ["host_id"],
            ["hosts.id"],
            name=op.f("fk_fleet_findings_host_id_hosts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fleet_findings")),
        sa.UniqueConstraint("finding_id", name=op.f("uq_fleet_findings_finding_id")),
    )
    op.create_index(op.f("ix_fleet_findings_host_id"), "fleet_findings", ["host_id"])
    op.create_index(
        op.f("ix_fleet_findings_kind_group_key"), "fleet_findings", ["kind", "group_key"]
    )
    op.create_index(
        op.f("ix_fleet_findings_state_severity_rank"), "fleet_findings", ["state", "severity_rank"]
    )
    op.create_table(
        "job_runs",
        sa.Column("name", sa.String(length=32), nullable=False),
        _time("started_at"),
        sa.Column("instance", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_job_runs")),
    )


def downgrade() -> None:
    op.drop_table("job_runs")
    op.drop_table("fleet_findings")
    op.drop_table("fleet_facts")
    with op.batch_alter_table("hosts") as batch:
        batch.drop_column("fleet_at")
        batch.drop_column("fleet_digest")
