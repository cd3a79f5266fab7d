"""Benchmark: what required signatures cost the whole-store commands (issue 33), on two SQLite stores of
N claims (100,000 by default), every claim spot-checked by a re-read: (a) the re-reads unsigned, (b) every
re-read signed with a registered person's Ed25519 key and signatures required. Prints figures; asserts
nothing (but stops when a store it built does not verify).

    PYTHONPATH=src .venv/bin/python tests/benchmarks/bench_signatures.py [--claims 100000] [--runs 3]
        [--keep DIR] [--budget 60] [--profile]

The stores are built in process with the store's own import (store.import_files, as `claims import` of a
data file whose claims each name their re-read: real `reread` events, on the history's hash chain). For
(b) the person is registered first (people.add, the row signed with their own key), each re-read event is
signed as the import appends it (history.append wrapped: the signature is over
signatures.reread_message of the event's final fields, put in its detail as signatures.sign puts it, so the
event's hash covers it), then signatures are required (people.require, signed). The key is made by
`ssh-keygen -N ""`; the signatures are made in process with cryptography's Ed25519 (SSHSIG exactly as
`ssh-keygen -Y sign` writes it: a few are compared byte for byte with ssh-keygen's own, and checked with
`ssh-keygen -Y verify` and sshsig.verify). Then `claims people unsigned` on (b) must report nothing and
`claims db check` must pass on both.

Then, each as a whole process (the `claims` script, as bench_scale runs it), interleaved run by run so that
a busy machine slows both alike, the median of `--runs` runs and the peak resident memory
(`/usr/bin/time -f %M`): `claims export --format csv` to a file, `claims lint` of a small manuscript that
names a few hundred of the claims' subjects and figures, and `claims db check`. One table: command,
unsigned s, signed s, ratio, peaks; issue 33's target: export and lint at most 1.3x of unsigned.
`--profile` runs the signed export once under cProfile and prints where its time goes.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.bench_import import SOURCE  # noqa: E402
from tests.benchmarks.bench_scale import CLAIMS, PYTHON, Sample, claim, human, run  # noqa: E402

READER = "Bench Reader"
RATIO = 1.3  # issue 33's target for export and lint
LINT_CLAIMS = 300  # claims the manuscript names
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"


# -- SSHSIG in process -----------------------------------------------------------------------------


def _string(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


class InProcessSigner:
    """An Ed25519 key's SSHSIG signatures made with cryptography, byte for byte what `ssh-keygen -Y sign`
    writes (Ed25519 is deterministic; SHA-512, the reserved field empty, base64 in lines of 70): a Signer
    (people.Signer) for the registry's rows and for the re-reads."""

    def __init__(self, key_path: Path):
        from cryptography.hazmat.primitives.serialization import load_ssh_private_key

        from claimsdb.trust import sshsig

        self.private = load_ssh_private_key(key_path.read_bytes(), password=None)
        self.public = sshsig.read_public_key(Path(f"{key_path}.pub"))
        self.fingerprint = self.public.fingerprint
        self._head = b"SSHSIG" + (1).to_bytes(4, "big") + _string(self.public.blob)

    def __call__(self, message: bytes, namespace: str) -> str:
        ns = namespace.encode("utf-8")
        digest = hashlib.sha512(message).digest()
        signed = b"SSHSIG" + _string(ns) + _string(b"") + _string(b"sha512") + _string(digest)
        raw = self.private.sign(signed)
        blob = (
            self._head
            + _string(ns)
            + _string(b"")
            + _string(b"sha512")
            + _string(_string(b"ssh-ed25519") + _string(raw))
        )
        text = base64.b64encode(blob).decode("ascii")
        lines = [text[i : i + 70] for i in range(0, len(text), 70)]
        return "\n".join([BEGIN, *lines, END]) + "\n"


def check_signer(signer: InProcessSigner, key_path: Path, work: Path) -> str:
    """A few in-process signatures against ssh-keygen's own (-Y sign, byte for byte) and its -Y verify,
    and against sshsig.verify; exits when one differs or fails."""
    from claimsdb.trust import sshsig
    from claimsdb.trust.signatures import REREAD_NAMESPACE

    allowed = work / "allowed_signers"
    allowed.write_text(f'bench namespaces="{REREAD_NAMESPACE}" {signer.public.line}\n')
    messages = [b"", b"hello", "re-read \u00e9 \U0001f600".encode(), os.urandom(3000)]
    for message in messages:
        mine = signer(message, REREAD_NAMESPACE)
        theirs = subprocess.run(
            ["ssh-keygen", "-Y", "sign", "-f", str(key_path), "-n", REREAD_NAMESPACE],
            input=message,
            capture_output=True,
            check=True,
        ).stdout.decode("ascii")
        if mine != theirs:
            sys.exit(f"in-process SSHSIG differs from ssh-keygen's:\n{mine}\n{theirs}")
        sig = work / "sig"
        sig.write_text(mine)
        verified = subprocess.run(
            [
                "ssh-keygen",
                "-Y",
                "verify",
                "-f",
                str(allowed),
                "-I",
                "bench",
                "-n",
                REREAD_NAMESPACE,
                "-s",
                str(sig),
            ],
            input=message,
            capture_output=True,
        )
        if verified.returncode != 0:
            sys.exit(f"ssh-keygen -Y verify refused an in-process signature: {verified.stderr!r}")
        why = sshsig.verify(mine, message, REREAD_NAMESPACE, signer.public)
        if why:
            sys.exit(f"sshsig.verify refused an in-process signature: {why}")
    return (
        f"{len(messages)} in-process signatures identical to ssh-keygen -Y sign's, "
        "verified by ssh-keygen -Y verify and sshsig.verify"
    )


# -- the stores ------------------------------------------------------------------------------------


def data_file(path: Path, n: int, day: str) -> None:
    """N claims, each spot-checked by READER's re-read on `day` (bench_scale's claims otherwise)."""
    claims = []
    for i in range(n):
        c = claim(i)
        c["tag"] = "spot-checked"
        c["reread"] = {
            "by": READER,
            "at": day,
            "source": "bench-source",
            "locator": f"row {i}",
            "quote": c["figures"][0],
        }
        claims.append(c)
    path.write_text(json.dumps({"sources": [SOURCE], "claims": claims}), encoding="utf-8")


def build(db_path: Path, data: Path, signer: InProcessSigner | None) -> dict:
    """Import `data` into a new store; with `signer`, the person registered first, every re-read signed
    as it is appended, and signatures required after. Returns counts and timings."""
    from claimsdb import db, history, store
    from claimsdb.trust import people, signatures

    engine = db.open_engine(str(db_path), create=True)
    out: dict = {}
    if signer is not None:
        with db.session_scope(engine) as session:
            people.add(session, READER, signer.public, sign=signer, signed_with=signer.public)
    append = history.append
    signed = 0
    sign_s = 0.0

    def signing_append(session, events):
        nonlocal signed, sign_s
        t = time.perf_counter()
        for event in events:
            if event.get("kind") != history.REREAD_KIND:
                continue
            armored = signer(
                signatures.reread_message(event["claim"], event), signatures.REREAD_NAMESPACE
            )
            detail = json.loads(event["detail"])
            detail["signature"] = {
                "format": "sshsig",
                "fingerprint": signer.fingerprint,
                "signature": armored,
            }
            event["detail"] = json.dumps(detail, ensure_ascii=False)  # as signatures.sign writes it
            signed += 1
        sign_s += time.perf_counter() - t
        return append(session, events)

    t = time.perf_counter()
    if signer is not None:
        history.append = signing_append
    try:
        with db.session_scope(engine) as session:
            plan = store.import_files(session, [str(data)])
    finally:
        history.append = append
    out["import_s"] = time.perf_counter() - t
    db.refresh_statistics(engine, len(plan.added) + len(plan.updated))
    if signer is not None:
        with db.session_scope(engine) as session:
            people.require(session, sign=signer, signed_with=signer.public)
        out["signed"], out["sign_s"] = signed, sign_s
    engine.dispose()
    return out


def counts(db_path: Path) -> str:
    import sqlite3

    con = sqlite3.connect(db_path)
    try:
        claims = con.execute("SELECT count(*) FROM claim").fetchone()[0]
        rereads = con.execute("SELECT count(*) FROM event WHERE kind = 'reread'").fetchone()[0]
        signed = con.execute(
            "SELECT count(*) FROM event WHERE kind = 'reread' AND detail LIKE '%\"signature\": %'"
        ).fetchone()[0]
        tagged = con.execute("SELECT count(*) FROM claim WHERE tag = 'spot-checked'").fetchone()[0]
    finally:
        con.close()
    return (
        f"{claims:,} claims ({tagged:,} spot-checked), {rereads:,} re-read events ({signed:,} signed), "
        f"database {db_path.stat().st_size / 1e6:.0f} MB"
    )


def manuscript(path: Path, n: int) -> int:
    """A small Markdown manuscript naming LINT_CLAIMS of the claims: their subjects and figures."""
    rnd = random.Random(33)
    picked = sorted(rnd.sample(range(n), min(LINT_CLAIMS, n)))
    lines = ["# Systems at scale", ""]
    for i in picked:
        c = claim(i)
        lines.append(f"{c['subject']} used {c['figures'][0]} and {c['figures'][1]} in its run {i}.")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return len(picked)


# -- the commands ----------------------------------------------------------------------------------


def command(db_path: Path, args: list[str], env: dict, work: Path, name: str, ok=(0,)) -> Sample:
    out = work / f"{name}.out"
    return run([CLAIMS, *args], {**env, "CLAIMS_DB": str(db_path)}, work, out, timeout=3600, ok=ok)


def verify_store(db_path: Path, env: dict, work: Path, *, signed: bool) -> list[str]:
    said = []
    check = command(db_path, ["db", "check"], env, work, "check-once")
    text = (work / "check-once.out").read_text(encoding="utf-8", errors="replace")
    if check.error:
        sys.exit(f"claims db check on {db_path}: {check.error}\n{text[-2000:]}")
    lines = [line for line in text.splitlines() if "signed re-read" in line or "signature" in line]
    said.append(
        f"claims db check: passed ({check.seconds:.1f} s){'; ' + lines[0].strip() if lines else ''}"
    )
    if signed:
        unsigned = command(db_path, ["people", "unsigned"], env, work, "unsigned")
        text = (work / "unsigned.out").read_text(encoding="utf-8", errors="replace")
        if unsigned.error:
            sys.exit(f"claims people unsigned on {db_path}: {unsigned.error}\n{text[-2000:]}")
        first = text.strip().splitlines()[0] if text.strip() else "(nothing printed)"
        said.append(f"claims people unsigned: exit 0, {first.strip()}")
    return said


def profile_export(db_path: Path, env: dict, work: Path) -> str:
    """The signed export once under cProfile, in a child process (as a user runs it)."""
    prof = work / "export.prof"
    target = work / "profiled.csv"
    subprocess.run(
        [
            PYTHON,
            "-m",
            "cProfile",
            "-o",
            str(prof),
            "-m",
            "claimsdb.cli",
            "export",
            "--format",
            "csv",
            "-o",
            str(target),
        ],
        env={**env, "CLAIMS_DB": str(db_path)},
        cwd=work,
        capture_output=True,
        check=False,
    )
    buf = io.StringIO()
    stats = pstats.Stats(str(prof), stream=buf)
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(20)
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]),
    )
    parser.add_argument("--claims", type=int, default=100_000, help="claims (default 100,000)")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each command, median (default 3)"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="a command whose run takes longer than this many seconds is not run again (default 120)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the stores in DIR and keep them (else a temporary folder)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile the signed export (cProfile)"
    )
    args = parser.parse_args()

    import claimsdb

    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CLAIMS_READER", None)
    env.pop("CLAIMS_SIGNING_KEY", None)
    src = str(Path(claimsdb.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
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
        f"{os.cpu_count()} CPUs"
    )

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        folder = args.keep.resolve() if args.keep else tmp
        folder.mkdir(parents=True, exist_ok=True)
        unsigned_db = folder / f"unsigned-{args.claims}.db"
        signed_db = folder / f"signed-{args.claims}.db"
        for p in (unsigned_db, signed_db):
            if p.exists():
                sys.exit(f"{p} exists: remove it")
        key = tmp / "reader"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", READER, "-f", str(key)],
            check=True,
        )
        signer = InProcessSigner(key)
        print(check_signer(signer, key, tmp))

        day = datetime.datetime.now(datetime.UTC).date().isoformat()
        data = tmp / f"signatures-{args.claims}.json"
        data_file(data, args.claims, day)
        built_a = build(unsigned_db, data, None)
        built_b = build(signed_db, data, signer)
        print(f"(a) unsigned: {counts(unsigned_db)}; import {built_a['import_s']:.1f} s")
        print(
            f"(b) signed:   {counts(signed_db)}; import {built_b['import_s']:.1f} s, of which "
            f"{built_b['sign_s']:.1f} s signing {built_b['signed']:,} re-reads in process"
        )
        for label, db_path, signed in (("(a)", unsigned_db, False), ("(b)", signed_db, True)):
            for line in verify_store(db_path, env, tmp, signed=signed):
                print(f"{label} {line}")

        text = tmp / "manuscript.md"
        named = manuscript(text, args.claims)
        print(f"manuscript: {named} claims named, {text.stat().st_size / 1e3:.0f} KB")
        csv_out = tmp / "export.csv"
        benches = {
            "claims export --format csv": (["export", "--format", "csv", "-o", str(csv_out)], (0,)),
            f"claims lint MANUSCRIPT ({named} claims)": (["lint", str(text)], (0, 1)),
            "claims db check": (["db", "check"], (0,)),
        }
        samples: dict[tuple[str, str], list[Sample]] = {}
        over: set[tuple[str, str]] = set()
        for _ in range(args.runs):
            for name, (argv, ok) in benches.items():
                for which, db_path in (("unsigned", unsigned_db), ("signed", signed_db)):
                    if (name, which) in over:
                        continue
                    s = command(db_path, argv, env, tmp, f"{which}-{len(samples)}", ok=ok)
                    if s.error:
                        sys.exit(f"{name} on the {which} store: {s.error}")
                    samples.setdefault((name, which), []).append(s)
                    if s.seconds > args.budget:
                        over.add((name, which))

        print(
            f"\n{args.claims:,} claims, SQLite: median of up to {args.runs} runs, whole processes; "
            f"peak MB is the process's peak resident memory; target: export and lint <= {RATIO}x unsigned"
        )
        head = (
            "command",
            "runs",
            "unsigned s",
            "signed s",
            "ratio",
            "unsigned MB",
            "signed MB",
            "met",
        )
        rows = [head]
        for name in benches:
            a, b = samples[(name, "unsigned")], samples[(name, "signed")]
            ma, mb = (
                statistics.median(s.seconds for s in a),
                statistics.median(s.seconds for s in b),
            )
            ratio = mb / ma
            target = "" if name == "claims db check" else ("yes" if ratio <= RATIO else "NO")
            rows.append(
                (
                    name,
                    f"{len(a)}/{len(b)}",
                    f"{ma:.2f}",
                    f"{mb:.2f}",
                    f"{ratio:.2f}x",
                    f"{max(s.peak_kb for s in a) / 1024:.0f}",
                    f"{max(s.peak_kb for s in b) / 1024:.0f}",
                    target,
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in rows:
            print(
                "  "
                + "  ".join(
                    f"{x:<{w}}" if i in (0, 7) else f"{x:>{w}}"
                    for i, (x, w) in enumerate(zip(r, widths))
                ).rstrip()
            )
        size = csv_out.stat().st_size if csv_out.exists() else None
        print(
            f"  (export output {human(size)}; runs: {', '.join(f'{s.seconds:.2f}' for s in samples[(next(iter(benches)), 'signed')])} s signed)"
        )

        if args.profile:
            print("\ncProfile of the signed export:")
            print(profile_export(signed_db, env, tmp))
        if args.keep:
            print(f"kept: {unsigned_db} {signed_db}")


if __name__ == "__main__":
    main()
