"""Shared fixtures: real SQLite files in tmp_path, the real CLI through CliRunner, data files the tests write."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

# Rich sizes tables from COLUMNS when output is not a terminal; wide enough to keep cells whole.
os.environ["COLUMNS"] = "200"

from claimsdb.cli.app import app  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DATA_FILES = [REPO / "data" / "pipelines.json", REPO / "data" / "rl_loop.json"]

# A small data set of the tests' own making, in the claimsdb/1 format.
SAMPLE = {
    "tags": [{"name": "note-2026-10-04", "trust": "secondary", "description": "A later note."}],
    "sources": [
        {"key": "lab-notes", "title": "Lab notes", "kind": "note", "date": "2026-10-01"},
        {"key": "widget-report", "title": "Widget technical report", "kind": "report",
         "url": "https://example.org/widget", "publisher": "Widget Lab", "date": "2026-05", "cite_key": "widget2026"},
    ],
    "claims": [
        {
            "key": "widget.pretrain", "subject": "Widget-7", "stage": "Pretrain",
            "statement": "Widget-7 was pretrained on 3,072 H100 GPUs for 21.5T tokens.",
            "tag": "spot-checked", "basis": "Re-read the report's compute section.", "section": "§1",
            "figures": ["3,072 H100", "21.5T tokens"],
            "evidence": [{"source": "widget-report", "locator": "§3.1", "quote": "3,072 H100 GPUs"}],
        },
        {
            "key": "widget.context", "subject": "Widget-7", "stage": "Midtrain",
            "statement": "Widget-7's context grew from 8K to 256K tokens.",
            "tag": "note-2026-10-04", "basis": "From the later note.",
            "figures": ["8K → 256K"],
            "evidence": [{"source": "lab-notes", "locator": "p. 2", "quote": "8K → 256K"}],
        },
        {
            "key": "gadget.fleet", "subject": "Gadget", "stage": "Agentic RL",
            "statement": "Gadget runs 40–60K sandboxes at once.",
            "tag": "agent-reported", "basis": "An agent's sweep; not re-read.",
            "figures": ["40–60K sandboxes"],
            "evidence": [{"source": "lab-notes", "locator": None, "quote": None}],
        },
    ],
}


@pytest.fixture
def sample() -> dict:
    return copy.deepcopy(SAMPLE)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "claims.db"


@pytest.fixture
def write_json(tmp_path: Path):
    def write(doc: dict, name: str = "claims.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        return path

    return write


@pytest.fixture
def claims(db_path: Path, monkeypatch):
    """Run `claims ...` against the test's database; returns the click Result."""
    monkeypatch.delenv("CLAIMS_DB", raising=False)
    runner = CliRunner()

    def run(*args: str, db: Path | None = db_path, input: str | None = None):
        argv = [str(a) for a in args]
        if db is not None:
            argv += ["--db", str(db)]
        return runner.invoke(app, argv, catch_exceptions=False, input=input)

    return run


@pytest.fixture
def terminal(monkeypatch):
    """Standard input is a person's terminal (CliRunner's is not), so commands may ask."""
    monkeypatch.setattr("claimsdb.cli.output.stdin_is_terminal", lambda: True)


@pytest.fixture
def loaded(claims, write_json, sample):
    """A database holding SAMPLE."""
    result = claims("import", write_json(sample))
    assert result.exit_code == 0, result.output
    return sample


def show_json(claims, key: str) -> dict:
    """`claims show KEY --format json`, parsed (the run must succeed)."""
    result = claims("show", key, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def engine(db_path, write_json, sample):
    """A migrated database holding SAMPLE, loaded through the importer (tests may override it)."""
    from claimsdb import db, store

    engine = db.open_engine(str(db_path), create=True)
    with db.session_scope(engine) as session:
        store.import_files(session, [str(write_json(sample))])
    return engine


# --- PostgreSQL: a real server, when CLAIMS_TEST_POSTGRES names one (.ci/run starts one) -----------

POSTGRES_ENV = "CLAIMS_TEST_POSTGRES"


@pytest.fixture
def pg_url():
    """A fresh, empty database on the PostgreSQL server named by $CLAIMS_TEST_POSTGRES (an admin URL,
    e.g. postgresql+psycopg://claims@127.0.0.1:55432/postgres), dropped afterwards."""
    admin = os.environ.get(POSTGRES_ENV)
    if not admin:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/run starts one)")
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"claims_test_{uuid.uuid4().hex[:12]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin).set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
