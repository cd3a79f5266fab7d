"""Finding a claim's quote in a page: word for word (one pattern over the text, word-bounded), then
fuzzy (difflib over the words of a few candidate regions where the quote's rarer words stand).

Pure functions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from difflib import SequenceMatcher

from claimsdb.figures import scan
from claimsdb.figures.vocabulary import DASHES
from claimsdb.locating.page import _STOP, _WORD, _Page, _region_words, normalize

_MAX_OCCURRENCES = 20  # exact occurrences of a quote examined
_CANDIDATES = 12  # fuzzy candidate regions examined
_MIN_FUZZY_WORDS = (
    4  # a fuzzy match shares at least this many words with the quote: shorter quotes match exactly
)
_COMMON = 2000  # a word occurring more often than this says nothing about where the quote is

# --- quote: exact, then fuzzy ------------------------------------------------------------------------------


_SPACES_CLASS = "[\\s\u00a0\u2007\u2009\u200a\u202f\u205f\u3000]+"
_CLASSES = {"-": f"[-{DASHES}]", "'": "['‘’‚‛′]", '"': '["“”„‟″]'}
_SOFT = "[\u00ad\u200b-\u200d\u2060\ufeff]*"


def _quote_pattern(needle: str) -> re.Pattern:
    """A normalised needle as a pattern over the original text: any case, any run of spaces, any dash or
    quote mark, soft hyphens and zero-width characters anywhere; word-bounded at alphanumeric ends."""
    parts = []
    for token in needle.split(" "):
        parts.append(_SOFT.join(_CLASSES.get(ch, re.escape(ch)) for ch in token))
    body = _SPACES_CLASS.join(parts)
    left = "(?<!\\w)" if needle[:1].isalnum() else ""
    right = "(?!\\w)" if needle[-1:].isalnum() else ""
    return re.compile(left + body + right, re.I)


def _exact_spans(page: _Page, needle: str) -> list[tuple[int, int]]:
    """Word-bounded occurrences of a normalised needle, as offsets in the page text."""
    out = []
    for m in _quote_pattern(needle).finditer(page.text):
        out.append((m.start(), m.end()))
        if len(out) >= _MAX_OCCURRENCES:
            break
    return out


def _fuzzy(page: _Page, quote_words: list[str]) -> tuple[float, int, int] | None:
    """(similarity, start, end) of the page passage most like the quote's words, or None.

    Candidate regions are where the quote's rarer words stand (a word found more than _COMMON times
    says nothing); only those regions are split into words, so the cost is one search per quote word
    over the page plus a few small comparisons, whatever the page's size."""
    n = len(quote_words)
    if n < _MIN_FUZZY_WORDS or not page.text:
        return None
    quote_len = sum(len(w) + 1 for w in quote_words)
    width = max(40, quote_len // 2)
    votes: dict[int, float] = defaultdict(float)
    offset = 0
    for w in quote_words:
        hits = []
        for m in re.finditer(rf"(?<!\w){re.escape(w)}(?!\w)", page.text, re.I):
            hits.append(m.start())
            if len(hits) > _COMMON:
                break
        if hits and len(hits) <= _COMMON:
            weight = 1.0 / len(hits)  # a rare word says more about where the quote is
            for p in hits:
                votes[(p - offset) // width] += weight
        offset += len(w) + 1
    smooth = {b: votes[b] + 0.5 * (votes.get(b - 1, 0.0) + votes.get(b + 1, 0.0)) for b in votes}
    best: tuple[float, int, int] | None = None
    for b in sorted(smooth, key=lambda k: (-smooth[k], k))[:_CANDIDATES]:
        lo = max(0, (b - 1) * width - quote_len)
        hi = min(len(page.text), (b + 2) * width + 2 * quote_len)
        region, starts, ends = _region_words(page.text, lo, hi)
        sm = SequenceMatcher(None, quote_words, region, autojunk=False)
        blocks = [blk for blk in sm.get_matching_blocks() if blk.size]
        if not blocks:
            continue
        first, last, big = blocks[0], blocks[-1], max(blocks, key=lambda blk: blk.size)
        windows = {
            # all matched words, widened by the quote words left unmatched at either end
            (first.b - first.a, last.b + last.size + (n - last.a - last.size)),
            # the quote laid over its longest matching run
            (big.b - big.a, big.b - big.a + n),
        }
        for s, e in windows:
            s, e = max(0, s), min(len(region), e)
            if e <= s:
                continue
            sm = SequenceMatcher(None, quote_words, region[s:e], autojunk=False)
            if sum(blk.size for blk in sm.get_matching_blocks()) < _MIN_FUZZY_WORDS:
                continue
            ratio = sm.ratio()
            if best is None or ratio > best[0]:
                best = (ratio, starts[s], ends[e - 1])
    return best


def _figures_only(quote: str) -> bool:
    """True if the quote has figures and no words besides them ("14.8T tokens", "2,048 H800")."""
    found = scan(quote)
    rest = quote
    for f in reversed(found):
        rest = rest[: f.start] + " " + rest[f.end :]
    return bool(found) and not [w for w in _WORD.findall(normalize(rest)) if w not in _STOP]
