"""suggest.close_keys: the stored keys closest to a mistyped one, found among the keys that sort near it."""

from __future__ import annotations

import pytest

from claimsdb import db, suggest
from claimsdb import store as store_


def bulk(sample: dict, keys: list[str]) -> dict:
    claims = [
        {
            "key": key,
            "subject": "Bulk",
            "statement": f"Bulk claim {i}.",
            "tag": "agent-reported",
            "basis": "A test's.",
            "figures": [],
            "evidence": [{"source": "lab-notes"}],
        }
        for i, key in enumerate(keys)
    ]
    return {**sample, "claims": sample["claims"] + claims}


@pytest.fixture
def close(engine):
    def run(key: str) -> list[str]:
        with db.session_scope(engine) as session:
            return suggest.close_keys(session, key)

    return run


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("widget.pretrian", ["widget.pretrain"]),  # two letters swapped
        ("widget.pretrain2", ["widget.pretrain"]),  # one too many
        ("widgt.context", ["widget.context"]),  # in the first segment
        ("Widget.Context", ["widget.context"]),  # the case differs
        ("gadget.flet", ["gadget.fleet"]),
        ("nothing.like.these", []),  # far from every key
        ("", []),
    ],
)
def test_the_closest_keys_or_none(close, typed, expected):
    assert close(typed) == expected


def test_only_keys_about_as_close_as_the_closest_and_the_longer_shared_beginning_first(
    store, write_json, sample
):
    engine = db.open_engine(store, create=True)
    with db.session_scope(engine) as session:
        store_.import_files(
            session, [str(write_json(bulk(sample, [f"scale.{i:03d}" for i in range(100, 130)])))]
        )
    with db.session_scope(engine) as session:
        assert suggest.close_keys(session, "scale.11") == ["scale.110", "scale.111", "scale.112"]
        assert suggest.close_keys(session, "scale.1155") == ["scale.115"]  # not the other scale.1x5
    engine.dispose()


def test_only_the_keys_sorting_near_the_typed_one_are_compared(
    store, write_json, sample, monkeypatch
):
    """The work is bounded: WINDOW keys on each side of where the typed key sorts, never the whole store."""
    engine = db.open_engine(store, create=True)
    keys = ["aaa.target", *[f"mmm.{i:02d}" for i in range(20)]]
    with db.session_scope(engine) as session:
        store_.import_files(session, [str(write_json(bulk(sample, keys)))])
    monkeypatch.setattr(suggest, "WINDOW", 5)
    with db.session_scope(engine) as session:
        assert suggest.close_keys(session, "aaa.targte") == ["aaa.target"]
        assert suggest.close_keys(session, "mmm.19x") == ["mmm.19"]
        assert (
            suggest.close_keys(session, "zzz.target") == []
        )  # sorts among the mmm keys, far from aaa.target
    monkeypatch.setattr(suggest, "WINDOW", 500)
    with db.session_scope(engine) as session:
        assert suggest.close_keys(session, "zzz.target") == ["aaa.target"]
    engine.dispose()
