"""Definitions (claimsdb.definitions): each tag's trust level and description recorded in a hash chain of
their own, append-only (on PostgreSQL a writer may only insert), so that a tag row changed outside claims
is caught; anchors record the chain's head and length (anchor.definitions_head, definitions_length).

Every tag a store holds is defined here: the four every store starts with at a fixed time and in a fixed
order (definitions.SEEDED: every store's chain begins with the same rows), then the others by name, now,
by `claims db upgrade`; then every source and every quantity (its registered fields, by key), now, by
`claims db upgrade`.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

from claimsdb.definitions import (
    QUANTITY_FIELDS,
    SEEDED,
    SEEDED_AT,
    SOURCE_FIELDS,
    UPGRADE_ACTOR,
    chained,
    registered_fields,
    rows_for,
)
from claimsdb.models import utcnow

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

MESSAGE = "the definitions are append-only"


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    table = op.create_table(
        "definition",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", text(), nullable=False),
        sa.Column("kind", text(), nullable=False),
        sa.Column("name", text(), nullable=False),
        sa.Column("fields", text(), nullable=False),
        sa.Column("actor", text(), nullable=False),
        sa.Column("prev_sha256", text(), nullable=True),
        sa.Column("sha256", text(), nullable=False),
        sa.CheckConstraint("kind IN ('tag', 'source', 'quantity')", name="ck_definition_kind"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_definition_kind_name", "definition", ["kind", "name", "id"])
    op.add_column("anchor", sa.Column("definitions_head", text(), nullable=True))
    op.add_column("anchor", sa.Column("definitions_length", sa.Integer(), nullable=True))
    tags = {
        name: (name, trust, description or "")
        for name, trust, description in op.get_bind().execute(
            sa.text("SELECT name, trust, description FROM tag")
        )
    }
    seeded = rows_for([tags[n] for n in SEEDED if n in tags], UPGRADE_ACTOR, SEEDED_AT, None)
    head = seeded[-1]["sha256"] if seeded else None
    others = [tags[n] for n in sorted(tags) if n not in SEEDED]
    now = utcnow()
    rows = seeded + rows_for(others, UPGRADE_ACTOR, now, head)
    for kind, stored, names in (
        ("source", "source", SOURCE_FIELDS),
        ("quantity", "quantity", QUANTITY_FIELDS),
    ):
        found = op.get_bind().execute(sa.text(f"SELECT key, {', '.join(names)} FROM {stored}"))
        named = sorted((r["key"], registered_fields(kind, r)) for r in found.mappings())
        rows += chained(kind, named, UPGRADE_ACTOR, now, rows[-1]["sha256"] if rows else None)
    if rows:
        op.bulk_insert(table, rows)
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER definition_no_{action.lower()} BEFORE {action} ON definition "
                f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION definition_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER definition_append_only BEFORE UPDATE OR DELETE ON definition "
            "FOR EACH ROW EXECUTE FUNCTION definition_append_only()"
        )
        op.execute(
            "CREATE TRIGGER definition_no_truncate BEFORE TRUNCATE ON definition "
            "FOR EACH STATEMENT EXECUTE FUNCTION definition_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER definition_no_update")
        op.execute("DROP TRIGGER definition_no_delete")
    else:
        op.execute("DROP TRIGGER definition_no_truncate ON definition")
        op.execute("DROP TRIGGER definition_append_only ON definition")
        op.execute("DROP FUNCTION definition_append_only()")
    op.drop_index("ix_definition_kind_name", "definition")
    op.drop_table("definition")
    op.drop_column("anchor", "definitions_length")
    op.drop_column("anchor", "definitions_head")
