"""The README and CI cannot drift apart."""

from __future__ import annotations

import re

from tests.conftest import REPO


def quickstart_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quickstart_is_two_commands_and_ci_runs_the_test_command_verbatim():
    setup, tests = quickstart_commands()
    assert "claims import data/pipelines.json data/rl_loop.json" in setup
    assert setup.endswith("claims export --skip-unsafe")  # the main job ends with the paper-safe table
    assert "pytest" in tests
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
    if '-m "not slow"' in tests:  # CI runs what the quick command leaves out
        assert tests.replace('-m "not slow"', "-m slow") in ci


def test_readme_format_example_is_importable(claims, tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = readme.split("## Data file format", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    path = tmp_path / "example.json"
    path.write_text(example, encoding="utf-8")
    result = claims("import", path)
    assert result.exit_code == 0, result.output
    assert "1 added" in result.stdout
