"""Benchmark: `parse` on distinct figures, as an import of a large data set meets them, and on the
candidate figures of the real pages (every window of one to five words, most of them not figures).

    .venv/bin/python tests/benchmarks/bench_parse.py [--figures 200000] [--corpus ../shared/corpus] [--repeat 3]

Prints microseconds per figure (best of --repeat runs); asserts nothing. Every figure is new to the
parser in each run (its caches are cleared before each run), so this measures reading, not remembering
whole figures; the readings of single words and of what follows the numbers fill up during a run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from claimsdb.figures import canonical, lexing, phrases, scanner  # noqa: E402
from claimsdb.figures import parser as P  # noqa: E402
from claimsdb.figures import vocabulary as V  # noqa: E402

MODULES = (P, V, canonical, lexing, phrases, scanner)


def bench_figures(n: int) -> list[str]:
    """The figures of `bench_import.py --distinct`: "6,400 H100" and "1.3T tokens", each written once."""
    out = []
    for i in range(n // 2):
        out.append(f"{64 * (1 + i):,} H100")
        out.append(f"{(1 + i) / 10:.1f}T tokens")
    return out


def corpus_windows(folder: Path) -> list[str]:
    """Every run of one to five whitespace-separated words of the pages, each once."""
    seen: dict[str, None] = {}
    for path in sorted(folder.glob("*.md")):
        words = path.read_text(encoding="utf-8").split()
        for i in range(len(words)):
            for k in range(1, 6):
                if i + k <= len(words):
                    seen.setdefault(" ".join(words[i : i + k]))
    return list(seen)


def per_figure(figures: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        for cache in (v for m in MODULES for v in vars(m).values()):  # every remembered reading
            if hasattr(cache, "cache_clear"):
                cache.cache_clear()
        start = time.perf_counter()
        for raw in figures:
            try:
                P.parse(raw)
            except P.FigureError:
                pass
        best = min(best, time.perf_counter() - start)
    return best / len(figures) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--figures", type=int, default=200_000)
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    figures = bench_figures(args.figures)
    print(
        f"parse, {len(figures):,} distinct figures: {per_figure(figures, args.repeat):.2f} µs per figure"
    )
    if args.corpus.is_dir():
        windows = corpus_windows(args.corpus)
        print(
            f"parse, {len(windows):,} corpus windows: {per_figure(windows, args.repeat):.2f} µs per string"
        )


if __name__ == "__main__":
    main()
