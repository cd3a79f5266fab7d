"""A whole-store read on two cores (halves.py, issue 35): with the split made from two claims on, a worker
process reads the second half of every export and JSON list; what the command writes must be exactly
what it writes reading every claim itself, a tampered claim in the worker's half must be refused as if
the command had read it, and a worker whose answer cannot be used (it failed, or the store it saw is
not the one the command saw) must leave the command to read that half itself."""

from __future__ import annotations

import pytest

from claimsdb import export_rows, halves, workers
from tests.conftest import DATA_FILES, run_sql

EPOCH = "1700000000"  # SOURCE_DATE_EPOCH: the same store exports to the same bytes


@pytest.fixture
def bundled(claims, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    result = claims("import", *map(str, DATA_FILES))
    assert result.exit_code == 0, result.output


def both_ways(claims, monkeypatch, *args):
    """(the command's result reading every claim itself, its result with a worker reading half, and
    how many times the worker's half was taken in)."""
    monkeypatch.setattr(halves, "SPLIT_FROM", 10**9)
    alone = claims(*args)
    taken: list[str] = []
    adopt, pieces = export_rows.Rows.adopt, halves.Encoded.pieces

    def adopted(self, *a, **k):
        taken.append("rows")
        return adopt(self, *a, **k)

    def read(self):
        taken.append("lines")
        return pieces(self)

    monkeypatch.setattr(export_rows.Rows, "adopt", adopted)
    monkeypatch.setattr(halves.Encoded, "pieces", read)
    monkeypatch.setattr(halves, "SPLIT_FROM", 2)
    split = claims(*args)
    return alone, split, taken


@pytest.mark.usefixtures("bundled")
def test_an_export_and_a_list_read_in_two_halves_are_the_same_bytes(claims, monkeypatch, tmp_path):
    for args in (
        ["export", "--skip-unsafe", "--format", "latex"],
        ["list", "--format", "json"],
    ):
        alone, split, taken = both_ways(claims, monkeypatch, *args)
        assert alone.exit_code == split.exit_code == 0, (args, split.output)
        assert taken, f"{args}: the worker's half was not used"
        assert split.stdout == alone.stdout, args
        assert split.stderr == alone.stderr, args


@pytest.mark.slow
@pytest.mark.usefixtures("bundled")
@pytest.mark.parametrize(
    "args",
    [
        ["export", "--skip-unsafe"],
        ["export", "--draft", "--format", "csv"],
        ["export", "--draft", "--format", "json"],
        ["export", "--skip-unsafe", "--grid"],
        ["export", "--draft", "--format", "macros"],
        ["export"],  # the gate: closed, nothing written, the blocked listed alike
        ["export", "--skip-unsafe", "--strict", "--format", "bibtex"],
        ["list", "--format", "json", "--trust", "unverified"],
        ["list", "--format", "json", "--stale"],
    ],
    ids=lambda a: " ".join(a),
)
def test_every_export_mode_and_format_reads_alike_in_two_halves(claims, monkeypatch, args):
    alone, split, taken = both_ways(claims, monkeypatch, *args)
    assert split.exit_code == alone.exit_code, (split.output, alone.output)
    assert split.stdout == alone.stdout
    assert split.stderr == alone.stderr
    if alone.exit_code == 0 and "--stale" not in args:
        assert taken


@pytest.mark.slow
@pytest.mark.usefixtures("bundled")
def test_a_tampered_claim_in_the_workers_half_is_refused_as_if_read_here(
    claims, store, monkeypatch
):
    listed = claims("list", "--format", "json")
    last = listed.stdout.rstrip().rsplit("\n", 2)[-2]  # the last claim: in the worker's half
    key = last.split('"key": "', 1)[1].split('"', 1)[0]
    run_sql(
        store,
        ("UPDATE claim SET statement = statement || ' (edited)' WHERE key = ?", [key]),
        without_triggers=True,
    )
    monkeypatch.setattr(halves, "SPLIT_FROM", 2)
    for args in (["export", "--skip-unsafe"], ["export", "--draft"], ["list", "--format", "json"]):
        result = claims(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(f"error: claim {key} disagrees with its history: "), args
    marked = claims("list", "--format", "json")
    assert '"integrity": ["its statement' in marked.stdout  # printed marked, then refused


@pytest.mark.slow
@pytest.mark.usefixtures("bundled")
def test_a_worker_that_fails_or_saw_another_store_leaves_the_half_to_the_command(
    claims, monkeypatch
):
    monkeypatch.setattr(halves, "SPLIT_FROM", 10**9)
    expected = claims("export", "--skip-unsafe", "--format", "csv").stdout
    monkeypatch.setattr(halves, "SPLIT_FROM", 2)
    seen = iter([["the store as the command saw it"], ["written to meanwhile"]] * 10)
    head, adopt = halves.head, export_rows.Rows.adopt
    taken: list[int] = []
    monkeypatch.setattr(
        export_rows.Rows, "adopt", lambda *a, **k: taken.append(1) or adopt(*a, **k)
    )
    monkeypatch.setattr(halves, "head", lambda session: next(seen))
    changed = claims("export", "--skip-unsafe", "--format", "csv")
    assert changed.exit_code == 0 and changed.stdout == expected
    assert not taken  # the worker's rows were for another store: read here instead
    monkeypatch.setattr(halves, "head", head)
    start = workers.start
    monkeypatch.setattr(
        workers, "start", lambda module, job, **k: start("claimsdb.no_such_worker", job, **k)
    )
    failed = claims("export", "--skip-unsafe", "--format", "csv")
    assert failed.exit_code == 0 and failed.stdout == expected
    assert not taken


@pytest.mark.slow
@pytest.mark.usefixtures("bundled")
def test_once_signatures_are_required_both_halves_judge_rereads_alike(claims, keys, monkeypatch):
    """Each half checks its own re-reads' signatures (the signatures' prefetch beside each): the data's
    unsigned re-reads stop vouching in the worker's half as in the command's."""
    ada = keys("ada")
    assert claims("people", "add", "Ada", "--key", f"{ada}.pub").exit_code == 0
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    for args in (["export", "--skip-unsafe", "--format", "csv"], ["list", "--format", "json"]):
        alone, split, taken = both_ways(claims, monkeypatch, *args)
        assert split.exit_code == alone.exit_code == 0, split.output
        assert taken and split.stdout == alone.stdout and split.stderr == alone.stderr
    assert "is not signed" in split.stdout
