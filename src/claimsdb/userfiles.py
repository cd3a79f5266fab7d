"""Files a person names (`-o FILE`, `--anchor FILE`): the one way claims writes one and reads a small one.

Writing: only a regular file is written, a new one or one that replaces a regular file through a temporary
file in the same folder (whole or not at all). Whatever else stands at the path is refused before anything
is written, with what it is: a device (`-o /dev/full` run as root turned the device into a regular file;
/dev/null too: a command that asks for a file gets a file or an error, never a discarded write), a FIFO,
a socket, a folder, or a symbolic link, even to a regular file (replacing the link would break it, and
writing through it would write a file the command was not named). The check uses lstat, so a link is seen
as a link. A command that writes several files (an export and its manifest) checks every path first.

Reading: `read_small` opens without following a FIFO's wait (O_NONBLOCK), refuses what is not a regular
file, and reads no more than its limit, so `--anchor /dev/zero` is an error, not a read that fills memory.

Domain code: it raises InvalidField (field "output", which each door names its own way) or BadQuery; it
never prints.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from claimsdb.errors import BadQuery, InvalidField

__all__ = ["check_writable", "read_small", "what_is", "write_atomically"]

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def what_is(mode: int) -> str | None:
    """What a file of this mode (from lstat) is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_writable(*paths: Path, field: str = "output") -> None:
    """Refuse (InvalidField naming `field`) the first path at which something other than a regular file
    stands; a missing path is fine (it will be created)."""
    for path in paths:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise InvalidField(
                field, f"{path}: cannot be checked ({exc.strerror or exc})"
            ) from None
        kind = what_is(mode)
        if kind is not None:
            raise InvalidField(
                field,
                f"{path} is {kind}: claims writes only a regular file (a new one, or one it replaces "
                "whole); nothing was written",
            )


def write_atomically(
    path: Path, text: str | Iterable[str], *, also: Iterable[Path] = (), field: str = "output"
) -> None:
    """Write the whole file or nothing, with the permissions a new file of the user's gets (umask); the
    text may come in pieces, written as they come. `path` and every path of `also` (the files the same
    command writes next) are checked first (check_writable)."""
    path = Path(path)
    check_writable(path, *also, field=field)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for piece in [text] if isinstance(text, str) else text:
                f.write(piece)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600
        check_writable(path, field=field)  # what was put there while the text was written
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_small(path: str | Path, limit: int, what: str) -> bytes:
    """A regular file of at most `limit` bytes; BadQuery naming the file and saying what `what` it is
    not. Never waits on a FIFO nor reads a device."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise BadQuery(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        kind = what_is(info.st_mode)
        if kind is not None:
            raise BadQuery(f"{path}: not {_article(what)} {what} file: it is {kind}")
        if info.st_size > limit:
            raise BadQuery(
                f"{path}: not {_article(what)} {what} file ({info.st_size:,} bytes; the most is {limit:,})"
            )
        data = os.read(fd, limit + 1)
    except OSError as exc:
        raise BadQuery(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # grew since the fstat
        raise BadQuery(f"{path}: not {_article(what)} {what} file (more than {limit:,} bytes)")
    return data


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
