"""The history becomes the truth: a hash chain of events, and triggers that keep the claim's cached
tag and status in step with it.

- event: status_after, content_sha256, prev_sha256 and sha256 (NOT NULL), filled in for the events
  already there (in id order, so the chain starts with the oldest event);
- evidence.event_id: the re-read that added a piece of evidence; the pages of earlier re-reads are
  linked to their claims here, as `claims reread` now does;
- source: authors, accessed;
- triggers: an event must extend the chain; claims, tags, events, snapshots and verifications are never
  replaced (INSERT OR REPLACE) or deleted; a claim's tag and status change only after the event that
  sets them; a tag's trust never changes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

import json

import sqlalchemy as sa
import sqlmodel
from alembic import op

from claimsdb.history import content_digest, event_digest

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

APPEND_ONLY = "the {table} table is append-only"

SQLITE_TRIGGERS = {
    # INSERT OR REPLACE deletes the old row without firing DELETE triggers: refuse inserts over an existing row.
    "event_insert_guard": """
        CREATE TRIGGER event_insert_guard BEFORE INSERT ON event BEGIN
          SELECT RAISE(ABORT, 'the event history is append-only') WHERE EXISTS (SELECT 1 FROM event WHERE id = NEW.id);
          SELECT RAISE(ABORT, 'an event needs its sha256') WHERE NEW.sha256 IS NULL;
          SELECT RAISE(ABORT, 'an event must extend the history chain: prev_sha256 must be the latest event''s sha256')
            WHERE NEW.prev_sha256 IS NOT (SELECT sha256 FROM event ORDER BY id DESC LIMIT 1);
        END""",
    "snapshot_insert_guard": """
        CREATE TRIGGER snapshot_insert_guard BEFORE INSERT ON snapshot BEGIN
          SELECT RAISE(ABORT, 'the snapshot table is append-only') WHERE EXISTS (SELECT 1 FROM snapshot WHERE id = NEW.id);
        END""",
    "verification_insert_guard": """
        CREATE TRIGGER verification_insert_guard BEFORE INSERT ON verification BEGIN
          SELECT RAISE(ABORT, 'the verification table is append-only')
            WHERE EXISTS (SELECT 1 FROM verification WHERE id = NEW.id);
        END""",
    "claim_insert_guard": """
        CREATE TRIGGER claim_insert_guard BEFORE INSERT ON claim BEGIN
          SELECT RAISE(ABORT, 'claims are never replaced')
            WHERE EXISTS (SELECT 1 FROM claim WHERE id = NEW.id OR key = NEW.key);
        END""",
    "claim_no_delete": """
        CREATE TRIGGER claim_no_delete BEFORE DELETE ON claim BEGIN
          SELECT RAISE(ABORT, 'claims are never deleted: withdraw them');
        END""",
    "claim_key_fixed": """
        CREATE TRIGGER claim_key_fixed BEFORE UPDATE OF id, key ON claim
        WHEN NEW.id IS NOT OLD.id OR NEW.key IS NOT OLD.key BEGIN
          SELECT RAISE(ABORT, 'a claim''s key never changes');
        END""",
    "claim_tag_follows_history": """
        CREATE TRIGGER claim_tag_follows_history BEFORE UPDATE OF tag ON claim
        WHEN NEW.tag IS NOT OLD.tag AND NEW.tag IS NOT (
          SELECT tag_after FROM event WHERE claim_id = NEW.id AND tag_after IS NOT NULL ORDER BY id DESC LIMIT 1)
        BEGIN
          SELECT RAISE(ABORT, 'a claim''s tag changes only with the event that sets it (claims reread, claims retag)');
        END""",
    "claim_status_follows_history": """
        CREATE TRIGGER claim_status_follows_history BEFORE UPDATE OF status ON claim
        WHEN NEW.status IS NOT OLD.status AND NEW.status IS NOT (
          SELECT status_after FROM event WHERE claim_id = NEW.id AND status_after IS NOT NULL ORDER BY id DESC LIMIT 1)
        BEGIN
          SELECT RAISE(ABORT, 'a claim''s status changes only with the event that sets it (claims withdraw, claims supersede)');
        END""",
    "tag_insert_guard": """
        CREATE TRIGGER tag_insert_guard BEFORE INSERT ON tag BEGIN
          SELECT RAISE(ABORT, 'tags are never replaced') WHERE EXISTS (SELECT 1 FROM tag WHERE name = NEW.name);
        END""",
    "tag_no_delete": """
        CREATE TRIGGER tag_no_delete BEFORE DELETE ON tag BEGIN
          SELECT RAISE(ABORT, 'tags are never deleted');
        END""",
    "tag_trust_fixed": """
        CREATE TRIGGER tag_trust_fixed BEFORE UPDATE OF name, trust ON tag
        WHEN NEW.name IS NOT OLD.name OR NEW.trust IS NOT OLD.trust BEGIN
          SELECT RAISE(ABORT, 'a tag''s name and trust level never change');
        END""",
}

POSTGRES_FUNCTIONS = {
    "event_extends_chain": """
        CREATE FUNCTION event_extends_chain() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock(109317141917043);
          IF NEW.sha256 IS NULL THEN RAISE EXCEPTION 'an event needs its sha256'; END IF;
          IF NEW.prev_sha256 IS DISTINCT FROM (SELECT sha256 FROM event ORDER BY id DESC LIMIT 1) THEN
            RAISE EXCEPTION 'an event must extend the history chain: prev_sha256 must be the latest event''s sha256';
          END IF;
          RETURN NEW;
        END $$""",
    "claim_follows_history": """
        CREATE FUNCTION claim_follows_history() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
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
          RETURN NEW;
        END $$""",
    "tag_trust_fixed": """
        CREATE FUNCTION tag_trust_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN RAISE EXCEPTION 'tags are never deleted'; END IF;
          IF NEW.name IS DISTINCT FROM OLD.name OR NEW.trust IS DISTINCT FROM OLD.trust THEN
            RAISE EXCEPTION 'a tag''s name and trust level never change';
          END IF;
          RETURN NEW;
        END $$""",
}
POSTGRES_TRIGGERS = {
    "event_extends_chain": "CREATE TRIGGER event_extends_chain BEFORE INSERT ON event "
    "FOR EACH ROW EXECUTE FUNCTION event_extends_chain()",
    "claim_follows_history": "CREATE TRIGGER claim_follows_history BEFORE UPDATE OR DELETE ON claim "
    "FOR EACH ROW EXECUTE FUNCTION claim_follows_history()",
    "tag_trust_fixed": "CREATE TRIGGER tag_trust_fixed BEFORE UPDATE OR DELETE ON tag "
    "FOR EACH ROW EXECUTE FUNCTION tag_trust_fixed()",
}


def _sqlite(bind) -> bool:
    return bind.dialect.name == "sqlite"


def _event_triggers(create: bool) -> None:
    """The append-only triggers of 0002 (dropped while the new columns are filled in)."""
    if _sqlite(op.get_bind()):
        for action in ("UPDATE", "DELETE"):
            op.execute(f"DROP TRIGGER IF EXISTS event_no_{action.lower()}")
            if create:
                op.execute(
                    f"CREATE TRIGGER event_no_{action.lower()} BEFORE {action} ON event "
                    "BEGIN SELECT RAISE(ABORT, 'the event history is append-only'); END"
                )
    elif create:
        op.execute(
            "CREATE TRIGGER event_append_only BEFORE UPDATE OR DELETE ON event "
            "FOR EACH ROW EXECUTE FUNCTION event_append_only()"
        )
    else:
        op.execute("DROP TRIGGER IF EXISTS event_append_only ON event")


def _status_changes(detail: dict, kind: str) -> tuple[str, str] | None:
    """(before, after) of a status change recorded by an event of 0001–0004, if it made one."""
    if kind == "status" and isinstance(detail.get("status"), list):
        before, after = detail["status"]
        return before, after
    change = (detail.get("changes") or {}).get("status") if kind == "updated" else None
    if change:
        return change[0][0], change[1][0]
    return None


def _backfill(bind) -> list[dict]:
    """Fill the new event columns for every existing event; return the evidence rows to link re-reads."""
    claims = {
        r.id: r
        for r in bind.execute(sa.text("SELECT id, key, subject, statement, status FROM claim"))
    }
    source_ids = dict(bind.execute(sa.text("SELECT key, id FROM source")).all())
    source_keys = {v: k for k, v in source_ids.items()}
    figures: dict[int, list] = {}
    for r in bind.execute(
        sa.text("SELECT claim_id, raw, name FROM figure ORDER BY claim_id, position")
    ):
        figures.setdefault(r.claim_id, []).append((r.raw, r.name))
    evidence: dict[int, list] = {}
    for r in bind.execute(
        sa.text(
            "SELECT claim_id, source_id, position, locator, quote FROM evidence ORDER BY claim_id, position"
        )
    ):
        evidence.setdefault(r.claim_id, []).append(
            [r.position, source_keys[r.source_id], r.locator, r.quote]
        )
    events = [
        dict(r._mapping)
        for r in bind.execute(
            sa.text(
                "SELECT id, claim_id, at, kind, actor, tag_before, tag_after, origin, detail FROM event ORDER BY id"
            )
        )
    ]
    by_claim: dict[int, list[dict]] = {}
    for e in events:
        e["detail_json"] = json.loads(e["detail"]) if e["detail"] else {}
        by_claim.setdefault(e["claim_id"], []).append(e)

    new_evidence = []
    for claim_id, evs in by_claim.items():
        cited = evidence.setdefault(claim_id, [])
        for e in evs:
            if e["kind"] != "reread" or e["origin"] not in source_ids:
                continue
            d = e["detail_json"]
            locator, quote = d.get("locator"), d.get("quote")
            already = any(
                src == e["origin"] and (loc, q) == (locator, quote) for _, src, loc, q in cited
            ) or (
                locator is None
                and quote is None
                and any(src == e["origin"] for _, src, _l, _q in cited)
            )
            if not already:
                position = max((p for p, *_ in cited), default=-1) + 1
                cited.append([position, e["origin"], locator, quote])
                new_evidence.append(
                    {
                        "claim_id": claim_id,
                        "source_id": source_ids[e["origin"]],
                        "position": position,
                        "locator": locator,
                        "quote": quote,
                        "event_id": e["id"],
                    }
                )
        # status_after: the status each status-setting event left behind
        changes = [(e, _status_changes(e["detail_json"], e["kind"])) for e in evs]
        later = next((c for _, c in changes if c is not None), None)
        for e, change in changes:
            if change is not None:
                e["status_after"] = change[1]
            elif e["kind"] == "imported":
                e["status_after"] = later[0] if later else claims[claim_id].status
        # content: the latest event that wrote content carries the claim's content as it is now
        last = next(
            (e for e in reversed(evs) if e["kind"] in ("imported", "updated", "reread")), None
        )
        if last is not None:
            c = claims[claim_id]
            last["content_sha256"] = content_digest(
                c.subject,
                c.statement,
                figures.get(claim_id, []),
                [(src, loc, q) for _, src, loc, q in sorted(cited)],
            )

    prev = None
    for e in events:
        e.setdefault("status_after", None)
        e.setdefault("content_sha256", None)
        e["prev_sha256"] = prev
        e["sha256"] = prev = event_digest(claims[e["claim_id"]].key, e)
        bind.execute(
            sa.text(
                "UPDATE event SET status_after = :status_after, content_sha256 = :content_sha256, "
                "prev_sha256 = :prev_sha256, sha256 = :sha256 WHERE id = :id"
            ),
            {k: e[k] for k in ("status_after", "content_sha256", "prev_sha256", "sha256", "id")},
        )
    return new_evidence


def upgrade() -> None:
    bind = op.get_bind()
    _event_triggers(create=False)
    for name in ("status_after", "content_sha256", "prev_sha256", "sha256"):
        op.add_column("event", sa.Column(name, sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column("source", sa.Column("authors", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column(
        "source", sa.Column("accessed", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    )

    new_evidence = _backfill(bind)

    # Nothing refers to event yet, so SQLite may rebuild it to make sha256 NOT NULL.
    with op.batch_alter_table("event") as batch:
        batch.alter_column(
            "sha256", existing_type=sqlmodel.sql.sqltypes.AutoString(), nullable=False
        )
    with op.batch_alter_table("evidence") as batch:
        batch.add_column(sa.Column("event_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_evidence_event_id_event", "event", ["event_id"], ["id"])
    if new_evidence:
        evidence = sa.table("evidence", *(sa.column(c) for c in new_evidence[0]))
        op.bulk_insert(evidence, new_evidence)

    _event_triggers(create=True)
    if _sqlite(bind):
        for ddl in SQLITE_TRIGGERS.values():
            op.execute(ddl)
    else:
        for name, ddl in POSTGRES_FUNCTIONS.items():
            op.execute(ddl)
            op.execute(POSTGRES_TRIGGERS[name])


def downgrade() -> None:
    bind = op.get_bind()
    if _sqlite(bind):
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        for name in POSTGRES_TRIGGERS:
            table = {
                "event_extends_chain": "event",
                "claim_follows_history": "claim",
                "tag_trust_fixed": "tag",
            }[name]
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.execute("DELETE FROM evidence WHERE event_id IS NOT NULL")
    with op.batch_alter_table("evidence") as batch:
        batch.drop_constraint("fk_evidence_event_id_event", type_="foreignkey")
        batch.drop_column("event_id")
    _event_triggers(create=False)
    with op.batch_alter_table("event") as batch:
        for name in ("sha256", "prev_sha256", "content_sha256", "status_after"):
            batch.drop_column(name)
    _event_triggers(create=True)
    with op.batch_alter_table("source") as batch:
        batch.drop_column("accessed")
        batch.drop_column("authors")
