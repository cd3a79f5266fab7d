"""Fixtures for the verify tests: a real HTTP server on 127.0.0.1 (see tests/httpserver.py)."""

from __future__ import annotations

import os

import pytest

from tests.httpserver import LocalHTTPServer


@pytest.fixture
def http_server(monkeypatch):
    """A started LocalHTTPServer, stopped at teardown. Local addresses bypass any configured proxy."""
    for name in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(filter(None, [current, "127.0.0.1", "localhost"])))
    with LocalHTTPServer() as server:
        yield server
