"""Who is recording: what a person's name may be, and where the reader's name is set.

One function, `person_name`, decides what a valid name is, for every door that records one (the CLI's
`--by`, the settings below, the web form, imports). A name is what the history shows as the person who
vouched for a figure, so it must show: a name that displays as blank (U+3164 HANGUL FILLER, U+2800
BRAILLE PATTERN BLANK, zero-width and other format characters) or that reorders its own display (bidi
controls) would record a re-read by nobody in particular.

The key a person signs re-reads with (`signing_key`) comes from --sign-with, `CLAIMS_SIGNING_KEY`, the
config file's `signing_key`, or git's `user.signingkey` when git's `gpg.format` is `ssh`.

The reader's own name comes from, in this order: `CLAIMS_READER`, the `reader` setting of the config
file (`$XDG_CONFIG_HOME/claimsdb/config.toml`), git's `user.name`. Never the login name: an account
("root", "ci") is not a person.
"""

from __future__ import annotations

import json
import os
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from claimsdb.errors import BadSetting, InvalidName, NoReader
from claimsdb.trust.confusables import confusable

READER_ENV = "CLAIMS_READER"
MAX_NAME = 80
# The name the tool records its own acts under (imports; `claims add` with nobody named): never a person's.
TOOL_ACTOR = "import"
# Names the tool's own acts are recorded under, never a person's: imports, and the seal the upgrade to
# schema 0009 recorded (migrations/versions/0009_stored_record.py, SEAL_ACTOR). A name is compared to them
# by its skeleton (trust.confusables): "іmport" with a Cyrillic і or "ｉｍｐｏｒｔ" is refused as "import" is.
RESERVED_NAMES = (TOOL_ACTOR, "claimsdb")
CONFIG_KEYS = ("reader", "signing_key")
SIGNING_KEY_ENV = "CLAIMS_SIGNING_KEY"

# Characters that draw nothing but are not format characters (category Cf is refused as a whole): the
# Unicode default-ignorable code points outside Cf (the Hangul fillers among them), the Khitan filler and
# the braille blank.
_BLANK_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0x16FE4, 0x16FE4),
    (0xE0100, 0xE01EF),
)
# What is stripped from both ends: the space separators (Zs) and tab and line breaks; inside a name, a
# tab or a line break is a control character and refused.
_ENDS = "\t\n\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
# The Unicode categories a name never holds, and why.
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible format character (zero-width or bidirectional control)",
    "Cs": "not a character (undecodable bytes)",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line break",
    "Zp": "a line break",
}


def _blank(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in _BLANK_RANGES)


def person_name(text: object, *, field: str = "reader", origin: str | None = None) -> str:
    """The name as it is recorded: NFC, without leading and trailing whitespace, runs of spaces as one.

    Raises InvalidName unless it holds at least one visible letter or digit, no control, format
    (zero-width, bidi), separator or blank-drawing character, at most MAX_NAME characters, and does not
    read as a reserved name (RESERVED_NAMES, compared by skeleton)."""
    if not isinstance(text, str):
        raise InvalidName(field, text, "a name must be text", origin)
    name = unicodedata.normalize("NFC", text).strip(_ENDS)
    if not name:
        raise InvalidName(field, text, "a name must not be empty", origin)
    for ch in name:
        why = _REFUSED_CATEGORIES.get(unicodedata.category(ch)) or (
            _blank(ch) and "a blank that draws nothing"
        )
        if why:
            called = unicodedata.name(ch, "")
            raise InvalidName(
                field,
                text,
                f"a name cannot hold U+{ord(ch):04X}{' ' + called if called else ''}, {why}",
                origin,
            )
    name = " ".join(name.split())
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):
        raise InvalidName(field, text, "a name needs at least one visible letter or digit", origin)
    reserved = next((r for r in RESERVED_NAMES if confusable(name, r)), None)
    if reserved is not None:
        raise InvalidName(
            field,
            text,
            f"{reserved!r} is what the tool's own acts are recorded as, not a person"
            + ("" if name.casefold() == reserved else " (this name reads as it)"),
            origin,
        )
    if len(name) > MAX_NAME:
        raise InvalidName(
            field,
            text,
            f"a name has at most {MAX_NAME} characters (this one has {len(name)})",
            origin,
        )
    return name


def quoted(name: str) -> str:
    """A name inside a line of the tool's own words (an agent's actor line), as a JSON string: it cannot
    close its quotes, so no name reads as the words around it."""
    return json.dumps(name, ensure_ascii=False)


def config_path() -> Path:
    """Where the settings file is: $XDG_CONFIG_HOME/claimsdb/config.toml (~/.config/claimsdb/config.toml)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "claimsdb" / "config.toml"


@dataclass(frozen=True)
class Setting:
    value: str
    origin: str  # where it was set, as a message names it


def _config_reader() -> Setting | None:
    return _config_setting("reader")


def _config_setting(name: str) -> Setting | None:
    path = config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadSetting(path, f"cannot read it: {exc.strerror or exc}") from None
    import tomllib

    try:
        settings = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BadSetting(path, f"not a TOML file: {exc}") from None
    unknown = sorted(set(settings) - set(CONFIG_KEYS))
    if unknown:  # a misspelt "reader" would otherwise fall through to git's user.name unnoticed
        raise BadSetting(path, f"unknown setting {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})")
    if name not in settings:
        return None
    if name != "reader" and not isinstance(settings[name], str):  # person_name says it of a reader
        raise BadSetting(path, f"{name} must be text")
    return Setting(settings[name], str(path))


def _git_user_name() -> Setting | None:
    out = _git_config("user.name")
    return Setting(out, "git config user.name") if out else None


def _git_config(name: str) -> str | None:
    try:
        out = subprocess.run(  # undecodable bytes become lone surrogates, which person_name refuses by name
            ["git", "config", name],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.rstrip("\r\n") or None


def configured_reader() -> str | None:
    """The reader's name as set on this machine, checked by `person_name`: CLAIMS_READER, else the
    config file's `reader`, else git's user.name; None when none is set. A name that is set but not a
    valid name is an error (InvalidName naming where it was set), never skipped for the next one."""
    env = os.environ.get(READER_ENV)
    setting = (Setting(env, READER_ENV) if env else None) or _config_reader() or _git_user_name()
    if setting is None:
        return None
    return person_name(setting.value, field="reader", origin=setting.origin)


def reader(given: str | None) -> str:
    """The person recording: the name given (a --by), else the configured reader; NoReader when none."""
    if given is not None:
        return person_name(given, field="reader")
    name = configured_reader()
    if name is None:
        raise NoReader(READER_ENV, config_path())
    return name


def signing_key(given: str | None) -> Setting | None:
    """The key a person signs with: the one given (--sign-with), else CLAIMS_SIGNING_KEY, else the config
    file's `signing_key`, else git's user.signingkey when git signs with SSH (gpg.format ssh); None when none
    is set. A path ("~" is expanded), or git's "key::ssh-ed25519 AAAA..." (the agent holds its private half)."""
    if given:
        return Setting(given, "--sign-with")
    env = os.environ.get(SIGNING_KEY_ENV)
    if env:
        return Setting(env, SIGNING_KEY_ENV)
    setting = _config_setting("signing_key")
    if setting is not None:
        return setting
    if _git_config("gpg.format") == "ssh":
        key = _git_config("user.signingkey")
        if key:
            return Setting(key, "git config user.signingkey")
    return None
