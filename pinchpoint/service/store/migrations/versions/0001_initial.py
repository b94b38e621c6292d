"""The report store: hosts, reports, inventories (by part), finding states, mutes, statistics
series.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    """A moment in UTC (the models' UtcDateTime)."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "hosts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        _time("first_seen"),
        _time("last_seen"),
        sa.Column("host_info", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hosts")),
        sa.UniqueConstraint("name", name=op.f("uq_hosts_name")),
    )
    op.create_table(
        "inventories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("format_version", sa.Integer(), nullable=False),
        sa.Column("raw_size", sa.BigInteger(), nullable=False),
        _time("created_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inventories")),
        sa.UniqueConstraint("digest", name=op.f("uq_inventories_digest")),
    )
    op.create_table(
        "inventory_parts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("raw_size", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inventory_parts")),
        sa.UniqueConstraint("digest", name=op.f("uq_inventory_parts_digest")),
    )
    op.create_table(
        "inventory_part_links",
        sa.Column("inventory_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("part_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["inventory_id"],
            ["inventories.id"],
            name=op.f("fk_inventory_part_links_inventory_id_inventories"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["part_id"],
            ["inventory_parts.id"],
            name=op.f("fk_inventory_part_links_part_id_inventory_parts"),
        ),
        sa.PrimaryKeyConstraint("inventory_id", "name", name=op.f("pk_inventory_part_links")),
    )
    op.create_index(op.f("ix_inventory_part_links_part_id"), "inventory_part_links", ["part_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        _time("generated_at"),
        _time("stored_at"),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=True),
        sa.Column("inventory_id", sa.Integer(), nullable=True),
        sa.Column("inventory_host", sa.Text(), nullable=True),
        sa.Column("critical", sa.Integer(), nullable=False),
        sa.Column("warning", sa.Integer(), nullable=False),
        sa.Column("info", sa.Integer(), nullable=False),
        sa.Column("muted", sa.Integer(), nullable=False),
        sa.Column("worst", sa.String(length=8), nullable=True),
        sa.Column("rules_evaluated", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("collection_problems", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint(
            "origin IN ('sweep', 'push', 'upload', 'cli')", name=op.f("ck_reports_origin")
        ),
        sa.ForeignKeyConstraint(["host_id"], ["hosts.id"], name=op.f("fk_reports_host_id_hosts")),
        sa.ForeignKeyConstraint(
            ["inventory_id"],
            ["inventories.id"],
            name=op.f("fk_reports_inventory_id_inventories"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
        sa.UniqueConstraint(
            "host_id", "generated_at", name=op.f("uq_reports_host_id_generated_at")
        ),
    )
    op.create_index(op.f("ix_reports_generated_at"), "reports", ["generated_at"])
    op.create_index(op.f("ix_reports_inventory_id"), "reports", ["inventory_id"])
    op.create_table(
        "finding_states",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("finding_id", sa.String(), nullable=False),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("entity_kind", sa.String(length=32), nullable=False),
        sa.Column("entity_id", sa.String(), nullable=False),
        sa.Column("entity_name", sa.String(), nullable=False),
        sa.Column("severity", sa.String(length=8), nullable=False),
        sa.Column("severity_rank", sa.SmallInteger(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("seen_streak", sa.Integer(), nullable=False),
        sa.Column("missing_streak", sa.Integer(), nullable=False),
        _time("first_seen"),
        _time("last_seen"),
        sa.Column("times_seen", sa.Integer(), nullable=False),
        _time("opened_at", nullable=True),
        _time("resolved_at", nullable=True),
        sa.Column("last_report_id", sa.Integer(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint(
            "state IN ('pending', 'open', 'resolved')", name=op.f("ck_finding_states_state")
        ),
        sa.ForeignKeyConstraint(
            ["host_id"], ["hosts.id"], name=op.f("fk_finding_states_host_id_hosts")
        ),
        sa.ForeignKeyConstraint(
            ["last_report_id"],
            ["reports.id"],
            name=op.f("fk_finding_states_last_report_id_reports"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_finding_states")),
        sa.UniqueConstraint(
            "host_id", "finding_id", name=op.f("uq_finding_states_host_id_finding_id")
        ),
    )
    op.create_index(op.f("ix_finding_states_entity_id"), "finding_states", ["entity_id"])
    op.create_index(op.f("ix_finding_states_last_report_id"), "finding_states", ["last_report_id"])
    op.create_index(op.f("ix_finding_states_rule"), "finding_states", ["rule"])
    op.create_index(
        op.f("ix_finding_states_state_severity_rank"), "finding_states", ["state", "severity_rank"]
    )
    op.create_table(
        "mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(), nullable=True),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("entity_id", sa.String(), nullable=False),
        _time("until", nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("severity_at_mute", sa.String(length=8), nullable=True),
        sa.Column("severity_rank_at_mute", sa.SmallInteger(), nullable=True),
        _time("created_at"),
        sa.Column("created_by", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mutes")),
    )
    op.create_index(op.f("ix_mutes_rule_entity_id"), "mutes", ["rule", "entity_id"])
    op.create_table(
        "series_points",
        sa.Column("host", sa.String(), nullable=False),
        sa.Column("entity", sa.String(), nullable=False),
        sa.Column("resolution_s", sa.Integer(), nullable=False),
        sa.Column("start_s", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint(
            "host", "entity", "resolution_s", "start_s", name=op.f("pk_series_points")
        ),
    )
    op.create_index(
        op.f("ix_series_points_host_resolution_s_start_s"),
        "series_points",
        ["host", "resolution_s", "start_s"],
    )


def downgrade() -> None:
    for table in (
        "series_points",
        "mutes",
        "finding_states",
        "reports",
        "inventory_part_links",
        "inventory_parts",
        "inventories",
        "hosts",
    ):
        op.drop_table(table)
