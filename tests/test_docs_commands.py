"""Every command the README and the docs show, run in order, page by page, as a user would: a fresh home
folder (its XDG folders inside it), no database yet, no reader's name set, and a working folder holding a
copy of the repository's data/. A command marked `# exit N` must exit N; every other one must succeed.
The conventions are in tests/docs_runner.py and CONTRIBUTING.md."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs_runner import (
    NOT_RUN,
    SKIP_REASONS,
    Command,
    FileBlock,
    Run,
    block_commands,
    is_environment,
    is_setting,
    page_items,
    run_command,
    steps,
    write_file,
)

GENERATED = {"docs/reference/commands.md"}  # the CLI's help, shown, not run


def pages() -> list[str]:
    found = ["README.md"]
    for path in sorted((REPO / "docs").rglob("*.md")):
        name = path.relative_to(REPO).as_posix()
        if not name.startswith("docs/notes/") and name not in GENERATED:
            found.append(name)
    return found


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch) -> Run:
    """A user's fresh start: an empty home, nobody named as the reader, the data files to hand."""
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    shutil.copytree(REPO / "data", work / "data")
    env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "PATH": f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    for name in [n for n in os.environ if is_setting(n)]:
        monkeypatch.delenv(name)
    return Run(home=home, work=work, env=env)


def run_page(page: str, run: Run, upto: str | None = None) -> tuple[int, str | None]:
    """Run a page's commands in order (those before the text `upto`, when given), up to the first that
    does not exit as documented: (how many ran as documented, what went otherwise, or None when every
    one did)."""
    ran = 0
    text = (REPO / page).read_text(encoding="utf-8")
    for item in page_items(page, text.split(upto, 1)[0] if upto else text):
        if isinstance(item, FileBlock):
            write_file(item, run)
            continue
        if item.skip is not None:
            continue
        code, output = run_command(item, run)
        if code != item.expect:
            return (
                ran,
                f"{item.page}:{item.line}: {item.text}\nexited {code}, the page says {item.expect}\n{output}",
            )
        ran += 1
    return ran, None


@pytest.mark.parametrize("page", pages()[1:])
def test_every_command_of_a_guide_page_works_in_order_after_the_quickstart(page, fresh):
    """A new user runs the README's Quickstart, then a guide page, in the same home and folder: the
    page's commands meet the store the Quickstart left (the bundled data imported), and work as
    documented."""
    _, wrong = run_page("README.md", fresh, upto="\n## How it works")
    assert wrong is None, wrong
    _, wrong = run_page(page, fresh)
    assert wrong is None, wrong


def test_the_readme_quickstart_and_tour_work_in_order_and_reach_the_paper_safe_exports(fresh):
    ran, wrong = run_page("README.md", fresh)
    assert wrong is None, wrong
    assert ran >= 10
    grid = (fresh.work / "stages.tex").read_text(encoding="utf-8")
    assert "% claimsdb export: mode: skip-unsafe" in grid
    assert (fresh.work / "longcat.tex").read_text(encoding="utf-8").count(
        "\\cite{longcat2026}"
    ) == 2


def test_skipped_commands_say_why_and_are_few():
    skipped = [
        item
        for page in pages()
        for item in page_items(page, (REPO / page).read_text(encoding="utf-8"))
        if isinstance(item, Command) and item.skip is not None
    ]
    for item in skipped:
        assert item.skip.startswith(SKIP_REASONS), f"{item.page}:{item.line}: {item.skip!r}"
    ran = [
        item
        for page in pages()
        for item in page_items(page, (REPO / page).read_text(encoding="utf-8"))
        if isinstance(item, Command) and item.skip is None
    ]
    assert len(skipped) * 4 < len(ran), [f"{i.page}:{i.line}" for i in skipped]


def test_only_the_quickstart_sets_up_the_environment():
    for page in pages():
        for item in page_items(page, (REPO / page).read_text(encoding="utf-8")):
            if (
                isinstance(item, Command)
                and item.skip is None
                and any(is_environment(" ".join(argv)) for argv in steps(item))
            ):
                # the README's Quickstart, and the site's home page showing it (test_docs checks so)
                assert page in ("README.md", "docs/index.md"), f"{page}:{item.line}"


# --- the runner itself: a page that lies fails ---------------------------------------------------------


def test_a_command_that_exits_otherwise_than_documented_fails(fresh, tmp_path):
    page = tmp_path / "page.md"
    for body, ok in (
        ("claims tags  # exit 2", True),
        ("claims tags", False),
        ("claims import data/rl_loop.json\nclaims trace 32,000", True),
        ("claims import data/rl_loop.json\nclaims trace 987654321  # exit 1", True),
        ("claims import data/rl_loop.json\nclaims trace 987654321", False),
    ):
        page.write_text(f"# A page\n\n```sh\n{body}\n```\n", encoding="utf-8")
        run = Run(home=fresh.home, work=fresh.work, env=dict(fresh.env))
        shutil.rmtree(fresh.home)
        fresh.home.mkdir()
        _, wrong = run_page(str(page), run)
        assert (wrong is None) == ok, (body, wrong)


def test_the_conventions_are_read_as_written():
    body = (
        "claims export  # exit 1: blocked\n"
        'claims serve --by "Ada #1"  # not run by the docs test: starts a server\n'
        'claims sources add k --url https://example.org/k \\\n    --kind report --title "T"\n'
    )
    commands = block_commands("p.md", 3, body, console=False)
    assert [(c.line, c.expect, c.skip) for c in commands] == [
        (3, 1, None),
        (4, 0, "starts a server"),
        (5, 0, None),
    ]
    assert commands[1].text == 'claims serve --by "Ada #1"'
    assert steps(commands[2]) == [
        [
            "claims",
            "sources",
            "add",
            "k",
            "--url",
            "https://example.org/k",
            "--kind",
            "report",
            "--title",
            "T",
        ]
    ]
    block = block_commands(
        "p.md", 1, f"# {NOT_RUN} needs a PostgreSQL server\nclaims db upgrade\n", console=False
    )
    assert [c.skip for c in block] == ["needs a PostgreSQL server"]
    console = block_commands(
        "p.md", 1, "$ claims trace 2,048  # exit 1\nno figure matches\n", console=True
    )
    assert [(c.text, c.expect) for c in console] == [("claims trace 2,048", 1)]
    titled = page_items("p.md", '```latex title="paper.tex"\n466 interruptions\n```\n')
    assert titled == [FileBlock("p.md", 2, "paper.tex", "466 interruptions\n")]
