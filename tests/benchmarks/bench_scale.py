"""Benchmark: whole-store commands on a store of N claims (100,000 by default: the bundled 180 plus N
generated, two figures each) on SQLite and, when $CLAIMS_TEST_POSTGRES names a server
(`eval "$(.ci/postgres start)"`), on PostgreSQL. Prints figures; asserts nothing.

    .venv/bin/python tests/benchmarks/bench_scale.py [--claims 100000] [--engine both] [--runs 3]
        [--budget 10] [--reuse DB]... [--keep DIR] [--skip-build-time] [--build-only] [--corpus DIR] [--markdown]
        [--src DIR]

First the store: the import's time (`claims import` of a JSON Lines file, as a user runs it), its peak
memory, the database's size, and `claims trace` latency in process, p50 and p95 over `--queries`
queries of figures the store holds and some it does not (`--skip-build-time` leaves this part out;
`--reuse DB` measures an existing store instead of building one: a SQLite file or a SQLAlchemy URL,
repeatable, one store an engine; `--keep DIR` keeps the built stores and prints the `--reuse` to give).

Then, each as a whole process (the `claims` script of the repository's virtual environment, as a user
runs it, in an empty folder: no ./claims.anchor), interleaved round by round so that a busy machine
slows them alike, the median of `--runs` runs (a command whose first run takes longer than `--budget`
seconds runs once) and the process's peak resident memory (`/usr/bin/time -f %M`):

- `claims export --skip-unsafe` (Markdown) and `--format latex`, to a file; `claims list --format json`
  of all claims and of `--trust unverified`, to a file: each beside the anchor, the same join of claims,
  their tags, figures and cited sources as the export reads (JOIN below), to CSV: on SQLite
  `sqlite-utils query DB JOIN --csv`; on PostgreSQL the stack's start-up (`python -c "import sqlmodel,
  typer"`) plus `psql URL -c "\\copy (JOIN) TO STDOUT WITH CSV"`, the sum of their medians;
- `claims lint` of the DeepSeek-V3 report (`--corpus DIR`), beside the same lint of a store holding only
  the bundled 180 claims on the same engine;
- `claims db check`;
- the three pages of `claims serve --port 0` (the grid `/`, the claims list `/claims`, the re-read queue
  `/queue`), fetched one after the other from one server a round: each page's time and size, and the
  server's peak memory so far (VmHWM); the server is stopped with Ctrl-C (SIGINT) after each round.

One table an engine: each command's runs, median, peak memory, output size, its ratio to its anchor, and
issue 23's target for it (at 100,000 claims: export and list within 2x of the anchor, export under
300 MB, lint within 1.5x of the 180-claim lint, db check under 5 s, each page under 300 ms and 500 KB; at
1,000,000 every command finishes under 300 MB, each page under 500 KB, the times and ratios shown); then a line naming the targets met and not met. A command that
fails is recorded as "failed (exit N: its error)" and the run goes on. `--src DIR` runs every command (and
this script's own reads) from another checkout's `src`, for a before-and-after in the same conditions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def early_src() -> Path | None:
    """--src, read before claimsdb is first imported (bench_import imports it), so that this process and
    every command run the same code."""
    for i, arg in enumerate(sys.argv):
        if arg == "--src" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
        if arg.startswith("--src="):
            return Path(arg.split("=", 1)[1]).resolve()
    return None


SRC = early_src()
if SRC is not None:
    sys.path.insert(0, str(SRC))

from tests.benchmarks.bench_import import SOURCE, STAGES, TAGS  # noqa: E402

UNITS = ("H100", "H800", "B300", "A100", "nodes", "tasks", "environments")
FILE_CLAIMS = 100_000  # generated claims a data file
BUNDLED = (REPO / "data" / "pipelines.json", REPO / "data" / "rl_loop.json")
REPORT = "deepseek_v3_tech_report_arxiv2412.19437.md"
PAGES = (("/", "grid"), ("/claims", "claims list"), ("/queue", "re-read queue"))
READER = "Benchmark Reader"
# What an export row is made of: each active claim with its tag's trust, its figures and the sources it
# cites. One line: psql's \copy takes one.
JOIN = (
    "SELECT c.key, c.subject, c.stage, c.statement, c.tag, t.trust, f.position, f.name, f.raw, "
    "s.key AS source, s.cite_key, s.title, s.url, e.locator, e.quote "
    "FROM claim c JOIN tag t ON t.name = c.tag "
    "LEFT JOIN figure f ON f.claim_id = c.id "
    "LEFT JOIN evidence e ON e.claim_id = c.id "
    "LEFT JOIN source s ON s.id = e.source_id "
    "WHERE c.status = 'active' ORDER BY c.id, f.position, e.position"
)
# issue 23's targets
RATIO_EXPORT = 2.0
RATIO_LINT = 1.5
CHECK_SECONDS = 5.0
PAGE_SECONDS = 0.3
PAGE_BYTES = 500_000
PEAK_MB = 300


def venv_tool(name: str) -> str:
    """A script of the repository's virtual environment, else the one beside this Python."""
    for folder in (REPO / ".venv" / "bin", Path(sys.executable).parent):
        if (folder / name).exists():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} not found in {REPO / '.venv' / 'bin'} nor beside {sys.executable}")
    return found


CLAIMS = venv_tool("claims")
PYTHON = (
    str(Path(CLAIMS).with_name("python"))
    if Path(CLAIMS).with_name("python").exists()
    else sys.executable
)


def claim(i: int) -> dict:
    """Varied figures: counts of several things over a wide range, and token amounts."""
    rnd = random.Random(i)
    count = rnd.randrange(8, 200_000)
    tokens = rnd.randrange(1, 400) / 10
    thing = UNITS[i % len(UNITS)]
    return {
        "key": f"scale.{i:07d}",
        "subject": f"System {i % 4999}",
        "stage": STAGES[i % len(STAGES)],
        "statement": f"System {i % 4999} used {count:,} {thing} and {tokens:.1f}T tokens (run {i}).",
        "tag": TAGS[i % len(TAGS)],
        "basis": "Generated for the benchmark.",
        "figures": [f"{count:,} {thing}", f"{tokens:.1f}T tokens"],
        "evidence": [{"source": "bench-source", "locator": f"row {i}"}],
        # a verified tag in a data file names who re-read it (the import records the re-read)
        **(
            {
                "reread": {
                    "by": "Bench Reader",
                    "at": "2026-09-21",
                    "source": "bench-source",
                    "locator": f"row {i}",
                    "quote": f"{count:,} {thing}",
                }
            }
            if TAGS[i % len(TAGS)] == "spot-checked"
            else {}
        ),
    }


def queries(n: int, claims: int) -> list[str]:
    rnd = random.Random(7)
    out = []
    for _ in range(n):
        if rnd.random() < 0.8 and claims > 0:  # a figure the store holds
            c = claim(rnd.randrange(claims))
            out.append(c["figures"][rnd.randrange(2)])
        else:  # one it may not
            out.append(f"{rnd.randrange(200_001, 900_000):,} {rnd.choice(UNITS)}")
    return out


# -- running a process ---------------------------------------------------------------------------


@dataclass
class Sample:
    seconds: float
    peak_kb: int
    size: int | None = None  # bytes written (the output file, or standard output)
    error: str | None = None


def first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "no message"
    line = next((line for line in lines if line.lower().startswith("error")), lines[0])
    return line if len(line) <= 200 else line[:197] + "..."


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # GNU time and the command under it
    except ProcessLookupError:
        pass


def run(
    argv: list[str],
    env: dict,
    cwd: Path,
    out: Path,
    *,
    timeout: float,
    ok=(0,),
    output: Path | None = None,
) -> Sample:
    """Run one process to completion: wall time, peak memory, output size.

    The peak is GNU time's %M (the command's maximum resident set, kB). Not this process's wait4: a
    child's ru_maxrss on Linux starts from its parent's at the fork (vfork shares it until exec), so
    every command would seem to use at least what this benchmark holds (~100 MB with claimsdb loaded).
    Without /usr/bin/time, wait4 it is, and the small figures are that floor."""
    err = out.with_suffix(out.suffix + ".stderr")
    peak = out.with_suffix(out.suffix + ".peak")
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [TIME, "-f", "%M", "-o", str(peak), *argv] if TIME else argv,
            stdout=stdout,
            stderr=stderr,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        timer = threading.Timer(timeout, kill_group, (proc.pid,))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        timer.cancel()
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # reaped here, not by Popen
    peak_kb = usage.ru_maxrss
    if TIME:
        last = peak.read_text().split() if peak.exists() else []
        peak_kb = int(last[-1]) if last and last[-1].isdigit() else 0
        if code > 128 and "terminated by signal" in peak.read_text():
            code = -(code - 128)
    sample = Sample(
        elapsed, peak_kb, (output or out).stat().st_size if (output or out).exists() else None
    )
    if code not in ok:
        if code == -signal.SIGKILL and elapsed >= timeout:
            sample.error = f"failed (timed out after {timeout:.0f} s)"
        else:
            sample.error = f"failed (exit {code}: {first_error(err.read_text(encoding='utf-8', errors='replace'))})"
    return sample


def vm_hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def serve_round(env: dict, cwd: Path, timeout: float) -> dict[str, Sample]:
    """One server: start-up to its printed URL, then each page in turn; stopped with Ctrl-C."""
    err = cwd / "serve.stderr"
    samples: dict[str, Sample] = {}
    with open(err, "wb") as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [CLAIMS, "serve", "--port", "0", "--by", READER],
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=cwd,
        )
        try:
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            line = proc.stdout.readline().decode("utf-8", "replace") if ready else ""
            started = time.perf_counter() - start
            found = re.search(r"http://\S+?/", line)
            if not found:
                proc.kill()
                proc.wait()
                why = (
                    "timed out"
                    if not ready
                    else f"exit {proc.returncode}: {first_error(err.read_text(encoding='utf-8', errors='replace'))}"
                )
                return {"start": Sample(started, 0, error=f"failed ({why})")}
            base = found.group(0).rstrip("/")
            samples["start"] = Sample(started, vm_hwm_kb(proc.pid))
            for path, _ in PAGES:
                t = time.perf_counter()
                try:
                    with urllib.request.urlopen(base + path, timeout=timeout) as response:
                        body = response.read()
                    samples[path] = Sample(time.perf_counter() - t, vm_hwm_kb(proc.pid), len(body))
                except urllib.error.HTTPError as exc:
                    body = exc.read().decode("utf-8", "replace")
                    text = re.sub(r"<[^>]+>", " ", body)
                    samples[path] = Sample(
                        time.perf_counter() - t,
                        vm_hwm_kb(proc.pid),
                        len(body),
                        error=f"failed (HTTP {exc.code}: {' '.join(text.split())[:160]})",
                    )
                except (urllib.error.URLError, OSError) as exc:
                    samples[path] = Sample(
                        time.perf_counter() - t,
                        vm_hwm_kb(proc.pid),
                        error=f"failed ({getattr(exc, 'reason', exc)})",
                    )
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            proc.stdout.close()
    return samples


# -- the stores ------------------------------------------------------------------------------------


@dataclass
class Store:
    engine: str  # sqlite | postgresql
    url: str  # a SQLite path or a SQLAlchemy URL
    size: Callable[[], int]
    drop: Callable[[], None] = lambda: None

    @property
    def libpq(self) -> str:
        from sqlalchemy.engine import make_url

        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)


def engine_of(db: str) -> str:
    return "postgresql" if db.startswith(("postgresql", "postgres:")) else "sqlite"


def sqlite_store(path: Path) -> Store:
    def size() -> int:
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())

    return Store("sqlite", str(path), size)


def postgres_store(
    admin: str, name: str | None = None, *, create: bool = True, keep: bool = False
) -> Store:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = name or f"claims_scale_{uuid.uuid4().hex[:8]}"
    server = create_engine(make_url(admin).set(database="postgres"), isolation_level="AUTOCOMMIT")
    if create:
        with server.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)

    def size() -> int:
        with server.connect() as conn:
            return conn.execute(text("SELECT pg_database_size(:n)"), {"n": name}).scalar()

    def drop() -> None:
        if create and not keep:
            with server.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        server.dispose()

    return Store("postgresql", url, size, drop)


def counts(url: str) -> dict[str, int]:
    from sqlalchemy import text

    from claimsdb import db

    engine = db.open_engine(url, create=False)
    try:
        with engine.connect() as conn:
            return {
                t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar()
                for t in ("claim", "figure", "event")
            }
    finally:
        engine.dispose()


def trace_latency(url: str, qs: list[str]) -> str:
    from claimsdb import db
    from claimsdb import queries as q
    from claimsdb.errors import NotFound

    engine = db.open_engine(url, create=False)
    times, found = [], 0
    try:
        for query in qs:
            t = time.perf_counter()
            with db.session_scope(engine) as session:
                try:
                    found += bool(q.trace(session, query)["matches"])
                except NotFound:
                    pass
            times.append(time.perf_counter() - t)
    except Exception as exc:  # noqa: BLE001 - the read path is being changed: report, do not stop
        return f"trace failed ({type(exc).__name__}: {exc})"
    finally:
        engine.dispose()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    return (
        f"trace p50 {statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms "
        f"({found} of {len(qs)} queries matched)"
    )


def build(
    store: Store, lines: list[Path] | None, env: dict, work: Path, timeout: float
) -> list[tuple[str, Sample]]:
    """The bundled data, then the generated claims (when `lines`), each imported as a user does."""
    env = {**env, "CLAIMS_DB": store.url}
    steps = [("bundled data", [CLAIMS, "import", *map(str, BUNDLED)])]
    if lines:
        steps.append((f"{len(lines)} generated data file(s)", [CLAIMS, "import", *map(str, lines)]))
    done = []
    for label, argv in steps:
        sample = run(argv, env, work, work / "import.out", timeout=timeout)
        if sample.error:
            sys.exit(f"claims import of {label} into {store.url}: {sample.error}")
        done.append((label, sample))
    return done


# -- the commands ----------------------------------------------------------------------------------


@dataclass
class Bench:
    name: str
    start: Callable[[], Sample]
    samples: list[Sample] = field(default_factory=list)
    over_budget: bool = False

    @property
    def error(self) -> str | None:
        return next((s.error for s in self.samples if s.error), None)

    @property
    def median(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def peak_kb(self) -> int:
        return max(s.peak_kb for s in self.samples)

    @property
    def size(self) -> int | None:
        return self.samples[-1].size if self.samples else None


def commands(
    store: Store, small: Store, env: dict, work: Path, report: Path, timeout: float
) -> dict[str, Bench]:
    big_env = {**env, "CLAIMS_DB": store.url}
    small_env = {**env, "CLAIMS_DB": small.url}
    out = work / "out"
    out.mkdir(exist_ok=True)

    def claims(
        name: str, args: list[str], *, file: str | None = None, ok=(0,), on=big_env
    ) -> Bench:
        def go() -> Sample:
            target = out / file if file else None
            argv = [CLAIMS, *args, *(["-o", str(target)] if target else [])]
            return run(
                argv, on, work, out / f"{name}.stdout", timeout=timeout, ok=ok, output=target
            )

        return Bench(name, go)

    benches: list[Bench] = []
    if store.engine == "sqlite":
        benches.append(
            Bench(
                "anchor",
                lambda: run(
                    [venv_tool("sqlite-utils"), "query", store.url, JOIN, "--csv"],
                    env,
                    work,
                    out / "anchor.csv",
                    timeout=timeout,
                ),
            )
        )
    else:
        benches.append(
            Bench(
                "startup",
                lambda: run(
                    [PYTHON, "-c", "import sqlmodel, typer"],
                    env,
                    work,
                    out / "startup.out",
                    timeout=timeout,
                ),
            )
        )
        benches.append(
            Bench(
                "psql",
                lambda: run(
                    ["psql", store.libpq, "-X", "-q", "-c", f"\\copy ({JOIN}) TO STDOUT WITH CSV"],
                    env,
                    work,
                    out / "psql.csv",
                    timeout=timeout,
                ),
            )
        )
    benches += [
        claims("export-md", ["export", "--skip-unsafe"], file="export.md"),
        claims("export-latex", ["export", "--skip-unsafe", "--format", "latex"], file="export.tex"),
        claims("list", ["list", "--format", "json"]),
        claims("list-unverified", ["list", "--trust", "unverified", "--format", "json"]),
        claims(
            "lint", ["lint", str(report)], ok=(0, 1)
        ),  # exit 1: the report has errors, not a failure
        claims("lint-180", ["lint", str(report)], ok=(0, 1), on=small_env),
        claims("check", ["db", "check"]),
    ]
    return {b.name: b for b in benches}


def measure(
    store: Store, small: Store, env: dict, work: Path, args
) -> tuple[dict[str, Bench], dict[str, list[Sample]]]:
    benches = commands(store, small, env, work, args.corpus / REPORT, args.timeout)
    pages: dict[str, list[Sample]] = {}
    serve_over = False
    # untimed: the store into the page cache (a reused store may be cold), the anchor's query planned once
    (benches.get("anchor") or benches["psql"]).start()
    for _ in range(args.runs):
        for bench in benches.values():
            if bench.over_budget or bench.error:
                continue
            sample = bench.start()
            bench.samples.append(sample)
            if sample.seconds > args.budget:
                bench.over_budget = True
        if not serve_over:
            got = serve_round({**env, "CLAIMS_DB": store.url}, work, args.timeout)
            for key, sample in got.items():
                pages.setdefault(key, []).append(sample)
            if (
                any(s.error for s in got.values())
                or sum(s.seconds for s in got.values()) > args.budget
            ):
                serve_over = True
    return benches, pages


# -- the table -------------------------------------------------------------------------------------


@dataclass
class Row:
    command: str
    runs: str = ""
    seconds: str = ""
    peak: str = ""
    size: str = ""
    ratio: str = ""
    target: str = ""
    met: str = ""


def human(n: int | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def tabulate(
    benches: dict[str, Bench], pages: dict[str, list[Sample]], engine: str, claims_total: int
) -> tuple[list[Row], list[str], list[str]]:
    rows: list[Row] = []
    met: list[str] = []
    missed: list[str] = []
    big = claims_total >= 1_000_000

    def judge(label: str, ok: bool | None) -> str:
        if ok is None:
            return ""
        (met if ok else missed).append(label)
        return "yes" if ok else "NO"

    def runs_of(samples: list[Sample], over: bool) -> str:
        return f"{len(samples)}{'*' if over else ''}"

    def basic(label: str, b: Bench) -> Row:
        if b.error:
            return Row(label, runs_of(b.samples, b.over_budget), b.error)
        return Row(
            label,
            runs_of(b.samples, b.over_budget),
            f"{b.median:.2f}",
            f"{b.peak_kb / 1024:.0f}",
            human(b.size),
        )

    # the anchor
    if engine == "sqlite":
        a = benches["anchor"]
        rows.append(basic("anchor: sqlite-utils query JOIN --csv", a))
        anchor = None if a.error else a.median
        anchor_peak = None if a.error else a.peak_kb
    else:
        s, p = benches["startup"], benches["psql"]
        rows.append(basic("  python -c 'import sqlmodel, typer'", s))
        rows.append(basic("  psql -c '\\copy (JOIN) TO STDOUT WITH CSV'", p))
        anchor = None if (s.error or p.error) else s.median + p.median
        anchor_peak = None if anchor is None else max(s.peak_kb, p.peak_kb)
        rows.append(
            Row(
                "anchor: start-up + psql \\copy",
                "",
                "-" if anchor is None else f"{anchor:.2f}",
                "-" if anchor_peak is None else f"{anchor_peak / 1024:.0f}",
                human(p.size),
            )
        )

    def against(
        label: str, name: str, base: float | None, limit: float, what: str, memory: bool
    ) -> None:
        # At 1,000,000 claims the target is to finish under PEAK_MB (issue 23); the ratio is still shown.
        b = benches[name]
        row = basic(label, b)
        targets = [] if big else [f"<= {limit:g}x {what}"]
        if memory or big:
            targets.append(f"< {PEAK_MB} MB")
        row.target = ", ".join(targets)
        if b.error:
            row.met = judge(label, False)
            rows.append(row)
            return
        ratio = None if base is None else b.median / base
        row.ratio = "-" if ratio is None else f"{ratio:.1f}x"
        fast = None if big or ratio is None else ratio <= limit
        lean = b.peak_kb / 1024 < PEAK_MB if (memory or big) else None
        row.met = judge(
            label,
            None if fast is None and lean is None else (fast is not False and lean is not False),
        )
        rows.append(row)

    against(
        "claims export --skip-unsafe (markdown)", "export-md", anchor, RATIO_EXPORT, "anchor", True
    )
    against(
        "claims export --skip-unsafe --format latex",
        "export-latex",
        anchor,
        RATIO_EXPORT,
        "anchor",
        True,
    )
    against("claims list --format json", "list", anchor, RATIO_EXPORT, "anchor", False)
    against(
        "claims list --trust unverified --format json",
        "list-unverified",
        anchor,
        RATIO_EXPORT,
        "anchor",
        False,
    )
    small = benches["lint-180"]
    rows.append(basic("claims lint REPORT, bundled 180 claims", small))
    against(
        "claims lint REPORT",
        "lint",
        None if small.error else small.median,
        RATIO_LINT,
        "180-claim lint",
        False,
    )

    check = benches["check"]
    row = basic("claims db check", check)
    row.target = f"< {PEAK_MB} MB" if big else f"< {CHECK_SECONDS:g} s"
    row.met = judge(
        "claims db check",
        not check.error
        and (check.peak_kb / 1024 < PEAK_MB if big else check.median < CHECK_SECONDS),
    )
    rows.append(row)

    start = pages.get("start", [])
    if start:
        errors = [s.error for s in start if s.error]
        rows.append(
            Row(
                "claims serve --port 0: start-up to its URL",
                str(len(start)),
                errors[0] if errors else f"{statistics.median(s.seconds for s in start):.2f}",
                "" if errors else f"{max(s.peak_kb for s in start) / 1024:.0f}",
            )
        )
    for path, what in PAGES:
        samples = pages.get(path)
        label = f"claims serve: GET {path} ({what})"
        if not samples:
            if start:
                rows.append(
                    Row(
                        label,
                        "0",
                        "not reached",
                        target=f"< {PAGE_SECONDS * 1000:.0f} ms, < 500 KB",
                        met=judge(label, False),
                    )
                )
            continue
        error = next((s.error for s in samples if s.error), None)
        row = Row(
            label,
            str(len(samples)),
            target=f"< {PAGE_BYTES // 1000} KB, < {PEAK_MB} MB"
            if big
            else f"< {PAGE_SECONDS * 1000:.0f} ms, < {PAGE_BYTES // 1000} KB",
        )
        if error:
            row.seconds, row.met = error, judge(label, False)
        else:
            seconds = statistics.median(s.seconds for s in samples)
            peak = max(s.peak_kb for s in samples)
            size = samples[-1].size or 0
            row.seconds, row.peak, row.size = f"{seconds:.3f}", f"{peak / 1024:.0f}", human(size)
            row.met = judge(
                label,
                size < PAGE_BYTES and (peak / 1024 < PEAK_MB if big else seconds < PAGE_SECONDS),
            )
        rows.append(row)
    return rows, met, missed


def print_table(title: str, rows: list[Row], markdown: bool) -> None:
    head = Row("command", "runs", "median s", "peak MB", "output", "ratio", "target", "met")
    print(title)
    cells = [
        [r.command, r.runs, r.seconds, r.peak, r.size, r.ratio, r.target, r.met]
        for r in [head, *rows]
    ]
    if markdown:
        print()
        print("| " + " | ".join(cells[0]) + " |")
        print("|" + "|".join(" --- " for _ in cells[0]) + "|")
        for c in cells[1:]:
            print("| " + " | ".join(x.replace("|", "\\|") or " " for x in c) + " |")
        print()
        return
    # a failure's message can be long: it takes the rest of the line
    widths = [
        max(len(c[i]) for c in cells if not (i == 2 and c[2].startswith("failed")))
        for i in range(len(cells[0]))
    ]
    for c in cells:
        if c[2].startswith("failed") or c[2] == "not reached":
            print(
                f"  {c[0]:<{widths[0]}}  {c[1]:>{widths[1]}}  {c[2]}"
                + (f"  [{c[6]}: {c[7]}]" if c[6] else "")
            )
            continue
        print(
            "  "
            + "  ".join(
                f"{x:<{w}}" if i in (0, 6, 7) else f"{x:>{w}}"
                for i, (x, w) in enumerate(zip(c, widths))
            ).rstrip()
        )


# -- main ------------------------------------------------------------------------------------------


def engine_label(engine: str) -> str:
    return {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[engine]


def bench_engine(
    engine: str, args, tmp: Path, env: dict, lines: Callable[[], list[Path]], reuse: str | None
) -> None:
    from sqlalchemy.engine import make_url

    work = tmp / engine
    work.mkdir()
    admin = os.environ.get("CLAIMS_TEST_POSTGRES")
    stores: list[Store] = []
    try:
        if reuse:
            store = (
                sqlite_store(Path(reuse).resolve())
                if engine == "sqlite"
                else postgres_store(reuse, make_url(reuse).database, create=False)
            )
            if engine == "sqlite" and not Path(store.url).exists():
                sys.exit(f"--reuse {reuse}: no such file")
            built = None
        else:
            if engine == "sqlite":
                folder = args.keep or work
                path = folder / f"scale-{args.claims}.db"
                if path.exists():
                    sys.exit(f"{path} exists: remove it, or measure it with --reuse {path}")
                store = sqlite_store(path)
            else:
                store = postgres_store(admin, keep=bool(args.keep))
            stores.append(store)
            built = build(store, lines(), env, work, args.timeout)
        small = (
            sqlite_store(work / "bundled.db")
            if engine == "sqlite"
            else postgres_store(reuse or admin)
        )
        stores.append(small)
        build(small, None, env, work, args.timeout)

        n = counts(store.url)
        size = store.size()
        title = (
            f"{engine_label(engine)}, {n['claim']:,} claims ({n['figure']:,} figures, {n['event']:,} events), "
            f"database {size / 1e6:.0f} MB" + (f", reused: {reuse}" if reuse else "")
        )
        print(f"\n{title}")
        if not args.skip_build_time:
            if built:
                for label, sample in built:
                    print(
                        f"  claims import ({label}): {sample.seconds:.1f} s, peak {sample.peak_kb / 1024:.0f} MB"
                    )
            print(f"  {trace_latency(store.url, queries(args.queries, max(0, n['claim'] - 180)))}")
        if args.keep and not reuse:
            print(f"  kept: --reuse {store.url}")
        if args.build_only:
            return

        benches, pages = measure(store, small, env, work, args)
        rows, met, missed = tabulate(benches, pages, engine, n["claim"])
        print_table(
            f"{engine_label(engine)}, {n['claim']:,} claims: median of up to {args.runs} run{'s' if args.runs != 1 else ''} "
            f"(* ran once more than {args.budget:g} s, so no more); peak MB is the process's peak resident "
            "memory (a page: the server's, so far)",
            rows,
            args.markdown,
        )
        scale = (
            ""
            if n["claim"] >= 100_000
            else f" (the targets are set at 100,000 claims; this store has {n['claim']:,})"
        )
        print(
            f"targets met, {engine_label(engine)}{scale}: {len(met)} of {len(met) + len(missed)}"
            + (f"; not met: {', '.join(missed)}" if missed else "")
        )
    finally:
        for s in stores:
            s.drop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]),
    )
    parser.add_argument(
        "--claims", type=int, default=100_000, help="generated claims (default 100,000)"
    )
    parser.add_argument("--engine", choices=("both", "sqlite", "postgresql"), default="both")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each command, median (default 3)"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        help="a command whose run takes longer than this many seconds is not run again (default 10)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=3600.0,
        help="a command running longer fails (default 3600 s)",
    )
    parser.add_argument("--queries", type=int, default=100, help="trace queries (default 100)")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=REPO.parent / "shared" / "corpus",
        help=f"the folder holding {REPORT}",
    )
    parser.add_argument(
        "--reuse",
        action="append",
        metavar="DB",
        default=[],
        help="measure this store instead of building one: a SQLite file or a PostgreSQL URL "
        "(repeatable, one an engine; the engines measured are theirs)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep the stores built (the SQLite file in DIR; the PostgreSQL database) for --reuse",
    )
    parser.add_argument(
        "--skip-build-time",
        action="store_true",
        help="leave out the import's time and trace latency; print only the commands' table",
    )
    parser.add_argument(
        "--src",
        type=Path,
        metavar="DIR",
        help="run claims from another checkout's src folder (first on PYTHONPATH), for a "
        "before-and-after: git archive main | tar -x -C /tmp/main; --src /tmp/main/src",
    )
    parser.add_argument(
        "--build-only",
        action="store_true",
        help="build the store and print the import's time, its size and trace latency; no commands",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the tables as Markdown (for the README)"
    )
    args = parser.parse_args()
    if not (args.corpus / REPORT).exists():
        sys.exit(f"{args.corpus / REPORT} not found: give --corpus DIR")
    if args.keep:
        args.keep = args.keep.resolve()
        args.keep.mkdir(parents=True, exist_ok=True)

    reuse: dict[str, str] = {}
    for db in args.reuse:
        engine = engine_of(db)
        if engine in reuse:
            sys.exit(f"--reuse: two {engine} stores ({reuse[engine]}, {db}); give one an engine")
        reuse[engine] = db
    engines = (
        list(reuse)
        if reuse
        else (["sqlite", "postgresql"] if args.engine == "both" else [args.engine])
    )
    if (
        "postgresql" in engines
        and not os.environ.get("CLAIMS_TEST_POSTGRES")
        and "postgresql" not in reuse
    ):
        engines.remove("postgresql")
        print('postgresql skipped: set CLAIMS_TEST_POSTGRES (eval "$(.ci/postgres start)")')

    env = {**os.environ}
    # as a user's Python runs: our modules' bytecode cached (an editable install has none until then)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CLAIMS_READER", None)
    if SRC is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    import claimsdb

    subprocess.run(
        [PYTHON, "-m", "compileall", "-q", str(Path(claimsdb.__file__).parent)], env=env, check=True
    )
    commit = subprocess.run(
        ["git", "-C", str(REPO), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(
        f"claims: {CLAIMS} ({commit or 'no git'}), claimsdb from {Path(claimsdb.__file__).parent}; "
        f"{os.cpu_count()} CPUs; report: {args.corpus / REPORT}"
    )
    print(f"anchor JOIN: {JOIN}")

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        made: list[Path] = []

        def lines() -> list[Path]:
            """The generated claims as data files (a path is the channel that may declare secondary and
            verified tags: JSON Lines and standard input are agents'), FILE_CLAIMS claims a file."""
            if not made:
                for n, first in enumerate(range(0, args.claims, FILE_CLAIMS)):
                    path = tmp / f"scale-{n:02d}.json"
                    claims = [claim(i) for i in range(first, min(args.claims, first + FILE_CLAIMS))]
                    path.write_text(
                        json.dumps({"sources": [SOURCE], "claims": claims}), encoding="utf-8"
                    )
                    made.append(path)
            return made

        for engine in engines:
            bench_engine(engine, args, tmp, env, lines, reuse.get(engine))


if __name__ == "__main__":
    main()
