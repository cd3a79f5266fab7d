"""Verification outcomes for per-figure checks: rounded, partial and nothing-to-check.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

OLD = ("confirmed", "reworded", "figure-changed", "not-found", "unreachable")
NEW = (
    "confirmed",
    "reworded",
    "rounded",
    "partial",
    "figure-changed",
    "not-found",
    "nothing-to-check",
    "unreachable",
)


def _check(outcomes: tuple[str, ...]) -> str:
    return "outcome IN (" + ", ".join(f"'{o}'" for o in outcomes) + ")"


def _set_outcomes(outcomes: tuple[str, ...]) -> None:
    if op.get_bind().dialect.name == "sqlite":
        # SQLite cannot alter a CHECK constraint: the table is rebuilt, which drops its triggers,
        # so the append-only triggers are created again afterwards.
        with op.batch_alter_table("verification", recreate="always") as batch:
            batch.drop_constraint("ck_verification_outcome", type_="check")
            batch.create_check_constraint("ck_verification_outcome", _check(outcomes))
        for action in ("UPDATE", "DELETE"):
            op.execute(f"DROP TRIGGER IF EXISTS verification_no_{action.lower()}")
            op.execute(
                f"CREATE TRIGGER verification_no_{action.lower()} BEFORE {action} ON verification "
                "BEGIN SELECT RAISE(ABORT, 'the verification table is append-only'); END"
            )
    else:
        op.drop_constraint("ck_verification_outcome", "verification", type_="check")
        op.create_check_constraint("ck_verification_outcome", "verification", _check(outcomes))


def upgrade() -> None:
    _set_outcomes(NEW)


def downgrade() -> None:
    _set_outcomes(OLD)
