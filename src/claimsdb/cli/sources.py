"""`claims sources`: the pages and notes that claims cite. List them, register one, show one."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from claimsdb import db
from claimsdb.cli.commands import command, group
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat
from claimsdb.cli.output import Output, console, emit, emit_table

app = group("The sources that claims cite: list, register (add) and show them.", invoke_without_command=True)

LIST_COLUMNS = ("key", "kind", "title", "url", "publisher", "date", "path", "cite_key", "authors", "accessed", "claims")
# models.SOURCE_KINDS, written out so that `--help` need not load the models (a test checks they agree).
KINDS_HELP = "paper, report, blog, readme, note, code, docs, news or other"


def _list(db_: str | None, fmt: OutputFormat) -> None:
    from claimsdb import queries

    with db.session_of(db_) as session:
        rows = queries.list_sources(session)
    emit(fmt, Output(
        rows, LIST_COLUMNS, rows,
        lambda: emit_table(
            f"{len(rows)} source(s)", ("key", "kind", "title", "url", "claims"),
            [(r["key"], r["kind"], r["title"], r["url"] or r["path"], r["claims"]) for r in rows],
        ),
    ))


@app.callback()
def sources(ctx: typer.Context, db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
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
        for field in ("kind", "url", "path", "authors", "publisher", "date", "accessed", "cite_key"):
            if shown.get(field):
                console.print(f"  {field}: {shown[field]}", markup=False)
        console.print(f"  snapshots: {shown['snapshots']}", markup=False)
        for s in shown["latest_snapshots"]:
            console.print(f"    {s['fetched_at'][:19]}Z {s['outcome']} {s['status'] or ''} {(s['sha256'] or '')[:12]}", markup=False)
        emit_table(f"{len(shown['claims'])} claim(s) cite it", ("claim", "tag", "locator", "quote", "added by"),
                   [(c["key"], c["tag"], c["locator"], c["quote"], c["added_by"]) for c in shown["claims"]])

    rows = [{"source": shown["key"], **c} for c in shown["claims"]]
    return Output(shown, ("source", "key", "tag", "locator", "quote", "added_by"), rows, table)


@command(app, "add")
def add(
    key: Annotated[str, typer.Argument(help="A stable key: lowercase letters, digits, '.', '_', '-'.", metavar="KEY", show_default=False)],
    url: Annotated[Optional[str], typer.Option("--url", help="The page's public http(s) URL.")] = None,
    path: Annotated[Optional[Path], typer.Option("--path", help="A local copy of the page (PDF, HTML, Markdown, text).")] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="Its title. Default: the URL or the file name.")] = None,
    kind: Annotated[str, typer.Option("--kind", help=f"One of: {KINDS_HELP}.")] = "other",
    cite_key: Annotated[Optional[str], typer.Option("--cite-key", help="The LaTeX citation key (default: the key).")] = None,
    authors: Annotated[Optional[str], typer.Option("--authors", help='Who wrote it: "A. Author and B. Author".')] = None,
    date: Annotated[Optional[str], typer.Option("--year", "--date", help="When it was published: YYYY, YYYY-MM or YYYY-MM-DD.")] = None,
    publisher: Annotated[Optional[str], typer.Option("--publisher", help="Who published it.")] = None,
    accessed: Annotated[Optional[str], typer.Option("--accessed", help="When you read it: YYYY-MM-DD.")] = None,
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
    fields = {"key": key, "url": url, "path": str(path) if path else None, "kind": kind, "cite_key": cite_key,
              "title": title or url or (path.name if path else key), "authors": authors, "date": date,
              "publisher": publisher, "accessed": accessed}
    with db.session_of(db_, create=True) as session:
        registry.add_source(session, fields)
        shown = registry.show(session, key)
    emit(fmt, Output(shown, LIST_COLUMNS[:-1], [shown], lambda: console.print(
        f"registered source {key}: {shown['title']} ({shown['kind']}) {shown['url'] or shown['path']}", markup=False)))


@command(app, "show")
def show(
    key: Annotated[str, typer.Argument(help="The source's key.", metavar="KEY", show_default=False)],
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
