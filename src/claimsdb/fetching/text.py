"""The human-visible text of a fetched page: HTML, Markdown/MDX, plain text or PDF.

`extract_text(content, content_type, name)` returns text for `locate`; anything it cannot read raises
`UnsupportedContent` with a short `.reason`. It never raises on undecodable bytes.

Decisions:
- The kind comes from the content type (its parameters ignored); a generic type (text/plain,
  octet-stream, none) defers to the name's extension (.html/.htm, .md/.markdown/.mdx, .txt, .pdf;
  a URL's path is used), because servers send Markdown files as text/plain; octet-stream or no type
  with no known extension is sniffed: "%PDF-", "<!doctype html"/"<html", else text only if it is
  UTF-8 without NUL bytes. JSON and XML types are read as plain text. Anything else is unsupported.
- Charset: the content type's, else (HTML) a <meta> charset in the first 4 KB, else a BOM, else UTF-8.
  ISO-8859-1 and ASCII labels mean windows-1252, as in browsers. Bytes that do not decode with the
  declared or default charset are read as UTF-8 if they are valid UTF-8, else as windows-1252 with
  replacement characters: a mislabelled page still yields its (ASCII) figures.
- HTML and Markdown are read by `claimsdb.prose.markup`, the reader `claims lint` uses, in its visible
  mode. HTML: text nodes only; script, style, noscript, template, svg and head (except its title)
  dropped; block elements and <br> end a line, a table row is a line and its cells are separated by
  tabs; entities decoded.
  Markdown: fences dropped but code kept; links keep their text, images and reference definitions
  are dropped; emphasis, heading marks, quote marks and list markers removed, a table's pipes become
  tabs; HTML/JSX tags and comments removed, front matter and MDX import/export lines dropped; entities
  decoded.
- PDF: the text layer via pypdf, pages separated by a blank line, a hyphen at a line end joined to the
  next line ("pre-\\ntraining" -> "pre-training"). An encrypted PDF that opens with the empty password
  (owner password only: any viewer shows it) is read; one that needs a password, a PDF pypdf cannot
  read, or one with no text layer (a scan) is unsupported.
Lines are stripped, runs of spaces collapsed and blank lines kept to one; newlines and a table's tabs
stay, so a caller can tell paragraphs apart and find a table cell's column header (`locate` does). Pure functions, no output.
"""

from __future__ import annotations

import codecs
import io
import re
from urllib.parse import urlsplit

from claimsdb.prose.markup import html_prose, markdown

__all__ = ["UnsupportedContent", "extract_text"]


class UnsupportedContent(Exception):
    """Content whose text cannot be extracted; `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


_TYPES = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/mdx": "markdown",
    "text/plain": "text",
    "application/json": "text",
    "application/xml": "text",
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
}
_GENERIC_TYPES = {
    "",
    "text/plain",
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
}
_EXTENSIONS = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".txt": "text",
    ".pdf": "pdf",
}
# WHATWG: these labels are decoded as windows-1252 by every browser.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "l1": "cp1252",
    "windows-1252": "cp1252",
}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def extract_text(content: bytes, content_type: str | None, name: str = "") -> str:
    """The visible text of `content`. Raises UnsupportedContent for types it cannot read."""
    if not isinstance(content, (bytes, bytearray)):
        raise UnsupportedContent("content is not bytes")
    content = bytes(content)
    mime, charset = _split_content_type(content_type)
    kind = _kind(content, mime, name)
    if kind == "pdf":
        return _tidy(_pdf_text(content))
    if kind == "html":
        charset = charset or _meta_charset(content)
        return _tidy(_html_text(_decode(content, charset)))
    text = _decode(content, charset)
    return _tidy(_markdown_text(text) if kind == "markdown" else text)


# --- kind and charset ------------------------------------------------------------------------------


def _split_content_type(content_type: str | None) -> tuple[str, str | None]:
    if not content_type:
        return "", None
    mime, _, params = str(content_type).partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip().strip("\"'"):
            charset = value.strip().strip("\"'")
    return mime.strip().lower(), charset


def _kind(content: bytes, mime: str, name: str) -> str:
    if mime not in _GENERIC_TYPES:
        if mime in _TYPES:
            return _TYPES[mime]
        if mime.endswith(("+xml", "+json")):
            return "text"
        if mime.startswith("text/"):
            return "text"
        raise UnsupportedContent(f"unsupported content type {mime}")
    by_name = _EXTENSIONS.get(_extension(name))
    if by_name:
        return by_name
    if mime == "text/plain":
        return "text"
    return _sniff(content)


def _extension(name: str) -> str:
    path = urlsplit(name).path if "://" in name else name
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return "." + base.rsplit(".", 1)[1].lower() if "." in base else ""


def _sniff(content: bytes) -> str:
    if b"%PDF-" in content[:1024]:
        return "pdf"
    head = content[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head:
        return "html"
    sample = content[:4096]
    if b"\x00" not in sample:
        try:
            codecs.getincrementaldecoder("utf-8")().decode(
                sample
            )  # a cut character at the end is fine
            return "text"
        except UnicodeDecodeError:
            pass
    raise UnsupportedContent("binary content that is neither text, HTML nor PDF")


def _meta_charset(content: bytes) -> str | None:
    m = _META_CHARSET.search(content[:4096])
    return m.group(1).decode("ascii") if m else None


def _decode(content: bytes, charset: str | None) -> str:
    if content.startswith(codecs.BOM_UTF8):
        return content[3:].decode("utf-8", errors="replace")
    if content.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return content.decode("utf-16", errors="replace")
    tried = []
    if charset:
        label = charset.strip().lower()
        label = _CHARSET_ALIASES.get(label, label)
        try:
            if codecs.lookup(label)._is_text_encoding:
                tried.append(label)
        except (LookupError, ValueError):
            pass  # an unknown label: fall back as if none were given
    tried.append("utf-8")
    for label in tried:
        try:
            return content.decode(label).removeprefix("\ufeff")
        except (UnicodeDecodeError, LookupError):  # LookupError: "base64" and other non-text codecs
            continue
    return content.decode("cp1252", errors="replace")


# --- HTML and Markdown: the same reader as `claims lint`, in its "visible" mode -----------------------


def _html_text(markup: str) -> str:
    return html_prose(markup, visible=True).text


def _markdown_text(text: str) -> str:
    return markdown(text.replace("\r\n", "\n").replace("\r", "\n"), visible=True).text


# --- PDF ---------------------------------------------------------------------------------------------------

_LINE_HYPHEN = re.compile(r"(?<=\w)-\n(?=[a-z0-9])")


def _pdf_text(content: bytes) -> str:
    # pypdf is imported here: only PDF sources pay for it.
    try:
        from pypdf import PdfReader
    except ImportError as exc:  # pragma: no cover - pypdf is a dependency
        raise UnsupportedContent("PDF support needs the pypdf package") from exc
    try:
        reader = PdfReader(io.BytesIO(content))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception as exc:  # a cipher pypdf cannot run without extra packages
                raise UnsupportedContent("encrypted PDF") from exc
            if not opened:
                raise UnsupportedContent("encrypted PDF (needs a password)")
        pages = [page.extract_text() or "" for page in reader.pages]
    except UnsupportedContent:
        raise
    except Exception as exc:  # pypdf raises many kinds of errors on damaged files; none may escape
        raise UnsupportedContent(f"unreadable PDF ({type(exc).__name__})") from exc
    text = "\n\n".join(p.replace("\r\n", "\n").replace("\r", "\n") for p in pages)
    if not text.strip():
        raise UnsupportedContent("PDF has no text layer")
    return _LINE_HYPHEN.sub("-", text)


# --- shared ------------------------------------------------------------------------------------------------

_SPACES = re.compile(r"[^\S\n\t]+")
_CELL_GAP = re.compile(r" *\t *")
_BLANKS = re.compile(r"\n{3,}")


def _tidy(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = (_CELL_GAP.sub("\t", _SPACES.sub(" ", line)).strip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()
