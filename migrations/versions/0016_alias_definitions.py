"""A claim's aliases are defined in the definitions chain (kind "aliases", named by the claim's key), so
that names changed outside claims are caught (claimsdb.definitions): the kind is allowed, and every
claim that has aliases gets its definition now, by `claims db upgrade`.

On SQLite a CHECK constraint cannot be altered in place: the table is rebuilt with its rows as they
are (ids and digests unchanged), then its index and append-only triggers, and the anchor trigger that
reads it (0015), are created again as they were.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

from claimsdb.definitions import UPGRADE_ACTOR, alias_fields, chained
from claimsdb.models import utcnow

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

BEFORE = ("tag", "source", "quantity")
AFTER = (*BEFORE, "aliases")
COLUMNS = "id, at, kind, name, fields, actor, prev_sha256, sha256"


def _check(kinds: tuple[str, ...]) -> str:
    return f"kind IN ({', '.join(repr(k) for k in kinds)})"


def _allow(kinds: tuple[str, ...]) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        op.drop_constraint("ck_definition_kind", "definition", type_="check")
        op.create_check_constraint("ck_definition_kind", "definition", _check(kinds))
        return
    # the index, the triggers on the table and the anchor trigger that reads it, as they stand
    kept = [
        sql
        for (sql,) in bind.execute(
            sa.text(
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND "
                "(tbl_name = 'definition' AND type IN ('index', 'trigger') "
                "OR type = 'trigger' AND name = 'anchor_holds') ORDER BY type, name"
            )
        )
    ]
    op.execute("DROP TRIGGER IF EXISTS anchor_holds")
    op.execute(
        "CREATE TABLE definition_rebuilt (id INTEGER NOT NULL, at VARCHAR NOT NULL, "
        "kind VARCHAR NOT NULL, name VARCHAR NOT NULL, fields VARCHAR NOT NULL, "
        "actor VARCHAR NOT NULL, prev_sha256 VARCHAR, sha256 VARCHAR NOT NULL, "
        f"CONSTRAINT ck_definition_kind CHECK ({_check(kinds)}), PRIMARY KEY (id))"
    )
    op.execute(f"INSERT INTO definition_rebuilt ({COLUMNS}) SELECT {COLUMNS} FROM definition")
    op.execute("DROP TABLE definition")
    op.execute("ALTER TABLE definition_rebuilt RENAME TO definition")
    for sql in kept:
        op.execute(sql)


def upgrade() -> None:
    _allow(AFTER)
    bind = op.get_bind()
    aliased = sorted(
        (key, alias_fields(aliases))
        for key, aliases in bind.execute(
            sa.text("SELECT key, aliases FROM claim WHERE aliases IS NOT NULL AND aliases != ''")
        )
    )
    if not aliased:
        return
    head = bind.execute(sa.text("SELECT sha256 FROM definition ORDER BY id DESC LIMIT 1")).scalar()
    table = sa.table(
        "definition", *(sa.column(name) for name in COLUMNS.split(", ") if name != "id")
    )
    op.bulk_insert(table, chained("aliases", aliased, UPGRADE_ACTOR, utcnow(), head))


def downgrade() -> None:
    # the definitions are append-only: aliases' rows stay, and the kind stays allowed for them
    pass
