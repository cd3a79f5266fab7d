"""Competing values: quantities (what several claims measure) and each claim's rank among them.

- quantity: key, subject, measure, description;
- claim: quantity_id, rank (preferred, normal or deprecated; 'normal' for every claim already there);
- event: rank_after, and the event kind 'ranked' (claims prefer, claims deprecate);
- triggers: a claim's rank, like its tag and status, changes only after the event that sets it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

OLD_KINDS = ("imported", "updated", "retagged", "reread", "status", "verified")
NEW_KINDS = (*OLD_KINDS, "ranked")

SQLITE_RANK_TRIGGER = """
    CREATE TRIGGER claim_rank_follows_history BEFORE UPDATE OF rank ON claim
    WHEN NEW.rank IS NOT OLD.rank AND NEW.rank IS NOT (
      SELECT rank_after FROM event WHERE claim_id = NEW.id AND rank_after IS NOT NULL ORDER BY id DESC LIMIT 1)
    BEGIN
      SELECT RAISE(ABORT, 'a claim''s rank changes only with the event that sets it (claims prefer, claims deprecate)');
    END"""

POSTGRES_FUNCTION = """
    CREATE OR REPLACE FUNCTION claim_follows_history() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN RAISE EXCEPTION 'claims are never deleted: withdraw them'; END IF;
      IF NEW.id IS DISTINCT FROM OLD.id OR NEW.key IS DISTINCT FROM OLD.key THEN
        RAISE EXCEPTION 'a claim''s key never changes';
      END IF;
      IF NEW.tag IS DISTINCT FROM OLD.tag AND NEW.tag IS DISTINCT FROM (
          SELECT tag_after FROM event WHERE claim_id = NEW.id AND tag_after IS NOT NULL ORDER BY id DESC LIMIT 1) THEN
        RAISE EXCEPTION 'a claim''s tag changes only with the event that sets it (claims reread, claims retag)';
      END IF;
      IF NEW.status IS DISTINCT FROM OLD.status AND NEW.status IS DISTINCT FROM (
          SELECT status_after FROM event WHERE claim_id = NEW.id AND status_after IS NOT NULL ORDER BY id DESC LIMIT 1) THEN
        RAISE EXCEPTION 'a claim''s status changes only with the event that sets it (claims withdraw, claims supersede)';
      END IF;
      IF NEW.rank IS DISTINCT FROM OLD.rank AND NEW.rank IS DISTINCT FROM (
          SELECT rank_after FROM event WHERE claim_id = NEW.id AND rank_after IS NOT NULL ORDER BY id DESC LIMIT 1) THEN
        RAISE EXCEPTION 'a claim''s rank changes only with the event that sets it (claims prefer, claims deprecate)';
      END IF;
      RETURN NEW;
    END $$"""


def _check(kinds) -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


def _event_kinds(kinds) -> None:
    """SQLite rebuilds a table to change a CHECK: evidence's reference to event is taken off meanwhile
    (a parent table cannot be dropped under its children), and every trigger that reads event is
    dropped and made again (SQLite re-reads them all when the rebuilt table takes the old name)."""
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("ck_event_kind", "event", type_="check")
        op.create_check_constraint("ck_event_kind", "event", _check(kinds))
        return
    triggers = dict(
        op.get_bind()
        .execute(
            sa.text(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND (tbl_name = 'event' OR sql LIKE '%FROM event%')"
            )
        )
        .all()
    )
    for name in triggers:
        op.execute(f"DROP TRIGGER {name}")
    with op.batch_alter_table("evidence", recreate="always") as batch:
        batch.drop_constraint("fk_evidence_event_id_event", type_="foreignkey")
    with op.batch_alter_table("event", recreate="always") as batch:
        batch.drop_constraint("ck_event_kind", type_="check")
        batch.create_check_constraint("ck_event_kind", _check(kinds))
    with op.batch_alter_table("evidence", recreate="always") as batch:
        batch.create_foreign_key("fk_evidence_event_id_event", "event", ["event_id"], ["id"])
    for ddl in triggers.values():
        op.execute(ddl)


def upgrade() -> None:
    bind = op.get_bind()
    op.create_table(
        "quantity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("measure", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quantity") as batch:
        batch.create_index(batch.f("ix_quantity_key"), ["key"], unique=True)
    op.add_column(
        "event", sa.Column("rank_after", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    )
    _event_kinds(NEW_KINDS)
    # claim is the parent of four tables, so SQLite cannot rebuild it: the columns are added in place.
    ranks = "rank IN ('preferred', 'normal', 'deprecated')"
    if bind.dialect.name == "sqlite":
        op.execute("ALTER TABLE claim ADD COLUMN quantity_id INTEGER REFERENCES quantity (id)")
        op.execute(
            f"ALTER TABLE claim ADD COLUMN rank VARCHAR NOT NULL DEFAULT 'normal' "
            f"CONSTRAINT ck_claim_rank CHECK ({ranks})"
        )
        op.execute(SQLITE_RANK_TRIGGER)
    else:
        op.add_column("claim", sa.Column("quantity_id", sa.Integer(), nullable=True))
        op.create_foreign_key(
            "fk_claim_quantity_id_quantity", "claim", "quantity", ["quantity_id"], ["id"]
        )
        op.add_column(
            "claim",
            sa.Column(
                "rank", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="normal"
            ),
        )
        op.alter_column("claim", "rank", server_default=None)
        op.create_check_constraint("ck_claim_rank", "claim", ranks)
        op.execute(POSTGRES_FUNCTION)
    op.create_index("ix_claim_quantity_id", "claim", ["quantity_id"], unique=False)


def downgrade() -> None:
    raise NotImplementedError("0006 is not reversible: ranks are history")
