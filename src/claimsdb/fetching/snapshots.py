"""Content-addressed storage of fetched bodies: root/snapshots/<first 2 hex>/<sha256>.

Bodies only; what a snapshot is of (source, URL, time, headers) lives in the database.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

_SHA256 = re.compile(r"[0-9a-f]{64}")


class SnapshotStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.dir = self.root / "snapshots"

    def _path(self, sha: str) -> Path | None:
        """Where `sha` lives, or None when it is not a sha256 hex digest (so never a path outside)."""
        if not isinstance(sha, str):
            return None
        sha = sha.lower()
        if not _SHA256.fullmatch(sha):
            return None
        return self.dir / sha[:2] / sha

    def put(self, content: bytes) -> str:
        """Store `content`; return its sha256 hex. Atomic, and a no-op when already stored."""
        content = bytes(content)
        sha = hashlib.sha256(content).hexdigest()
        path = self.dir / sha[:2] / sha
        try:
            if path.stat().st_size == len(content):
                return sha
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{sha[:12]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, 0o644)  # mkstemp makes it 0600
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return sha

    def get(self, sha: str) -> bytes:
        """The stored bytes. KeyError if absent; ValueError if the file no longer matches its hash."""
        path = self._path(sha)
        if path is None:
            raise KeyError(sha)
        try:
            content = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            raise KeyError(sha) from None
        if hashlib.sha256(content).hexdigest() != path.name:
            raise ValueError(
                f"snapshot {path.name} is corrupt: its content no longer has that hash ({path})"
            )
        return content

    def has(self, sha: str) -> bool:
        path = self._path(sha)
        return path is not None and path.is_file()
