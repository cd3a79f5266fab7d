"""cli/options.py: the claim filters, declared once, shared by `claims list` and `claims export`."""

from __future__ import annotations

import inspect

import typer
from typer.testing import CliRunner

from claimsdb.cli.options import CLAIM_FILTERS, DbOption, filtered
from claimsdb.queries import ClaimFilter

FILTER_FLAGS = ["--tag", "--trust", "--subject", "--stage", "--source", "--search", "--status"]


def test_a_filtered_command_takes_the_filters_where_it_says_and_gets_one_claim_filter():
    got = []

    @filtered
    def command(*, filters: ClaimFilter, db_: DbOption = None) -> None:
        got.append((filters, db_))

    names = list(inspect.signature(command).parameters)
    assert names == [*CLAIM_FILTERS, "db_"]
    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, ["--trust", "verified", "-s", "H100", "--db", "x.db"])
    assert result.exit_code == 0, result.output
    assert got == [(ClaimFilter(trust="verified", search="H100"), "x.db")]


def test_list_and_export_show_the_same_filter_options_in_the_same_order(claims):
    for command in ("list", "export"):
        shown = claims(command, "--help", db=None).stdout
        at = [
            shown.index(f"  {flag} ") if flag != "--search" else shown.index("-s, --search")
            for flag in FILTER_FLAGS
        ]
        assert at == sorted(at), command
