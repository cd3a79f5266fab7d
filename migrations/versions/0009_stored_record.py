"""Every column a reader or a check depends on is covered, and claims are never replaced.

- event.stored_sha256: the claim's stored record after the event (history.stored_digest: each figure's
  parsed columns, raw text and name, and the claim's stage, basis, section and quantity), recorded by
  every import event from now on and checked on every read;
- the event kind 'sealed', and one sealed event appended to each claim already there: earlier releases
  recorded no stored record, so the rows are recorded as they stand at the upgrade, with a list of the
  figures whose columns differ from what the parser now reads in their raw text (a data file's explicit
  fields, a parser that read them otherwise, or an edit made before the upgrade), for a person to see
  what was taken on trust;
- claim_insert_guard (SQLite and PostgreSQL): an INSERT of a claim whose key or id exists is refused,
  so INSERT OR REPLACE, REPLACE and upserts cannot rewrite a claim, in any client and whatever its
  settings (SQLite fires no DELETE trigger for REPLACE unless recursive_triggers is on). 0007 dropped
  the guard for the speed of imports; it now probes the key's and the id's indexes, no scan.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

import json
import re
from functools import lru_cache

import sqlalchemy as sa
import sqlmodel
from alembic import op

from claimsdb.figures import FigureError, parse
from claimsdb.history import STORED_FIGURE_COLUMNS, event_digest, stored_digest
from claimsdb.models import utcnow

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

SEALED = "sealed"
SEAL_ACTOR = "claimsdb"
SEAL_REASON = "the upgrade to schema 0009 recorded the stored record as it stood"
CHUNK = 2000
NUMBERS = ("value", "low", "high", "start", "end", "active")
REPLACED = (
    "claims are never replaced: an INSERT over an existing claim (INSERT OR REPLACE, REPLACE, "
    "an upsert) is refused"
)

SQLITE_CLAIM_GUARD = f"""
    CREATE TRIGGER claim_insert_guard BEFORE INSERT ON claim BEGIN
      SELECT RAISE(ABORT, '{REPLACED}') WHERE EXISTS (SELECT 1 FROM claim WHERE key = NEW.key);
      SELECT RAISE(ABORT, '{REPLACED}') WHERE EXISTS (SELECT 1 FROM claim WHERE id = NEW.id);
    END"""
POSTGRES_CLAIM_GUARD = f"""
    CREATE FUNCTION claim_insert_guard() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM claim WHERE key = NEW.key) OR EXISTS (SELECT 1 FROM claim WHERE id = NEW.id) THEN
        RAISE EXCEPTION '{REPLACED}';
      END IF;
      RETURN NEW;
    END $$"""
POSTGRES_CLAIM_TRIGGER = (
    "CREATE TRIGGER claim_insert_guard BEFORE INSERT ON claim "
    "FOR EACH ROW EXECUTE FUNCTION claim_insert_guard()"
)


def _kinds(bind) -> list[str]:
    """The event kinds the database allows now (read from its own constraint, so that a revision
    before this one that added a kind keeps it)."""
    if bind.dialect.name == "sqlite":
        table = bind.execute(
            sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'event'")
        ).scalar()
        found = re.search(r"ck_event_kind\s+CHECK\s*\((.*?)\)\s*\)", table, re.S)
    else:
        definition = bind.execute(
            sa.text(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'ck_event_kind'"
            )
        ).scalar()
        found = re.search(r"(.*)", definition, re.S) if definition else None
    kinds = re.findall(r"'([^']+)'", found.group(1)) if found else []
    if not kinds:
        raise RuntimeError(
            "cannot read the event kinds the database allows (constraint ck_event_kind)"
        )
    return kinds


def _check(kinds) -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


def _event_table(kinds) -> None:
    """event gets stored_sha256 and the kind 'sealed'. SQLite rebuilds a table to change a CHECK: as in
    0006, evidence's reference to event is taken off meanwhile, and every trigger is dropped and made
    again (any of them may read event, and SQLite re-reads them all when the rebuilt table takes the
    old name)."""
    bind = op.get_bind()
    column = sa.Column("stored_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    if bind.dialect.name != "sqlite":
        op.add_column("event", column)
        op.drop_constraint("ck_event_kind", "event", type_="check")
        op.create_check_constraint("ck_event_kind", "event", _check(kinds))
        return
    triggers = dict(
        bind.execute(sa.text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")).all()
    )
    for name in triggers:
        op.execute(f"DROP TRIGGER {name}")
    with op.batch_alter_table("evidence", recreate="always") as batch:
        batch.drop_constraint("fk_evidence_event_id_event", type_="foreignkey")
    with op.batch_alter_table("event", recreate="always") as batch:
        batch.add_column(column)
        batch.drop_constraint("ck_event_kind", type_="check")
        batch.create_check_constraint("ck_event_kind", _check(kinds))
    with op.batch_alter_table("evidence", recreate="always") as batch:
        batch.create_foreign_key("fk_evidence_event_id_event", "event", ["event_id"], ["id"])
    for ddl in triggers.values():
        op.execute(ddl)


_parse = lru_cache(maxsize=4096)(parse)


def _not_as_parsed(position: int, row) -> dict | None:
    """How a stored figure differs from what the parser now reads in its raw text (None: it does not)."""
    columns = ("kind", "comparator", *NUMBERS, "steps", "unit", "counted")
    stored = {
        **{k: row[k] for k in columns},
        "steps": json.loads(row["steps"]) if row["steps"] else [],
    }
    try:
        q = _parse(row["raw"])
    except FigureError as exc:
        return {
            "figure": position + 1,
            "raw": row["raw"],
            "parser": f"cannot read it: {exc.reason}",
            "stored": {k: v for k, v in stored.items() if v not in (None, [])},
        }
    parsed = {k: list(q.steps) if k == "steps" else getattr(q, k) for k in columns}
    differs = {k: [stored[k], parsed[k]] for k in parsed if _norm(stored[k]) != _norm(parsed[k])}
    return (
        {"figure": position + 1, "raw": row["raw"], "stored_and_parsed": differs}
        if differs
        else None
    )


def _norm(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) + 0.0
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _seal(bind) -> None:
    """Append a sealed event to every claim, recording its stored record as it stands."""
    claims = bind.execute(
        sa.text("SELECT id, key, stage, basis, section, quantity_id FROM claim ORDER BY id")
    ).all()
    if not claims:
        return
    columns = ", ".join(f'"{c}"' for c in STORED_FIGURE_COLUMNS)  # "end" is a keyword
    figures: dict[int, list] = {}
    for r in bind.execute(
        sa.text(f"SELECT claim_id, position, {columns} FROM figure ORDER BY claim_id, position")
    ):
        figures.setdefault(r.claim_id, []).append(r._mapping)
    prev = bind.execute(sa.text("SELECT sha256 FROM event ORDER BY id DESC LIMIT 1")).scalar()
    at = utcnow()
    event = sa.table(
        "event",
        *(
            sa.column(c)
            for c in (
                "claim_id",
                "at",
                "kind",
                "actor",
                "tag_before",
                "tag_after",
                "status_after",
                "rank_after",
                "origin",
                "detail",
                "content_sha256",
                "stored_sha256",
                "prev_sha256",
                "sha256",
            )
        ),
    )
    rows = []
    for c in claims:
        rows_of = figures.get(c.id, [])
        differ = [d for d in (_not_as_parsed(i, f) for i, f in enumerate(rows_of)) if d is not None]
        detail = {"reason": SEAL_REASON, **({"figures_not_as_parsed": differ} if differ else {})}
        row = {
            "claim_id": c.id,
            "at": at,
            "kind": SEALED,
            "actor": SEAL_ACTOR,
            "tag_before": None,
            "tag_after": None,
            "status_after": None,
            "rank_after": None,
            "origin": None,
            "detail": json.dumps(detail, ensure_ascii=False),
            "content_sha256": None,
            "stored_sha256": stored_digest(c.stage, c.basis, c.section, c.quantity_id, rows_of),
            "prev_sha256": prev,
        }
        row["sha256"] = prev = event_digest(c.key, row)
        rows.append(row)
        if len(rows) == CHUNK:
            bind.execute(event.insert(), rows)
            rows = []
    if rows:
        bind.execute(event.insert(), rows)


def upgrade() -> None:
    bind = op.get_bind()
    kinds = _kinds(bind)
    _event_table([*kinds, *([SEALED] if SEALED not in kinds else [])])
    _seal(bind)
    if bind.dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS claim_insert_guard")
        op.execute(SQLITE_CLAIM_GUARD)
    else:
        op.execute(POSTGRES_CLAIM_GUARD)
        op.execute(POSTGRES_CLAIM_TRIGGER)


def downgrade() -> None:
    raise NotImplementedError("0009 is not reversible: the sealed events are history")
