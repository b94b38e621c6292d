"""Fleet baselines and the fleet generation: each group's baseline (what the fleet rules judge
its members against), so that a push judges the host it changes and not the whole group; and a
one-row counter bumped by every change of the fleet findings, so that each central instance
serves its kept answer until another instance's push moves it (`docs/store.md`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "fleet_baselines",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("group_key", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "group_key", name=op.f("pk_fleet_baselines")),
    )
    generation = op.create_table(
        "fleet_generation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fleet_generation")),
    )
    op.bulk_insert(generation, [{"id": 1, "value": 0}])


def downgrade() -> None:
    op.drop_table("fleet_generation")
    op.drop_table("fleet_baselines")
