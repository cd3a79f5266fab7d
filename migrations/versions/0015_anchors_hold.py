"""Anchors are recorded only as the chain holds them: an inserted anchor row must name an event that is
there, with its digest, the count of events up to it, and (when it holds them) the people registry's
and the definitions' rows at their positions. A recorded anchor the chain no longer holds fails `claims db check` for good (the table is
append-only); without this check a PostgreSQL writer, who may insert anchors, could plant one that never
held and fail every check from then on. Only whoever can switch the triggers off (the owner, or whoever
writes the SQLite file) can still record a false one, and they can rewrite the history anyway.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

MESSAGE = (
    "an anchor records the chain as it is: its event, digest, length, people registry head and "
    "definitions head must be the ones the database holds"
)
# NEW's fields against the chain; true when the anchor does not hold (SQLite and PostgreSQL alike)
DOES_NOT_HOLD = """
    NEW.head IS DISTINCT FROM (SELECT sha256 FROM event WHERE id = NEW.event_id)
    OR NEW.length IS DISTINCT FROM (SELECT count(*) FROM event WHERE id <= NEW.event_id)
    OR (NEW.people_head IS NOT NULL AND (
        NEW.people_length IS NULL OR NEW.people_length < 1
        OR NEW.people_head IS DISTINCT FROM (
            SELECT sha256 FROM person ORDER BY id LIMIT 1 OFFSET NEW.people_length - 1)))
    OR (NEW.definitions_head IS NOT NULL AND (
        NEW.definitions_length IS NULL OR NEW.definitions_length < 1
        OR NEW.definitions_head IS DISTINCT FROM (
            SELECT sha256 FROM definition ORDER BY id LIMIT 1 OFFSET NEW.definitions_length - 1)))
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        condition = DOES_NOT_HOLD.replace("IS DISTINCT FROM", "IS NOT")
        op.execute(
            f"CREATE TRIGGER anchor_holds BEFORE INSERT ON anchor WHEN {condition} "
            f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
        )
    else:
        op.execute(
            "CREATE FUNCTION anchor_holds() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$ "
            f"BEGIN IF {DOES_NOT_HOLD} THEN RAISE EXCEPTION '{MESSAGE}'; END IF; RETURN NEW; END $$"
        )
        op.execute(
            "CREATE TRIGGER anchor_holds BEFORE INSERT ON anchor "
            "FOR EACH ROW EXECUTE FUNCTION anchor_holds()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER anchor_holds")
    else:
        op.execute("DROP TRIGGER anchor_holds ON anchor")
        op.execute("DROP FUNCTION anchor_holds()")
