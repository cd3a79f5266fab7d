"""How each source was registered: source.origin, one of models.SOURCE_ORIGINS ("bibliography" for
`claims sources import`, "data-file", "by-hand" for `claims sources add`, "url" for a page named by its
URL and registered on the spot); NULL for the sources registered before this revision, whose way in
was not recorded.

`claims sources import` updates only the sources a bibliography registered: a source that came in
another way (or whose way in is unknown) is reported as a conflict instead of being changed.

Revision ID: 0012
Revises: 0010 (to be chained after 0011 when that lands)
Create Date: 2026-12-02
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("source", sa.Column("origin", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    op.drop_column("source", "origin")
