"""Domain errors and the exit codes they map to.

Domain code raises these; only the CLI layer (cli/app.py) turns them into a message and an exit code.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the command ran and found problems (no match, blocked export, mismatches)
    USAGE = 2  # the user's input or environment: bad file or option, missing driver or path, locked database
    INTERNAL = 70  # a bug: reported without a traceback


# What `claims --help` says about them (the README's command reference says the same).
EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 the command ran and found a problem (no figure matches, an export blocked "
    "by the gate, a verification that does not confirm, a lint error, a broken history); 2 the input or "
    "the environment is wrong (a bad option or data file, a missing file, folder or database, a missing "
    "database driver, an unwritable path, a database still locked after 30 s), nothing changed; "
    "70 a bug in claims (please report it); 141 the reader of standard output closed it early (| head), "
    "nothing else is wrong."
)


class ClaimsError(Exception):
    """Base class: carries a one-line message meant for the user."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InvalidRecord(ClaimsError):
    """A data file, or one record in it, is not acceptable. Names file, record and field."""

    def __init__(self, file: str, record: str | None, field: str | None, reason: str):
        self.file, self.record, self.field, self.reason = file, record, field, reason
        where = file
        if record is not None:
            where += f", record {record}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {reason}")


class InvalidEntry(InvalidRecord):
    """A bibliography (`claims sources import`), or one entry in it, cannot be read. Names file, entry and
    field as the file spells them."""

    def __init__(self, file: str, entry: str | None, field: str | None, reason: str):
        super().__init__(file, entry, field, reason)
        where = (
            file
            + (f", entry {entry}" if entry is not None else "")
            + (f", field {field!r}" if field else "")
        )
        self.message = f"{where}: {reason}"
        self.args = (self.message,)


class AgentCannotVouch(InvalidRecord):
    """A record from an agent channel (`claims add`, JSON Lines, any later agent interface) that would
    vouch for something: a tag above unverified trust, a tag definition, a re-read, or a change to a
    claim or source that a person or a data file vouches for. `key` is the claim a person may re-read
    instead (None when the record is not a claim), `page` the page the record cites for it
    (trust.rule.RereadPage; None when it names none). trust.rule.with_reread words the refusal with the
    re-read that raises the claim instead."""

    def __init__(
        self,
        file: str,
        record: str | None,
        field: str | None,
        reason: str,
        *,
        key: str | None = None,
        page: Any = None,
    ):
        self.key, self.page = key, page  # page: a trust.rule.RereadPage, or None
        super().__init__(file, record, field, reason)


class ReadOnly(ClaimsError):
    """A write asked of a door opened for reading only (`claims mcp --read-only`)."""

    def __init__(self, what: str, why: str = "this server was started read-only"):
        super().__init__(f"{why}: {what} records nothing here")


class TooManyWrites(ClaimsError):
    """More writes than a door allows in a minute (`claims mcp --max-writes-per-minute`)."""

    def __init__(self, limit: int, wait_s: float):
        self.limit, self.wait_s = limit, wait_s
        super().__init__(
            f"at most {limit} claim(s) a minute may be added through this server, and that many "
            f"were added in the last minute; nothing was written: try again in {max(wait_s, 1):.0f} s"
        )


class UnknownClaim(ClaimsError):
    """No claim has this key. `suggestions`: the stored keys closest to it (suggest.close_keys), for each
    door to offer in its own way ("did you mean", a link)."""

    def __init__(self, key: str, suggestions: Sequence[str] = ()):
        self.key, self.suggestions = key, tuple(suggestions)
        super().__init__(f"no claim with key {key!r}")

    def with_suggestions(self) -> str:
        """The message, followed by the closest keys when there are any (the command line, an agent)."""
        if not self.suggestions:
            return self.message
        named = [repr(k) for k in self.suggestions]
        choices = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
        return f"{self.message}; did you mean {choices}?"


class BadQuery(ClaimsError):
    pass


class FieldError(ClaimsError):
    """A value given for one field cannot be used. `field` is the domain's word for it ("locator",
    "reason", "reader"), never a door's: each door names the field its own way with `named(label)` (the
    command line by its flag, the web by its form's label); the message names it by that word.
    `origin`: where the value was set when nobody typed it (then a door names that, not its field)."""

    field: str
    origin: str | None = None

    def named(self, label: str) -> str:
        raise NotImplementedError


class InvalidField(FieldError, BadQuery):
    """A value a person typed (a locator, a quote, a reason, a page) cannot be recorded: `reason` says
    why, after the field's name ("locator holds '\\x07', ...", "reason must not be empty")."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(self.named(field))

    def named(self, label: str) -> str:
        return f"{label} {self.reason}"


class RetagRaisesTrust(BadQuery):
    """A retag that would raise a claim's trust: only a person's re-read does. `key` and `page` (the
    claim's primary page, trust.rule.RereadPage): for the door to say what to re-read
    (trust.rule.with_reread)."""

    def __init__(self, key: str, message: str, page: Any = None):
        self.key, self.page = key, page
        super().__init__(message)


class DatabaseProblem(ClaimsError):
    """The database cannot be opened or is at a schema revision this version does not use."""


class TamperedHistory(ClaimsError):
    """A claim disagrees with its own history: its cached tag, status or content was changed outside
    claims, or one of its events was edited. Refused with exit 2 until a person looks."""

    def __init__(self, key: str, reason: str):
        self.key, self.reason = key, reason
        super().__init__(f"claim {key} disagrees with its history: {reason}; run `claims db check`")


class Tampered:
    """The claims that disagree with their history among those a command reads, noted as they pass (a
    listing prints them marked), then `ensure_none` refuses (exit 2) naming the first."""

    def __init__(self) -> None:
        self.first_key: str | None = None
        self.first_reason = ""
        self.count = 0

    def note(self, view: Any) -> Any:
        if view.integrity:
            self.add(1, view.key, view.integrity[0])
        return view

    def add(self, count: int, key: str | None, reason: str) -> None:
        """`count` more, the first of them `key` (read after every claim noted so far)."""
        if count and self.first_key is None:
            self.first_key, self.first_reason = key, reason
        self.count += count

    def ensure_none(self) -> None:
        if self.first_key is not None:
            more = f" (and {self.count - 1} more claim(s))" if self.count > 1 else ""
            raise TamperedHistory(self.first_key, self.first_reason + more)


class TamperedDefinitions(ClaimsError):
    """A tag, source or quantity row, or a claim's aliases, disagree with their recorded definition
    (claimsdb.definitions), or the definitions' chain does not verify: what a tag is worth, what a
    source or quantity is, or what a subject is called, was changed outside claims. Refused with exit 2 until a person looks."""

    def __init__(self, first: str, count: int = 1):
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(
            f"the definitions disagree with their chain: {first}{more}; run `claims db check`"
        )


class BrokenHistory(ClaimsError):
    """`claims db check` found a broken link: a finding, so exit 1."""

    exit_code = ExitCode.FINDINGS


class NotFound(ClaimsError):
    """A lookup found nothing: not an error of input, so exit 1."""

    exit_code = ExitCode.FINDINGS


def shown(value: object, limit: int = 80) -> str:
    """A value as an error message shows it: quoted, escaped, and cut short if long."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UnsafeIdentifier(ClaimsError):
    """A name that an output language needs verbatim (a cite key, a figure name in a macro) is not safe in it."""

    def __init__(self, what: str, value: object, language: str, allowed: str):
        self.what, self.value = what, value
        super().__init__(
            f"{what} {shown(value)} cannot be written into {language}: use only {allowed}; "
            "nothing was written"
        )


class ExportConflict(ClaimsError):
    """Two figures would be exported under one name."""


class InvalidName(FieldError):
    """A person's name that cannot be recorded (trust.identity.person_name). `field` is the domain's word for
    it ("reader", "actor"); `origin` says where it was set when it was not typed (CLAIMS_READER, the
    settings file, git's user.name)."""

    def __init__(self, field: str, value: object, reason: str, origin: str | None = None):
        self.field, self.value, self.reason, self.origin = field, value, reason, origin
        super().__init__(self.named(field))

    def named(self, label: str) -> str:
        """The message with the field called `label` (the CLI's flag, the web form's label)."""
        where = f" (from {self.origin})" if self.origin else ""
        return f"{label} {shown(self.value)}{where}: {self.reason}"


class NoReader(ClaimsError):
    """Nobody is named as the person recording, and nobody may be guessed (never the login name)."""

    def __init__(self, env: str, config: object):
        self.ways = (
            f'set {env}="Your Name"',
            f'write reader = "Your Name" in {config}',
            'run git config --global user.name "Your Name"',
        )
        super().__init__(self.told())

    def told(self, *first: str) -> str:
        """The message, with other ways to name the reader (the CLI's flag) listed first."""
        ways = (*first, *self.ways)
        return (
            f"no reader's name is set, and the login name is never used: {', '.join(ways[:-1])}, "
            f"or {ways[-1]}"
        )


class BadSetting(ClaimsError):
    """The settings file cannot be read or holds what claims does not know."""

    def __init__(self, path: object, reason: str):
        self.path = path
        super().__init__(f"settings file {path}: {reason}")
