"""A fraction written with a slash ("1/4") reaches its value in the trace index too (figures.reach), as
`match` finds "1/4" and the 0.25 of "1/4 of the nodes" the same figure: the figure_number rows of every
stored slash ratio are written again from today's reach. Only the trace index changes; figures, claims
and their history are as they were. Downgrading takes the fraction's rows away again.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

import json
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

from claimsdb.figures import Quantity, as_quantity, reach
from claimsdb.figures.matching import _as_fraction
from claimsdb.figures.quantity import FIELDS as FIGURE_FIELDS

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def _slash_ratios() -> list[tuple[int, int, Quantity]]:
    columns = ", ".join(f'"{c}"' for c in FIGURE_FIELDS)  # "end" is a keyword
    out = []
    for r in op.get_bind().execute(
        sa.text(
            f"SELECT claim_id, position, {columns} FROM figure "
            "WHERE kind = 'ratio' AND raw LIKE '%/%' ORDER BY claim_id, position"
        )
    ):
        m = dict(r._mapping)
        m["steps"] = json.loads(m["steps"]) if m["steps"] else []
        out.append((m["claim_id"], m["position"], as_quantity({k: m[k] for k in FIGURE_FIELDS})))
    return out


def _rewrite(reaches: Callable[[Quantity], list[tuple[float, float, int]]]) -> None:
    """Each slash ratio's figure_number rows, written again as `reaches` gives them."""
    rows = []
    for claim_id, position, q in _slash_ratios():
        op.get_bind().execute(
            sa.text("DELETE FROM figure_number WHERE claim_id = :c AND position = :p"),
            {"c": claim_id, "p": position},
        )
        rows += [
            {"claim_id": claim_id, "position": position, "lo": lo, "hi": hi, "tier": tier}
            for lo, hi, tier in reaches(q)
        ]
    if rows:
        table = sa.table("figure_number", *(sa.column(c) for c in rows[0]))
        op.bulk_insert(table, rows)


def upgrade() -> None:
    _rewrite(reach)


def downgrade() -> None:
    def before(q: Quantity) -> list[tuple[float, float, int]]:
        fraction = reach(_as_fraction(q))
        return [r for r in reach(q) if r not in fraction]

    _rewrite(before)
