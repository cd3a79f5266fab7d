"""The event history is append-only in the database itself: UPDATE and DELETE on it are refused.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

MESSAGE = "the event history is append-only"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER event_no_{action.lower()} BEFORE {action} ON event "
                f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
    else:  # PostgreSQL
        op.execute(
            "CREATE FUNCTION event_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER event_append_only BEFORE UPDATE OR DELETE ON event "
            "FOR EACH ROW EXECUTE FUNCTION event_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER event_no_update")
        op.execute("DROP TRIGGER event_no_delete")
    else:
        op.execute("DROP TRIGGER event_append_only ON event")
        op.execute("DROP FUNCTION event_append_only()")
