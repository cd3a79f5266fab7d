"""The scanner on public sets nobody here wrote for it (tests/benchmarks/data, see its NOTES.md): the
figures `tests/benchmarks/bench_public_sets.py` prints must stay at issue 38's targets."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_public_sets.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_public_sets", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_public_sets_are_read_at_their_targets(capsys):
    bench = _bench()
    recall, precision = bench.newsquant(0)
    assert recall >= 0.90 and precision >= 0.88
    assert bench.number_words(0) >= 0.95
    assert bench.quantulum3(0) >= 0.92
    assert "NewsQuant: 590 sentences, 904 quantities" in capsys.readouterr().out
