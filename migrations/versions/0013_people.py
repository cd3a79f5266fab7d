"""The people registry (trust.people): who may vouch for a figure, with the public keys their re-reads are
signed with; append-only and hash-chained like the history. On PostgreSQL a writer may only insert into it.
Anchors record its head and length beside the history's (anchor.people_head, anchor.people_length).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

MESSAGE = "the people registry is append-only"


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        "person",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", text(), nullable=False),
        sa.Column("kind", text(), nullable=False),
        sa.Column("name", text(), nullable=False),
        sa.Column("key", text(), nullable=True),
        sa.Column("fingerprint", text(), nullable=True),
        sa.Column("actor", text(), nullable=False),
        sa.Column("signer", text(), nullable=True),
        sa.Column("signature", text(), nullable=True),
        sa.Column("prev_sha256", text(), nullable=True),
        sa.Column("sha256", text(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('added', 'removed', 'passkey', 'required')", name="ck_person_kind"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    # an anchor holds the registry's head too: cutting the registry's last rows is caught like the history's
    op.add_column("anchor", sa.Column("people_head", text(), nullable=True))
    op.add_column("anchor", sa.Column("people_length", sa.Integer(), nullable=True))
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER person_no_{action.lower()} BEFORE {action} ON person "
                f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION person_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER person_append_only BEFORE UPDATE OR DELETE ON person "
            "FOR EACH ROW EXECUTE FUNCTION person_append_only()"
        )
        op.execute(
            "CREATE TRIGGER person_no_truncate BEFORE TRUNCATE ON person "
            "FOR EACH STATEMENT EXECUTE FUNCTION person_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER person_no_update")
        op.execute("DROP TRIGGER person_no_delete")
    else:
        op.execute("DROP TRIGGER person_no_truncate ON person")
        op.execute("DROP TRIGGER person_append_only ON person")
        op.execute("DROP FUNCTION person_append_only()")
    op.drop_table("person")
    op.drop_column("anchor", "people_length")
    op.drop_column("anchor", "people_head")
