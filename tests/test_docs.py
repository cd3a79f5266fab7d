"""The README, the docs site and CI cannot drift apart: the Quickstart is what CI runs, the command
reference is the CLI's own help, the site builds strictly, and the counts the docs give are the data's."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from tests.conftest import DATA_FILES, REPO
from tests.docs_runner import FileBlock, page_items


def quickstart_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quickstart_is_two_commands_and_ci_runs_the_test_command_verbatim():
    setup, tests = quickstart_commands()
    assert "claims import data/pipelines.json data/rl_loop.json" in setup
    assert setup.endswith(
        "claims export --skip-unsafe"
    )  # the main job ends with the paper-safe table
    assert "pytest" in tests
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
    if '-m "not slow"' in tests:  # CI runs what the quick command leaves out
        assert tests.replace('-m "not slow"', "-m slow") in ci
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"\n{tests}  " in contributing  # its Tests section shows the same command
    home = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.findall(r"```sh\n(.+?)\n```", home)[:2] == [setup, tests]  # the site's home page too


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 200
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert "docs/reference/commands.md" in links and "CONTRIBUTING.md" in links
    for link in links:
        assert (REPO / link).exists(), link


def test_the_format_example_is_importable(claims, tmp_path):
    page = "docs/reference/data-format.md"
    example = next(
        item
        for item in page_items(page, (REPO / page).read_text(encoding="utf-8"))
        if isinstance(item, FileBlock)
    )
    path = tmp_path / example.name
    path.write_text(example.body, encoding="utf-8")
    result = claims("import", path)
    assert result.exit_code == 0, result.output
    assert "1 added" in result.stdout


def gen_commands():
    spec = importlib.util.spec_from_file_location("gen_commands", REPO / "docs" / "gen_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_reference_is_the_clis_help():
    """docs/reference/commands.md is what docs/gen_commands.py writes from the CLI now."""
    page = (REPO / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert page == gen_commands().render(), "run .venv/bin/python docs/gen_commands.py"


def test_the_command_reference_has_every_command():
    import typer.main

    from claimsdb.cli.app import app

    page = (REPO / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    group = typer.main.get_command(app)
    for name in group.list_commands(None):
        assert f"\n## `claims {name}`\n" in page, name
        assert f"Usage: claims {name} [OPTIONS]" in page, name


def test_the_site_builds_strictly(tmp_path):
    """mkdocs build --strict, with the interpreter running the tests (the lock file installs mkdocs)."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if os.environ.get("CLAIMS_REQUIRE_DOCS"):
            pytest.fail("CLAIMS_REQUIRE_DOCS is set but mkdocs or mkdocs-material is not installed")
        pytest.skip(
            "mkdocs is not installed (the dev extra has it; CLAIMS_REQUIRE_DOCS=1 makes this a failure)"
        )
    # From a copy holding a draft in docs/notes/ as other work drops them: it stays out of the site.
    shutil.copytree(REPO / "docs", tmp_path / "src" / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "src" / "mkdocs.yml")
    (tmp_path / "src" / "docs" / "notes").mkdir(exist_ok=True)
    (tmp_path / "src" / "docs" / "notes" / "draft.md").write_text(
        "# A draft\n\n[not yet](nowhere.md)\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path / "src",
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / "site" / "guide" / "workflow" / "index.html").exists()
    assert (tmp_path / "site" / "reference" / "commands" / "index.html").exists()
    assert not (tmp_path / "site" / "notes").exists()


def test_every_page_is_in_the_site_navigation():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for path in sorted((REPO / "docs").rglob("*.md")):
        name = path.relative_to(REPO / "docs").as_posix()
        if not name.startswith("notes/"):
            assert f": {name}\n" in nav, name


def test_the_data_set_table_gives_the_data_files_counts():
    documents = [json.loads(path.read_text(encoding="utf-8")) for path in DATA_FILES]
    claims = [c for doc in documents for c in doc["claims"]]
    sources = Counter({s["key"]: s["kind"] for doc in documents for s in doc["sources"]}.values())

    def listed(counter: Counter) -> str:
        return ", ".join(
            f"{name} {n}" for name, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        )

    names = [path.name for path in DATA_FILES]
    per_file = ", ".join(f"{len(doc['claims'])} in `{name}`" for doc, name in zip(documents, names))
    rows = [
        f"| claims | {len(claims)} ({per_file}) |",
        f"| figures | {sum(len(c['figures']) for c in claims)} |",
        f"| sources | {sum(sources.values())}: {listed(sources)} |",
        f"| claims by tag | {listed(Counter(c['tag'] for c in claims))} |",
        f"| figures by tag | {listed(Counter(c['tag'] for c in claims for _ in c['figures']))} |",
    ]
    page = (REPO / "docs" / "reference" / "data-set.md").read_text(encoding="utf-8")
    for row in rows:
        assert row in page, row
