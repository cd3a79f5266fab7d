"""`claims sources`: the pages and notes that claims cite. List them, register one, show one,
register a paper's bibliography (`import`), and list what their bibliography entries lack (`check`)."""

from __future__ import annotations

from dataclasses import asdict
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from claimsdb import db
from claimsdb.cli.commands import command, group
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import Output, console, emit, emit_table
from claimsdb.errors import ExitCode

app = group(
    "The sources that claims cite: list, register (add, import) and show them.",
    invoke_without_command=True,
)

LIST_COLUMNS = (
    "key",
    "kind",
    "title",
    "url",
    "publisher",
    "date",
    "path",
    "cite_key",
    "authors",
    "accessed",
    "claims",
)
# models.SOURCE_KINDS, written out so that `--help` need not load the models (a test checks they agree).
KINDS_HELP = "paper, report, blog, readme, note, code, docs, news or other"


def _list(db_: str | None, fmt: OutputFormat) -> None:
    from claimsdb import queries

    with db.session_of(db_) as session:
        rows = queries.list_sources(session)
    emit(
        fmt,
        Output(
            rows,
            LIST_COLUMNS,
            rows,
            lambda: emit_table(
                f"{len(rows)} source(s)",
                ("key", "kind", "title", "url", "claims"),
                [
                    (r["key"], r["kind"], r["title"], r["url"] or r["path"], r["claims"])
                    for r in rows
                ],
            ),
        ),
    )


@app.callback()
def sources(
    ctx: typer.Context, db_: DbOption = None, fmt: FormatOption = OutputFormat.table
) -> None:
    """The sources that claims cite. Without a subcommand: list them (as `claims sources list`).

    Example: claims sources --format csv
    """
    if ctx.invoked_subcommand is None:
        _list(db_, fmt)


@command(app, "list")
def list_(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """List the registered sources with how many claims cite each.

    Example: claims sources list --format csv
    """
    _list(db_, fmt)


def _one(shown: dict) -> Output:
    """A source as JSON, as one CSV row per claim citing it, and as a block for people."""

    def table() -> None:
        console.print(f"{shown['key']}: {shown['title']}", style="bold", markup=False)
        for field in (
            "kind",
            "url",
            "path",
            "authors",
            "publisher",
            "date",
            "accessed",
            "cite_key",
            "origin",
        ):
            if shown.get(field):
                console.print(f"  {field}: {shown[field]}", markup=False)
        console.print(f"  snapshots: {shown['snapshots']}", markup=False)
        for s in shown["latest_snapshots"]:
            console.print(
                f"    {s['fetched_at'][:19]}Z {s['outcome']} {s['status'] or ''} {(s['sha256'] or '')[:12]}",
                markup=False,
            )
        emit_table(
            f"{len(shown['claims'])} claim(s) cite it",
            ("claim", "tag", "locator", "quote", "added by"),
            [
                (c["key"], c["tag"], c["locator"], c["quote"], c["added_by"])
                for c in shown["claims"]
            ],
        )

    rows = [{"source": shown["key"], **c} for c in shown["claims"]]
    return Output(shown, ("source", "key", "tag", "locator", "quote", "added_by"), rows, table)


@command(app, "add")
def add(
    key: Annotated[
        str,
        typer.Argument(
            help="A stable key: lowercase letters, digits, '.', '_', '-'.",
            metavar="KEY",
            show_default=False,
        ),
    ],
    url: Annotated[str | None, typer.Option("--url", help="The page's public http(s) URL.")] = None,
    path: Annotated[
        Path | None,
        typer.Option("--path", help="A local copy of the page (PDF, HTML, Markdown, text)."),
    ] = None,
    title: Annotated[
        str | None, typer.Option("--title", help="Its title. Default: the URL or the file name.")
    ] = None,
    kind: Annotated[str, typer.Option("--kind", help=f"One of: {KINDS_HELP}.")] = "other",
    cite_key: Annotated[
        str | None, typer.Option("--cite-key", help="The LaTeX citation key (default: the key).")
    ] = None,
    authors: Annotated[
        str | None, typer.Option("--authors", help='Who wrote it: "A. Author and B. Author".')
    ] = None,
    date: Annotated[
        str | None,
        typer.Option(
            "--year", "--date", help="When it was published: YYYY, YYYY-MM or YYYY-MM-DD."
        ),
    ] = None,
    publisher: Annotated[str | None, typer.Option("--publisher", help="Who published it.")] = None,
    accessed: Annotated[
        str | None, typer.Option("--accessed", help="When you read it: YYYY-MM-DD.")
    ] = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Register a source (the page you re-read, a report, a README) from the command line.

    Give --url or --path (or both). The source can then be named in `claims reread --source KEY`,
    `claims add --source KEY` and data files.

    Example: claims sources add llama3-report --url https://arxiv.org/abs/2407.21783 --kind paper --title "The Llama 3 Herd of Models" --year 2024
    """
    from claimsdb import sources as registry

    if url is None and path is None and kind != "note":
        raise typer.BadParameter("give --url or --path", param_hint="--url / --path")
    fields = {
        "key": key,
        "url": url,
        "path": str(path) if path else None,
        "kind": kind,
        "cite_key": cite_key,
        "title": title or url or (path.name if path else key),
        "authors": authors,
        "date": date,
        "publisher": publisher,
        "accessed": accessed,
    }
    with db.session_of(db_, create=True) as session:
        registry.add_source(session, fields)
        shown = registry.show(session, key)
    emit(
        fmt,
        Output(
            shown,
            LIST_COLUMNS[:-1],
            [shown],
            lambda: console.print(
                f"registered source {key}: {shown['title']} ({shown['kind']}) {shown['url'] or shown['path']}",
                markup=False,
            ),
        ),
    )


@command(app, "show")
def show(
    key: Annotated[
        str, typer.Argument(help="The source's key.", metavar="KEY", show_default=False)
    ],
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Show one source: its fields, the claims citing it (and how), and its latest snapshots.

    Example: claims sources show llama3-report
    """
    from claimsdb import sources as registry

    with db.session_of(db_) as session:
        shown = registry.show(session, key)
    emit(fmt, _one(shown))


CHECK_COLUMNS = ("key", "cite_key", "entry", "lacks", "message")


@command(app, "check")
def check(
    biblatex: Annotated[
        bool,
        typer.Option(
            "--biblatex", help="Name the entry types of `export --format biblatex` and its styles."
        ),
    ] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List what each source's bibliography entry lacks that a citation style needs.

    The same lacks `claims export --format bibtex` warns about, for every registered source that is a
    reference (notes are not): an author or organisation (publisher), a year, a URL or identifier, and
    for a report its institution (publisher), without which it is a @misc, not a @techreport. Exits 1 when
    any source lacks something, 0 when none does.

    Example: claims sources check --format json
    """
    from claimsdb import queries
    from claimsdb.exporters.bibtex import lacking_sources

    with db.session_of(db_) as session:
        rows = [r for r in queries.list_sources(session) if r["kind"] != "note"]
    found = lacking_sources(rows, "biblatex" if biblatex else "bibtex")
    listed = [
        {
            "key": f.key,
            "cite_key": f.cite_key,
            "entry": f.entry,
            "lacks": list(f.lacks),
            "message": f.message(),
        }
        for f in found
    ]

    def table() -> None:
        for f in found:
            console.print(f.message(), markup=False, soft_wrap=True)
        console.print(
            f"{len(found)} of {len(rows)} source(s) lack what a citation style needs"
            if found
            else f"all {len(rows)} source(s) have an author or organisation, a year and a URL",
            markup=False,
        )

    emit(
        fmt,
        Output(
            {"checked": len(rows), "lacking": listed},
            CHECK_COLUMNS,
            [{**row, "lacks": " ".join(row["lacks"])} for row in listed],
            table,
        ),
    )
    if found:
        raise typer.Exit(int(ExitCode.FINDINGS))


class BibFormat(str, Enum):
    bibtex = "bibtex"
    csl_json = "csl-json"


IMPORT_COLUMNS = ("action", "key", "fields", "detail")
ORIGINS = {
    "by-hand": "by hand (claims sources add)",
    "data-file": "by a data file",
    "url": "from a URL",
    None: "before claims recorded how",
}


@command(app, "import")
def import_(
    file: Annotated[
        Path,
        typer.Argument(
            help="A BibTeX or BibLaTeX file (.bib), or CSL-JSON as Zotero exports it (.json).",
            metavar="FILE",
            show_default=False,
        ),
    ],
    from_: Annotated[
        BibFormat | None,
        typer.Option(
            "--from",
            help="Read the file as this format. Default: by its extension, else its first character.",
            show_default=False,
        ),
    ] = None,
    update_manual: Annotated[
        bool,
        typer.Option(
            "--update-manual",
            help="Also change the sources registered another way (by hand, by a data file, from a URL) to what the bibliography says.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would change; write nothing.")
    ] = False,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Register the paper's bibliography: each entry becomes a source under its citation key.

    Each entry's key becomes the source's cite key (exports then cite it: \\cite{Dubey2024:Llama}) and,
    in lowercase, its source key (dubey2024-llama), with its URL (or https://doi.org/ and its DOI), title,
    authors, date, publisher (journal, proceedings, institution) and kind (from the entry's type). A bad
    entry stops the import (exit 2), naming the file, the entry and the field; nothing is written.
    Importing the file again updates the sources it registered to what it says now. A source registered
    another way is never changed silently: each difference is listed as a conflict and the command exits
    1, having registered the rest; --update-manual takes the bibliography's fields for those too.

    Example: claims sources import refs.bib --dry-run
    """
    from claimsdb import bibliography

    bib = bibliography.read(file, from_.value if from_ else None)
    with db.session_of(db_, create=True, keep_new=not dry_run) as session:
        report = bibliography.import_bibliography(session, bib, update_manual=update_manual)
        report.dry_run = dry_run
        if dry_run:
            session.rollback()
    emit(
        fmt,
        Output(
            lambda: {**asdict(report), "counts": report.counts()},
            IMPORT_COLUMNS,
            lambda: _import_rows(report),
            lambda: _print_import(report),
        ),
    )
    if report.conflicts:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _conflict_text(c) -> str:
    why = c.reason or f"registered {ORIGINS.get(c.origin, c.origin)}"
    changes = "; ".join(f"{f}: {old!r} -> {new!r}" for f, (old, new) in c.fields.items())
    return f"{why}; the bibliography's entry {c.entry} says {changes}"


def _import_rows(report) -> list[dict]:
    rows = [{"action": "add", "key": k} for k in report.added]
    rows += [
        {"action": "update", "key": k, "fields": " ".join(f)} for k, f in report.updated.items()
    ]
    rows += [{"action": "unchanged", "key": k} for k in report.unchanged]
    rows += [
        {
            "action": "conflict",
            "key": c.key,
            "fields": " ".join(c.fields),
            "detail": _conflict_text(c),
        }
        for c in report.conflicts
    ]
    return rows


def _print_import(report) -> None:
    counts = report.counts()
    verb = "would import" if report.dry_run else "imported"
    console.print(
        f"{verb} {report.file} ({report.format}): added {counts['added']}, updated {counts['updated']}, "
        f"unchanged {counts['unchanged']}, conflicts {counts['conflicts']}",
        markup=False,
    )
    for key in report.added:
        console.print(f"  add       {key}", markup=False)
    for key, fields in report.updated.items():
        console.print(f"  update    {key}: {', '.join(fields)}", markup=False)
    for c in report.conflicts:
        console.print(f"  conflict  {c.key}: {_conflict_text(c)}", style="yellow", markup=False)
    if report.conflicts:
        console.print(
            f"  kept as registered; to take the bibliography's fields: claims sources import {report.file} "
            "--update-manual",
            style="yellow",
            markup=False,
        )
    if report.without_url:
        console.print(
            f"  no URL or DOI (cited, but verify has no page to fetch): {', '.join(report.without_url)}",
            markup=False,
        )
