"""Where a manuscript names the store's subjects: "Llama 3" (also "Llama-3", "llama3", "Llama 3 405B"),
each part of "DeepSeek-V3 / R1", a claim's aliases ("Open Athena" for "Open Athena 535B"), and a
distinctive word ("Kimi" of "Kimi K2.5") at a lower tier.

A subject made only of generic words ("RL training stacks") is named by its full phrase, singular or
plural, without its last word when that only says what kind of thing it is ("asynchronous RL" for
"asynchronous RL stacks"), or by an alias; never by one generic word. A distinctive word that is a plain
capitalised word ("Athena", "Sandboxes") names its subject only where the manuscript writes it so too
("LLaMA" is not "Llama 3"), and a distinctive word followed by another version number names another
member of the family ("Terminal-Bench 2.0" is not "Terminal-Bench 4").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from claimsdb.figures.vocabulary import GENERIC_SUBJECT_WORDS

_GENERIC_WORDS = GENERIC_SUBJECT_WORDS
_SUBJECT_SPLIT = re.compile(r"\s*(?:/|,|\+|&|\band\b)\s*")
_WORD_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)*")
_NAME_GAP = re.compile(
    r"[ \t\n\u00a0\-\u2010\u2011\u2013_]{0,3}|\."
)  # "agentic.html": a dot with no space
# Last words that say only what kind of thing a generic subject is: "asynchronous RL (stacks)".
_KIND_WORDS = {
    "stack",
    "system",
    "framework",
    "pipeline",
    "setup",
    "implementation",
    "library",
    "service",
    "engine",
    "page",
}


def fold(token: str) -> str:
    """A token as names compare: lowercase, and a plural's "s" dropped ("stacks" ~ "stack")."""
    t = token.lower()
    if len(t) >= 4 and t[-1] == "s" and t[-2:] not in ("ss", "us", "is") and t.isalpha():
        return t[:-1]
    return t


def _tokens(s: str) -> tuple[str, ...]:
    """A name as a case-free token sequence: letters and digits split apart, so that "Llama-3",
    "Llama 3" and "llama3" are all ("llama", "3")."""
    return tuple(fold(m.group(0)) for m in _WORD_TOKEN.finditer(s))


def _name_like(word: str) -> bool:
    return bool(re.search(r"[A-Z0-9]", word) and re.search(r"[^\W\d_]", word))


def _plain_capitalised(word: str) -> bool:
    """ "Athena", "Sandboxes": a word that only its capital marks as a name."""
    return bool(re.fullmatch(r"[A-Z][a-z]+", word))


def _generic(tokens: tuple[str, ...]) -> bool:
    return all(t in _GENERIC_WORDS or fold(t) in _GENERIC_FOLDED or t.isdigit() for t in tokens)


_GENERIC_FOLDED = {fold(w) for w in _GENERIC_WORDS}

Phrase = tuple[tuple[str, ...], int, bool]  # tokens, tier, capital required


def _subject_phrases(subject: str) -> list[Phrase]:
    """(tokens, tier, cased) for a subject: tier 1 names it in full, tier 2 by a distinctive word;
    `cased`: only where the manuscript capitalises it."""
    base = re.sub(r"\([^)]*\)", " ", subject)
    out: list[Phrase] = [(_tokens(base), 1, False)]
    alternatives = [a.strip() for a in _SUBJECT_SPLIT.split(base) if a.strip()]
    if len(alternatives) > 1:
        out += [(_tokens(a), 1, False) for a in alternatives if _name_like(a)]
    whole = _tokens(base)
    if len(whole) >= 3 and _generic(whole) and whole[-1] in _KIND_WORDS:
        out.append((whole[:-1], 1, False))  # "asynchronous RL" of "asynchronous RL stacks"
    for alt in alternatives:
        for chunk in alt.split():
            chunk = chunk.strip(".,;:'’\"")
            if (
                len(chunk) >= 2
                and _name_like(chunk)
                and not chunk[0].isdigit()
                and chunk.lower() not in _GENERIC_WORDS
                and not re.fullmatch(r"[vV]\d+(?:\.\d+)*", chunk)
            ):
                out.append((_tokens(chunk), 2, _plain_capitalised(chunk)))
            head, _, rest = chunk.partition("-")
            if (
                rest
                and len(head) >= 3
                and re.search(r"[A-Z]", head)
                and head.lower() not in _GENERIC_WORDS
                and (re.search(r"[A-Z]", head[1:]) or re.search(r"\d", rest))
            ):
                # "DeepSeek" of "DeepSeek-V4", "GLM" of "GLM-5", "Llama" of "Llama-3"
                out.append((_tokens(head), 2, _plain_capitalised(head)))
    seen: set[tuple[str, ...]] = set()
    result = []
    for toks, tier, cased in out:  # tier 1 comes first, so a phrase keeps its best tier
        if toks and toks not in seen and not (len(toks) == 1 and _generic(toks)):
            seen.add(toks)
            result.append((toks, tier, cased))
    return result


Mention = tuple[
    int, int, int, int, tuple[tuple[int, int], ...]
]  # start, end, subject id, tier, number spans


class SubjectIndex:
    """The store's subjects (and their aliases), by their first token, to find where a text names them."""

    def __init__(self, subjects: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None):
        self.subjects = sorted(set(subjects))
        self.id = {s: i for i, s in enumerate(self.subjects)}
        self._phrases: dict[str, list[tuple[tuple[str, ...], int, int, bool]]] = {}
        for subject, sid in self.id.items():
            phrases = _subject_phrases(subject)
            for alias in (aliases or {}).get(subject, ()):
                phrases += _subject_phrases(alias)
            best: dict[tuple[str, ...], tuple[int, bool]] = {}
            for (
                toks,
                tier,
                cased,
            ) in phrases:  # an alias names its subject in full, whatever its words
                if toks not in best or (tier, cased) < best[toks]:
                    best[toks] = (tier, cased)
            for toks, (tier, cased) in best.items():
                self._phrases.setdefault(toks[0], []).append((toks, sid, tier, cased))
        for entries in self._phrases.values():
            entries.sort(key=lambda t: -len(t[0]))

    def mentions(self, text: str) -> list[Mention]:
        """Where subjects are named: (start, end, subject id, tier, spans of the number tokens after a word)."""
        toks = [(fold(m.group(0)), m.start(), m.end()) for m in _WORD_TOKEN.finditer(text)]
        out = []
        for i, (tok, start, _end) in enumerate(toks):
            for phrase, sid, tier, cased in self._phrases.get(tok, ()):
                n = len(phrase)
                if i + n > len(toks) or (cased and not _plain_capitalised(text[start:_end])):
                    continue
                ok = True
                for j in range(1, n):
                    t, s, _e = toks[i + j]
                    if (
                        t != phrase[j]
                        or not _NAME_GAP.fullmatch(text, toks[i + j - 1][2], s)
                        or "\n\n" in text[toks[i + j - 1][2] : s]
                    ):
                        ok = False
                        break
                if ok and tier == 2 and self._version_after(text, toks, i + n):
                    ok = (
                        False  # "Terminal-Bench 2.0" is not Terminal-Bench 4, "Llama 2" not Llama 3
                    )
                if ok:
                    numbers = tuple((s, e) for t, s, e in toks[i + 1 : i + n] if t[0].isdigit())
                    out.append((toks[i][1], toks[i + n - 1][2], sid, tier, numbers))
        return out

    @staticmethod
    def _version_after(text: str, toks: list[tuple[str, int, int]], k: int) -> bool:
        """A version number follows the word that ends at toks[k - 1]: "2.0", "V4", "K3" (a letter glued to
        digits). Then the text names another member of the family than the subject the word is from."""
        if k >= len(toks) or not _NAME_GAP.fullmatch(text, toks[k - 1][2], toks[k][1]):
            return False
        tok, start, end = toks[k]
        if tok[0].isdigit():
            return True
        return (
            len(tok) == 1
            and k + 1 < len(toks)
            and toks[k + 1][0][0].isdigit()
            and toks[k + 1][1] == end
        )

    def named(self, mentions: list[Mention]) -> dict[int, int]:
        """Subject id -> best tier among these mentions; a short name inside a longer one ("Kimi" in
        "Kimi K2.5") counts only at tier 2."""
        best: dict[int, int] = {}
        for s, e, sid, tier, _numbers in mentions:
            if tier == 1 and any(
                o[2] != sid and o[3] == 1 and o[0] <= s and o[1] >= e and o[1] - o[0] > e - s
                for o in mentions
            ):
                tier = 2
            best[sid] = min(tier, best.get(sid, 3))
        return best
