"""`claims import` (data files, or JSON Lines on standard input) and `claims add` (one claim from options)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from claimsdb import db
from claimsdb.cli.options import ActorOption, DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import Output, console, emit, print_registered, progress
from claimsdb.errors import ExitCode

PLAN_COLUMNS = ("kind", "key", "action", "fields", "detail")


def import_(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="JSON (claimsdb/1 format), JSON Lines (.jsonl) or CSV files; - reads JSON Lines from standard input.",
            metavar="FILE",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; write nothing.")
    ] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Import claims, sources and tags from data files, all or nothing.

    A bad record aborts the whole call (exit 2) and leaves the database as it was. Importing the same
    files again changes nothing; a changed record updates its claim and writes an event. A tag or
    status that a person set is kept, and the difference is reported as a conflict. A change to what a
    person re-read is applied and reported: that claim is not paper-safe until it is re-read again. A
    source, a quantity or a claim's aliases that a person set or a re-read names are kept: each
    difference is a conflict, that record is not written, the rest is, and the command exits 1.
    A data file read from a path (JSON or CSV) may declare secondary tags; a claim with a verified tag
    names who re-read it (its reread object), and the import records that person's re-read. JSON Lines
    (- or a .jsonl file) is the agents' channel: one claim object per line, or {"source": {...}}, with
    tags of unverified trust only and no tag definitions. The report counts the claims admitted above
    unverified trust by who vouches for them, with the command that lists them; --format json and csv
    name each one.

    Example: claims import data/pipelines.json data/rl_loop.json --dry-run
    """
    from claimsdb import store

    with (
        db.session_of(db_, create=True, keep_new=not dry_run) as session,
        progress("importing claims") as advance,
    ):
        plan = store.import_files(
            session, [str(f) for f in files], dry_run=dry_run, progress=advance
        )
        engine = session.get_bind()
        if dry_run:
            session.rollback()
    if not dry_run:
        db.refresh_statistics(engine, len(plan.added) + len(plan.updated))
    emit(
        fmt,
        Output(
            lambda: {**asdict(plan), "counts": plan.counts()},
            PLAN_COLUMNS,
            lambda: _plan_rows(plan),
            lambda: _print_plan(plan, dry_run),
        ),
    )
    if plan.kept_registered():
        raise typer.Exit(int(ExitCode.FINDINGS))


def _row(kind: str, key: str, action: str, fields: str | None = None, detail: str | None = None):
    """One CSV row of the plan; a column left out is empty."""
    row = {"kind": kind, "key": key, "action": action, "fields": fields, "detail": detail}
    return {name: value for name, value in row.items() if value is not None}


def _plan_rows(plan) -> list[dict]:
    """The plan as CSV rows: one for each claim, source, tag and quantity the import touched."""
    rows = [_row("claim", k, "added") for k in plan.added]
    rows += [_row("claim", k, "updated", " ".join(f)) for k, f in plan.updated.items()]
    rows += [_row("claim", k, "unchanged") for k in plan.unchanged]
    rows += [_row(c.kind, c.key, "conflict", c.field, c.why) for c in plan.conflicts]
    rows += [_row("claim", r.key, "reread", r.source, _reread_text(r)) for r in plan.rereads]
    rows += [_row("claim", v.key, "vouched", v.tag, _vouched_text(v)) for v in plan.vouched]
    for kind, action, keys in (
        ("source", "added", plan.sources_added),
        ("source", "updated", plan.sources_updated),
        ("tag", "added", plan.tags_added),
        ("quantity", "added", plan.quantities_added),
        ("quantity", "updated", plan.quantities_updated),
    ):
        rows += [_row(kind, k, action) for k in keys]
    for row in rows:
        if row["kind"] == "tag" and row["key"] in plan.verified_tags_added:
            row["detail"] = VERIFIED_TAG_NOTE
    return rows


KEPT_NOTE = (
    "kept as registered: a data file never changes what a person set or a re-read names; make the "
    "file say what is registered, or give the changed source or quantity a new key"
)
VERIFIED_TAG_NOTE = (
    "a tag of verified trust, which only a data file read from a path can define; each claim "
    "given it still needs a person's re-read"
)


def _vouched_text(v) -> str:
    if v.how == "data file":
        return f"{v.trust}: vouched for by the data file {v.by}"
    if v.how == "re-read":
        return f"{v.trust}: vouched for by {v.by}, who re-read it on {v.at}"
    return f"{v.trust}: vouched for by {v.by} ({v.how} on {v.at})"


def vouched_summary(vouched) -> list[str]:
    """One line for each voucher (a data file, a person) and tag: how many claims it admitted above
    unverified trust, and the command that lists them (each one is in --format json and csv)."""
    import shlex

    groups: dict[tuple, list] = {}
    for v in vouched:
        groups.setdefault((v.by, v.how, v.tag, v.trust), []).append(v)
    lines = []
    for (by, how, tag, trust), each in groups.items():
        if how == "data file":
            who = f"the data file {by}"
        elif how == "re-read":
            who = f"{by}, who re-read {'it' if len(each) == 1 else 'them'}"
        else:
            who = f"{by} ({how})"
        lines.append(
            f"  vouched  {len(each)} claim(s) as {tag} ({trust}), vouched for by {who}: "
            f"claims list --tag {shlex.quote(tag)}"
        )
    return lines


def _reread_text(r) -> str:
    again = "another re-read" if r.again else "re-read"
    return (
        f"{again} by {r.by} on {r.at} in {r.source}, {r.locator}: “{r.quote}” (named by {r.file})"
    )


def _print_plan(plan, dry_run: bool) -> None:
    counts = plan.counts()
    head = "dry run, nothing written: would import" if dry_run else "imported"
    console.print(
        f"{head} {', '.join(plan.files)}: {counts['added']} added, {counts['updated']} updated, "
        f"{counts['unchanged']} unchanged, {counts['conflicts']} conflicts; "
        f"{counts['sources_added']} sources added, {counts['sources_updated']} updated; "
        f"{counts['tags_added']} tags added",
        markup=False,
    )
    if dry_run:
        for key in plan.added:
            console.print(f"  add     {key}", markup=False)
        for key, fields in plan.updated.items():
            console.print(f"  update  {key}: {', '.join(fields)}", markup=False)
    for r in plan.rereads:
        console.print(
            f"  {'would record' if dry_run else 'recorded'} {r.key}: {_reread_text(r)}",
            markup=False,
        )
    for line in vouched_summary(plan.vouched):
        console.print(line, markup=False)
    for name in plan.verified_tags_added:
        console.print(
            f"  tag      {name} defined by a data file: {VERIFIED_TAG_NOTE}", markup=False
        )
    for c in plan.conflicts:
        if c.registered:
            kind = "" if c.kind == "claim" else f"{c.kind} "
            text = (
                f"  conflict {kind}{c.key}: {c.file}, record {c.record}, field {c.field!r}: "
                f"kept {c.kept!r} ({c.why}); the file says {c.offered!r}"
            )
        elif c.field == "replaces":
            text = f"  conflict {c.key}: changed; {c.why}"
        elif c.applied:
            text = (
                f"  conflict {c.key}: {c.field} changed from {c.kept!r} to {c.offered!r}; {c.why}"
            )
        else:
            text = f"  conflict {c.key}: kept {c.field} {c.kept!r} ({c.why}); the file says {c.offered!r}"
        console.print(text, style="yellow", markup=False)
    if plan.kept_registered():
        console.print(f"  {KEPT_NOTE}", style="yellow", markup=False)


def add(
    subject: Annotated[
        str,
        typer.Option(
            "--subject", help="The system or model the claim is about.", show_default=False
        ),
    ],
    statement: Annotated[
        str, typer.Option("--statement", help="The claim in one sentence.", show_default=False)
    ],
    source: Annotated[
        str,
        typer.Option(
            "--source",
            help="Where it was reported: a source key, or a URL (registered on the spot if new).",
            show_default=False,
        ),
    ],
    figures: Annotated[
        list[str] | None,
        typer.Option(
            "--figure",
            help='A figure as the statement writes it ("2,048 H800"); repeat for several. Default: the figures the statement writes, read from it; one it does not state is refused.',
            show_default=False,
        ),
    ] = None,
    quote: Annotated[str | None, typer.Option("--quote", help="The source's own words.")] = None,
    locator: Annotated[
        str | None, typer.Option("--locator", help='Where in the source: "§3.5", "Table 5".')
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key", help="A stable key. Default: derived from the subject and the statement."
        ),
    ] = None,
    tag: Annotated[
        str,
        typer.Option(
            "--tag",
            help="Its provenance tag, of unverified trust; others are refused (only a person's re-read raises trust).",
        ),
    ] = "agent-reported",
    basis: Annotated[str | None, typer.Option("--basis", help="Why that tag, in one line.")] = None,
    stage: Annotated[
        str | None, typer.Option("--stage", help='Stage or topic ("Pretrain", "weight sync").')
    ] = None,
    section: Annotated[
        str | None, typer.Option("--section", help="Where it stands in your note.")
    ] = None,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Record one claim from options, for agents and scripts: same validation and history as an import.

    The tag defaults to agent-reported, so the claim is blocked from papers until a person re-reads it.

    Example: claims add --subject "Kimi K2.5" --statement "Kimi K2.5 runs up to 100,000 concurrent tasks." --figure "up to 100,000 tasks" --source https://example.org/kimi-k25
    """
    fields = {
        "key": key,
        "subject": subject,
        "statement": statement,
        "figures": figures or [],
        "tag": tag,
        "basis": basis,
        "stage": stage,
        "section": section,
        "locator": locator,
        "quote": quote,
    }
    _add(fields, source=source, by=by, db_=db_, fmt=fmt)


def _add(fields: dict, *, source: str, by: str | None, db_: str | None, fmt: OutputFormat) -> None:
    """Record the claim `claims add` was given, as the person named (or the tool), and report it."""
    from claimsdb import store
    from claimsdb.trust import identity

    # Adding vouches for nothing (the claim is unverified), so with no person named the tool records it.
    person = (
        identity.person_name(by, field="actor") if by is not None else identity.configured_reader()
    )
    actor = person or store.IMPORT_ACTOR
    fields["basis"] = (
        fields["basis"]
        or f"Recorded{f' by {person}' if person else ''} with claims add; nobody has re-read it."
    )
    with db.session_of(db_, create=True) as session:
        result = store.add_claim(session, fields, source=source, actor=actor)
    print_registered(result["source"], result["source_registered"])
    emit(
        fmt,
        Output(
            result,
            ("key", "tag", "source"),
            [result],
            lambda: console.print(
                f"added {result['key']} ({result['tag']}), citing {result['source']}"
                + (
                    f"; figures read from the statement: {', '.join(result['figures'])}"
                    if result["figures_read"]
                    else ""
                ),
                markup=False,
            ),
        ),
    )
