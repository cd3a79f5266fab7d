"""Read commands: trace, show, list, tags, values. They load the queries only when they run, and never
Alembic, httpx or the lint, verify and export modules (tests/test_db.py checks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from claimsdb import db
from claimsdb.cli.options import (
    DbOption,
    FormatOption,
    KeyArgument,
    OutputFormat,
    filtered,
)
from claimsdb.cli.output import (
    CLAIM_CSV_COLUMNS,
    Output,
    Stream,
    claim_row,
    console,
    emit,
    emit_table,
    err_console,
    figures_text,
    print_claim,
    tag_text,
)
from claimsdb.errors import ExitCode

if TYPE_CHECKING:
    from claimsdb.queries import ClaimFilter


def trace(
    number: Annotated[
        str,
        typer.Argument(
            help='A figure as you would write it: 466, 2,048, 14.8T, "16K H100", 32–33T, "4K → 128K".',
            metavar="FIGURE",
            show_default=False,
        ),
    ],
    # 100 is queries.TRACE_LIMIT, written out so that building the command does not import the queries
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            min=1,
            help="Show at most this many matches (the count says how many there are).",
        ),
    ] = 100,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Where does this number come from? Every claim stating it, with tag, sources and history.

    Lists first the figures that state it: by value, as a step of a transition (128K in 4K → 128K) or
    rounded (16,384 for 16K); then, under their own heading, the ranges that hold it or overlap it (32.5T
    in 32–33T), which do not state it. A unit or counted thing narrows the match; --format json and csv
    give each match's kind (stated, step, rounded, inside range).
    With no match, prints the nearest figures (the same value with another unit or thing, the same
    thing with a close value) and exits 1.

    Example: claims trace 2048
    """
    from claimsdb import queries

    with db.session_of(db_) as session:
        result = queries.trace(session, number, limit=limit)
    found = result["matches"] or result["nearest"]
    rows = [
        {
            "query": number,
            "match": m["match"],
            "figure": m["figure"]["raw"],
            **claim_row(m["claim"]),
        }
        for m in found
    ]

    def table() -> None:
        if result["matches"]:
            print_trace(number, result, queries.STATING, queries.IN_RANGE)

    emit(fmt, Output(result, ("query", "match", "figure", *CLAIM_CSV_COLUMNS), rows, table))
    if not result["matches"]:
        err_console.print(
            f"no figure matches {number!r}" + ("; the nearest:" if result["nearest"] else ""),
            markup=False,
        )
        for m in result["nearest"]:
            err_console.print(
                f"  {m['figure']['raw']}  {m['claim']['key']} ({m['claim']['subject']}): "
                f"{m['match']}, {m['reason']}",
                markup=False,
            )
        raise typer.Exit(int(ExitCode.FINDINGS))


def print_trace(number: str, result: dict, stating: tuple[str, ...], in_range: str) -> None:
    """The figures that state the number (as written, as a step of a change, rounded), then, under their
    own heading, the ranges that hold it or overlap it: a range is where the number may come from, not a
    statement of it."""
    counts = result["counts"]
    groups = (
        (
            sum(counts[k] for k in stating),
            [m for m in result["matches"] if m["match"] in stating],
            f"figure(s) state {number!r}",
        ),
        (
            counts[in_range],
            [m for m in result["matches"] if m["match"] == in_range],
            f"range(s) hold or overlap {number!r}, and do not state it",
        ),
    )
    for i, (total, matches, what) in enumerate(groups):
        if not total and i:
            continue
        cut = "" if total == len(matches) else f"; the first {len(matches)} shown (--limit)"
        console.print(
            f"{total} {what}{cut}" if total else f"no figure states {number!r}", markup=False
        )
        console.print()
        for m in matches:
            kind = (
                "" if m["match"] in ("stated", in_range) else f"{m['match']}: "
            )  # ranges: said by the heading
            label = m["figure"]["raw"] + (
                "" if m["match"] == "stated" else f"  ({kind}{m['reason']})"
            )
            print_claim(m["claim"], figure=label)
            console.print()


def show(
    key: KeyArgument,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Show one claim: statement, tag and basis, parsed figures, sources with quotes, full history.

    Example: claims show pipelines.llama3.pretrain
    """
    from claimsdb import queries

    with db.session_of(db_) as session:
        view = queries.show(session, key)
    emit(
        fmt,
        Output(view, CLAIM_CSV_COLUMNS, [claim_row(view)], lambda: print_claim(view, full=True)),
    )


@filtered
def list_(
    *,
    filters: ClaimFilter,
    stale: Annotated[
        bool,
        typer.Option(
            "--stale",
            help="Only verified claims that no longer hold: changed since their re-read, or not found as recorded by the latest verification.",
        ),
    ] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List claims, filtered by tag, trust, subject, stage, source or text in the statement.

    Example: claims list --trust unverified --stage "Agentic RL"
    """
    from claimsdb import queries
    from claimsdb.errors import Tampered

    with db.session_of(db_) as session:
        # JSON and CSV are written as the claims are read: a list of the whole store is never held.
        # A claim that disagrees with its history is printed marked, and the command then exits 2
        # naming it, as every other reader does: a listing is not a way round the check.
        tampered = Tampered()
        read = (
            queries.json_items(session, filters, tampered, stale=stale)
            if fmt is OutputFormat.json  # a large store's second half read on another core
            else (
                tampered.note(v).to_json()
                for v in queries.iter_claims(session, filters, stale=stale)
            )
        )

        def table() -> None:
            views = list(read)
            emit_table(
                f"{len(views)} claim(s)",
                ("key", "subject", "stage", "figures", "tag", "statement"),
                [
                    (
                        v["key"],
                        v["subject"],
                        v["stage"],
                        figures_text(v["figures"]),
                        tag_text(v["tag"], v["trust"], show_trust=False),
                        v["statement"]
                        + ("" if v["status"] == "active" else f" [{v['status']}]")
                        + (
                            f" [NOT PAPER-SAFE: {v['outdated_reason']}]"
                            if v["outdated_reason"]
                            else ""
                        )
                        + (
                            " [STALE: the latest verification no longer finds it]"
                            if v["stale"]
                            else ""
                        )
                        + "".join(f" [TAMPERED: {p}]" for p in v["integrity"]),
                    )
                    for v in views
                ],
                whole=("tag",),
            )

        emit(
            fmt,
            Output(Stream(read), CLAIM_CSV_COLUMNS, lambda: (claim_row(v) for v in read), table),
        )
        tampered.ensure_none()


def tags(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """List the provenance tags: trust level, whether each passes the export gate, how many claims carry it.

    Example: claims tags
    """
    from claimsdb import queries

    with db.session_of(db_) as session:
        rows = queries.list_tags(session)

    from rich.text import Text

    def yes_no(flag: bool) -> Text:
        return Text("passes", style="green") if flag else Text("blocked", style="bold red")

    emit(
        fmt,
        Output(
            rows,
            ("name", "trust", "passes", "passes_strict", "claims", "description"),
            rows,
            lambda: emit_table(
                "tags",
                ("tag", "trust", "export", "--strict", "claims", "description"),
                [
                    (
                        r["name"],
                        tag_text(r["trust"], r["trust"], show_trust=False),
                        yes_no(r["passes"]),
                        yes_no(r["passes_strict"]),
                        r["claims"],
                        r["description"],
                    )
                    for r in rows
                ],
                whole=("tag",),
            ),
        ),
    )


def values(
    quantity: Annotated[
        str | None,
        typer.Argument(
            help="A quantity's key; all quantities when left out.",
            metavar="QUANTITY",
            show_default=False,
        ),
    ] = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The competing values of a quantity: each claim's figure, tag, sources, rank and why.

    Example: claims values kimi.checkpoint-engine.update-1t
    """
    from claimsdb import queries

    with db.session_of(db_) as session:
        result = queries.values(session, quantity)
    rows = [
        {"quantity": q["key"], "rank": v["rank"], **claim_row(v), "rank_reason": v["rank_reason"]}
        for q in result
        for v in q["values"]
    ]

    def table() -> None:
        for q in result:
            decided = f"preferred: {q['preferred']}" if q["preferred"] else "no value preferred yet"
            emit_table(
                f"{q['key']}: {q['subject']}, {q['measure']} ({decided})",
                ("rank", "figures", "claim", "tag", "sources", "why this rank"),
                [
                    (
                        v["rank"],
                        figures_text(v["figures"]),
                        v["key"],
                        tag_text(v["tag"], v["trust"], show_trust=False),
                        ", ".join(s["key"] for s in v["sources"]),
                        v["rank_reason"] or "",
                    )
                    for v in q["values"]
                ],
                whole=("rank", "tag"),
            )

    emit(fmt, Output(result, ("quantity", "rank", *CLAIM_CSV_COLUMNS, "rank_reason"), rows, table))
