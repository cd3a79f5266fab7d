"""Who may reach `claims mcp --http`: one bearer token per agent, made by `claims mcp token NAME`, kept
only as its SHA-256 in the server's settings folder ($XDG_CONFIG_HOME/claimsdb/mcp-tokens.json, written
private to its owner), so a copy of the file gives no token. A token names its agent (recorded on every
claim added with it) and whether it may only read; making a new token for a name revokes the old one, and
`claims mcp token NAME --revoke` ends it. The file is read again on every request, so a revoked token is refused at once.

Domain code: it returns values or raises BadQuery / InvalidName; it never prints.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from claimsdb.errors import BadQuery
from claimsdb.models import utcnow
from claimsdb.userfiles import read_small, write_atomically

PREFIX = "claims_mcp_"  # a token says what it is for, in a log or a leaked file
FILE_LIMIT = 1_000_000


@dataclass(frozen=True)
class Holder:
    """What a valid token stands for."""

    agent: str
    read_only: bool


def tokens_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "claimsdb" / "mcp-tokens.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    try:
        data = json.loads(read_small(path, FILE_LIMIT, "the MCP token file"))
        entries = data["tokens"]
        assert isinstance(entries, list) and all(isinstance(e, dict) for e in entries)
    except (ValueError, KeyError, TypeError, AssertionError):
        raise BadQuery(
            f"{path}: not a token file claims wrote (remove it to start again)"
        ) from None
    return entries


def _write(path: Path, entries: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"tokens": entries}, ensure_ascii=False, indent=1) + "\n"
    write_atomically(path, text, field="tokens")
    path.chmod(0o600)


def make(agent: str, *, read_only: bool = False, path: Path | None = None) -> str:
    """A new token for `agent` (a name as trust.identity.person_name checks it), revoking any it had;
    the token is returned once and stored only as its hash."""
    path = path or tokens_path()
    now = utcnow()
    entries = [
        {**e, "revoked_at": e.get("revoked_at") or now} if e.get("agent") == agent else e
        for e in _read(path)
    ]
    token = PREFIX + secrets.token_urlsafe(32)
    entries.append(
        {
            "agent": agent,
            "sha256": _digest(token),
            "read_only": read_only,
            "created_at": now,
            "revoked_at": None,
        }
    )
    _write(path, entries)
    return token


def revoke(agent: str, *, path: Path | None = None) -> int:
    """End every token of `agent`; how many were live (BadQuery when it had none)."""
    path = path or tokens_path()
    entries = _read(path)
    live = [e for e in entries if e.get("agent") == agent and not e.get("revoked_at")]
    if not live:
        raise BadQuery(f"no live MCP token for agent {agent!r}")
    now = utcnow()
    _write(path, [{**e, "revoked_at": now} if e in live else e for e in entries])
    return len(live)


def holder(token: str | None, *, path: Path | None = None) -> Holder | None:
    """Who a bearer token stands for; None for no token, an unknown one or a revoked one."""
    if not token:
        return None
    digest = _digest(token)
    found = None
    for e in _read(path or tokens_path()):
        if hmac.compare_digest(str(e.get("sha256", "")), digest) and not e.get("revoked_at"):
            found = Holder(str(e["agent"]), bool(e.get("read_only")))
    return found
