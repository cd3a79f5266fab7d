"""Fixtures for the verify tests: a real HTTP server on 127.0.0.1 (see tests/httpserver.py)."""

from __future__ import annotations

import pytest

from tests.httpserver import LocalHTTPServer


@pytest.fixture
def http_server():
    """A started LocalHTTPServer, stopped at teardown (fetches never go through a proxy)."""
    with LocalHTTPServer() as server:
        yield server
