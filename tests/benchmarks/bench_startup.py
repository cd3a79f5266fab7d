"""Benchmark: start-up of the read commands and `claims --help` against the stack's floor.

Prints ratios; asserts nothing. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_startup.py [--runs N] [--compare SRC]

The floor is `python -c "import sqlmodel, typer"`: what any command of this stack pays before it does
anything. The `claims` script pauses Python's garbage collector while a command loads and skips its
collections at exit (cli/app.py main); a second floor does the same to the bare imports, and the last
column is each command's ratio to it: what claimsdb's own work costs. Each command is a real process,
run as the `claims` script runs it, on the bundled data in a fresh SQLite file; the commands are measured side by side in one run, interleaved (floor, trace, show,
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
# The floor again, with the garbage collector treated as the `claims` script treats it (cli/app.py main):
# paused while the modules load, and frozen at exit. Not the floor; shown so that the ratios
# can be read both ways.
FLOOR_FROZEN = [
    sys.executable,
    "-c",
    "import gc; gc.disable(); import sqlmodel, typer; gc.freeze(); gc.enable()",
]
# How the `claims` script starts: import the app and call main (pip writes the same two lines).
CLAIMS = [
    sys.executable,
    "-c",
    "import sys; from claimsdb.cli.app import main; sys.argv[0] = 'claims'; sys.exit(main())",
]
COMMANDS = {
    "claims trace 466": ["trace", "466"],
    "claims show KEY": ["show", "pipelines.obs.llama3-failures"],
    "claims --help": ["--help"],
    "claims list": ["list", "--stage", "Pretrain"],
}


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[3:]} failed: {done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    parser.add_argument(
        "--compare", type=Path, help="another checkout's src folder, measured in the same run"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CLAIMS_DB": str(Path(tmp) / "claims.db"), "COLUMNS": "100"}
        env.pop("PYTHONPATH", None)
        # as a user's Python runs: our modules' bytecode cached (an editable install has none until then)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [*CLAIMS, "import", *map(str, DATA)], env=env, check=True, stdout=subprocess.DEVNULL
        )
        variants = {"": env}
        if args.compare:
            variants["before: "] = {**env, "PYTHONPATH": str(args.compare.resolve())}
        cases = {
            "floor: python -c 'import sqlmodel, typer'": (FLOOR, env),
            "floor, collector paused and frozen": (FLOOR_FROZEN, env),
        }
        for prefix, variant_env in variants.items():
            for name, argv in COMMANDS.items():
                cases[prefix + name] = ([*CLAIMS, *argv], variant_env)
        for argv, case_env in cases.values():  # warm the file cache and the bytecode
            timed(argv, case_env)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, case_env) in cases.items():
                times[name].append(timed(argv, case_env))

    names = iter(cases)
    floor, frozen = (statistics.median(times[next(names)]) for _ in range(2))
    width = max(map(len, cases))
    print(
        f"{args.runs} runs each, interleaved; median wall time, and its ratio to each floor's median"
    )
    print(f"{'command':<{width}}  {'median':>8}  {'min':>8}  {'ratio':>6}  {'to frozen':>9}")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"{name:<{width}}  {median * 1000:6.0f} ms  {min(values) * 1000:6.0f} ms  {median / floor:5.2f}x  "
            f"{median / frozen:8.2f}x"
        )


if __name__ == "__main__":
    main()
