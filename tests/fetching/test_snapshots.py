"""Content-addressed snapshot storage on disk."""

from __future__ import annotations

import hashlib
import os

import pytest

from claimsdb.fetching.snapshots import SnapshotStore

BODY = b"<html><p>3,072 H100 GPUs</p>\xff\xfe</html>"


def files_under(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_put_get_round_trip_at_the_content_address(tmp_path):
    store = SnapshotStore(tmp_path)
    sha = store.put(BODY)
    assert sha == hashlib.sha256(BODY).hexdigest()
    assert files_under(tmp_path) == [f"snapshots/{sha[:2]}/{sha}"]
    assert (tmp_path / "snapshots" / sha[:2] / sha).read_bytes() == BODY
    assert store.get(sha) == BODY
    assert store.has(sha)


def test_put_is_idempotent_and_leaves_no_temporary_files(tmp_path):
    store = SnapshotStore(tmp_path)
    sha = store.put(BODY)
    path = tmp_path / "snapshots" / sha[:2] / sha
    written = path.stat().st_mtime_ns
    assert store.put(BODY) == sha
    assert store.put(bytearray(BODY)) == sha
    assert files_under(tmp_path) == [f"snapshots/{sha[:2]}/{sha}"]
    assert path.stat().st_mtime_ns == written  # not rewritten
    assert store.get(sha) == BODY


def test_same_content_same_hash_different_content_different_hash(tmp_path):
    first = SnapshotStore(tmp_path / "one")
    second = SnapshotStore(tmp_path / "two")
    assert first.put(BODY) == second.put(BODY)
    other = first.put(BODY + b" ")
    assert other != first.put(BODY)
    assert first.get(other) == BODY + b" "
    assert not second.has(other)


def test_empty_content_is_storable(tmp_path):
    store = SnapshotStore(tmp_path)
    sha = store.put(b"")
    assert sha == hashlib.sha256(b"").hexdigest()
    assert store.get(sha) == b""


def test_missing_sha_raises_key_error(tmp_path):
    store = SnapshotStore(tmp_path)
    store.put(BODY)
    missing = hashlib.sha256(b"never stored").hexdigest()
    assert not store.has(missing)
    with pytest.raises(KeyError):
        store.get(missing)


@pytest.mark.parametrize("bad", ["", "abc", "../../etc/passwd", "g" * 64, "a" * 63, "a" * 65])
def test_malformed_sha_is_absent_and_never_a_path(tmp_path, bad):
    store = SnapshotStore(tmp_path)
    assert not store.has(bad)
    with pytest.raises(KeyError):
        store.get(bad)


def test_uppercase_sha_finds_the_snapshot(tmp_path):
    store = SnapshotStore(tmp_path)
    sha = store.put(BODY)
    assert store.has(sha.upper())
    assert store.get(sha.upper()) == BODY


def test_a_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    store = SnapshotStore(tmp_path)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        store.put(BODY)
    monkeypatch.undo()
    sha = hashlib.sha256(BODY).hexdigest()
    assert not store.has(sha)
    assert files_under(tmp_path) == []
    assert store.put(BODY) == sha and store.get(sha) == BODY


def test_a_corrupted_snapshot_is_reported_not_returned(tmp_path):
    store = SnapshotStore(tmp_path)
    sha = store.put(BODY)
    (tmp_path / "snapshots" / sha[:2] / sha).write_bytes(BODY.replace(b"3,072", b"3,073"))
    with pytest.raises(ValueError, match="corrupt"):
        store.get(sha)
