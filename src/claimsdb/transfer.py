"""Moving a store: `claims db copy --to URL` copies every row of one database into an empty other one
(a personal SQLite file to a team's PostgreSQL, and back), with the ids, so the history chain, the
evidence a re-read added and every verification stay exactly as they were.

The target must be migrated to the same revision and hold nothing but the tags the first migration
seeds. The copy is one transaction on the target: all or nothing. Afterwards the target's history is
checked like `claims db check` does. Snapshot bodies are files, not rows: copy the snapshot folder
with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from claimsdb import history
from claimsdb.db import session_scope
from claimsdb.errors import DatabaseProblem
from claimsdb.models import (
    Anchor,
    Claim,
    Definition,
    Event,
    Evidence,
    Figure,
    FigureNumber,
    MeasuredQuantity,
    Person,
    Snapshot,
    Source,
    Tag,
    Verification,
)

# Parents before children; events before the evidence that names them.
TABLES = (
    Tag,
    Source,
    MeasuredQuantity,
    Claim,
    Event,
    Evidence,
    Figure,
    FigureNumber,
    Snapshot,
    Verification,
    Person,
    Definition,
    Anchor,  # last: an anchor is taken only as the chains it names hold (migration 0015)
)
# Rows a new store holds before anything is copied (its seeded tags, and their definitions): each must be
# the source's own, kept as it is; the rest of the source's rows follow.
SEEDED = (Tag, Definition)
CHUNK = 5000


def _seeded(dst: Session, model: Any) -> dict[Any, dict[str, Any]]:
    """The rows a new store already holds, by what names them (a tag's name, a definition's id)."""
    table = model.__table__
    named = "name" if model is Tag else "id"
    return {r[named]: dict(r) for r in dst.execute(select(table)).mappings()}


def _new_rows(model: Any, rows: list[dict], seeded: dict[Any, dict]) -> list[dict]:
    """The source's rows the target does not hold yet; DatabaseProblem when one it holds differs (a
    tag's trust level, a definition's digest: the target is not a new store of this release)."""
    named, compared = ("name", "trust") if model is Tag else ("id", "sha256")
    for r in rows:
        held = seeded.get(r[named])
        if held is not None and held[compared] != r[compared]:
            what = f"tag {r['name']!r}" if model is Tag else f"definition {r['id']}"
            raise DatabaseProblem(f"{what} differs in the target: copy into a new, empty store")
    return [r for r in rows if r[named] not in seeded]


@dataclass
class CopyReport:
    rows: dict[str, int] = field(default_factory=dict)
    head: str | None = None


def copy_store(
    source: Engine, target: Engine, *, on_rows: Callable[[int, int], None] | None = None
) -> CopyReport:
    """Copy every row; `on_rows(copied, total)` hears of each chunk written (a progress bar)."""
    report = CopyReport()
    with Session(source) as src, session_scope(target) as dst:
        total = (
            sum(src.execute(select(func.count()).select_from(model)).scalar() for model in TABLES)
            if on_rows
            else 0
        )
        history.begin_write(dst)
        seeded = {model: _seeded(dst, model) for model in SEEDED}
        for model in TABLES:
            if (
                model not in SEEDED
                and dst.execute(select(func.count()).select_from(model)).scalar()
            ):
                raise DatabaseProblem(
                    f"the target already holds {model.__tablename__} rows: copy into an empty store"
                )
        for model in TABLES:
            table = model.__table__
            result = src.execute(
                select(table)
                .order_by(*table.primary_key.columns)
                .execution_options(yield_per=CHUNK)
            )
            copied = 0
            for part in result.partitions():
                rows = [dict(r._mapping) for r in part]
                if model in SEEDED:
                    rows = _new_rows(model, rows, seeded[model])
                if rows:
                    dst.execute(table.insert(), rows)
                copied += len(rows)
                if on_rows:
                    on_rows(len(part), total)
            report.rows[table.name] = copied + len(seeded.get(model, ()))
        if target.dialect.name == "postgresql":
            for model in TABLES[1:]:  # the rows kept their ids: move each sequence past them
                name = model.__tablename__
                dst.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"COALESCE((SELECT max(id) FROM {name}), 0) + 1, false)"
                    )
                )
        report.head = history.head(dst)
    return report
