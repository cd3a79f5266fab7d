"""The store-wide checks live above the history they check: history.py imports nothing that reads claims.

What `claims db check` finds is tested through the command in tests/test_history.py and
tests/cli/test_database.py; here, only the direction of the imports that keeps the layers apart."""

from __future__ import annotations

import ast
from pathlib import Path

from claimsdb import canonical, history, integrity


def claimsdb_imports(module) -> set[str]:
    """Every claimsdb module a module imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(Path(module.__file__).read_text())):
        if (
            isinstance(node, ast.ImportFrom) and node.module == "claimsdb"
        ):  # from claimsdb import views
            found |= {f"claimsdb.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("claimsdb."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("claimsdb")}
    return found


def test_history_imports_only_the_layers_below_it():
    below = {"claimsdb.db", "claimsdb.models", "claimsdb.errors", "claimsdb.canonical"}
    assert claimsdb_imports(history) <= below
    assert not claimsdb_imports(
        canonical
    )  # the digests' encoder stands on the standard library alone


def test_the_store_checks_read_claims_through_views():
    assert {"claimsdb.views", "claimsdb.history", "claimsdb.anchor"} <= claimsdb_imports(integrity)
