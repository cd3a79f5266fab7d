"""Escaping by construction: one function per output language, and the identifiers none can escape.

Every exporter writes text it did not choose (statements, titles, figures from agents and colleagues)
through one of these functions, never by hand:

- `latex_text`   text in a LaTeX document (table cells, macro bodies); `clause` a piece of a cell that
                 others follow after "; ";
- `latex_name`   a name inside a LaTeX control sequence (`\\claim` keys and figure names);
- `bibtex_field` the value of a braced BibTeX field; `bibtex_key` an entry key or `\\cite{}` key;
- `url`          a web address for any of them (http and https only, percent-encoded); `http_url`
                 is the one answer to "is this an http(s) URL?" that every module asks;
- `csv_cell`     a CSV cell that a spreadsheet will open;
- `markdown_text` / `markdown_url` text and links in Markdown that may be rendered as HTML;
- `yaml_string`  a scalar in a YAML file (Quarto variables);
- `comment`      one line of a manifest written as a comment in any of these formats.

A name that must be written verbatim (a cite key, a figure name used in a macro) cannot be escaped:
it is checked against a safe pattern, at import (records.py) and again here at export, because a
database may hold rows written before the check or by another command. A name that fails raises
UnsafeIdentifier; nothing is written.
"""

from __future__ import annotations

import functools
import json
import re
from urllib.parse import quote, urlsplit

from claimsdb.errors import UnsafeIdentifier

# Claim keys, source keys and tag names: safe in LaTeX macro names, Quarto paths, file names and URLs.
KEY_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]*")
# Citation keys: what BibTeX and biber accept in an entry key and \cite{} reads back from the .aux file.
CITE_KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:.+/-]*")
# Figure names: \claim[NAME]{KEY} in LaTeX and a Quarto variable name, so no dots (Quarto nests on them).
FIGURE_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _-]*")
# Names Quarto and \claim already give a claim's figures: fig, fig1, fig2, ... and the positions 1, 2, ...
RESERVED_FIGURE_NAME = re.compile(r"fig([ _-]?[0-9]+)?|[0-9]+", re.IGNORECASE)
# What may stand inside \csname ... \endcsname without being expanded or ending it.
_LATEX_NAME = re.compile(r"[A-Za-z0-9 ._-]*")

# Characters no text field may hold and no output gets: control characters other than tab and line
# breaks, lone surrogates (not encodable), and the bidirectional overrides and isolates that make a
# terminal, PDF or web page show text in another order than it is stored.
FORBIDDEN_CHARS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_LINE_BREAKS = re.compile("[\t\n\r]")


def _clean(text: str) -> str:
    """One line, without the forbidden characters: what every escaper starts from."""
    return _LINE_BREAKS.sub(" ", FORBIDDEN_CHARS.sub("", str(text)))


# --- LaTeX ----------------------------------------------------------------------------------------

# One pass over the characters: a backslash becomes \textbackslash{} and its braces are never
# escaped again. §, †, · and ° are the math symbols: in text, LaTeX takes them from the TS1 font
# encoding, which a TeX without cm-super draws as bitmaps (Type 3 fonts, which publishers' PDF checks
# refuse). Square brackets are braced so that a cell starting with "[" after "\\" is not read as the
# optional argument of the row end.
_LATEX = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\{",
        "}": r"\}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
        "<": r"\textless{}",
        ">": r"\textgreater{}",
        "|": r"\textbar{}",
        "[": "{[}",
        "]": "{]}",
        "→": r"$\rightarrow$",
        "←": r"$\leftarrow$",
        "–": "--",
        "—": "---",
        "−": "$-$",
        "×": r"$\times$",
        "∼": r"$\sim$",
        "≈": r"$\approx$",
        "≤": r"$\leq$",
        "≥": r"$\geq$",
        "±": r"$\pm$",
        "η": r"$\eta$",
        "µ": r"$\mu$",
        "μ": r"$\mu$",
        "§": r"$\S$",
        "†": r"$\dagger$",
        "·": r"$\cdot$",
        "°": r"$^{\circ}$",
        "“": "``",
        "”": "''",
        "‘": "`",
        "’": "'",
        "…": r"\dots{}",
    }
)


# A tilde before a number means "about" ("~50B", "~ 2x", "~$5M"): printed as the tilde operator, $\sim$.
# Elsewhere it is the character itself; \textasciitilde alone would set "~50B" as an accent over nothing.
_ABOUT = re.compile(r"~(?=[ ]?[$€£]?[0-9])")


def _about(text: str) -> str:
    return _ABOUT.sub("∼", text)


def latex_text(text: str) -> str:
    """Text for a LaTeX document: every special character escaped, on one line."""
    return _about(_clean(text)).translate(_LATEX)


def clause(text: str) -> str:
    """A piece of a cell that others follow after "; ": without its final full stop (never "data.; three").
    An ellipsis keeps its dots."""
    text = text.rstrip()
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def latex_name(name: str, what: str) -> str:
    """A name used inside a LaTeX control sequence (`\\claim{KEY}`, `\\claim[NAME]{KEY}`), unchanged.

    Such a name is matched against what the author types, so it cannot be escaped: it is refused
    unless it holds only letters, digits, spaces, '.', '_' and '-'.
    """
    if not isinstance(name, str) or not _LATEX_NAME.fullmatch(name):
        raise UnsafeIdentifier(what, name, "LaTeX", "letters, digits, spaces, '.', '_' and '-'")
    return name


# --- BibTeX ---------------------------------------------------------------------------------------

# BibTeX counts every brace, escaped or not: a field must hold balanced braces, so literal braces
# become text commands instead of \{ and \}.
_BIBTEX = {**_LATEX, ord("{"): r"\textbraceleft{}", ord("}"): r"\textbraceright{}"}


def bibtex_field(text: str) -> str:
    """The value of a braced BibTeX field (`title = {...}`): LaTeX text with balanced braces only."""
    return _about(_clean(text)).translate(_BIBTEX)


def bibtex_key(key: str, what: str) -> str:
    """An entry key, also used in `\\cite{}`: unchanged, or refused when it is not a safe key."""
    if not isinstance(key, str) or not CITE_KEY_PATTERN.fullmatch(key):
        raise UnsafeIdentifier(
            what,
            key,
            "LaTeX and BibTeX",
            "letters, digits and _ : . + / -, starting with a letter or digit",
        )
    return key


def bibtex_comment(text: str) -> str:
    """One comment line in a .bib file. BibTeX starts an entry at any '@', even between entries."""
    return comment(text).replace("@", "(at)")


# --- URLs -----------------------------------------------------------------------------------------

# RFC 3986 reserved and unreserved characters, and '%' for what is already encoded: everything else
# (spaces, quotes, braces, backslashes, '<', '>', non-ASCII) is percent-encoded.
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~-._"
_WEB_SCHEMES = frozenset({"http", "https"})


def http_url_problem(address: str) -> str | None:
    """Why `address` (less the spaces around it) is not an http(s) URL, in one line; None when it is.

    The strictest of the rules claims used to have, in one place: the scheme http or https in any case
    (RFC 3986), a host name (not just a port or a user), no user information ("user:password@": a
    stored address is printed everywhere), and no space, tab, line break, control or
    format character anywhere (urlsplit and browsers silently drop a tab or a line break inside)."""
    address = address.strip()
    try:
        parts = urlsplit(address)
        host = parts.hostname
    except ValueError:  # an unclosed IPv6 bracket
        return f"not a valid URL: {address!r}"
    scheme = parts.scheme  # urlsplit lowercases it
    if not scheme:
        return f"not an absolute URL: {address!r}"
    if scheme not in _WEB_SCHEMES:
        return f"unsupported scheme {scheme!r}"
    if not host:
        return f"URL has no host: {address!r}"
    if "@" in parts.netloc:  # said without the address: it would print the password
        return (
            f"URL holds user information (a name or password before '@' in "
            f"{without_user(address)!r}): an address is shown, exported and cited as stored, so "
            "give it without; a page behind a login is read from a local copy"
        )
    if not all(c.isprintable() and not c.isspace() for c in address):
        return f"URL holds a space, control or format character: {address!r}"
    return None


_USER_INFO = re.compile(r"\A([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")


def without_user(address: str) -> str:
    """The address with any user information before its host ("user:password@") written as "…@", to
    name it in a message without the password."""
    return _USER_INFO.sub(r"\1…@", address.strip(), count=1)


def http_url(address: str | None) -> str | None:
    """`address` less the spaces around it when it is an http(s) URL, else None: a `javascript:` or
    `data:` URL, a relative one or a bare host is never a link, a fetch or a registered source."""
    if not address or http_url_problem(address) is not None:
        return None
    return address.strip()


@functools.lru_cache(maxsize=4096)  # an export writes the few sources' addresses on every row
def url(address: str | None) -> str | None:
    """An http(s) address ready for LaTeX's `\\url{}`, BibTeX and Markdown; None for any other scheme."""
    web = http_url(address)
    return None if web is None else quote(web, safe=_URL_SAFE)


# --- CSV ------------------------------------------------------------------------------------------

# OWASP "CSV Injection": a cell a spreadsheet would read as a formula starts with one of these.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: a leading single quote before a would-be formula."""
    text = "" if value is None else str(value)
    if text.lstrip(" \n").startswith(FORMULA_START):
        return "'" + text
    return text


# --- Markdown and HTML ----------------------------------------------------------------------------

# HTML's three, and every character that starts Markdown or pandoc inline syntax (emphasis, code,
# links and images, tables, math, sub- and superscript, strike-through): shown as themselves.
_MARKDOWN = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "$": "\\$",
        "~": "\\~",
        "^": "\\^",
    }
)


def markdown_text(text: str) -> str:
    """Text in a Markdown table cell: no HTML, links, emphasis or math can come out of it."""
    return _clean(text).translate(_MARKDOWN)


def markdown_url(address: str | None) -> str | None:
    """A link destination: http(s) only, percent-encoded, parentheses escaped; None otherwise."""
    safe = url(address)
    return None if safe is None else safe.replace("(", "\\(").replace(")", "\\)")


# --- YAML -----------------------------------------------------------------------------------------

_YAML_MORE = {
    i: f"\\u{i:04x}" for i in [*range(0x7F, 0xA0), 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF]
}


def yaml_string(text: str) -> str:
    """A double-quoted YAML scalar. JSON escapes the C0 controls; YAML also forbids these raw."""
    return json.dumps(_clean(text), ensure_ascii=False).translate(_YAML_MORE)


# --- manifests ------------------------------------------------------------------------------------


def comment(text: str) -> str:
    """Text for a one-line comment (`%`, `#`): a line break inside would end the comment."""
    return _clean(text)
