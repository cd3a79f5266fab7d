"""A store of an earlier release (schema 0012, before the people registry) upgrades, and its re-reads vouch
as before until signatures are required; then `claims people unsigned` lists them (issue 33, item 7)."""

from __future__ import annotations

import json

from tests.cli.test_signed_rereads import exported


def test_a_store_of_an_earlier_release_vouches_as_before_until_signatures_are_required(
    store, claims, keys, tmp_path, monkeypatch
):
    """A store written at schema 0012 (before the registry) upgrades; its re-reads vouch as before, and
    `people unsigned` lists them for a person to re-read and sign once signatures are required."""
    from tests.conftest import DATA_FILES, store_of_release

    store_of_release(store, "0012", DATA_FILES, monkeypatch)
    assert claims("db", "upgrade").exit_code == 0
    assert claims("db", "check").exit_code == 0
    before = exported(claims)[1]
    assert "rl.buffer.slime" in before  # a data file's re-read, unsigned
    ada = keys("ada")
    assert claims("people", "add", "Ada", "--key", f"{ada}.pub").exit_code == 0
    assert exported(claims)[1] == before  # registering someone changes nothing by itself
    listed = json.loads(claims("people", "unsigned", "--format", "json").stdout)
    assert "rl.buffer.slime" in [r["key"] for r in listed]
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    after = exported(claims)[1]
    assert "rl.buffer.slime" not in after and set(after) < set(before)
    assert claims("db", "check").exit_code == 0  # unsigned, but recorded before the requirement
