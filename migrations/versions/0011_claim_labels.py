"""A claim's grid label: claim.label, the short phrase a grid cell shows for it ("curation, dedup,
mixture"), instead of its figures; NULL for none (the cell then shows the figures as written).

A data file owns it, like the aliases. Unlike the aliases it is printed in a paper, so it is part of
what a re-read vouches for (history.content_digest covers it when it is set): a store upgraded from
0010 has no labels, its digests are unchanged and its re-reads still vouch.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("claim", sa.Column("label", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    op.drop_column("claim", "label")
