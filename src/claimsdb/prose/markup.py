"""HTML and Markdown (also Quarto) manuscripts as prose (see lint/__init__.py for what is skipped)."""

from __future__ import annotations

import html
import re

from claimsdb.prose.mapped import BLANK_LINE as _BLANK_LINE
from claimsdb.prose.mapped import Prose
from claimsdb.prose.tex import (
    _TEX_CITE,
    _TEX_NO_PROSE,
    _TEX_SKIP_ENVS,
    _TEX_SYMBOLS,
    _skip_args,
    code_text,
    math_text,
)

__all__ = ["html_prose", "markdown"]

# HTML (also inside Markdown)
_HTML_BLOCK = {
    "p",
    "div",
    "br",
    "hr",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "tr",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "caption",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "aside",
    "main",
    "blockquote",
    "figure",
    "figcaption",
    "body",
    "html",
    "title",
    "form",
    "fieldset",
    "details",
    "summary",
    "address",
    "center",
    "iframe",
    "img",
    "video",
    "audio",
    "object",
    "embed",
    "canvas",
    "picture",
}
_HTML_CELL = {"td", "th"}
_HTML_INLINE = {
    "a",
    "b",
    "i",
    "em",
    "strong",
    "span",
    "small",
    "big",
    "abbr",
    "cite",
    "q",
    "s",
    "u",
    "mark",
    "sub",
    "time",
    "data",
    "var",
    "kbd",
    "samp",
    "font",
    "label",
    "bdi",
    "bdo",
    "ins",
    "del",
    "wbr",
    "nobr",
    "dfn",
    "tt",
}
_HTML_SKIP = "script|style|head|pre|code|math|svg|template|textarea|sup|noscript|object"
_HTML_TAG = (
    r"</?([A-Za-z][\w:-]*)(?:\s+[^<>\"'=\s]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?)*\s*/?>"
)
# What a reader of the page sees (`visible`, for verify) keeps code, superscripts and the title.
_HTML_SKIP_VISIBLE = "script|style|svg|template|noscript|object|iframe|canvas|math|head"
_HTML_TOKEN = re.compile(
    r"(?P<comment><!--)"
    rf"|(?P<skipblock><(?P<sb>{_HTML_SKIP})\b[^>]*>)"
    r"|(?P<decl><![^>]*>|<\?[^>]*>)"
    rf"|(?P<tag>{_HTML_TAG})"
    r"|(?P<entity>&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);)",
    re.I,
)


_HTML_TOKEN_VISIBLE = re.compile(
    _HTML_TOKEN.pattern.replace(_HTML_SKIP, _HTML_SKIP_VISIBLE, 1), re.I
)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
_HEADING_TAG = re.compile(r"<h[1-6]\b", re.I)
_HEADING_CLOSE = re.compile(r"</h[1-6]\s*>", re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")
_HEADING_NUMBER = re.compile(r"[ \t\n]*\(?\d+(?:\.\d+)*\.?\)?(?=[ \t\n])")


def _tag_replacement(tag: str, visible: bool = False) -> str:
    m = re.match(r"</?([A-Za-z][\w:-]*)", tag)
    name = m.group(1).lower() if m else ""
    if visible and name == "tr":
        return "\n"  # a row is a line of tab-separated cells, as in a TSV file
    if name in _HTML_BLOCK or (visible and name == "pre"):
        return "\n\n"
    if name in _HTML_CELL:
        if visible:
            return "" if tag.startswith("</") else "\t"  # one tab before each cell
        return " | "
    if name in _HTML_INLINE:
        return ""
    return " "


def _html_token(pr: Prose, src: str, m: re.Match, limit: int, visible: bool = False) -> int | None:
    """Handle an HTML construct; the offset after it, or None if m is not one."""
    s, e = m.start(), m.end()
    if m.group("comment"):
        close = src.find("-->", e, limit)
        e = close + 3 if close >= 0 else e
        if "\n" in src[s:e]:
            pr.skip(s, e)
        else:
            pr.replace(s, e, "")  # a comment prints nothing: "1<!-- -->00,000" is 100,000
    elif m.group("skipblock"):
        if m.group(0).endswith("/>"):
            pr.skip(s, e)
            return e
        close = re.compile(rf"</{m.group('sb')}\s*>", re.I).search(src, e, limit)
        if visible and m.group("sb").lower() == "head":
            end = close.start() if close else limit
            title = _TITLE.search(src, e, end)
            if close is None:  # no </head>: browsers end the head at the body's first element
                return e if pr.skip(s, e) is None else e
            if title:
                pr.skip(s, title.start(1))
                pr.replace(title.start(1), title.end(1), html.unescape(title.group(1)) + "\n\n")
            e = close.end()
            pr.skip(pr.pos, e)
            return e
        e = close.end() if close else e
        pr.skip(s, e)
    elif m.group("decl"):
        pr.skip(s, e)
    elif m.group("tag"):
        if _HEADING_TAG.match(m.group("tag")) and (close := _HEADING_CLOSE.search(src, e, limit)):
            pr.headings.append((s, _ANY_TAG.sub(" ", src[e : close.start()])))
        pr.replace(s, e, _tag_replacement(m.group("tag"), visible))
        if (
            not visible
            and _HEADING_TAG.match(m.group("tag"))
            and (number := _HEADING_NUMBER.match(src, e))
        ):
            pr.skip(e, number.end())  # "<h2>3.2 Results</h2>": a section number
            e = number.end()
    elif m.group("entity"):
        pr.replace(s, e, html.unescape(m.group("entity")))
    else:
        return None
    return e


def html_prose(src: str, visible: bool = False) -> Prose:
    """The prose of an HTML page; `visible`: everything a reader sees (code and the title too), text only."""
    pr = Prose(src, track=not visible)
    pos = 0
    token = _HTML_TOKEN_VISIBLE if visible else _HTML_TOKEN
    while m := token.search(src, pos):
        e = _html_token(pr, src, m, len(src), visible)
        pos = max(e or m.end(), pr.pos)
    return pr.finish()


# Every token starts at a line's start or with one of the characters of the lookahead: it lets a search
# skip the positions of plain text in one cheap test, where trying each alternative there cost a
# microsecond a character. Keep it in step with the alternatives (tests/prose: the tokens of the corpus).
_MD_TOKEN = re.compile(
    r"(?:^|(?=[`~<\\|*>\[\]!$&{_@-]))(?:"
    r"(?P<fence>^[ \t]{0,3}(?P<fch>`{3,}|~{3,})[^\n]*$)"
    r"|(?P<mdx>^(?:import|export)[ \t].*(?:\bfrom[ \t]+['\"][^'\"\n]+['\"]|=.*);?[ \t]*$)"
    r"|(?P<comment><!--)"
    rf"|(?P<skipblock><(?P<sb>{_HTML_SKIP})\b[^>]*>)"
    r"|(?P<decl><![A-Za-z][^>]*>|<\?[^>]*>)"
    rf"|(?P<tag>{_HTML_TAG})"
    r"|(?P<autolink><[A-Za-z][\w+.-]*:[^\s<>]*>)"
    r"|(?P<heading>^[ \t]{0,3}\#{1,6}[ \t]+(?:\(?\d+(?:\.\d+)*\.?\)?[ \t]+)?)"
    r"|(?P<tablesep>^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$)"
    r"|(?P<tablerow>^[ \t]*\|)"
    r"|(?P<list>^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)"
    r"|(?P<quote>^[ \t]{0,3}(?:>[ \t]?)+)"
    r"|(?P<refdef>^[ \t]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*\S[^\n]*$)"
    r"|(?P<code>`+)"
    r"|(?P<dmath>\$\$)"
    r"|(?P<math>\$)"
    r"|(?P<cmd>\\[A-Za-z]+\*?)"
    r"|(?P<esc>\\[!-/:-@\[-`{-~])"
    r"|(?P<image>!\[[^\]\n]*\]\([^)\n]*\))"
    r"|(?P<target>\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\))"
    r"|(?P<reflink>\]\[[^\]\n]*\])"
    r"|(?P<cite>\[[^\[\]\n]*@[^\[\]\n]*\]|\[\^[^\]\n]+\]:?)"
    r"|(?P<at>(?<![\w@.])-?@[A-Za-z_][\w:\-]*(?:[.:/][\w\-]+)*)"
    r"|(?P<shortcode>\{\{[<%].*?[>%]\}\})"
    r"|(?P<attr>\{(?:[#.=]|[\w-]+=)[^{}\n]*\})"
    r"|(?P<entity>&(?:\#\d+|\#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);)"
    r"|(?P<emph>\*+|(?<!\w)_+(?=\S)|(?<=\S)_+(?!\w)|~~)"
    r"|(?P<linkopen>\[(?=[^\[\]\n]*\](?:\(|\[)))"
    r"|(?P<pipe>\|))",
    re.M,
)
_HEADING_MARK = re.compile(r"[ \t]{0,3}\#{1,6}[ \t]+")
# YAML front matter: a "---" first line, then "key:" (so a leading horizontal rule is not taken for it).
_MD_FRONT = re.compile(
    r"\A(?:\ufeff)?---[ \t]*\n(?=[ \t]*[\w\"'-][^\n]*:).*?^(?:---|\.\.\.)[ \t]*$\n?", re.M | re.S
)
_MD_MATH_CLOSE = re.compile(r"(?<=[^\s\\])\$(?!\d)")


def _line_end(src: str, pos: int) -> int:
    nl = src.find("\n", pos)
    return nl if nl >= 0 else len(src)


def _pipe(pr: Prose, s: int, e: int, visible: bool) -> None:
    if visible:
        pr.replace(s, e, "\t")  # a page's table keeps its columns: cells separated by tabs
    else:
        pr.keep(e)


def markdown(src: str, visible: bool = False) -> Prose:
    """The prose of a Markdown (or Quarto, MDX) manuscript; `visible`: everything a reader of the page
    sees, code, math, citations and links' addresses too, a table's cells separated by tabs instead of
    pipes (for verify), text only."""
    pr = Prose(src, track=not visible)
    front = _MD_FRONT.match(src)
    if front:
        pr.skip(0, front.end())
    n = len(src)
    pos = pr.pos
    while m := _MD_TOKEN.search(src, pos):
        s, e, kind = m.start(), m.end(), m.lastgroup
        if kind in ("comment", "skipblock", "decl", "tag", "entity"):
            e = _html_token(pr, src, m, n, visible) or e
        elif kind == "fence":
            e = _md_fence(pr, src, m, n, visible)
        elif kind == "mdx":
            pr.skip(s, e)
        elif kind == "heading":
            pr.headings.append((s, src[e : _line_end(src, e)]))
            if visible:
                e = _HEADING_MARK.match(src, s).end()  # a heading's number is text on the page
            pr.skip(s, e)
            pr.later(_line_end(src, e), 1, "\n\n")
        elif kind in ("tablerow", "pipe"):
            _pipe(pr, s, e, visible)  # a table's cell separator: kept for lint, a space on a page
            if kind == "tablerow":
                pr.later(_line_end(src, e), 1, "\n\n")
        elif kind == "linkopen":
            pr.replace(s, e, "")
        elif visible and kind == "autolink":
            pr.replace(s, e, src[s + 1 : e - 1])
        elif visible and kind in ("cite", "at", "math", "dmath", "cmd"):
            pr.keep(e)
        elif kind in (
            "tablesep",
            "list",
            "quote",
            "refdef",
            "autolink",
            "image",
            "cite",
            "at",
            "shortcode",
            "attr",
        ):
            pr.skip(s, e)
        elif kind == "code":
            e = _md_code(pr, src, m, n, visible)
        elif kind in ("dmath", "math"):
            e = _md_math(pr, src, m, n, kind)
        elif kind == "cmd":
            e = _md_cmd(pr, src, m, n)
        elif kind == "esc":
            pr.replace(s, e, m.group("esc")[1])
        elif kind in ("target", "reflink", "emph"):
            pr.replace(s, e, "")
        pos = max(e, pr.pos)
    return pr.finish()


def _md_fence(pr, src: str, m: re.Match, n: int, visible: bool) -> int:
    """A fenced code block, skipped; `visible`: its code kept verbatim, the fences dropped. Returns
    where it ends."""
    s, e = m.start(), m.end()
    fch = m.group("fch")
    close = re.compile(rf"^[ \t]{{0,3}}{re.escape(fch[0])}{{{len(fch)},}}[ \t]*$", re.M).search(
        src, e + 1
    )
    if visible:  # the code is text on the page: keep it verbatim, drop the fences
        pr.skip(s, e)
        pr.keep(close.start() if close else n)
        if close:
            pr.skip(close.start(), close.end())
        return close.end() if close else n
    e = close.end() if close else n
    pr.skip(s, e)
    return e


def _md_code(pr, src: str, m: re.Match, n: int, visible: bool) -> int:
    """Inline code: text on a page (`visible`); for lint, a setting or a name it holds, else nothing."""
    s, e = m.start(), m.end()
    run = m.group("code")
    para = _BLANK_LINE.search(src, e)
    close = re.compile(rf"(?<!`){run}(?!`)").search(src, e, para.start() if para else n)
    if close and visible:  # inline code is text on the page
        pr.replace(s, e, "")
        pr.keep(close.start())
        pr.replace(close.start(), close.end(), "")
        e = close.end()
    elif close and (text := code_text(src[e : close.start()])):
        pr.replace(s, close.end(), text)  # a setting ("max_steps = 8") or a name ("agentic.html")
        e = close.end()
    elif close:
        e = close.end()
        pr.skip(s, e)
    else:
        pr.replace(s, e, "")
    return e


def _md_math(pr, src: str, m: re.Match, n: int, kind: str) -> int:
    """Math in dollars: the notation around a figure as text, other math skipped, a lone dollar kept."""
    s, e = m.start(), m.end()
    para = _BLANK_LINE.search(src, e)
    stop = para.start() if para else n
    if kind == "dmath":
        close = src.find("$$", e, n)
        ok = close >= 0
        end = close + 2
    else:
        nxt = src[e : e + 1]
        close_m = _MD_MATH_CLOSE.search(src, e, stop) if nxt and not nxt.isspace() else None
        ok = close_m is not None
        end = close_m.end() if close_m else e
    if not ok:
        pr.keep(e)  # a dollar sign: "$5.6M"
        return e
    text = math_text(src[m.end() : end - 1]) if kind == "math" else None
    if text:
        pr.replace(s, end, text)  # notation around a figure: "$\eta = 4$", "2–4$\times$"
    else:
        pr.skip(s, end)
    return end


def _md_cmd(pr, src: str, m: re.Match, n: int) -> int:
    """A LaTeX command in Markdown: an environment skipped or a paragraph break, a citation skipped, a
    symbol as its character, anything else kept."""
    s, e = m.start(), m.end()
    name = m.group("cmd")[1:].rstrip("*")
    if name == "begin":
        env = re.compile(r"\{([^{}\n]*)\}").match(src, e)
        if env and env.group(1).rstrip("*") in _TEX_SKIP_ENVS:
            close = re.compile(r"\\end\{" + re.escape(env.group(1)) + r"\}").search(src, env.end())
            e = close.end() if close else env.end()
            pr.skip(s, e)
        else:
            e = env.end() if env else e
            pr.replace(s, e, "\n\n")
    elif name in _TEX_NO_PROSE or _TEX_CITE.fullmatch(name):
        e = _skip_args(src, e, _TEX_NO_PROSE.get(name), n)
        pr.skip(s, e)
    elif name in _TEX_SYMBOLS:
        pr.replace(s, e, _TEX_SYMBOLS[name])
    else:
        pr.keep(e)
    return e
