"""An index of stated numbers for `claims trace` (figure_number, filled in for the figures already
there), and claim.record_sha256, the digest of the record each claim was last imported from (an
import skips records it has read before, unchanged). For the speed of imports, indexes nothing reads
any more go (figure.value and .low, which trace used to scan; figure.claim_id and evidence.claim_id,
which their unique (claim_id, position) indexes already serve; claim.subject and .stage, which filters
match case-blind), and so does claim_insert_guard: a
claim replaced by raw SQL disagrees with its history, which every read and `claims db check` find.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

import json

import sqlalchemy as sa
from alembic import op

from claimsdb.figures import as_quantity, reach

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

FIGURE_FIELDS = (
    "raw",
    "kind",
    "comparator",
    "value",
    "low",
    "high",
    "start",
    "end",
    "steps",
    "active",
    "unit",
    "counted",
)


def upgrade() -> None:
    op.create_table(
        "figure_number",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("lo", sa.Float(), nullable=False),
        sa.Column("hi", sa.Float(), nullable=False),
        sa.Column("tier", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["claim_id"], ["claim.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_figure_number_claim_id", "figure_number", ["claim_id"], unique=False)
    op.create_index("ix_figure_number_reach", "figure_number", ["tier", "lo", "hi"], unique=False)
    op.add_column("claim", sa.Column("record_sha256", sa.String(), nullable=True))
    for index, table in (
        ("ix_figure_value", "figure"),
        ("ix_figure_low", "figure"),
        ("ix_figure_claim_id", "figure"),
        ("ix_evidence_claim_id", "evidence"),
        ("ix_claim_subject", "claim"),
        ("ix_claim_stage", "claim"),
    ):
        op.drop_index(index, table_name=table)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS claim_insert_guard")
    rows = []
    columns = ", ".join(f'"{c}"' for c in FIGURE_FIELDS)  # "end" is a keyword
    for r in op.get_bind().execute(sa.text(f"SELECT claim_id, position, {columns} FROM figure")):
        m = dict(r._mapping)
        m["steps"] = json.loads(m["steps"]) if m["steps"] else []
        for lo, hi, tier in reach(as_quantity({k: m[k] for k in FIGURE_FIELDS})):
            rows.append(
                {
                    "claim_id": m["claim_id"],
                    "position": m["position"],
                    "lo": lo,
                    "hi": hi,
                    "tier": tier,
                }
            )
    if rows:
        table = sa.table("figure_number", *(sa.column(c) for c in rows[0]))
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_table("figure_number")
    with op.batch_alter_table("claim") as batch:
        batch.drop_column("record_sha256")
