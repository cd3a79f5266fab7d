"""Recording what people did: reread, retag, withdraw, supersede, prefer, deprecate; and reading it back:
history. Every change is made by `--by` (the person), and every change of status or rank says why
(`--reason`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from claimsdb import db
from claimsdb.cli.options import (
    ActorOption,
    AllowLocalOption,
    DbOption,
    FormatOption,
    HistoryFormat,
    KeyArgument,
    LocalRootOption,
    OutputFormat,
    ReasonOption,
    SignWithOption,
    SourcesDirOption,
    local_root,
    snapshots_root,
)
from claimsdb.cli.output import (
    Output,
    confirm,
    console,
    emit,
    emit_table,
    err_console,
    print_registered,
    require_terminal,
)
from claimsdb.errors import BadQuery

EVENT_COLUMNS = ("key", "kind", "actor", "at", "before", "after")


def _key(help: str) -> Any:
    return Annotated[str, typer.Argument(help=help, metavar="KEY", show_default=False)]


ReplacedKey = _key("The claim being replaced.")
PreferredKey = _key("The claim whose value to use.")
DeprecatedKey = _key("The claim whose value not to use.")
TagArgument = Annotated[
    str, typer.Argument(help="The new tag (see `claims tags`).", metavar="TAG", show_default=False)
]


def _actor(by: str | None) -> str:
    """The person recording: --by, else the reader set on this machine; never the login name."""
    from claimsdb.trust import identity

    return identity.reader(by)


def _recorded(
    change: str,
    shown: Callable[[dict], Output],
    fmt: OutputFormat,
    db_: str | None,
    key: str,
    person: str | None,
    **fields: str,
) -> None:
    """Record one change through `provenance.<change>` (retag, withdraw, supersede, prefer, deprecate)
    as the person recording (--by), then show it."""
    from claimsdb import provenance

    with db.session_of(db_) as session:
        result = getattr(provenance, change)(session, key, actor=_actor(person), **fields)
    emit(fmt, shown(result))


def _change(result: dict, before: str, after: str, show) -> Output:
    """One recorded change: JSON as the domain returns it, one CSV row, a line for people."""
    ev = result["event"]
    row = {
        "key": result["key"],
        "kind": ev["kind"],
        "actor": ev["actor"],
        "at": ev["at"],
        "before": result[before],
        "after": result[after],
    }
    return Output(result, EVENT_COLUMNS, [row], show)


def _tag_change(result: dict) -> Output:
    def show() -> None:
        from rich.text import Text

        ev = result["event"]
        line = Text(f"{result['key']}: ")
        line.append(f"{result['tag_before']} → {result['tag_after']}", style="bold")
        line.append(f"  ({ev['kind']} by {ev['actor']} at {ev['at'][:19]}Z)")
        console.print(line)
        if result.get("linked"):
            console.print(f"  {result['source']} is now evidence of {result['key']}", markup=False)

    return _change(result, "tag_before", "tag_after", show)


# claims reread's own options: what a re-read names, and how its page is read.
PageOption = Annotated[
    str | None,
    typer.Option(
        "--source",
        help="The page re-read (required): a source key, or its URL (registered on the spot if new).",
    ),
]
LocatorOption = Annotated[
    str | None,
    typer.Option(
        "--locator",
        help='Where in the page (required): a section, table, figure, page or heading: "§3.5", "Table 5".',
    ),
]
QuoteOption = Annotated[
    str | None,
    typer.Option(
        "--quote", help="The page's own words there, verbatim (required): checked against the page."
    ),
]
NoteOption = Annotated[str | None, typer.Option("--note", help="Anything else worth keeping.")]
CorrectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--correct",
        help='The page states another value: correct the claim\'s figure to it ("2,048 GPUs"); repeat for several.',
    ),
]
AttestOption = Annotated[
    str | None,
    typer.Option(
        "--attest",
        help="The page cannot be checked here (a paywall, a printed book): record why. Listed as an "
        "attestation; the strict policy does not count it.",
    ),
]
CopyOption = Annotated[
    Path | None,
    typer.Option(
        "--copy",
        help="A local copy of the page you read (HTML, Markdown, PDF, text), checked instead of a snapshot.",
    ),
]
YesOption = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Record without asking for confirmation (needed when no terminal is attached).",
    ),
]


def reread(
    key: KeyArgument,
    by: ActorOption = None,
    source: PageOption = None,
    locator: LocatorOption = None,
    quote: QuoteOption = None,
    note: NoteOption = None,
    correct: CorrectOption = None,
    attest: AttestOption = None,
    copy: CopyOption = None,
    yes: YesOption = False,
    sources_dir: SourcesDirOption = None,
    allow_local: AllowLocalOption = False,
    local_root: LocalRootOption = None,
    sign_with: SignWithOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Record that a person re-read the claim in its page; the tag becomes spot-checked.

    A re-read names the page (--source), the place in it (--locator) and the page's own words there
    (--quote). The quote is checked against the page: its latest snapshot (from `claims verify`), else
    the page fetched now under verify's rules (--allow-local, --local-root), or the local copy you name
    (--copy). Nothing is recorded (exit 2) when the page cannot be had, the quote is not on it, a figure
    of the claim is in neither the quote nor the passage around it, or the page states another value
    (then --correct records your correction to the page's value in the same act). A page that cannot be
    checked here takes --attest REASON instead. The page becomes evidence of the claim, with the locator
    and the quote. Shows the claim, the page's verdict and what recording changes, then asks; without a
    terminal nothing is asked and the command stops with exit 2 unless --yes is given. With a signing key
    (--sign-with, CLAIMS_SIGNING_KEY, the config file's signing_key, or git's SSH user.signingkey) the
    re-read is signed with it (ssh-keygen: ssh-agent, passphrases and security keys work as for git); a
    store that requires signatures (`claims people require-signatures`) records no unsigned re-read.

    Example: claims reread pipelines.obs.llama3-failures --source llama3-report --locator "Table 5" --quote "466 unexpected interruptions"
    """
    from claimsdb import provenance
    from claimsdb.cli.people import signer

    actor = _actor(by)  # before asking: a question answered for nobody would be wasted
    signing = signer(sign_with)
    sign = signing.sign if signing is not None else None
    engine = db.open_engine(
        db_, create=False
    )  # one engine: the page read, the question, the record
    if not yes:
        source, locator, quote = _asked(engine, key, source, locator, quote)
    entered = {"source": source, "locator": locator, "quote": quote, "note": note}
    provenance.required_fields(source, locator, quote)
    read = _read_page(engine, key, source, copy, attest, sources_dir, allow_local, local_root, db_)
    checks = {"read": read, "correct": tuple(correct or ()), "attest": attest}
    confirmed = None if yes else _ask(engine, key, {**entered, **checks})
    with db.session_scope(engine) as session:
        if confirmed is None:  # --yes: previewed and recorded in one transaction
            result = provenance.reread(session, key, actor=actor, sign=sign, **entered, **checks)
        else:
            result = provenance.reread(session, confirmed, actor=actor, sign=sign)
    print_registered(result["source"], result["source_registered"])
    emit(fmt, _tag_change(result))


def _asked(
    engine, key: str, source: str | None, locator: str | None, quote: str | None
) -> tuple[str | None, str | None, str | None]:
    """At a terminal, what the command line left out of a re-read is asked for, so that `claims reread
    KEY` (the terminal door every hint names) runs as printed: the page (by default the one the claim
    cites), the place in it, the page's own words there. Without a terminal nothing is asked, and the
    missing flags are refused (exit 2)."""
    from claimsdb.cli import output

    if (source and locator and quote) or not output.stdin_is_terminal():
        return source, locator, quote
    from claimsdb.queries import claim_views, get_claim
    from claimsdb.trust.rule import page_to_reread

    if not source:
        with db.session_scope(engine) as session:
            (view,) = claim_views(session, [get_claim(session, key)], events=0)
        err_console.print(f"{key}: {view.statement}", markup=False)
        page = page_to_reread(view.sources)
        source = typer.prompt(
            "The page you re-read (a source key or its URL)",
            default=page.key if page else None,
            err=True,
        )
    locator = locator or typer.prompt("Where in it (a section, table, figure or page)", err=True)
    quote = quote or typer.prompt("The page's own words there, verbatim", err=True)
    return source, locator, quote


def _read_page(
    engine,
    key: str,
    source: str | None,
    copy: Path | None,
    attest: str | None,
    sources_dir: Path | None,
    allow_local: bool,
    local_root_: Path | None,
    db_: str | None,
):
    """The page's text to check the quote against (none for an attestation)."""
    if attest is not None:
        if copy is not None:
            raise BadQuery(
                "--attest records that the page could not be checked: give no --copy with it"
            )
        return None
    from claimsdb import reread_page
    from claimsdb.fetching.fetch import FetchLimits
    from claimsdb.fetching.snapshots import SnapshotStore
    from claimsdb.fetching.targets import FetchPolicy

    policy = FetchPolicy(allow_local=allow_local, local_root=local_root(local_root_, db_))
    return reread_page.read_page(
        engine,
        key,
        source,
        SnapshotStore(snapshots_root(sources_dir, db_)),
        FetchLimits(policy=policy),
        copy=copy,
    )


def _ask(engine, key: str, entered: dict[str, Any]):
    """Show the claim, what the page says of it and what the re-read would record, then ask; a "no"
    records nothing (exit 1), a page that does not hold the quote refuses before asking (exit 2).
    Returns the preview confirmed, for the re-read to record as it is."""
    from claimsdb import provenance
    from claimsdb.errors import ExitCode

    require_terminal("claims reread shows the passage and asks before it records", "--yes")
    with db.session_scope(engine) as session:
        preview = provenance.preview_reread(session, key, **entered)
    err_console.print(f"{key}: {preview.statement}", markup=False)
    if preview.figures:
        err_console.print("  figures: " + ", ".join(preview.figures), markup=False)
    if preview.refusal is not None:
        raise BadQuery(f"{key}: nothing recorded: {preview.refusal}")
    _show_check(preview)
    _show_changes(preview)
    if not confirm(f"Record that you re-read {key} in {preview.page}?", skip_with="--yes"):
        err_console.print("nothing recorded", markup=False)
        raise typer.Exit(int(ExitCode.FINDINGS))
    return preview


def _show_check(preview) -> None:
    """Where the page holds the quote, or why the re-read is an attestation."""
    if preview.attested:
        err_console.print(
            f"not checked against the page: attested ({preview.attested})", markup=False
        )
        return
    if preview.read is not None and preview.check is not None:
        err_console.print(f"the quote is on the page ({preview.read.describe()})", markup=False)
        if preview.check.passage:
            err_console.print(
                f"  “{' '.join(preview.check.passage.split())}”", style="italic", markup=False
            )


def _show_changes(preview) -> None:
    """What recording changes: the tag, the page linked as evidence, the figures vouched for."""
    err_console.print(
        f"records: {preview.tag_before} → {preview.tag_after} ({preview.status})", markup=False
    )
    for old, new in preview.corrections:
        err_console.print(f"  corrects {old} to {new}, as the page says", markup=False)
    if preview.linked:
        err_console.print(
            f"  {preview.page} becomes evidence of {preview.key}"
            + (" (registered as a new source)" if preview.registers else ""),
            markup=False,
        )
    if preview.vouched:
        err_console.print("  vouches for: " + ", ".join(preview.vouched), markup=False)


def retag(
    key: KeyArgument,
    tag: TagArgument,
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Set a claim's tag by hand, with a reason. Imports never override it.

    Example: claims retag pipelines.marin.pretrain prior-note --reason "figure is from the March note"
    """
    _recorded("retag", _tag_change, fmt, db_, key, by, tag=tag, reason=reason)


def _status_change(result: dict) -> Output:
    return _change(
        result,
        "status_before",
        "status_after",
        lambda: console.print(
            f"{result['key']}: {result['status_before']} → {result['status_after']}", markup=False
        ),
    )


def withdraw(
    key: KeyArgument,
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Withdraw a claim (a status, never a delete): it is never exported again.

    Example: claims withdraw rl.bench.weirdml --reason "family dropped from the review"
    """
    _recorded("withdraw", _status_change, fmt, db_, key, by, reason=reason)


def supersede(
    key: ReplacedKey,
    replacement: Annotated[
        str,
        typer.Option(
            "--with",
            help="The claim that replaces it (its key).",
            metavar="NEWKEY",
            show_default=False,
        ),
    ],
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Mark a claim superseded by another; it is never exported again.

    Example: claims supersede pipelines.kimi-k2-k3.post-train --with rl.weight-sync.kimi-checkpoint-engine --reason "the README measures it"
    """
    _recorded("supersede", _status_change, fmt, db_, key, by, by=replacement, reason=reason)


def _rank_change(result: dict) -> Output:
    def show() -> None:
        ev = result["event"]
        console.print(
            f"{result['key']}: {result['rank_before']} → {result['rank_after']}  "
            f"({ev['kind']} by {ev['actor']} at {ev['at'][:19]}Z)",
            markup=False,
        )
        for key in result["demoted"]:
            console.print(f"  {key}: preferred → normal", markup=False)

    return _change(result, "rank_before", "rank_after", show)


def prefer(
    key: PreferredKey,
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Make a claim the preferred value of its quantity (the one exports use); the value preferred before
    becomes normal. Imports never override it.

    Example: claims prefer rl.weight-sync.kimi-checkpoint-engine --reason "the checkpoint-engine README says about 20 s"
    """
    _recorded("prefer", _rank_change, fmt, db_, key, by, reason=reason)


def deprecate(
    key: DeprecatedKey,
    reason: ReasonOption,
    by: ActorOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Mark a value of a quantity deprecated: kept and shown, never exported, and lint warns when a
    manuscript uses it. Imports never override it.

    Example: claims deprecate pipelines.kimi-k2-k3.post-train --reason "the README measures about 20 s"
    """
    _recorded("deprecate", _rank_change, fmt, db_, key, by, reason=reason)


def history(
    key: KeyArgument,
    db_: DbOption = None,
    fmt: Annotated[
        HistoryFormat,
        typer.Option(
            "--format",
            "-f",
            help="table, json, csv, or prov (W3C PROV-JSON: versions, activities, agents).",
        ),
    ] = HistoryFormat.table,
) -> None:
    """Every event of a claim, oldest first: who, when, and what changed.

    Example: claims history rl.fleet.kimi-k25-tasks --format prov
    """
    from claimsdb import queries

    texts = {}
    with db.session_of(db_) as session:
        result = queries.history(session, key)
        if fmt is HistoryFormat.prov:
            from claimsdb import lineage

            texts["prov"] = lineage.render(
                lineage.document(session, [queries.get_claim(session, key)])
            )
    rows = [
        {
            "key": key,
            **e,
            "detail": json.dumps(e["detail"], ensure_ascii=False) if e["detail"] else None,
        }
        for e in result["events"]
    ]

    def table() -> None:
        emit_table(
            f"{key}: now {result['tag']}, {result['status']}",
            ("when (UTC)", "event", "by", "tag", "details"),
            [
                (
                    e["at"][:19].replace("T", " "),
                    e["kind"],
                    e["actor"],
                    f"{e['tag_before'] or '—'} → {e['tag_after']}" if e["tag_after"] else "",
                    _details(e),
                )
                for e in result["events"]
            ],
        )

    from claimsdb.history import (
        EVENT_FIELDS,
    )  # loaded by this command only (`claims --help` reads this module)

    # `--format csv`: each event's hashed fields up to its detail, then its own hash.
    columns = ("key", *EVENT_FIELDS[: EVENT_FIELDS.index("detail") + 1], "sha256")
    emit(
        fmt,
        Output(
            result,
            columns,
            rows,
            table,
            texts,
        ),
    )


def _details(e: dict) -> str:
    detail = e.get("detail") or {}
    parts = [f"from {e['origin']}"] if e.get("origin") else []
    if isinstance(detail, dict):
        for k, v in detail.items():
            if k == "changes":
                parts.append("changed " + ", ".join(sorted(v)))
            elif (
                k == "figures_not_as_parsed"
                and isinstance(v, list)
                and all(isinstance(f, dict) for f in v)
            ):
                parts.append(
                    "taken as stored, not as the parser reads them: "
                    + ", ".join(map(_not_as_parsed, v))
                )
            elif k == "signature" and isinstance(
                v, dict
            ):  # the whole signature is in --format json
                parts.append(f"signed with {v.get('fingerprint')} ({v.get('format')})")
            elif k == "agent" and isinstance(v, dict):
                from claimsdb.trust.agents import SoftwareAgent

                parts.append("agent: " + SoftwareAgent.of_detail(detail).describe())
            elif k != "url":
                parts.append(f"{k}: {v}")
    return "; ".join(parts)


def _not_as_parsed(figure: dict) -> str:
    """One figure a seal took as stored (migration 0009): where its columns and the parser's reading differ."""
    differs = figure.get("stored_and_parsed")
    if isinstance(differs, dict) and all(
        isinstance(d, list) and len(d) == 2 for d in differs.values()
    ):
        why = ", ".join(
            f"{column} {stored!r} (parser: {parsed!r})"
            for column, (stored, parsed) in differs.items()
        )
    else:
        stored = figure.get("stored")
        shown = (
            ", ".join(f"{c} {v!r}" for c, v in stored.items())
            if isinstance(stored, dict)
            else repr(stored)
        )
        why = f"the parser {figure.get('parser', '')}; stored as {shown}"
    return f"figure {figure.get('figure')} {figure.get('raw')!r}: {why}"
