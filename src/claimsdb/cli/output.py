"""Rendering: rich tables for people, stable JSON and CSV for scripts, through one entry point (`emit`);
progress on standard error; the questions a command may ask. Nothing here reads the database."""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from claimsdb import canonical
from claimsdb.escaping import csv_cell

if TYPE_CHECKING:
    from rich.text import Text

TRUST_STYLE = {"verified": "bold green", "secondary": "yellow", "unverified": "bold red"}


PIPE_CLOSED = (
    141  # 128 + SIGPIPE: what a shell shows for a Unix tool whose reader went away (`| head`)
)


def drop_stdout() -> None:
    """Standard output's reader went away: what is still buffered or written later goes nowhere, so
    that the process ends quietly (no "Exception ignored ... BrokenPipeError" at its last flush)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured output)
        pass


def _console(**options: Any):
    """A rich Console whose closed pipe reaches the one place that ends the command (cli/app.py),
    rather than rich's own exit (code 1, which means "findings" here)."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return PipedConsole(**options)


class LazyConsole:
    """A rich Console made on first use, so that `claims --help` and a command that writes JSON never load rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            self._console = _console(**self._options)
        return getattr(self._console, name)


# soft_wrap: a message line is never broken into several; tables still fit the terminal.
console = LazyConsole(highlight=False, soft_wrap=True)
err_console = LazyConsole(stderr=True, highlight=False, soft_wrap=True)


@dataclass
class Output:
    """What a command shows, in each form: `data` for JSON, `rows` under `columns` for CSV, and `show()`
    printing it for people. Every command renders through `emit`, so no --format is accepted and ignored.
    `data` and `rows` may be functions that build them: then only the form shown is built (an import of
    a million claims lists each one for JSON and CSV)."""

    data: Any
    columns: Sequence[str] = ()
    rows: Sequence[dict[str, Any]] | Callable[[], Sequence[dict[str, Any]]] = ()
    show: Callable[[], None] = field(default=lambda: None)
    texts: dict[str, str] = field(
        default_factory=dict
    )  # any other format a command declares, rendered


def emit(fmt: Enum | str, out: Output) -> None:
    """The one place a command's result reaches standard output."""
    fmt = getattr(fmt, "value", fmt)
    if fmt == "json":
        emit_json(out.data() if callable(out.data) else out.data)
    elif fmt == "csv":
        emit_csv(out.columns, out.rows() if callable(out.rows) else out.rows)
    elif fmt == "table":
        out.show()
    elif fmt in out.texts:
        sys.stdout.write(out.texts[fmt])
    else:  # a format a command declares must be rendered by it before reaching here
        raise ValueError(f"no renderer for --format {fmt}")


def emit_record(fmt: Enum | str, record: dict[str, Any], said: str) -> None:
    """A result that is one record: JSON as it is, CSV one row of its fields, the table a line saying it."""
    emit(fmt, Output(record, tuple(record), [record], lambda: console.print(said, markup=False)))


def tag_text(tag: str, trust: str | None, *, show_trust: bool = True) -> Text:
    from rich.text import Text

    label = f"{tag} ({trust})" if trust and show_trust else tag
    return Text(label, style=TRUST_STYLE.get(trust or "", ""))


class Stream:
    """A JSON list whose items are written as they come (a list of a million claims is never held), one
    item to a line: `[`, then each item as compact JSON, `]`. A line per claim is what grep, diff and
    `jq -c` want from a long list, and it is encoded in C (an indented item costs ten times as much)."""

    def __init__(self, items: Iterable[Any]):
        self.items = items


_LINE = canonical.LINE  # json.dumps(item, ensure_ascii=False, separators=(", ", ": "))


def emit_json(data: Any) -> None:
    if not isinstance(data, Stream):
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    first = True
    for item in data.items:
        sys.stdout.write("[\n  " if first else ",\n  ")
        # halves.Encoded: items a worker already encoded as _LINE does, written as they are
        pieces = getattr(item, "pieces", None)
        for piece in pieces() if pieces is not None else (_LINE(item),):
            sys.stdout.write(piece)
        first = False
    sys.stdout.write("[]\n" if first else "\n]\n")


def emit_csv(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> None:
    writer = csv.DictWriter(
        sys.stdout, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore"
    )
    writer.writeheader()
    for row in rows:
        writer.writerow({k: csv_cell(row.get(k)) for k in columns})


# Columns that hold identifiers a person copies into the next command: never broken across lines.
KEY_COLUMNS = frozenset({"key", "claim", "tag"})


def emit_table(
    title: str | None,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    whole: Sequence[str] = (),
) -> None:
    """A rich table; identifier columns (KEY_COLUMNS: a claim's key, a tag...) and those named in `whole`
    are never broken across lines, however narrow the terminal: the others wrap around them."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, show_lines=False, header_style="bold")
    for col in columns:
        kept = col in whole or col in KEY_COLUMNS
        table.add_column(col, overflow="fold", no_wrap=kept, min_width=None if kept else 8)
    for row in rows:
        table.add_row(
            *[
                cell if isinstance(cell, Text) else Text("" if cell is None else str(cell))
                for cell in row
            ]
        )
    console.print(table)


def figures_text(figures: list[dict[str, Any]]) -> str:
    return " | ".join(f["raw"] for f in figures)


def sources_text(sources: list[dict[str, Any]]) -> str:
    return " | ".join(s["key"] for s in sources)


CLAIM_CSV_COLUMNS = (
    "key",
    "subject",
    "stage",
    "statement",
    "tag",
    "trust",
    "status",
    "figures",
    "sources",
    "basis",
    "section",
    "integrity",
)


def claim_row(view: dict[str, Any]) -> dict[str, Any]:
    """The flat (CSV) form of a claim: its fields as they are, then its figures and sources as text, and
    every way it disagrees with its history ("" when it agrees: a spreadsheet sees a tampered row)."""
    row = {k: view[k] for k in CLAIM_CSV_COLUMNS if k not in ("figures", "sources", "integrity")}
    return {
        **row,
        "figures": figures_text(view["figures"]),
        "sources": sources_text(view["sources"]),
        "integrity": "; ".join(view.get("integrity") or ()),
    }


def describe_event(e: dict[str, Any]) -> str:
    what = e["kind"]
    if e["tag_after"] and e["tag_before"] and e["tag_before"] != e["tag_after"]:
        what += f" {e['tag_before']} → {e['tag_after']}"
    elif e["tag_after"] and e["kind"] == "imported":
        what += f" as {e['tag_after']}"
    detail = e.get("detail") or {}
    if isinstance(detail, dict) and detail.get("changes"):
        what += f" ({', '.join(sorted(detail['changes']))})"
    if isinstance(detail, dict) and detail.get("corrected"):
        what += ", corrected " + ", ".join(f"{old} → {new}" for old, new in detail["corrected"])
    if isinstance(detail, dict) and detail.get("attested"):
        what += " (attested, not checked against the page)"
    origin = f" from {e['origin']}" if e.get("origin") else ""
    return f"{e['at'][:19].replace('T', ' ')}Z  {what}{origin}  by {e['actor']}"


def print_claim(view: dict[str, Any], *, figure: str | None = None, full: bool = False) -> None:
    """A claim as a block: heading, statement, tag, figures, sources, history."""
    from rich.text import Text

    console.print(_claim_heading(view, figure))
    console.print(Text("  " + view["statement"]))
    if view.get("label"):
        console.print(Text(f"  grid label: {view['label']}"))
    console.print(_tag_line(view))
    _print_warnings(view)
    if full:
        _print_record(view)
    _print_sources(view)
    _print_verifications(view, full)
    _print_quantity(view)
    _print_disputes(view)
    if view.get("stale"):
        console.print(
            Text(
                "  STALE: spot-checked, but the latest verification no longer finds it as recorded",
                style="bold red",
            )
        )
    if view["events"]:
        console.print(Text("  history:" if full else "  latest events:", style="dim"))
        for e in view["events"]:
            console.print(Text(f"    {describe_event(e)}", style="dim"))


def _claim_heading(view: dict[str, Any], figure: str | None) -> Text:
    """The figure asked about (trace), the subject with its aliases, the stage and the key."""
    from rich.text import Text

    head = Text()
    if figure:
        head.append(figure, style="bold cyan")
        head.append("  ")
    head.append(view["subject"], style="bold")
    if view.get("aliases"):
        head.append(f" (also {', '.join(view['aliases'])})")
    if view["stage"]:
        head.append(f" · {view['stage']}")
    head.append(f"  [{view['key']}]", style="dim")
    return head


def _tag_line(view: dict[str, Any]) -> Text:
    """The tag and its trust; a claim no longer active says so, why and by what."""
    from rich.text import Text

    line = Text("  tag: ")
    line.append_text(tag_text(view["tag"], view["trust"]))
    if view["status"] != "active":
        line.append(f"  status: {view['status']}", style="bold magenta")
        if view.get("status_reason"):
            line.append(f" ({view['status_reason']})")
        if view.get("superseded_by"):
            line.append(f" by {view['superseded_by']}")
    return line


def _print_warnings(view: dict[str, Any]) -> None:
    """Why the claim has its tag, then what keeps it out of a paper: an outdated re-read, tampering."""
    from rich.text import Text

    if view.get("tag_reason"):
        console.print(Text(f"  why: {view['tag_reason']}"))
    if view.get("outdated_reason"):
        console.print(
            Text(
                f"  NOT PAPER-SAFE: {view['outdated_reason']}; a person re-reads it in its page "
                f"(the re-read queue of `claims serve`, or `claims reread {view['key']}` at a terminal)",
                style="bold red",
            )
        )
    for problem in view.get("integrity") or ():
        console.print(Text(f"  TAMPERED: {problem} (claims db check)", style="bold red"))


def _print_record(view: dict[str, Any]) -> None:
    """What `show` adds: the data file's basis (unless "why" said it), the section, each parsed figure."""
    from rich.text import Text

    if not repeats_basis(view["tag_reason"], view["basis"]):
        console.print(Text(f"  basis (data file): {view['basis']}"))
    if view["section"]:
        console.print(Text(f"  section: {view['section']}"))
    for f in view["figures"]:
        console.print(Text(f"  figure: {f['raw']}  →  {parsed_text(f)}"))


def _print_sources(view: dict[str, Any]) -> None:
    """Each source: title, address, locator, the re-read that linked it, and its quote."""
    from rich.text import Text

    for s in view["sources"]:
        src = Text("  source: ")
        src.append(s["title"], style="bold")
        if s["url"]:
            src.append(f"  {s['url']}", style="underline")
        if s["locator"]:
            src.append(f"  ({s['locator']})")
        if s.get("added_by"):
            src.append(f"  (linked by the re-read of {s['added_by']})", style="dim")
        console.print(src)
        if s["quote"]:
            console.print(Text(f"    “{s['quote']}”", style="italic"))


def _print_verifications(view: dict[str, Any], full: bool) -> None:
    """Each verification: its outcome, where and when, what changed, an unreachable last fetch; in
    full, the passage found."""
    from rich.text import Text

    for v in view.get("verifications", []):
        style = "green" if v["outcome"] in ("confirmed", "reworded") else "bold red"
        line = Text("  verified: ")
        line.append(v["outcome"], style=style)
        line.append(f" in {v['source']} at {v['at'][:19].replace('T', ' ')}Z")
        changes = (v.get("detail") or {}).get("changes")
        if changes:
            line.append("  " + "; ".join(f"{old} → {new}" for old, new in changes))
        if v.get("last_attempt"):
            line.append(
                f"  (last fetch {v['last_attempt']['at'][:19].replace('T', ' ')}Z unreachable)",
                style="dim",
            )
        console.print(line)
        if full and v.get("passage"):
            console.print(Text(f"    “{v['passage']}”", style="italic"))


def _print_quantity(view: dict[str, Any]) -> None:
    """The quantity the claim gives a value of, its rank and why, and the competing values."""
    from rich.text import Text

    if not view.get("quantity"):
        return
    q = view["quantity"]
    line = Text(f"  quantity: {q['key']} ({q['subject']}, {q['measure']}); rank {view['rank']}")
    if view.get("rank_reason"):
        line.append(f": {view['rank_reason']}")
    console.print(line)
    for c in view.get("competitors") or ():
        console.print(
            Text(
                f"    competing: {', '.join(c['figures']) or '(no figure)'}  [{c['key']}]  "
                f"{c['tag']}, {c['rank']}"
                + ("" if c["status"] == "active" else f", {c['status']}"),
                style="dim",
            )
        )


def _print_disputes(view: dict[str, Any]) -> None:
    """The claims of the same subject an agent's claim disagrees with or repeats (disputes.of_claim)."""
    from rich.text import Text

    for d in view.get("disputes") or ():
        label = "contradicted" if d["relation"] == "contradiction" else "repeated"
        console.print(Text(f"  {label}: {d['says']}", style="yellow"))
    more = (view.get("disputes_total") or 0) - len(view.get("disputes") or ())
    if more > 0:
        console.print(Text(f"  and {more} more", style="yellow"))


def repeats_basis(reason: str | None, basis: str) -> bool:
    """Whether the line "why" already ends with the basis (a tag set by a data file or an agent's report:
    views.tag_reason quotes the basis after saying where it came from), so that it is not printed twice."""
    return bool(reason) and (reason == basis or reason.endswith(f": {basis}"))


def parsed_text(f: dict[str, Any]) -> str:
    """A compact human reading of a parsed figure: '~ 5e+10 parameters', '4000 → 128000 tokens'."""

    def n(x: float | None) -> str:
        if x is None:
            return "?"
        return f"{int(x):,}" if x.is_integer() and abs(x) < 1e18 else f"{x:,.10g}"

    kind = f["kind"]
    if kind == "text":
        body = "no exact value"
    elif kind == "range":
        body = f"{n(f['low'])} to {n(f['high'])}"
    elif kind == "transition":
        body = (
            " → ".join(n(x) for x in f["steps"])
            if f["steps"]
            else f"{n(f['start'])} → {n(f['end'])}"
        )
    elif kind == "ratio":
        body = ":".join(n(x) for x in f["steps"])
    elif kind == "moe":
        body = f"{n(f['value'])} total, {n(f['active'])} active"
    else:
        body = n(f["value"])
    if f["comparator"] != "=" and kind != "text":
        body = f"{f['comparator']} {body}"
    extra = " ".join(x for x in (f["unit"], f"({f['counted']})" if f["counted"] else None) if x)
    return f"{body} {extra}".strip()


# --- progress and questions -----------------------------------------------------------------------

PROGRESS_AFTER_S = 1.0  # work that ends sooner shows no bar


@contextmanager
def progress(what: str, total: int | None = None) -> Iterator[Callable[..., None]]:
    """A transient progress bar on standard error for long work: items done, rate, time left.

    Yields `advance(n=1, total=None, item=None)` for the domain's callback. The bar appears only once the
    work has run for PROGRESS_AFTER_S and only when standard error is a terminal; it is gone when the
    work ends, and nothing is written otherwise.
    """
    if not err_console.is_terminal:
        yield lambda n=1, total=None, item=None: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items a second (rich's TransferSpeedColumn counts bytes)."""

        def render(self, task) -> Text:
            return Text(f"{task.speed:,.0f}/s" if task.speed else "", style="progress.data.speed")

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.description}"),
        console=err_console,
        transient=True,
    )
    task = bar.add_task("", total=total)
    start, shown = time.monotonic(), False

    def advance(n: int = 1, total: int | None = None, item: str | None = None) -> None:
        nonlocal shown
        bar.update(task, advance=n, total=total, description=item or "")
        if not shown and time.monotonic() - start >= PROGRESS_AFTER_S:
            bar.start()
            shown = True

    try:
        yield advance
    finally:
        if shown:
            bar.stop()


def stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def require_terminal(what: str, flag: str) -> None:
    """A command about to ask: without a terminal (a script, a pipe) nothing is asked, and the command
    stops with exit 2 naming the flag that answers it."""
    from claimsdb.errors import BadQuery

    if not stdin_is_terminal():
        raise BadQuery(f"{what}, and there is no terminal to ask on: pass {flag}")


def confirm(question: str, *, skip_with: str) -> bool:
    """Ask a yes/no question on the terminal (see require_terminal)."""
    require_terminal(f"claims asks {question!r}", skip_with)
    import typer

    return typer.confirm(question, default=False, err=True)


def print_registered(source: str, registered: bool) -> None:
    """Say so when a URL given to --source was registered as a new source."""
    if registered:
        err_console.print(
            f"registered {source} as a new source (see `claims sources show {source}`)",
            markup=False,
        )
