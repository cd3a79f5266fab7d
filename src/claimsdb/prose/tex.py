"""LaTeX manuscripts as prose (see lint/__init__.py for what is skipped)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from claimsdb.figures.vocabulary import SI_PREFIXES, SI_UNITS
from claimsdb.prose.mapped import BLANK_LINE as _BLANK_LINE
from claimsdb.prose.mapped import Prose
from claimsdb.prose.tex_macros import DEF, Macros, brace_end

__all__ = ["tex"]


_TEX_OPT = re.compile(r"[ \t]*\[[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*\]")
_TEX_SPACE = re.compile(r"[ \t]*\n?[ \t]*")


def _skip_args(src: str, e: int, count: int | None, limit: int) -> int:
    """End of `count` brace arguments (all of them if None) after a command, with optional [..] args."""
    n = 0
    while e < limit:
        m = _TEX_OPT.match(src, e)
        if m:
            e = m.end()
            continue
        if count is not None and n >= count:
            break
        m = _TEX_SPACE.match(src, e)
        b = m.end() if m else e
        if b < limit and src[b] == "{":
            end = brace_end(src, b, limit)
            if end is None:
                break
            e, n = end, n + 1
            continue
        break
    return e


_TEX_MATH_ENVS = {
    "equation",
    "align",
    "alignat",
    "flalign",
    "gather",
    "multline",
    "eqnarray",
    "displaymath",
    "math",
    "dmath",
    "subequations",
    "split",
    "IEEEeqnarray",
}
_TEX_SKIP_ENVS = _TEX_MATH_ENVS | {
    "verbatim",
    "Verbatim",
    "lstlisting",
    "minted",
    "comment",
    "tikzpicture",
    "pgfpicture",
    "algorithmic",
    "thebibliography",
    "filecontents",
    "axis",
    "lstcode",
    "BVerbatim",
}
# Environments whose first brace arguments are not prose (column specs, widths).
_TEX_ENV_ARGS = {
    "tabular": 1,
    "tabular*": 2,
    "tabularx": 2,
    "tabulary": 2,
    "longtable": 1,
    "array": 1,
    "supertabular": 1,
    "xtabular": 1,
    "tblr": 1,
    "NiceTabular": 1,
    "minipage": 1,
    "wrapfigure": 2,
    "wraptable": 2,
    "subfigure": 1,
    "subtable": 1,
    "multicols": 1,
    "adjustbox": 1,
}
# Commands whose first N brace arguments are not prose (None: all of them).
_TEX_NO_PROSE: dict[str, int | None] = {
    "label": 1,
    "ref": 1,
    "eqref": 1,
    "autoref": 1,
    "Autoref": 1,
    "cref": 1,
    "Cref": 1,
    "crefrange": 2,
    "Crefrange": 2,
    "pageref": 1,
    "nameref": 1,
    "vref": 1,
    "Vref": 1,
    "labelcref": 1,
    "url": 1,
    "href": 1,
    "nolinkurl": 1,
    "claim": 1,
    "input": 1,
    "include": 1,
    "includegraphics": 1,
    "includepdf": 1,
    "bibliography": 1,
    "bibliographystyle": 1,
    "addbibresource": 1,
    "usepackage": 1,
    "RequirePackage": 1,
    "documentclass": 1,
    "vspace": 1,
    "hspace": 1,
    "vskip": 0,
    "hskip": 0,
    "setlength": 2,
    "addtolength": 2,
    "settowidth": 2,
    "setcounter": 2,
    "addtocounter": 2,
    "stepcounter": 1,
    "newcommand": 2,
    "renewcommand": 2,
    "providecommand": 2,
    "newenvironment": 3,
    "renewenvironment": 3,
    "DeclareMathOperator": 2,
    "definecolor": 3,
    "color": 1,
    "pagecolor": 1,
    "textcolor": 1,
    "colorbox": 1,
    "fcolorbox": 2,
    "fontsize": 2,
    "linespread": 1,
    "rule": 2,
    "raisebox": 1,
    "resizebox": 2,
    "scalebox": 1,
    "multicolumn": 2,
    "multirow": 2,
    "cline": 1,
    "cmidrule": 1,
    "bibitem": 1,
    "graphicspath": 1,
    "hypersetup": 1,
    "geometry": 1,
    "captionsetup": 1,
    "sisetup": 1,
    "lstinputlisting": 1,
    "inputminted": 2,
    "tag": 1,
    "author": 1,
    "affiliation": 1,
    "affil": 1,
    "address": 1,
    "email": 1,
    "institute": 1,
    "thanks": 1,
    "date": 1,
    "orcid": 1,
    "ensuremath": 1,
    "texttt": 1,
    "mintinline": 2,
    "code": 1,
    "path": 1,
    "newtheorem": 2,
    "setcitestyle": 1,
    "bibpunct": None,
    "DeclareSIUnit": 2,
    "hyperlink": 1,
    "hypertarget": 1,
}
_TEX_CITE = re.compile(r"[A-Za-z]*cite[A-Za-z]*|nocite")
_TEX_VERB = {"verb", "lstinline", "Verb"}
_TEX_SYMBOLS = {
    "percent": "%",
    "S": "§",
    "P": "¶",
    "textendash": "–",
    "textemdash": "—",
    "texttimes": "×",
    "times": "×",
    "textasciitilde": "~",
    "textgreater": ">",
    "textless": "<",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textpercent": "%",
    "textdollar": "$",
    "euro": "€",
    "pounds": "£",
    "textsterling": "£",
    "textbackslash": "\\",
    "approx": "~",
    "sim": "~",
    "textapprox": "~",
}
_TEX_SECTIONS = {
    "part",
    "chapter",
    "section",
    "subsection",
    "subsubsection",
    "paragraph",
    "subparagraph",
}
# Commands that start a new sentence and whose first argument is a sentence of its own.
_TEX_BLOCKS = _TEX_SECTIONS | {
    "caption",
    "footnote",
    "footnotetext",
    "title",
    "subtitle",
    "marginpar",
    "tablenotes",
}
_TEX_SIUNITX = {"num", "qty", "SI", "unit"}
_TEX_BREAKS = {
    "item": "\n\n",
    "par": "\n\n",
    "newline": "\n",
    "linebreak": "\n",
    "bigskip": "\n\n",
    "medskip": "\n\n",
    "smallskip": "\n\n",
    "maketitle": "\n\n",
    "noindent": "",
    "hline": "\n\n",
    "toprule": "\n\n",
    "midrule": "\n\n",
    "bottomrule": "\n\n",
}
_TEX_TOKEN = re.compile(r"\\\\|\\[A-Za-z@]+\*?|\\.|\\\n|%|\$\$|\$|~|-{2,3}|\{,\}|[{}&]", re.S)
_TEX_DOLLAR = re.compile(r"(?<!\\)\$")
# the spaces TeX skips after a command's name, up to one line end (a blank line after it is a break)
_AFTER_NAME = re.compile(r"[ \t]+(?:\n(?![ \t]*\n)[ \t]*)?|\n(?![ \t]*\n)[ \t]*")
_LINE_START = re.compile(r"[ \t]*")
_TEX_DOUBLE_DOLLAR = re.compile(r"(?<!\\)\$\$")

# Inline math that is only notation around a figure reads as text: "$\times$" is "×", "$\sim$18T" is
# "~18T", "$\eta = 4$" is "η = 4", "$10^{25}$" is "10^25". Anything more (two letters of an equation,
# operators, subscripts, other commands) stays math and is skipped.
_GREEK = dict(
    zip(
        "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi rho sigma "
        "tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split(),
        "αβγδεεζηθθικλμνξπρστυφφχψωΓΔΘΛΞΠΣΦΨΩ",
    )
)
_MATH_SYMBOLS = {
    "times": "×",
    "sim": "~",
    "approx": "≈",
    "simeq": "≈",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "lt": "<",
    "gt": ">",
    "%": "%",
    ",": " ",
    ";": " ",
    " ": " ",
    "!": "",
    "quad": " ",
}
_MATH_WORD = {
    "mathrm",
    "text",
    "textrm",
    "mathit",
    "textit",
    "mathsf",
    "mathbf",
    "textbf",
    "operatorname",
    "mbox",
}
_MATH_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}])|(\^)|(\d[\d.,]*)|([^\W\d_]+)|(\s+)|(.)", re.S)
_MATH_PLAIN = set("=<>%~×≈≤≥−-.,")


def math_text(content: str) -> str | None:
    """The text an inline formula reads as when it is notation around a figure, or None (see above)."""
    out: list[str] = []
    names = 0
    pos = 0
    while pos < len(content):
        m = _MATH_TOKEN.match(content, pos)
        assert m is not None  # the last alternative matches any character
        pos = m.end()
        cmd, brace, caret, number, letters, space, other = m.groups()
        if cmd is not None:
            if cmd in _GREEK:
                out.append(_GREEK[cmd])
                names += 1
            elif cmd in _MATH_SYMBOLS:
                out.append(_MATH_SYMBOLS[cmd])
            elif cmd in _MATH_WORD and (arg := re.match(r"\s*\{([^{}\\]*)\}", content[pos:])):
                out.append(arg.group(1))
                names += 1
                pos += arg.end()
            else:
                return None
        elif caret is not None:
            exp = re.match(r"\{\s*([-−+]?\d{1,3})\s*\}|([-−+]?\d)", content[pos:])
            if exp is None:
                return None
            out.append("^" + (exp.group(1) or exp.group(2)))
            pos += exp.end()
        elif number is not None or space is not None:
            out.append(m.group(0))
        elif letters is not None:
            if len(letters) > 1:
                return None  # "ab", "xy": a product of symbols, or a word that \mathrm{} would mark
            out.append(letters)
            names += 1
        elif brace is None:
            if other not in _MATH_PLAIN:
                return None
            out.append(other)
        if names > 1:
            return None
    return "".join(out).strip()


# A code span or \texttt{} that sets a key to a number ("max_off_policy_steps = 8") reads as that setting.
ASSIGNMENT = re.compile(
    r"[ \t]*[^\W\d][\w.]*[ \t]*:?=[ \t]*[-+−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?[ \t]*"
)
_SI_RANGES = {"numrange": 2, "qtyrange": 3, "SIrange": 3}


def tex(src: str, macros: Macros | None = None, inherited: Iterable[tuple[str, str]] = ()) -> Prose:
    """The prose of a LaTeX manuscript; `macros`: the document's own, when reading one's body;
    `inherited`: the macros in force where another file brings this one in."""
    pr = Prose(src)
    begin = re.search(r"\\begin\s*\{document\}", src)
    end_doc = re.search(r"\\end\s*\{document\}", src)
    limit = end_doc.start() if end_doc else len(src)
    if macros is None:
        macros = Macros(src, limit, inherited)
    if begin:
        pr.skip(0, begin.end())
    closers: dict[int, str] = {}
    pos = pr.pos
    while True:
        m = _TEX_TOKEN.search(src, pos, limit)
        if not m:
            break
        s, e, tok = m.start(), m.end(), m.group(0)
        if tok == "\\\\":
            e = _skip_args(src, e if src[e : e + 1] != "*" else e + 1, 0, limit)
            pr.replace(s, e, "\n\n")
        elif tok[0] == "\\" and len(tok) > 1 and (tok[1].isalpha() or tok[1] == "@"):
            e = _tex_command(pr, src, s, e, tok[1:].rstrip("*"), limit, closers, macros)
        elif tok[0] == "\\":
            c = tok[1]
            if c in "([":
                close = src.find("\\)" if c == "(" else "\\]", e, limit)
                if c == "(" and close >= 0:
                    e = _inline_math(pr, s, e, close, close + 2)
                else:
                    e = close + 2 if close >= 0 else e
                    pr.skip(s, e)
            elif c in "%$&#_{}":
                pr.replace(s, e, c)
            elif c == ",":
                thousands = (
                    s > 0 and src[s - 1].isdigit() and re.match(r"\d{3}(?!\d)", src[e : e + 4])
                )
                pr.replace(s, e, "" if thousands else " ")
            elif c in "; :\n\t":
                pr.replace(s, e, " ")
            else:
                pr.replace(s, e, "")  # accents, \- hyphenation hints, \/ and the like
        elif tok == "%":
            # the comment, its line end and the next line's leading spaces, as TeX reads them ("1%" on
            # one line and "00,000" on the next print 100,000); a blank line after it is still a break
            nl = src.find("\n", s, limit)
            e = limit if nl < 0 else _LINE_START.match(src, nl + 1).end()
            pr.replace(s, e, "\n" if e < limit and src[e] == "\n" else "")
        elif tok == "$$":
            close = _TEX_DOUBLE_DOLLAR.search(src, e, limit)
            e = close.end() if close else e
            pr.skip(s, e)
        elif tok == "$":
            close = _TEX_DOLLAR.search(src, e, limit)
            if close and not _BLANK_LINE.search(src, e, close.start()):
                e = _inline_math(pr, s, e, close.start(), close.end())
            else:
                pr.skip(s, e)
        elif tok == "~":
            pr.replace(s, e, " ")
        elif tok.startswith("--"):
            pr.replace(s, e, "–" if tok == "--" else "—")
        elif tok == "{,}":
            pr.replace(s, e, ",")
        elif tok == "{":
            pr.replace(s, e, "")
        elif tok == "}":
            pr.replace(s, e, closers.pop(s, ""))
        elif tok == "&":
            pr.replace(s, e, " | ")
        pos = max(e, pr.pos)
    pr.keep(limit)
    if limit < len(src):
        pr.skip(limit, len(src))
    return pr.finish()


def _tex_command(
    pr: Prose,
    src: str,
    s: int,
    e: int,
    name: str,
    limit: int,
    closers: dict[int, str],
    macros: Macros,
) -> int:
    # The document's own macro prints its body, whatever the name (as TeX reads it, the spaces after
    # a command's name go too: "1\relax 00,000" prints 100,000)
    body = macros.expand(name, s, lambda text: tex(text, macros).text)
    if body is not None:
        e = m.end() if (m := _AFTER_NAME.match(src, e)) else e
        pr.replace(s, e, body)
        return e
    if name in ("begin", "end"):
        m = re.compile(r"\s*\{([^{}\n]*)\}").match(src, e)
        if not m:
            pr.replace(s, e, "")
            return e
        env = m.group(1).strip()
        e = m.end()
        if name == "begin" and env.rstrip("*") in _TEX_SKIP_ENVS:
            close = re.compile(r"\\end\s*\{" + re.escape(env) + r"\}").search(src, e, limit)
            e = close.end() if close else e
            pr.skip(s, e)
            return e
        if name == "begin":
            e = _skip_args(src, e, _TEX_ENV_ARGS.get(env, 0), limit)
        pr.replace(s, e, "\n\n")
        return e
    if name in _TEX_SIUNITX or name in _SI_RANGES:
        args, end = _brace_args(src, e, limit)
        typeset = _siunitx(name, args)
        if typeset is None:
            e = _skip_args(src, e, None, limit)
            pr.keep(e)  # the figure grammar reads \qty{2.4}{\giga\hertz} itself
            return e
        pr.replace(s, end, typeset)  # "\num{16384}" reads "16,384", as it is typeset
        return end
    if name in _TEX_VERB:
        m = re.compile(r"(?:\[[^\]\n]*\])?(\{([^}\n]*)\}|([^\w\s{])([^\n]*?)\3)").match(src, e)
        e = m.end() if m else e
        code = (m.group(2) if m.group(2) is not None else m.group(4)) if m else ""
        _code(pr, s, e, code)
        return e
    if name in ("texttt", "code"):
        args, end = _brace_args(src, e, limit, count=1)
        if args:
            _code(pr, s, end, args[0].replace("\\_", "_"))
            return end
    if name in _TEX_NO_PROSE or _TEX_CITE.fullmatch(name):
        e = _skip_args(src, e, _TEX_NO_PROSE.get(name), limit)
        pr.skip(s, e)
        return e
    if name in _TEX_SYMBOLS:
        m = re.compile(r"\{\}").match(src, e)
        e = m.end() if m else e
        pr.replace(s, e, _TEX_SYMBOLS[name])
        return e
    if name in _TEX_BREAKS:
        e = _skip_args(src, e, 0, limit)
        pr.replace(s, e, _TEX_BREAKS[name])
        return e
    if name in _TEX_BLOCKS:
        e = _skip_args(src, e, 0, limit)
        m = _TEX_SPACE.match(src, e)
        b = m.end() if m else e
        if b < limit and src[b] == "{":
            end = brace_end(src, b, limit)
            if end is not None:
                if name in _TEX_SECTIONS:
                    pr.headings.append((s, src[b + 1 : end - 1]))
                closers[end - 1] = "\n\n"
                pr.replace(s, b + 1, "\n\n")
                return b + 1
        pr.replace(s, e, "\n\n")
        return e
    if name in ("def", "gdef", "edef", "xdef") and (m := DEF.match(src, e)):
        e = _skip_args(src, m.end(), 1, limit)  # a definition prints nothing where it stands
        pr.skip(s, e)
        return e
    # Any other command: its name and directly attached optional arguments go, or the spaces after its
    # name; its text stays.
    if src[e : e + 1] == "[" and (m := _TEX_OPT.match(src, e)):
        e = m.end()
    elif m := _AFTER_NAME.match(src, e):
        e = m.end()
    pr.replace(s, e, "")
    return e


def _inline_math(pr: Prose, s: int, start: int, end: int, after: int) -> int:
    """Inline math src[start:end] (from s to after, delimiters included): its text, or skipped."""
    text = math_text(pr.src[start:end])
    if text:
        pr.replace(s, after, text)
    else:
        pr.skip(s, after)
    return after


def code_text(code: str) -> str | None:
    """What inline code reads as: a setting ("max_off_policy_steps = 8") or code without a digit (a name:
    "posttrain.html", "verl") as its text; None (skipped) for anything else, whose numbers are code."""
    if ASSIGNMENT.fullmatch(code) or (
        code.strip() and not re.search(r"\d", code) and "\n" not in code
    ):
        return code.strip()
    return None


def _code(pr: Prose, s: int, e: int, code: str) -> None:
    text = code_text(code)
    if text:
        pr.replace(s, e, text)
    else:
        pr.skip(s, e)


def _brace_args(src: str, e: int, limit: int, count: int | None = None) -> tuple[list[str], int]:
    """The brace arguments after a command (optional [..] ones skipped) and the offset after them."""
    args: list[str] = []
    while e < limit and (count is None or len(args) < count):
        m = _TEX_OPT.match(src, e)
        if m:
            e = m.end()
            continue
        if src[e : e + 1] != "{":
            break
        end = brace_end(src, e, limit)
        if end is None:
            break
        args.append(src[e + 1 : end - 1])
        e = end
    return args, e


def _si_number(text: str) -> str | None:
    n = re.sub(r"\s+|\\,|\{,\}", "", text)
    if re.fullmatch(r"[-+]?\d{4,}", n):
        return f"{int(n):,}"  # siunitx sets 16384 apart in groups; the comma keeps it from reading as a year
    return n if re.fullmatch(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", n) else None


def _siunitx(name: str, args: list[str]) -> str | None:
    """What siunitx's num, qty, SI and their ranges typeset, as text; None if it cannot be read."""

    def unit(spec: str) -> str | None:
        out = []
        for cmd, plain in re.findall(r"\\([A-Za-z]+)|([^\\\s{}]+)", spec):
            if cmd and cmd not in SI_PREFIXES and cmd not in SI_UNITS:
                return None
            out.append(SI_PREFIXES.get(cmd, SI_UNITS.get(cmd, "")) if cmd else plain)
        return "".join(out)

    wanted = {"num": 1, "qty": 2, "SI": 2, "unit": 1, **_SI_RANGES}[name]
    if len(args) < wanted:
        return None
    if name == "unit":
        return unit(args[0])
    numbers = [_si_number(a) for a in args[: 2 if name in _SI_RANGES else 1]]
    if any(n is None for n in numbers):
        return None
    text = "–".join(n for n in numbers if n is not None)
    if name in ("num", "numrange"):
        return text
    u = unit(args[-1])
    if u is None:
        return None
    return f"{text}{u}" if u == "%" else f"{text} {u}"
