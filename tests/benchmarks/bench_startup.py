"""Benchmark: start-up of the read commands and `claims --help` against the stack's floor.

Prints ratios; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_startup.py [--runs N] [--compare SRC]

The floor is `python -c "import sqlmodel, typer"`: what any command of this stack pays before it does
anything. Each command is a real process, run as the `claims` script runs it, on the bundled data in a
fresh SQLite file; the commands are measured side by side in one run, interleaved (floor, trace, show,
--help, floor, ...) as hyperfine would, so that a busy machine slows all of them alike, and the median of
the runs is compared. `--compare SRC` adds the same commands run from another checkout's `src` folder (for
example main's, exported with `git archive main | tar -x -C /tmp/main`), for a before-and-after table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = [REPO / "data" / "pipelines.json", REPO / "data" / "rl_loop.json"]
FLOOR = [sys.executable, "-c", "import sqlmodel, typer"]
# How the `claims` script starts: import the app and call main (pip writes the same two lines).
CLAIMS = [sys.executable, "-c", "import sys; from claimsdb.cli.app import main; sys.argv[0] = 'claims'; sys.exit(main())"]
COMMANDS = {
    "claims trace 466": ["trace", "466"],
    "claims show KEY": ["show", "pipelines.obs.llama3-failures"],
    "claims --help": ["--help"],
    "claims list": ["list", "--stage", "Pretrain"],
}


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[3:]} failed: {done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument("--compare", type=Path, help="another checkout's src folder, measured in the same run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CLAIMS_DB": str(Path(tmp) / "claims.db"), "COLUMNS": "100"}
        env.pop("PYTHONPATH", None)
        subprocess.run([*CLAIMS, "import", *map(str, DATA)], env=env, check=True, stdout=subprocess.DEVNULL)
        variants = {"": env}
        if args.compare:
            variants["before: "] = {**env, "PYTHONPATH": str(args.compare.resolve())}
        cases = {"floor: python -c 'import sqlmodel, typer'": (FLOOR, env)}
        for prefix, variant_env in variants.items():
            for name, argv in COMMANDS.items():
                cases[prefix + name] = ([*CLAIMS, *argv], variant_env)
        for argv, case_env in cases.values():  # warm the file cache and the bytecode
            timed(argv, case_env)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, case_env) in cases.items():
                times[name].append(timed(argv, case_env))

    floor = statistics.median(times[next(iter(cases))])
    width = max(map(len, cases))
    print(f"{args.runs} runs each, interleaved; median wall time, and its ratio to the floor's median")
    print(f"{'command':<{width}}  {'median':>8}  {'min':>8}  {'ratio':>6}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<{width}}  {median * 1000:6.0f} ms  {min(values) * 1000:6.0f} ms  {median / floor:5.2f}x")


if __name__ == "__main__":
    main()
