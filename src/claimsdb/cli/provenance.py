"""Recording what people did: reread, retag, withdraw, supersede; and reading it back: history."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.text import Text

from claimsdb import db, provenance, queries, sources
from claimsdb.cli.options import ActorOption, DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import console, emit, emit_json, emit_table, err_console
from claimsdb.cli.sources import print_registered
from claimsdb.cli.verify import SourcesDirOption
from claimsdb.errors import ExitCode
from claimsdb.identity import default_actor

ReasonOption = Annotated[str, typer.Option("--reason", help="Why: kept in the claim's history.", show_default=False)]


def _tag_change(result: dict, fmt: OutputFormat) -> None:
    if fmt is OutputFormat.json:
        emit_json(result)
        return
    ev = result["event"]
    line = Text(f"{result['key']}: ")
    line.append(f"{result['tag_before']} → {result['tag_after']}", style="bold")
    line.append(f"  ({ev['kind']} by {ev['actor']} at {ev['at'][:19]}Z)")
    console.print(line)
    if result.get("linked"):
        console.print(Text(f"  {result['source']} is now evidence of {result['key']}"))


def reread(
    key: Annotated[str, typer.Argument(help="The claim's key.")],
    by: ActorOption = None,
    source: Annotated[Optional[str], typer.Option("--source", help="The page re-read: a source key, or its URL (registered on the spot if new). Default: the claim's primary page.")] = None,
    locator: Annotated[Optional[str], typer.Option("--locator", help='Where in the source: "§3.5", "Table 5".')] = None,
    quote: Annotated[Optional[str], typer.Option("--quote", help="What was seen there, verbatim.")] = None,
    note: Annotated[Optional[str], typer.Option("--note", help="Anything else worth keeping.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Record without asking for confirmation.")] = False,
    sources_dir: SourcesDirOption = Path("sources"),
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Record that a person re-read the claim in its source; the tag becomes spot-checked.

    The page becomes evidence of the claim, with the locator and the quote, so show, sources, verify
    and the exports' citations use it. Shows where the latest snapshot of the page (from `claims
    verify`) has the claim's evidence, then asks for confirmation (--yes skips the question).

    Example: claims reread pipelines.obs.llama3-failures --source llama3-report --locator "Table 5" --quote "466"
    """
    from claimsdb import verification
    from claimsdb.verify.snapshots import SnapshotStore

    engine = db.open_engine(db_)
    if not yes:
        with db.session_scope(engine) as session:
            claim = queries.get_claim(session, key)
            new_url = source is not None and sources.is_url(source) and sources.find_by_url(session, source) is None
            if new_url:  # registered only when the re-read is recorded
                name, shown = source, None
            else:
                src, _ = provenance.reread_source(session, claim, source)
                name, shown = src.key, verification.passage_for(session, claim, src, SnapshotStore(sources_dir))
        _show_passage(key, name, shown)
        if not typer.confirm(f"Record that you re-read {key} in {name}?", default=False, err=True):
            err_console.print("nothing recorded", markup=False)
            raise typer.Exit(int(ExitCode.FINDINGS))
    with db.session_scope(engine) as session:
        result = provenance.reread(
            session, key, actor=by or default_actor(), source=source, locator=locator, quote=quote, note=note,
        )
    print_registered(result["source"], result["source_registered"])
    _tag_change(result, fmt)


def _show_passage(key: str, source: str, shown: dict | None) -> None:
    if shown is None:
        err_console.print(f"no snapshot of {source} yet: `claims verify {key}` fetches one", markup=False)
    elif shown.get("error"):
        err_console.print(f"latest snapshot of {source}: {shown['error']}", markup=False)
    else:
        err_console.print(
            f"latest snapshot of {source} ({shown['fetched_at'][:19]}Z): {shown['outcome']}", markup=False)
        if shown.get("passage"):
            err_console.print(Text(f"  “{shown['passage']}”", style="italic"))


def retag(
    key: Annotated[str, typer.Argument(help="The claim's key.")],
    tag: Annotated[str, typer.Argument(help="The new tag (see `claims tags`).")],
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Set a claim's tag by hand, with a reason. Imports never override it.

    Example: claims retag pipelines.marin.pretrain prior-note --reason "figure is from the March note"
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = provenance.retag(session, key, tag, actor=by or default_actor(), reason=reason)
    _tag_change(result, fmt)


def _status_change(result: dict, fmt: OutputFormat) -> None:
    if fmt is OutputFormat.json:
        emit_json(result)
    else:
        console.print(f"{result['key']}: {result['status_before']} → {result['status_after']}")


def withdraw(
    key: Annotated[str, typer.Argument(help="The claim's key.")],
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Withdraw a claim (a status, never a delete): it is never exported again.

    Example: claims withdraw rl.bench.weirdml --reason "family dropped from the review"
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = provenance.withdraw(session, key, actor=by or default_actor(), reason=reason)
    _status_change(result, fmt)


def supersede(
    key: Annotated[str, typer.Argument(help="The claim being replaced.")],
    new_key: Annotated[str, typer.Option("--by", help="The claim that replaces it.", show_default=False)],
    actor: Annotated[Optional[str], typer.Option("--actor", help="Who is recording this. Default: git's user.name, else the login name.", show_default=False)] = None,
    reason: Annotated[Optional[str], typer.Option("--reason", help="Why.")] = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Mark a claim superseded by another; it is never exported again.

    Example: claims supersede pipelines.kimi-k2-k3.post-train --by rl.weight-sync.kimi-checkpoint-engine
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = provenance.supersede(session, key, by=new_key, actor=actor or default_actor(), reason=reason)
    _status_change(result, fmt)


def _rank_change(result: dict, fmt: OutputFormat) -> None:
    if fmt is OutputFormat.json:
        emit_json(result)
        return
    ev = result["event"]
    console.print(Text(f"{result['key']}: {result['rank_before']} → {result['rank_after']}  "
                       f"({ev['kind']} by {ev['actor']} at {ev['at'][:19]}Z)"))
    for key in result["demoted"]:
        console.print(Text(f"  {key}: preferred → normal"))


def prefer(
    key: Annotated[str, typer.Argument(help="The claim whose value to use.")],
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Make a claim the preferred value of its quantity (the one exports use); the value preferred
    before becomes normal. Imports never override it.

    Example: claims prefer rl.weight-sync.kimi-checkpoint-engine --reason "the checkpoint-engine README says about 20 s"
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = provenance.prefer(session, key, actor=by or default_actor(), reason=reason)
    _rank_change(result, fmt)


def deprecate(
    key: Annotated[str, typer.Argument(help="The claim whose value not to use.")],
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Mark a value of a quantity deprecated: kept and shown, never exported, and lint warns when a
    manuscript uses it. Imports never override it.

    Example: claims deprecate pipelines.kimi-k2-k3.post-train --reason "the README measures about 20 s"
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = provenance.deprecate(session, key, actor=by or default_actor(), reason=reason)
    _rank_change(result, fmt)


class HistoryFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    prov = "prov"


def history(
    key: Annotated[str, typer.Argument(help="The claim's key.")],
    db_: DbOption = None,
    fmt: Annotated[HistoryFormat, typer.Option("--format", "-f", help="table, json, csv, or prov (W3C PROV-JSON: versions, activities, agents).")] = HistoryFormat.table,
) -> None:
    """Every event of a claim, oldest first: who, when, and what changed.

    Example: claims history rl.fleet.kimi-k25-tasks --format prov
    """
    with db.session_scope(db.open_engine(db_)) as session:
        result = queries.history(session, key)
        if fmt is HistoryFormat.prov:
            from claimsdb import lineage

            sys.stdout.write(lineage.render(lineage.document(session, [queries.get_claim(session, key)])))
            return
    rows = [{"key": key, **e, "detail": json.dumps(e["detail"], ensure_ascii=False) if e["detail"] else None}
            for e in result["events"]]

    def table() -> None:
        emit_table(
            f"{key}: now {result['tag']}, {result['status']}",
            ("when (UTC)", "event", "by", "tag", "details"),
            [
                (e["at"][:19].replace("T", " "), e["kind"], e["actor"],
                 f"{e['tag_before'] or '—'} → {e['tag_after']}" if e["tag_after"] else "",
                 _details(e))
                for e in result["events"]
            ],
        )

    emit(OutputFormat(fmt.value), result,
         columns=("key", "at", "kind", "actor", "tag_before", "tag_after", "status_after", "origin", "detail", "sha256"),
         rows=rows, table=table)


def _details(e: dict) -> str:
    detail = e.get("detail") or {}
    parts = [f"from {e['origin']}"] if e.get("origin") else []
    if isinstance(detail, dict):
        for k, v in detail.items():
            if k == "changes":
                parts.append("changed " + ", ".join(sorted(v)))
            elif k != "url":
                parts.append(f"{k}: {v}")
    return "; ".join(parts)

