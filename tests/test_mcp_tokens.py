"""The bearer tokens of `claims mcp --http` (mcp_tokens): one live token per agent, kept as its hash,
a new one ending the old, a revoked one standing for nobody, a file claims did not write refused."""

from __future__ import annotations

import pytest

from claimsdb import mcp_tokens
from claimsdb.errors import BadQuery
from claimsdb.mcp_tokens import Holder


def test_a_token_stands_for_its_agent_until_replaced_or_revoked(tmp_path):
    path = tmp_path / "mcp-tokens.json"
    first = mcp_tokens.make("sweep-7", path=path)
    reader = mcp_tokens.make("dash", read_only=True, path=path)
    assert first.startswith("claims_mcp_") and first not in path.read_text(encoding="utf-8")
    assert mcp_tokens.holder(first, path=path) == Holder("sweep-7", read_only=False)
    assert mcp_tokens.holder(reader, path=path) == Holder("dash", read_only=True)
    second = mcp_tokens.make("sweep-7", path=path)
    assert mcp_tokens.holder(first, path=path) is None  # the new token ends the old
    assert mcp_tokens.holder(second, path=path) == Holder("sweep-7", read_only=False)
    assert mcp_tokens.revoke("dash", path=path) == 1
    assert mcp_tokens.holder(reader, path=path) is None
    for nobody in ("", None, "claims_mcp_made-up", second + "x"):
        assert mcp_tokens.holder(nobody, path=path) is None
    with pytest.raises(BadQuery, match="no live MCP token for agent 'dash'"):
        mcp_tokens.revoke("dash", path=path)
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(BadQuery, match="not a token file claims wrote"):
        mcp_tokens.holder(second, path=path)
