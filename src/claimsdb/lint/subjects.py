"""Where a manuscript names the store's subjects: "Llama 3" (also "Llama-3", "llama3", "Llama 3 405B"),
each part of "DeepSeek-V3 / R1", and a distinctive word ("Kimi" of "Kimi K2.5") at a lower tier."""

from __future__ import annotations

import re

from claimsdb.figures.vocabulary import GENERIC_SUBJECT_WORDS

_GENERIC_WORDS = GENERIC_SUBJECT_WORDS
_SUBJECT_SPLIT = re.compile(r"\s*(?:/|,|\+|&|\band\b)\s*")
_WORD_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)*")
_NAME_GAP = re.compile(r"[ \t\n\u00a0\-\u2010\u2011\u2013_]{0,3}")


def _tokens(s: str) -> tuple[str, ...]:
    """A name as a case-free token sequence: letters and digits split apart, so that "Llama-3",
    "Llama 3" and "llama3" are all ("llama", "3")."""
    return tuple(m.group(0).lower() for m in _WORD_TOKEN.finditer(s))


def _name_like(word: str) -> bool:
    return bool(re.search(r"[A-Z0-9]", word) and re.search(r"[^\W\d_]", word))


def _subject_phrases(subject: str) -> list[tuple[tuple[str, ...], int]]:
    """(tokens, tier) for a subject: tier 1 names it in full, tier 2 by a distinctive word."""
    base = re.sub(r"\([^)]*\)", " ", subject)
    out: list[tuple[tuple[str, ...], int]] = [(_tokens(base), 1)]
    alternatives = [a.strip() for a in _SUBJECT_SPLIT.split(base) if a.strip()]
    if len(alternatives) > 1:
        out += [(_tokens(a), 1) for a in alternatives if _name_like(a)]
    for alt in alternatives:
        for chunk in alt.split():
            chunk = chunk.strip(".,;:'’\"")
            if (len(chunk) >= 2 and _name_like(chunk) and not chunk[0].isdigit()
                    and chunk.lower() not in _GENERIC_WORDS and not re.fullmatch(r"[vV]\d+(?:\.\d+)*", chunk)):
                out.append((_tokens(chunk), 2))
            head, _, rest = chunk.partition("-")
            if (rest and len(head) >= 3 and re.search(r"[A-Z]", head) and head.lower() not in _GENERIC_WORDS
                    and (re.search(r"[A-Z]", head[1:]) or re.search(r"\d", rest))):
                out.append((_tokens(head), 2))  # "DeepSeek" of "DeepSeek-V4", "GLM" of "GLM-5", "Llama" of "Llama-3"
    seen: set[tuple[str, ...]] = set()
    result = []
    for toks, tier in out:  # tier 1 comes first, so a phrase keeps its best tier
        if toks and toks not in seen:
            seen.add(toks)
            result.append((toks, tier))
    return result


Mention = tuple[int, int, int, int, tuple[tuple[int, int], ...]]  # start, end, subject id, tier, number spans


class SubjectIndex:
    """The store's subjects, by their first token, to find where a text names them."""

    def __init__(self, subjects: list[str]):
        self.subjects = sorted(set(subjects))
        self.id = {s: i for i, s in enumerate(self.subjects)}
        self._phrases: dict[str, list[tuple[tuple[str, ...], int, int]]] = {}
        for subject, sid in self.id.items():
            for toks, tier in _subject_phrases(subject):
                self._phrases.setdefault(toks[0], []).append((toks, sid, tier))
        for entries in self._phrases.values():
            entries.sort(key=lambda t: -len(t[0]))

    def mentions(self, text: str) -> list[Mention]:
        """Where subjects are named: (start, end, subject id, tier, spans of the number tokens after a word)."""
        toks = [(m.group(0).lower(), m.start(), m.end()) for m in _WORD_TOKEN.finditer(text)]
        out = []
        for i, (tok, _start, _end) in enumerate(toks):
            for phrase, sid, tier in self._phrases.get(tok, ()):
                n = len(phrase)
                if i + n > len(toks):
                    continue
                ok = True
                for j in range(1, n):
                    t, s, _e = toks[i + j]
                    if t != phrase[j] or not _NAME_GAP.fullmatch(text, toks[i + j - 1][2], s) \
                            or "\n\n" in text[toks[i + j - 1][2]:s]:
                        ok = False
                        break
                if ok:
                    numbers = tuple((s, e) for t, s, e in toks[i + 1:i + n] if t[0].isdigit())
                    out.append((toks[i][1], toks[i + n - 1][2], sid, tier, numbers))
        return out

    def named(self, mentions: list[Mention]) -> dict[int, int]:
        """Subject id -> best tier among these mentions; a short name inside a longer one ("Kimi" in
        "Kimi K2.5") counts only at tier 2."""
        best: dict[int, int] = {}
        for s, e, sid, tier, _numbers in mentions:
            if tier == 1 and any(o[2] != sid and o[3] == 1 and o[0] <= s and o[1] >= e and o[1] - o[0] > e - s
                                 for o in mentions):
                tier = 2
            best[sid] = min(tier, best.get(sid, 3))
        return best
