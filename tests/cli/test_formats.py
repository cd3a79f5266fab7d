"""One output path: every command runs with every --format it declares, and what it writes parses (JSON with
json.loads, CSV with csv.reader and rows of equal length); a format it does not declare is refused."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest
import typer.main
from typer.testing import CliRunner

from claimsdb.cli.app import app
from tests.cli.test_app import COMMANDS
from tests.conftest import DATA_FILES
from tests.pages import LLAMA3_FAILURES

# What each command is run with on the bundled data ({dir}: the test's folder). Writers get a fresh copy.
ARGS = {
    "import": ["{dir}/more.json"],
    "add": [
        "--subject",
        "Orchard",
        "--statement",
        "Orchard ran on 64 GPUs.",
        "--figure",
        "64 GPUs",
        "--source",
        "llama3-report",
        "--by",
        "T",
    ],
    "trace": ["466"],
    "show": ["pipelines.obs.llama3-failures"],
    "list": ["--stage", "Pretrain"],
    "tags": [],
    "history": ["pipelines.obs.llama3-failures"],
    "reread": [
        "pipelines.obs.llama3-failures",
        *("--source", LLAMA3_FAILURES.source, "--locator", LLAMA3_FAILURES.locator),
        *("--quote", LLAMA3_FAILURES.quote, "--copy", "{dir}/llama3.md"),  # the page re-read
        *("--yes", "--by", "T"),
    ],
    "retag": ["pipelines.llama3.pretrain", "prior-note", "--reason", "from the note", "--by", "T"],
    "withdraw": ["rl.bench.weirdml", "--reason", "dropped", "--by", "T"],
    "supersede": [
        "pipelines.kimi-k2-k3.post-train",
        "--with",
        "rl.weight-sync.kimi-checkpoint-engine",
        "--reason",
        "measured",
        "--by",
        "T",
    ],
    "values": ["orchard.update-1t"],
    "prefer": ["orchard.readme", "--reason", "the README", "--by", "T"],
    "deprecate": ["orchard.table", "--reason", "the README", "--by", "T"],
    "export": ["--draft"],
    "verify": ["pipelines.obs.llama3-failures", "--offline", "--sources-dir", "{dir}/snap"],
    "lint": ["{dir}/paper.md"],
    "sources list": [],
    "sources add": [
        "orchard-page",
        "--url",
        "https://example.org/orchard",
        "--authors",
        "A. Author",
    ],
    "sources show": ["llama3-report"],
    "sources check": [],
    "sources import": ["{dir}/refs.bib"],
    "db upgrade": [],
    "db current": [],
    "db check": [],
    "db copy": ["--to", "{dir}/copy.db"],
    "db anchor": ["-o", "{dir}/claims.anchor"],
    "people list": [],
    "people add": ["Ada Lovelace", "--key", "{dir}/ada.pub"],
    "people unsigned": [],
    "people export-signers": ["-o", "{dir}/allowed_signers"],
}
# `claims sources` alone lists them: the group's own --format.
GROUP_ARGS = {"sources": []}
# Servers, not outputs (mcp speaks JSON-RPC: tests/cli/test_mcp.py; `claims mcp` is a group whose callback
# serves), and `mcp token`, which prints a secret once, as plain text (tests/cli/test_mcp_http.py).
NO_FORMAT = {"serve", "mcp token"}
POSTGRES_ONLY = {
    "db grant"
}  # roles are PostgreSQL's: tests/cli/test_team.py runs it, this file too below
# Signed by a registered person's key: tests/cli/test_signed_rereads.py runs them in every format.
SIGNED = {"people remove", "people require-signatures", "people sign", "people passkey"}


def declared_formats(name: str) -> tuple[str, ...]:
    cmd = (
        COMMANDS[name] if name in COMMANDS else typer.main.get_command(app).get_command(None, name)
    )
    for param in cmd.params:
        if "--format" in getattr(param, "opts", ()):
            return tuple(str(getattr(c, "value", c)) for c in param.type_descriptor.choices)
    return ()


MATRIX = [(name, fmt) for name in [*ARGS, *GROUP_ARGS] for fmt in declared_formats(name)]


def test_every_command_is_in_the_matrix_or_says_why_not():
    assert set(COMMANDS) == set(ARGS) | NO_FORMAT | POSTGRES_ONLY | SIGNED
    assert declared_formats("serve") == () and declared_formats("mcp") == ()
    assert declared_formats("export") == (
        "markdown",
        "csv",
        "json",
        "latex",
        "bibtex",
        "biblatex",
        "macros",
        "quarto",
        "prov",
        "html",
    )
    assert declared_formats("history") == ("table", "json", "csv", "prov")
    assert all(
        declared_formats(name) == ("table", "json", "csv")
        for name in COMMANDS
        if name not in ("export", "history", *NO_FORMAT)
    )


# Two competing values of one quantity (the bundled data names none), for values, prefer and deprecate.
RANKED = {
    "quantities": [
        {"key": "orchard.update-1t", "subject": "Orchard", "measure": "update time of a 1T model"}
    ],
    "claims": [
        {
            "key": f"orchard.{name}",
            "subject": "Orchard",
            "statement": f"Orchard updates a 1T model in {fig}.",
            "tag": "prior-note",
            "basis": "a note",
            "quantity": "orchard.update-1t",
            "figures": [fig],
            "evidence": [{"source": "llama3-report"}],
        }
        for name, fig in (("table", "< 30 s"), ("readme", "about 20 s"))
    ],
}


@pytest.fixture(scope="module")
def template(tmp_path_factory, stores):
    folder = tmp_path_factory.mktemp("formats")
    (folder / "ranked.json").write_text(json.dumps(RANKED), encoding="utf-8")
    files = [*map(str, DATA_FILES), str(folder / "ranked.json")]
    store = stores.new(folder)
    result = CliRunner().invoke(app, ["import", *files, "--db", store])
    assert result.exit_code == 0, result.output
    yield store
    stores.drop(store)


def public_key_line() -> str:
    """A fresh ed25519 public key in OpenSSH's .pub form."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public = Ed25519PrivateKey.generate().public_key()
    raw = public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return raw.decode() + " ada@example\n"


@pytest.fixture
def run(template, stores, tmp_path, monkeypatch):
    monkeypatch.delenv("CLAIMS_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # a server store's snapshots
    store = stores.copy(template, tmp_path)
    (tmp_path / "more.json").write_text(
        json.dumps(
            {
                "claims": [
                    {
                        "key": "orchard.fleet",
                        "subject": "Orchard",
                        "statement": "Orchard runs 12 nodes.",
                        "figures": ["12 nodes"],
                        "tag": "agent-reported",
                        "basis": "a sweep",
                        "evidence": [{"source": "llama3-report"}],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "llama3.md").write_text(
        "\n\n".join(LLAMA3_FAILURES.paragraphs) + "\n", encoding="utf-8"
    )
    (tmp_path / "paper.md").write_text(
        "Llama 3 saw 466 job interruptions in 54 days.\n", encoding="utf-8"
    )
    (tmp_path / "ada.pub").write_text(public_key_line(), encoding="utf-8")
    (tmp_path / "refs.bib").write_text(
        "@misc{Orchard2026,\n  title = {Orchard},\n  url = {https://example.org/orchard-bib},\n}\n",
        encoding="utf-8",
    )

    def invoke(name: str, fmt: str, *extra: str):
        args = [a.format(dir=tmp_path) for a in {**ARGS, **GROUP_ARGS}[name]]
        argv = [*name.split(), *args, *extra, "--format", fmt, "--db", store]
        return CliRunner().invoke(app, argv, catch_exceptions=False)

    yield invoke
    stores.drop(store)


class _Html(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "link", "br", "img", "input", "hr", "col"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open.pop() == tag, tag


def parse(fmt: str, text: str) -> object:
    """What a script would do with the output; fails when it does not parse."""
    if fmt in ("json", "prov"):
        return json.loads(text)
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert rows and len({len(r) for r in rows}) == 1, rows[:3]
        return rows
    if fmt == "markdown":  # tables (a grid export has one per grid), each of rows of one width
        tables = [
            block.strip("\n").splitlines()
            for block in re.split(r"^(?!\|).*$", text, flags=re.M)
            if block.strip()
        ]
        assert tables and all(
            len({line.replace("\\|", "").count("|") for line in t}) == 1 for t in tables
        ), tables
        return [line for t in tables for line in t]
    if fmt == "html":
        parser = _Html()
        parser.feed(text)
        return parser
    if fmt == "quarto":  # one double-quoted YAML scalar a line, keys nested by indentation
        for line in text.splitlines():
            if not line.startswith("#"):
                key, sep, value = line.strip().partition(": ")
                json.loads(key.rstrip(":"))
                if sep:
                    json.loads(value)
        return text
    if fmt in (
        "latex",
        "macros",
        "bibtex",
        "biblatex",
    ):  # compiled with TeX in test_export.py, test_hostile_export.py
        assert text.count("{") - text.count("\\{") == text.count("}") - text.count("\\}")
        return text
    assert fmt == "table" and text.strip(), text
    return text


@pytest.mark.slow
@pytest.mark.engine_free  # how each format is written; the same reads run on PostgreSQL in their own tests
@pytest.mark.parametrize("name, fmt", MATRIX, ids=[f"{n}-{f}" for n, f in MATRIX])
def test_every_command_writes_every_format_it_declares_and_it_parses(run, name, fmt):
    result = run(name, fmt)
    assert result.exit_code in (0, 1), (
        result.output
    )  # 1: verify finds no snapshot offline, lint an error, sources check an entry lacking a year
    parse(fmt, result.stdout)
    if fmt == "csv" and name == "export":
        manifest = json.loads(result.stderr.split("manifest: ", 1)[1].splitlines()[0])
        assert manifest["mode"] == "draft"


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json", "latex"])
def test_every_layout_format_also_parses_as_a_grid(run, fmt):
    result = run("export", fmt, "--grid")
    assert result.exit_code == 0, result.output
    parse(fmt, result.stdout)


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if n not in NO_FORMAT))
def test_a_format_a_command_does_not_declare_is_refused_with_exit_2(run, name):
    args = [a.format(dir="/nonexistent") for a in ARGS.get(name, [])]
    result = CliRunner().invoke(app, [*name.split(), *args, "--format", "yaml"])
    assert result.exit_code == 2 and "Invalid value for '--format'" in result.stderr, result.output


@pytest.mark.parametrize("name", sorted({*NO_FORMAT, "mcp"}))
def test_servers_have_no_format_and_say_so(run, name):
    result = CliRunner().invoke(app, [*name.split(), "--format", "json"])
    assert result.exit_code == 2 and "No such option: --format" in result.stderr


def test_grant_writes_every_format_it_declares(pg_url, claims):
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    role = f"f_{make_url(pg_url).database[-12:]}"
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE ROLE {role} LOGIN"))
    try:
        assert claims("db", "upgrade", db=pg_url).exit_code == 0
        for fmt in declared_formats("db grant"):
            result = claims("db", "grant", role, "--as", "reader", "--format", fmt, db=pg_url)
            assert result.exit_code == 0, result.output
            parse(fmt, result.stdout)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP OWNED BY {role}"))
            conn.execute(text(f"DROP ROLE {role}"))
        admin.dispose()


def test_emit_builds_only_the_form_it_shows(capsys):
    """Output's data and rows may be functions: each runs only for its own format (an import of a
    million claims must not build a million CSV rows to print one summary line)."""
    from claimsdb.cli.output import Output, emit

    built: list[str] = []

    def data():
        built.append("data")
        return {"n": 1}

    def rows():
        built.append("rows")
        return [{"n": 1}]

    out = Output(data, ("n",), rows, lambda: built.append("show"))
    emit("table", out)
    assert built == ["show"]
    emit("json", out)
    emit("csv", out)
    assert built == ["show", "data", "rows"]
    assert capsys.readouterr().out == '{\n  "n": 1\n}\nn\n1\n'


def test_a_streamed_json_list_is_one_item_a_line_and_each_line_is_the_item(capsys):
    """`claims list --format json` writes as it reads: one item per line (grep and diff see one claim a
    line), and the whole is one JSON list of exactly the items given, none lost at the edges."""
    from claimsdb.cli.output import Output, Stream, emit

    items = [
        {
            "key": "a",
            "statement": 'ran on 2,048 H800 GPUs\nover "two" months',
            "figures": [{"raw": "2,048 H800"}],
        },
        {"key": "b", "statement": "字", "figures": []},
        {"key": "c", "n": 1.5, "ok": None},
    ]
    emit("json", Output(Stream(iter(items)), (), [], lambda: None))
    out = capsys.readouterr().out
    assert json.loads(out) == items
    lines = out.splitlines()
    assert (lines[0], lines[-1], len(lines)) == ("[", "]", len(items) + 2)
    assert [json.loads(line.strip().rstrip(",")) for line in lines[1:-1]] == items
    emit("json", Output(Stream(iter(())), (), [], lambda: None))
    assert json.loads(capsys.readouterr().out) == []
