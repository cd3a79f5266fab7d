"""Other names of a claim's subject: claim.aliases, the short names a manuscript may use ("Open Athena"
for "Open Athena 535B", "RL stacks" for "RL training stacks"), one per line; NULL for none.

`claims lint` recognises a subject by these as by its full name. A data file owns them, like the stage.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("claim", sa.Column("aliases", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    op.drop_column("claim", "aliases")
