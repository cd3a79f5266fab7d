"""Reading a documentation page's shell blocks and running them as a user would, in order.

The conventions, visible in the text (CONTRIBUTING.md, "The docs test"):

- A fenced block of kind `sh`, `bash` or `console` holds commands: one a line (a trailing `\\` joins the
  next line); in a `console` block only the lines after a `$ ` prompt are commands, the rest is output.
- A command whose trailing comment starts with `exit N` must exit with N; every other command must exit 0.
- A command whose trailing comment starts with `not run by the docs test: REASON`, or every command of a
  block whose first line is that comment, is not run; REASON starts with one of SKIP_REASONS.
- A fenced block with a `title="FILE"` (Material shows the title above the block) is written to FILE
  in the working folder when the run reaches it: the manuscript a later `claims lint` reads, say.

Commands run with `claims` (or `.venv/bin/claims`) run in this process through Typer's CliRunner, the
rest as processes; `NAME=VALUE` before a command and `export NAME=VALUE` set the environment, `< FILE`
feeds standard input, and `&&` chains commands. Any other shell syntax (pipes, redirections to files,
`$` expansions, globs) is refused: mark the line or write it more simply.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

SHELL_KINDS = {"sh", "bash", "console"}
NOT_RUN = "not run by the docs test:"
# Why a documented command may stay out of the run; anything else is a command that should run.
SKIP_REASONS = (
    "needs the web",
    "starts a server",
    "needs a PostgreSQL server",
    "needs another program",
    "stands for your own program",
)
# The Quickstart's first line sets up the environment this test runs in, and its second is the test command
# itself, which CI runs verbatim (tests/test_docs.py checks both against .ci/run).
ENVIRONMENT = ("python3 -m venv ", ".venv/bin/pip install ", ".venv/bin/python -m pytest")
CLAIMS = ("claims", ".venv/bin/claims")
TEX = (
    "pdflatex",
    "bibtex",
    "biber",
    "latexmk",
    "lualatex",
    "xelatex",
)  # as tests/latex.py: skip without TeX but in CI


@dataclass
class Command:
    page: str
    line: int  # 1-based, in the page
    text: str  # as written, without its trailing comment
    expect: int = 0
    skip: str | None = None  # why it is not run


@dataclass
class FileBlock:
    page: str
    line: int
    name: str
    body: str


@dataclass
class Run:
    """A page's run: its own home folder, working folder and environment."""

    home: Path
    work: Path
    env: dict[str, str] = field(default_factory=dict)


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment (a `#` outside quotes, at the start or after a space)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def page_items(page: str, text: str) -> list[Command | FileBlock]:
    """Every command and titled file block of a page, in order."""
    items: list[Command | FileBlock] = []
    for token in MarkdownIt().parse(text):
        if token.type != "fence":
            continue
        kind, _, attrs = token.info.strip().partition(" ")
        title = re.search(r'title="([^"]+)"', attrs)
        start = token.map[0] + 2  # the block's first line, 1-based
        if kind in SHELL_KINDS:
            items.extend(block_commands(page, start, token.content, console=kind == "console"))
        elif title:
            items.append(FileBlock(page, start, title.group(1), token.content))
    return items


def block_commands(page: str, start: int, body: str, *, console: bool) -> list[Command]:
    lines = body.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    block_skip = (
        first[1:].strip()[len(NOT_RUN) :].strip()
        if first.startswith("#") and NOT_RUN in first
        else None
    )
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        number, raw = start + i, lines[i]
        i += 1
        if console:
            if not raw.startswith("$ "):
                continue
            raw = raw[2:]
        while raw.endswith("\\") and i < len(lines):
            raw = (
                raw[:-1]
                + " "
                + (lines[i][2:] if console and lines[i].startswith("> ") else lines[i].strip())
            )
            i += 1
        text, comment = split_comment(raw)
        if not text.strip():
            continue
        command = Command(page, number, text.strip(), skip=block_skip)
        if comment.startswith(NOT_RUN):
            command.skip = comment[len(NOT_RUN) :].strip()
        elif m := re.match(r"exit (\d+)\b", comment):
            command.expect = int(m.group(1))
        commands.append(command)
    return commands


class Unsupported(Exception):
    """A line the docs test cannot run as written."""


def words(text: str) -> list[str]:
    if "$" in text or "`" in text:
        raise Unsupported("a $ or ` expansion")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def steps(command: Command) -> list[list[str]]:
    """The simple commands of a `&&` chain, each as its words."""
    chain, current = [], []
    for word in words(command.text):
        if word == "&&":
            chain.append(current)
            current = []
        elif word and set(word) <= set("|&;()<>") and word != "<":
            raise Unsupported(f"the shell operator {word!r}")
        elif any(c in word for c in "*?[") and not word.startswith("-"):
            raise Unsupported(f"the glob {word!r}")
        else:
            current.append(word)
    chain.append(current)
    return chain


def run_step(argv: list[str], run: Run) -> tuple[int, str]:
    """Run one simple command; its exit code and what it printed."""
    env = dict(run.env)
    while argv and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):
        name, _, value = argv.pop(0).partition("=")
        env[name] = value
    if argv[:1] == ["export"]:
        for assignment in argv[1:]:
            name, _, value = assignment.partition("=")
            run.env[name] = value
        return 0, ""
    stdin = None
    if "<" in argv:
        at = argv.index("<")
        stdin = (run.work / argv[at + 1]).read_text(encoding="utf-8")
        argv = argv[:at] + argv[at + 2 :]
    argv = [str(run.home) + a[1:] if a == "~" or a.startswith("~/") else a for a in argv]
    if argv[0] in CLAIMS:
        return in_process(argv[1:], env, stdin, run)
    if (
        argv[0] in TEX
        and shutil.which(argv[0]) is None
        and os.environ.get("CLAIMS_REQUIRE_TEX") != "1"
    ):
        pytest.skip(f"{argv[0]} is not installed (CI installs TeX and sets CLAIMS_REQUIRE_TEX=1)")
    out = subprocess.run(
        argv,
        cwd=run.work,
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return out.returncode, out.stdout + out.stderr


def in_process(
    args: list[str], env: dict[str, str], stdin: str | None, run: Run
) -> tuple[int, str]:
    from typer.testing import CliRunner

    from claimsdb.cli.app import app

    saved = dict(os.environ)
    cwd = Path.cwd()
    os.environ.update(env)
    for name in [n for n in os.environ if is_setting(n) and n not in env]:
        del os.environ[name]
    os.chdir(run.work)
    try:
        result = CliRunner().invoke(app, args, input=stdin, catch_exceptions=False)
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)
    return result.exit_code, result.output


def is_setting(name: str) -> bool:
    """A variable claims reads (CLAIMS_DB, CLAIMS_READER, ...), not one of the test suite's own."""
    return name.startswith("CLAIMS_") and not name.startswith(("CLAIMS_TEST_", "CLAIMS_REQUIRE_"))


def is_environment(text: str) -> bool:
    return text.startswith(ENVIRONMENT)


def run_command(command: Command, run: Run) -> tuple[int, str]:
    """Run a documented command (each step of a chain while they succeed); its exit code and output."""
    code, output = 0, ""
    for argv in steps(command):
        if is_environment(" ".join(argv)):
            continue
        code, output = run_step(argv, run)
        if code != 0:
            break
    return code, output


def write_file(block: FileBlock, run: Run) -> None:
    path = (run.work / block.name).resolve()
    if run.work.resolve() not in path.parents:
        raise Unsupported(f"title={block.name!r} is outside the working folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(block.body, encoding="utf-8")
