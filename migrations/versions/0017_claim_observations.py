"""A claim may be an observation: claim.observation, true for a claim about no one system (a remark
across systems, about a benchmark's tasks, about the review's own pages). Such a claim is listed and
exported like any other, but is never a row of a grid of systems by stages. False for every claim of an
upgraded store; a data file sets it.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "claim",
        sa.Column("observation", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("claim", "observation")
