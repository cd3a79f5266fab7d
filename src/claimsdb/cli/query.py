"""Read commands: trace, show, list, sources, tags. None of them imports Alembic or httpx."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.text import Text

from claimsdb import db, queries
from claimsdb.cli.options import (
    DbOption, FormatOption, OutputFormat, SearchFilter, SourceFilter, StageFilter, StatusFilter, SubjectFilter,
    TagFilter, TrustFilter, claim_filter,
)
from claimsdb.cli.output import (
    CLAIM_CSV_COLUMNS, claim_row, console, emit, emit_table, figures_text, print_claim, tag_text,
)


def trace(
    number: Annotated[str, typer.Argument(help='A number as you would write it: 466, 2,048, 14.8T, "16K H100", 100k.')],
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Where does this number come from? Every claim stating it, with tag, sources and history.

    Matches by value, also inside ranges (32–33T) and transitions (4K → 128K); a unit or counted thing
    in the query (16K H100) narrows the match. Exit 1 when nothing matches.

    Example: claims trace 2048
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = queries.trace(session, number)
    rows = [
        {"query": number, "match": m["match"], "figure": m["figure"]["raw"], **claim_row(m["claim"])} for m in result["matches"]
    ]

    def table() -> None:
        console.print(f"{len(result['matches'])} figure(s) match {number!r}\n")
        for m in result["matches"]:
            label = m["figure"]["raw"] + ("  (inside this range)" if m["match"] == "inside range" else "")
            print_claim(m["claim"], figure=label)
            console.print()

    emit(fmt, result, columns=("query", "match", "figure", *CLAIM_CSV_COLUMNS), rows=rows, table=table)


def show(
    key: Annotated[str, typer.Argument(help="The claim's key.")],
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Show one claim: statement, tag and basis, parsed figures, sources with quotes, full history.

    Example: claims show pipelines.llama3.pretrain
    """
    with db.session_scope(db.open_engine(db_)) as session:
        view = queries.show(session, key)
    emit(fmt, view, columns=CLAIM_CSV_COLUMNS, rows=[claim_row(view)], table=lambda: print_claim(view, full=True))


def list_(
    tag: TagFilter = None,
    trust: TrustFilter = None,
    subject: SubjectFilter = None,
    stage: StageFilter = None,
    source: SourceFilter = None,
    search: SearchFilter = None,
    status: StatusFilter = None,
    stale: Annotated[bool, typer.Option("--stale", help="Only verified claims that no longer hold: changed since their re-read, or not found as recorded by the latest verification.")] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List claims, filtered by tag, trust, subject, stage, source or text in the statement.

    Example: claims list --trust unverified --stage "Agentic RL"
    """
    filters = claim_filter(tag, trust, subject, stage, source, search, status)
    with db.session_scope(db.open_engine(db_)) as session:
        views = queries.list_claims(session, filters, stale=stale)

    def table() -> None:
        emit_table(
            f"{len(views)} claim(s)",
            ("key", "subject", "stage", "figures", "tag", "statement"),
            [
                (v["key"], v["subject"], v["stage"], figures_text(v["figures"]),
                 tag_text(v["tag"], v["trust"], show_trust=False),
                 v["statement"] + ("" if v["status"] == "active" else f" [{v['status']}]")
                 + (f" [NOT PAPER-SAFE: {v['outdated_reason']}]" if v["outdated_reason"] else "")
                 + (" [STALE: the latest verification no longer finds it]" if v["stale"] else ""))
                for v in views
            ],
            whole=("tag",),
        )

    emit(fmt, views, columns=CLAIM_CSV_COLUMNS, rows=[claim_row(v) for v in views], table=table)


def tags(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """List the provenance tags: trust level, whether each passes the export gate, how many claims carry it.

    Example: claims tags
    """
    with db.session_scope(db.open_engine(db_)) as session:
        rows = queries.list_tags(session)
    def yes_no(flag: bool) -> Text:
        return Text("passes", style="green") if flag else Text("blocked", style="bold red")

    emit(
        fmt, rows, columns=("name", "trust", "passes", "passes_strict", "claims", "description"), rows=rows,
        table=lambda: emit_table(
            "tags", ("tag", "trust", "export", "--strict", "claims", "description"),
            [(r["name"], tag_text(r["trust"], r["trust"], show_trust=False), yes_no(r["passes"]),
              yes_no(r["passes_strict"]), r["claims"], r["description"]) for r in rows],
            whole=("tag",),
        ),
    )



def values(
    quantity: Annotated[Optional[str], typer.Argument(help="A quantity's key; all quantities when left out.", show_default=False)] = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The competing values of a quantity: each claim's figure, tag, sources, rank and why.

    Example: claims values kimi.checkpoint-engine.update-1t
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = queries.values(session, quantity)
    rows = [{"quantity": q["key"], "rank": v["rank"], **claim_row(v), "rank_reason": v["rank_reason"]}
            for q in result for v in q["values"]]

    def table() -> None:
        for q in result:
            decided = f"preferred: {q['preferred']}" if q["preferred"] else "no value preferred yet"
            emit_table(
                f"{q['key']}: {q['subject']}, {q['measure']} ({decided})",
                ("rank", "figures", "claim", "tag", "sources", "why this rank"),
                [(v["rank"], figures_text(v["figures"]), v["key"], tag_text(v["tag"], v["trust"], show_trust=False),
                  ", ".join(s["key"] for s in v["sources"]), v["rank_reason"] or "") for v in q["values"]],
                whole=("rank", "tag"),
            )

    emit(fmt, result, columns=("quantity", "rank", *CLAIM_CSV_COLUMNS, "rank_reason"), rows=rows, table=table)
