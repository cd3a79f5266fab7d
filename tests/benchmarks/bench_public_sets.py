"""Benchmark: `scan` on public sets that nobody here wrote for it, from copies committed under
tests/benchmarks/data (see its NOTES.md for where each comes from and under what licence). Downloads
nothing.

    .venv/bin/python tests/benchmarks/bench_public_sets.py [--misses N]

Prints, for each set, the share of its figures `scan` reads with the right value; asserts nothing.
- NewsQuant (CQE, news sentences): recall = annotated quantities found with their value (a range
  or change by both ends, in one figure or two); precision = figures found whose value is an
  annotated one, without years (see `_is_year`: the set annotates no dates).
- quantulum3's test set: accuracy = quantities found with their value (a range or a change from X
  to Y by its middle, as the set writes it) / quantities; the figures found that are none of them are counted apart ("extra").
- number-parser's English number words up to 10^15 (its lists of 0-100 and of long numbers): a line
  is right when `scan` reads it as one figure of that value.
--misses N prints the first N misses of each set.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if not os.environ.get(
    "PYTHONPATH"
):  # PYTHONPATH=<other checkout>/src measures that checkout's scan
    sys.path.insert(0, str(REPO / "src"))

from claimsdb.figures import Found, scan  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


def _numbers(f: Found) -> tuple[float, ...]:
    """The figure's numbers, and the middle of two ends: quantulum3 writes a quantity with two ends as
    one value, their middle, a change included ("reduced from 44 mg to 50 mg" is 47 there, a
    transition from 44 to 50 mg here)."""
    q = f.quantity
    if q.kind == "range" and q.low is not None and q.high is not None:
        return (*q.numbers(), (q.low + q.high) / 2)
    if q.kind == "transition" and len(q.steps) == 2:
        return (*q.numbers(), sum(q.steps) / 2)
    return q.numbers()


_YEAR = re.compile(r"(?:19|20)[0-9]{2}(?![0-9,.])")


def _is_year(f: Found) -> bool:
    """A year as news writes it: four digits from 1900 to 2099 at the start of the figure, with no
    unit symbol or currency ("in 2019", "the 2019 review", "2018 sales"); "2,019 votes", "$2019" and
    "2019%" are not years."""
    q = f.quantity
    plain_word = q.unit is None or (q.unit.isalpha() and q.unit.islower() and len(q.unit) > 3)
    return q.kind == "value" and _YEAR.match(f.raw) is not None and plain_word


def _gold_numbers(value: str) -> list[float]:
    """NewsQuant writes a value as "6.0" or a range or change as "252.0-287.0"; a
    sign is not compared ("down 1.3%" is written -1.3 or 1.3)."""
    parts = re.split(r"(?<=[0-9.])\s*-\s*", value.strip())
    return [abs(float(p)) for p in parts]


def newsquant(misses: int) -> tuple[float, float]:
    rows = json.loads((DATA / "newsquant" / "NewsQuant.json").read_text(encoding="utf-8"))
    gold_n = found_gold = pred_n = pred_right = 0
    shown = 0
    for row in rows:
        found = scan(row["text"])
        golds = [_gold_numbers(q["value"]) for q in row["quantities"]]
        for g in golds:
            gold_n += 1
            if all(any(_close(x, abs(n)) for f in found for n in _numbers(f)) for x in g):
                found_gold += 1
            elif shown < misses:
                shown += 1
                print(f"  NewsQuant miss {g} in: {row['text']}")
        flat = [x for g in golds for x in g]
        for f in found:
            if _is_year(f):
                continue
            pred_n += 1
            if any(_close(x, abs(n)) for x in flat for n in _numbers(f)):
                pred_right += 1
            elif shown < misses:
                shown += 1
                print(f"  NewsQuant extra {f.raw!r} in: {row['text']}")
    recall = found_gold / gold_n
    precision = pred_right / pred_n if pred_n else 0.0
    print(
        f"NewsQuant: {len(rows)} sentences, {gold_n} quantities: recall {recall:.1%} "
        f"({found_gold}/{gold_n}), precision without years {precision:.1%} ({pred_right}/{pred_n}); "
        "issue 38's targets: 90% and 88%"
    )
    return recall, precision


def quantulum3(misses: int) -> float:
    rows = json.loads((DATA / "quantulum3" / "quantities.json").read_text(encoding="utf-8"))
    gold_n = right = extra = 0
    shown = 0
    for row in rows:
        found = scan(row["req"])
        # each number a figure states may answer one quantity: "from 44 ml to 50 mg" states two
        numbers = [(i, n) for i, f in enumerate(found) for n in _numbers(f)]
        used: set[int] = set()
        for q in row["res"]:
            gold_n += 1
            hit = next(
                (
                    k
                    for k, (_, n) in enumerate(numbers)
                    if k not in used and _close(float(q["value"]), n)
                ),
                None,
            )
            if hit is None:
                if shown < misses:
                    shown += 1
                    print(f"  quantulum3 miss {q['surface']!r} = {q['value']} in: {row['req']}")
                continue
            used.add(hit)
            right += 1
        answered = {numbers[k][0] for k in used}
        for i, f in enumerate(found):
            if i not in answered:
                extra += 1
                if shown < misses:
                    shown += 1
                    print(f"  quantulum3 extra {f.raw!r} in: {row['req']}")
    accuracy = right / gold_n
    print(
        f"quantulum3 set: {len(rows)} texts, {gold_n} quantities: accuracy {accuracy:.1%} "
        f"({right} right, {gold_n - right} missed, {extra} extra); issue 38's target: 92%"
    )
    return accuracy


def number_words(misses: int) -> float:
    total = right = shown = 0
    for path in sorted((DATA / "number_parser").glob("en_*.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                text = row["text"].strip()
                if int(row["number"]) > 10**15:
                    continue
                total += 1
                found = scan(text)
                ok = (
                    len(found) == 1
                    and found[0].raw == text
                    and _close(float(row["number"]), found[0].quantity.value or -1.0)
                )
                if int(row["number"]) == 0:
                    ok = len(found) == 1 and found[0].quantity.value == 0
                right += ok
                if not ok and shown < misses:
                    shown += 1
                    print(
                        f"  number words miss {text!r} = {row['number']}: {[f.raw for f in found]}"
                    )
    accuracy = right / total
    print(
        f"number words (number-parser, English): {total} lines: accuracy {accuracy:.1%}; "
        "issue 38's target: 95%"
    )
    return accuracy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", type=int, default=0, help="print the first N misses of each set")
    args = ap.parse_args()
    newsquant(args.misses)
    quantulum3(args.misses)
    number_words(args.misses)


if __name__ == "__main__":
    main()
