"""An index of stated numbers for `claims trace`: figure_number, filled in for the figures already there.

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

FIGURE_FIELDS = ("raw", "kind", "comparator", "value", "low", "high", "start", "end", "steps", "active", "unit", "counted")


def upgrade() -> None:
    op.create_table(
        "figure_number",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("lo", sa.Float(), nullable=False),
        sa.Column("hi", sa.Float(), nullable=False),
        sa.Column("span", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["claim_id"], ["claim.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_figure_number_claim_id", "figure_number", ["claim_id"], unique=False)
    op.create_index("ix_figure_number_reach", "figure_number", ["span", "lo", "hi"], unique=False)
    rows = []
    columns = ", ".join(f'"{c}"' for c in FIGURE_FIELDS)  # "end" is a keyword
    for r in op.get_bind().execute(sa.text(f"SELECT claim_id, position, {columns} FROM figure")):
        m = dict(r._mapping)
        m["steps"] = json.loads(m["steps"]) if m["steps"] else []
        for lo, hi, span in reach(as_quantity({k: m[k] for k in FIGURE_FIELDS})):
            rows.append({"claim_id": m["claim_id"], "position": m["position"], "lo": lo, "hi": hi, "span": span})
    if rows:
        table = sa.table("figure_number", *(sa.column(c) for c in rows[0]))
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_table("figure_number")
