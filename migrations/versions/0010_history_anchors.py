"""Anchors of the history chain: the heads `claims db anchor` took (id, at, actor, event_id, length,
head), append-only like the events. On PostgreSQL a writer may only insert into it (`claims db grant`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

MESSAGE = "anchors are append-only"


def upgrade() -> None:
    op.create_table(
        "anchor",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("head", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER anchor_no_{action.lower()} BEFORE {action} ON anchor "
                f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION anchor_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER anchor_append_only BEFORE UPDATE OR DELETE ON anchor "
            "FOR EACH ROW EXECUTE FUNCTION anchor_append_only()"
        )
        # TRUNCATE skips row triggers: refuse it with a statement trigger
        op.execute(
            "CREATE TRIGGER anchor_no_truncate BEFORE TRUNCATE ON anchor "
            "FOR EACH STATEMENT EXECUTE FUNCTION anchor_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER anchor_no_update")
        op.execute("DROP TRIGGER anchor_no_delete")
    else:
        op.execute("DROP TRIGGER anchor_no_truncate ON anchor")
        op.execute("DROP TRIGGER anchor_append_only ON anchor")
        op.execute("DROP FUNCTION anchor_append_only()")
    op.drop_table("anchor")
