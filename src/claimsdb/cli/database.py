"""`claims db`: where the database is, its schema revision, its integrity, copies and roles."""

from __future__ import annotations

from pathlib import Path

from claimsdb import db
from claimsdb.cli.commands import command, group
from claimsdb.cli.options import (
    AccessOption,
    AnchorOption,
    AnchorOutputOption,
    CopyTargetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    RoleArgument,
)
from claimsdb.cli.output import Output, console, emit, emit_record, emit_table, progress
from claimsdb.errors import BrokenHistory, DatabaseProblem

app = group(
    "The database: schema revision, upgrades, integrity check, copies and roles.",
    no_args_is_help=True,
)
CHECK_COLUMNS = ("check", "ok", "detail")


@command(app, "upgrade")
def upgrade(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Create the database if needed and apply every pending migration.

    Example: claims db upgrade --db team.db
    """
    url = db.resolve_url(db_)
    before = db.current_revision(db.make_engine(url))
    db.upgrade(url)
    after = db.current_revision(db.make_engine(url))
    info = {"database": db.describe_url(url), "before": before, "after": after}
    emit_record(fmt, info, f"{info['database']}: schema revision {before or 'none'} → {after}")


@command(app, "current")
def current(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Show the database's location and schema revision, read with a plain query. It creates nothing.

    Example: claims db current
    """
    url = db.resolve_url(db_)
    path = db.sqlite_file(url)
    if path is not None and not path.exists():
        raise DatabaseProblem(db.missing_database(url))
    revision = db.current_revision(db.make_engine(url))
    info = {
        "database": db.describe_url(url),
        "revision": revision,
        "head": db.HEAD_REVISION,
        "up_to_date": revision == db.HEAD_REVISION,
    }
    state = (
        "up to date"
        if info["up_to_date"]
        else ("blank" if revision is None else "needs `claims db upgrade`")
    )
    emit_record(
        fmt,
        info,
        f"{info['database']}: schema revision {revision or 'none'} (head {db.HEAD_REVISION}, {state})",
    )


def _check(engine, anchors: list[Path] | None = None) -> list:
    """What `claims db check` checks, on this engine's database; and each anchor file given."""
    from claimsdb import anchor, integrity

    loaded = [(str(p), anchor.load(p)) for p in anchors or ()]
    with db.session_scope(engine) as session:
        return integrity.check_store(
            session,
            revision=db.current_revision(engine),
            head_revision=db.HEAD_REVISION,
            expected_triggers=db.TRIGGERS.get(engine.dialect.name, ()),
            installed_triggers=db.installed_triggers(session.connection()),
            anchors=loaded,
        )


def _checked(fmt: OutputFormat, data: dict, checks: list, title: str, head=lambda: None) -> None:
    """Emit a result holding checks (db check, db copy); exit 1 naming every check that failed."""
    ok = all(c.ok for c in checks)

    def table() -> None:
        head()
        emit_table(
            f"{title}: {'intact' if ok else 'BROKEN'}",
            ("check", "result", "detail"),
            [(c.name, "ok" if c.ok else "FAILED", c.detail) for c in checks],
        )

    rows = [{"check": c.name, "ok": c.ok, "detail": c.detail} for c in checks]
    emit(
        fmt,
        Output({**data, "ok": ok, "checks": [vars(c) for c in checks]}, CHECK_COLUMNS, rows, table),
    )
    if not ok:
        raise BrokenHistory("; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok))


@command(app, "check")
def check(
    anchors: AnchorOption = None, db_: DbOption = None, fmt: FormatOption = OutputFormat.table
) -> None:
    """Verify the history: the schema revision, the triggers, every link of the event chain, each
    claim's tag, status and content against its events, the anchors recorded in the database, and each
    anchor file given (the chain still holds its head at its position). Exit 1 naming what is broken.

    Example: claims db check --anchor paper/claims.anchor
    """
    url = db.resolve_url(db_)
    engine = db.open_engine(
        db_, create=False
    )  # another revision: "run `claims db upgrade`", exit 2
    _checked(fmt, {"database": db.describe_url(url)}, _check(engine, anchors), db.describe_url(url))


@command(app, "anchor")
def anchor_(
    output: AnchorOutputOption = Path("claims.anchor"),
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Write the head of the history chain (its latest event's digest, id and position) to a small file
    outside the database, and record it in the database's append-only anchor table. Later, `claims db
    check --anchor FILE` (and lint, export with --anchor; lint reads ./claims.anchor by itself) fails when
    the history no longer holds that head at that position: cut, rewritten or replaced.

    Example: claims db anchor -o paper/claims.anchor
    """
    from claimsdb import anchor
    from claimsdb.trust import identity
    from claimsdb.userfiles import check_writable

    check_writable(output)  # before the anchor is recorded: a refused file records nothing
    with db.session_of(db_) as session:
        head = anchor.take(session)
        if head is None:
            raise DatabaseProblem("the history is empty: there is no head to anchor yet")
        anchor.record(session, head, identity.configured_reader() or "claims")
        anchor.save(output, head)
    info = {"file": str(output), "database": db.describe_url(db.resolve_url(db_)), **head.to_json()}
    emit_record(
        fmt, info, f"anchored the history of {info['database']} at {head.describe()} in {output}"
    )


@command(app, "copy")
def copy(
    to: CopyTargetOption,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Copy the whole store (claims, history, sources, evidence, snapshots' records, verifications) into
    an empty database, ids and history chain intact; then check the copy as `claims db check` does.

    Example: claims db copy --to postgresql+psycopg://claims@db.example.org/review
    """
    from claimsdb import transfer

    source = db.open_engine(db_, create=False)
    target_url = db.resolve_url(to)
    if target_url == db.resolve_url(db_):
        raise DatabaseProblem("--to names the database being copied")
    target = db.open_engine(target_url, create=True)
    with progress("copying rows") as advance:
        report = transfer.copy_store(
            source, target, on_rows=lambda n, total: advance(n, total=total)
        )
    db.refresh_statistics(target, report.rows.get("claim", 0))
    counts = ", ".join(f"{n} {t}" for t, n in report.rows.items())
    data = {
        "from": db.describe_url(db.resolve_url(db_)),
        "to": db.describe_url(target_url),
        "rows": report.rows,
        "history_head": report.head,
    }
    _checked(
        fmt,
        data,
        _check(target),
        data["to"],
        lambda: console.print(
            f"copied to {data['to']}: {counts}; history head {(report.head or 'none')[:16]}",
            markup=False,
        ),
    )


@command(app, "grant")
def grant(
    role: RoleArgument,
    access: AccessOption,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Give a PostgreSQL role the rights of a writer or a reader on the store (run as the owner).

    Writers insert everything and update only what imports rewrite; they cannot update or delete events,
    snapshots, verifications or tags, nor drop the triggers. Readers only read.

    Example: claims db grant alice --as writer --db postgresql+psycopg://owner@db.example.org/review
    """
    from claimsdb.trust import roles

    with db.session_of(db_) as session:
        roles.grant(session, role, access)
    info = {"role": role, "access": access, "database": db.describe_url(db.resolve_url(db_))}
    emit_record(fmt, info, f"{role} is now a {access} of {info['database']}")
