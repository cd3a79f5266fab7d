"""`claims verify`: re-check claims against their sources over HTTP (or their snapshots, offline)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import typer

from claimsdb import db
from claimsdb.cli.options import (
    AllowLocalOption,
    CheckAllOption,
    CheckSourceOption,
    ConcurrencyOption,
    DbOption,
    FormatOption,
    LocalRootOption,
    MaxBytesOption,
    OfflineOption,
    OutputFormat,
    QueueStrictOption,
    RereadsOption,
    SourcesDirOption,
    TimeoutOption,
    UnverifiedOption,
    VerifyKeys,
    snapshots_root,
)
from claimsdb.cli.options import (
    local_root as _local_root,
)
from claimsdb.cli.output import Output, console, emit, emit_table, err_console, progress
from claimsdb.errors import BadQuery, ExitCode

RESULT_COLUMNS = (
    "claim",
    "subject",
    "source",
    "outcome",
    "changes",
    "missing",
    "error",
    "snapshot",
    "passage",
)
OUTCOME_STYLE = {
    "confirmed": "green",
    "reworded": "green",
    "rounded": "green",
    "partial": "bold red",
    "figure-changed": "bold red",
    "not-found": "bold red",
    "nothing-to-check": "dim",
    "unreachable": "yellow",
}


def verify(
    keys: VerifyKeys = None,
    source: CheckSourceOption = None,
    everything: CheckAllOption = False,
    unverified: UnverifiedOption = False,
    strict: QueueStrictOption = False,
    rereads: RereadsOption = False,
    offline: OfflineOption = False,
    concurrency: ConcurrencyOption = 8,
    timeout: TimeoutOption = 20.0,
    max_bytes: MaxBytesOption = 20_000_000,
    sources_dir: SourcesDirOption = None,
    allow_local: AllowLocalOption = False,
    local_root: LocalRootOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Fetch each claim's primary pages and check that its quote and figures are still there.

    Each distinct source is fetched once (conditional requests: an unchanged page costs a 304) and kept
    as a snapshot. Without a quote, each figure is looked for on its own anywhere on the page, near the
    claim's words. Outcomes: confirmed, reworded, rounded (the page is more precise: 5.93T for 5.9T),
    partial (some figures missing), figure-changed, not-found, nothing-to-check (no figure, no quote),
    unreachable. A verification never changes a tag. Exit 1 on partial, figure-changed, not-found or
    unreachable.

    What is fetched: http and https URLs whose host resolves to public addresses only, checked again on
    every redirect (--allow-local adds loopback and private ones); local copies only inside the local
    root (--local-root, default the database's folder), never under /proc, /dev or /sys. Anything else
    is unreachable, with the reason. Snapshots are kept in the snapshots/ folder of --sources-dir (default:
    beside the database file); the command names the folder it used.

    --unverified checks the claims the browser's re-read queue holds, so that the queue can show each
    one's passage: claims verify --unverified --allow-local  (pages on a local mirror).

    --rereads checks the re-reads themselves: the one that set each active claim's tag, against the
    latest snapshot of the page it names (nothing is fetched). It lists each re-read whose quote or
    figure that snapshot does not hold, each with no snapshot to check against or no quote, and each
    attestation; exit 1 when it lists any. Re-reads from earlier releases, recorded without a page
    check, get checked this way.

    Example: claims verify --all
    """
    from claimsdb import verification
    from claimsdb.fetching.fetch import FetchLimits
    from claimsdb.fetching.snapshots import SnapshotStore
    from claimsdb.fetching.targets import FetchPolicy
    from claimsdb.trust.rule import Policy

    _check_selection(keys, source, everything, unverified, strict, rereads)
    if rereads:
        _audit_rereads(snapshots_root(sources_dir, db_), db_, fmt)
        return
    policy = FetchPolicy(allow_local=allow_local, local_root=_local_root(local_root, db_))
    engine = db.open_engine(db_, create=False)
    limits = FetchLimits(
        concurrency=concurrency, timeout_s=timeout, max_bytes=max_bytes, policy=policy
    )
    store = SnapshotStore(snapshots_root(sources_dir, db_))
    with progress("fetching") as advance:
        done = verification.run(
            engine,
            keys or [],
            store,
            limits,
            source=source,
            everything=everything,
            queued=Policy(strict=strict) if unverified else None,
            offline=offline,
            on_planned=lambda p: advance(0, total=len(p.sources)),
            on_fetched=lambda r: advance(item=r.source),
        )
    emit(fmt, _output(done, str(store.dir), offline))
    err_console.print(
        f"snapshots {'read from' if offline else 'kept in'} {store.dir}", markup=False
    )
    if not done.ok:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _check_selection(
    keys: list[str] | None,
    source: str | None,
    everything: bool,
    unverified: bool,
    strict: bool,
    rereads: bool = False,
) -> None:
    """The command line's rules for what to check, in its flags' words."""
    if rereads and (keys or source is not None or everything or unverified or strict):
        raise BadQuery(
            "--rereads selects the re-reads itself: name no claim keys, no --source, --all, "
            "--unverified or --strict with it"
        )
    if not keys and source is None and not everything and not unverified and not rereads:
        raise BadQuery("name claim keys, a --source, --unverified, --all or --rereads")
    if unverified and (keys or everything):
        raise BadQuery(
            "--unverified selects the claims itself: name no claim keys and no --all with it"
        )
    if strict and not unverified:
        raise BadQuery("--strict says which claims --unverified selects: use it with --unverified")


def _output(done, snapshots: str, offline: bool) -> Output:
    """A run as JSON (everything), CSV (one row per check) and a table for people."""
    counts = done.counts()
    data = {
        "ok": done.ok,
        "offline": offline,
        "snapshots": snapshots,
        "counts": counts,
        "results": [asdict(r) for r in done.results],
        "fetches": done.fetches,
        "skipped": done.plan.skipped,
    }
    rows = [
        {
            **asdict(r),
            "changes": "; ".join(f"{old} → {new}" for old, new in r.changes),
            "missing": " | ".join(r.missing),
        }
        for r in done.results
    ]
    return Output(
        data,
        RESULT_COLUMNS,
        rows,
        lambda: _print(done.results, done.fetches, done.plan.skipped, counts),
    )


def _print(results, log, skipped, counts) -> None:
    from rich.text import Text

    emit_table(
        f"{len(results)} check(s) of {len({r.claim for r in results})} claim(s) against {len(log)} source(s)",
        ("claim", "source", "outcome", "what changed"),
        [
            (r.claim, r.source, Text(r.outcome, style=OUTCOME_STYLE[r.outcome]), _what_changed(r))
            for r in results
        ],
    )
    summary = (
        ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing checked"
    )
    console.print(f"summary: {summary}")
    if skipped:
        console.print(
            f"skipped {len(skipped)} claim(s) that cite no primary page with a URL or local copy"
        )


def _what_changed(r) -> str:
    parts = [f"{old} → {new}" for old, new in r.changes]
    parts += [f"{f['figure']} found as {f['found']}" for f in r.figures if f["status"] == "rounded"]
    if r.missing:
        parts.append("missing: " + ", ".join(r.missing))
    if r.error:
        parts.append(r.error)
    return "; ".join(parts)


AUDIT_COLUMNS = (
    "claim",
    "outcome",
    "page",
    "locator",
    "quote",
    "actor",
    "at",
    "checked",
    "findings",
    "snapshot",
    "passage",
)


def _audit_rereads(root: Path, db_: str | None, fmt: OutputFormat) -> None:
    """`--rereads`: the re-reads the latest snapshots do not bear out, listed; exit 1 when any is."""
    from claimsdb import reread_audit
    from claimsdb.fetching.snapshots import SnapshotStore

    store = SnapshotStore(root)
    with db.session_of(db_) as session:
        audited = reread_audit.audit(session, store)
    listed = [a for a in audited if a.listed]
    counts = {o: n for o in reread_audit.OUTCOMES if (n := sum(a.outcome == o for a in audited))}
    data = {
        "ok": not listed,
        "snapshots": str(store.dir),
        "checked": len(audited),
        "counts": counts,
        "rereads": [a.to_json() for a in listed],
    }
    rows = [{**a.to_json(), "findings": " | ".join(a.findings)} for a in listed]
    emit(fmt, Output(data, AUDIT_COLUMNS, rows, lambda: _print_audit(listed, len(audited), counts)))
    err_console.print(f"snapshots read from {store.dir}", markup=False)
    if listed:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _print_audit(listed, checked: int, counts: dict[str, int]) -> None:
    summary = ", ".join(f"{n} {outcome}" for outcome, n in counts.items()) or "no re-read to check"
    if not listed:
        held = ": each page's latest snapshot bears out its re-read" if checked else ""
        console.print(f"summary: {summary}{held}", markup=False)
        return
    emit_table(
        f"{len(listed)} of {checked} re-read(s) to look at",
        ("claim", "outcome", "re-read", "what the page's latest snapshot says"),
        [
            (
                a.claim,
                a.outcome,
                f"{a.actor}, {a.at[:10]}, {a.page}"
                + (f", {a.locator}" if a.locator else "")
                + (
                    ""
                    if a.checked or a.outcome == "attested"
                    else " (not checked against the page)"
                ),
                "; ".join(a.findings)
                + (
                    f": “{' '.join(a.passage.split())}”"
                    if a.passage and a.outcome == "not-held"
                    else ""
                ),
            )
            for a in listed
        ],
    )
    console.print(f"summary: {summary}", markup=False)
