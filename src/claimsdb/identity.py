"""Who is recording: git's user.name, else the login name."""

from __future__ import annotations

import getpass
import subprocess


def default_actor() -> str:
    try:
        out = subprocess.run(
            ["git", "config", "user.name"], capture_output=True, text=True, timeout=5, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    if out:
        return out
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment (getpass raises several kinds)
        return "unknown"
