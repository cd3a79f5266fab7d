"""Benchmark: verify's locate, in process: over the whole corpus, and on one 20 MB page (time and memory).

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_locate.py [--corpus ../shared/corpus] [--megabytes 20]

1. Corpus: every page of the corpus folder (its visible text, as `claims verify` extracts it) against
   every claim of the bundled data that has figures, without a quote (the hardest case: each figure is
   looked for on its own), then the claims' quotes where they have one.
2. A large page: `--megabytes` of generated prose with numbers (one sentence in two holds a figure), the
   claim's sentence in the middle. Each run is a fresh process that reads the page from a file and
   prints its time and its peak resident memory (VmHWM) against the same process before reading the
   page; a second process gives tracemalloc's peak for the locate call alone. Peak RSS includes the page
   itself (its bytes and its text) and the interpreter.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from claimsdb.fetching.text import extract_text  # noqa: E402
from claimsdb.locating.locate import locate  # noqa: E402
from claimsdb.records import load  # noqa: E402

TARGET = (
    "The Heron-3 pretraining run occupied 3,328 H200 GPUs for 41 days and consumed 22.4T tokens of "
    "mixed web, code and math data."
)
FIGURES = ["3,328 H200", "22.4T tokens"]
QUOTE = "occupied 3,328 H200 GPUs for 41 days"
HINT = "Heron-3 Heron-3 pretraining run used 3,328 H200 GPUs and 22.4T tokens"


def corpus(folder: Path) -> None:
    claims = [
        c
        for path in ("data/pipelines.json", "data/rl_loop.json")
        for c in load(str(ROOT / path)).claims
    ]
    claims = [c for c in claims if c.figures]
    pages = {}
    for path in sorted(folder.iterdir()):
        if path.suffix in (".md", ".mdx", ".txt", ".html"):
            pages[path.name] = extract_text(path.read_bytes(), None, path.name)
    total = sum(len(t) for t in pages.values())
    started = time.perf_counter()
    outcomes: dict[str, int] = {}
    for text in pages.values():
        for c in claims:
            loc = locate(
                text,
                quote=None,
                figures=[f.quantity for f in c.figures],
                hint=f"{c.subject} {c.statement}",
                names=[f.name for f in c.figures],
            )
            outcomes[loc.outcome] = outcomes.get(loc.outcome, 0) + 1
    bare_s = time.perf_counter() - started
    quoted = [(c, e.quote) for c in claims for e in c.evidence if e.quote]
    started = time.perf_counter()
    for text in pages.values():
        for c, quote in quoted:
            locate(
                text,
                quote=quote,
                figures=[f.quantity for f in c.figures],
                hint=f"{c.subject} {c.statement}",
            )
    quote_s = time.perf_counter() - started
    n = len(pages) * len(claims)
    print(f"corpus: {len(pages)} pages, {total:,} characters; {len(claims)} claims with figures")
    print(
        f"  without a quote: {n:,} locates in {bare_s:.2f}s ({bare_s / n * 1e3:.2f} ms each); outcomes {outcomes}"
    )
    print(f"  with a quote: {len(pages) * len(quoted):,} locates in {quote_s:.2f}s")


def generate(megabytes: float, path: Path) -> int:
    rng = random.Random(7)
    vocab = (
        "the a rack node shard queue worker cable switch kernel loss curve batch stage warmup decay "
        "checkpoint fabric storage rollout reward buffer model team report table run data"
    ).split()
    units = ["GPUs", "nodes", "tokens", "hours", "days", "TB", "steps", "%"]
    target = int(megabytes * 1_000_000)
    parts, size, placed = [], 0, False
    while size < target:
        words = [rng.choice(vocab) for _ in range(rng.randint(8, 18))]
        if rng.random() < 0.5:
            words.insert(3, f"{rng.randint(1, 99_999):,} {rng.choice(units)}")
        sentence = " ".join(words).capitalize() + "."
        if not placed and size >= target // 2:
            sentence, placed = TARGET, True
        parts.append(sentence)
        size += len(sentence) + 1
        if len(parts) % 12 == 0:
            parts.append("\n")
    path.write_text(" ".join(parts), encoding="utf-8")
    return path.stat().st_size


CHILD = r"""
import json, sys, time, tracemalloc
from claimsdb.figures import parse
from claimsdb.locating.locate import locate
from claimsdb.fetching.text import extract_text
path, mode, trace = sys.argv[1], sys.argv[2], sys.argv[3] == "trace"
figures = [parse(r) for r in %(figures)r]
def hwm():  # this process's peak resident memory in kB (VmHWM starts afresh at exec, unlike ru_maxrss)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
before = hwm()
started = time.perf_counter()
text = extract_text(open(path, "rb").read(), "text/plain", path)
extracted = time.perf_counter() - started
if trace:
    tracemalloc.start()  # its bookkeeping inflates the process's memory: a separate run from the RSS one
started = time.perf_counter()
quote = %(quote)r if mode == "quote" else (%(quote)r.replace("occupied", "took") if mode == "fuzzy" else None)
loc = locate(text, quote=quote, figures=figures, hint=%(hint)r)
located = time.perf_counter() - started
traced = tracemalloc.get_traced_memory()[1] if trace else 0
tracemalloc.stop()
after = hwm()
print(json.dumps({"outcome": loc.outcome, "extract_s": extracted, "locate_s": located, "traced_peak": traced,
                  "rss_before_kb": before, "rss_peak_kb": after, "chars": len(text)}))
"""


def large(megabytes: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.txt"
        size = generate(megabytes, path)
        code = CHILD % {"figures": FIGURES, "quote": QUOTE, "hint": HINT}
        print(f"a {size / 1e6:.1f} MB text page, one fresh process per run:")
        for mode in ("bare", "quote", "fuzzy"):
            r = _child(code, path, mode, "rss")
            traced = _child(code, path, mode, "trace")["traced_peak"]
            print(
                f"  {mode:5}: {r['outcome']:10} extract {r['extract_s']:.2f}s + locate {r['locate_s']:.2f}s; "
                f"peak RSS {r['rss_peak_kb'] / 1024:.0f} MB (process before reading: "
                f"{r['rss_before_kb'] / 1024:.0f} MB); locate's own allocations peak at "
                f"{traced / 1e6:.1f} MB ({traced / r['chars']:.1f} bytes per character, tracemalloc, separate run)"
            )


def _child(code: str, path: Path, mode: str, measure: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), mode, measure],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--megabytes", type=float, default=20.0)
    args = parser.parse_args()
    if args.corpus.is_dir():
        corpus(args.corpus)
    else:
        print(f"no corpus folder at {args.corpus}: skipping the corpus run")
    large(args.megabytes)


if __name__ == "__main__":
    main()
