"""The hints a blocked claim prints run as printed (issue 36, item 6): for every bundled claim an export
leaves out, the terminal door it names (`claims reread KEY --db DB`) is a command that finds the claim
and, at a terminal, asks for what a re-read needs, offering the page the hint names."""

from __future__ import annotations

import re
import shlex

from tests.conftest import DATA_FILES, store_digest

HINT = re.compile(r"to clear it, a person re-reads (\S+) in (\S+).*?at a terminal \(`([^`]+)`")


def test_every_bundled_hint_names_a_command_that_runs_on_its_claim(claims, store, terminal):
    assert claims("import", *map(str, DATA_FILES)).exit_code == 0
    blocked = claims("export", "--skip-unsafe", "--explain", "--db", store)
    hints = HINT.findall(" ".join(blocked.stderr.split()))
    assert len(hints) == int(blocked.stderr.split("left out ", 1)[1].split(" ", 1)[0]) == 96
    before = store_digest(store)
    for key, page, command in hints:
        argv = shlex.split(command)
        assert argv[:3] == ["claims", "reread", key] and argv[3:] == ["--db", store], command
        # at a terminal it shows the claim and asks for the page, offering the one the hint names;
        # the person stops there (end of input): nothing recorded
        ran = claims(*argv[1:], "--by", "Ada", input="\n")
        assert ran.exit_code == 1 and "Aborted" in ran.stderr, (command, ran.output)
        offered = re.search(
            r"The page you re-read \(a source key or its URL\)(?: \[(\S+)\])?", ran.stderr
        )
        assert offered is not None, (command, ran.stderr)
        if page != "the":  # "in the page its figure comes from": the claim cites no page yet
            assert offered.group(1) == page, (command, ran.stderr)
        assert "Traceback" not in ran.output
    assert store_digest(store) == before
