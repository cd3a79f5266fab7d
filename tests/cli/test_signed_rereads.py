"""A re-read is signed by the person (issue 33), replayed through the command line on the engine under test:
the first person is added freely, a second only when a registered person signs; a signed re-read vouches,
and once signatures are required an unsigned one, one signed by an unregistered key, one signed by another
person's key and a data file's unsigned `reread` do not; a forged event appended with the store's own code
is reported by `db check` and vouches for nothing. Keys are real (ssh-keygen), signatures real SSHSIG."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlmodel import select

from claimsdb import db
from claimsdb.models import Claim
from tests.conftest import reread, show_json, store_digest
from tests.pages import PLACES, WIDGET_CONTEXT, WIDGET_PRETRAIN

pytestmark = [
    pytest.mark.usefixtures("loaded"),
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is needed"),
]


def fingerprint(key: Path) -> str:
    out = subprocess.run(
        ["ssh-keygen", "-lf", f"{key}.pub"], capture_output=True, text=True, check=True
    ).stdout
    return out.split()[1]


def checks(result) -> dict[str, dict]:
    """`claims db check --format json`'s checks by name."""
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def exported(claims, *flags: str) -> tuple[int, list[str], str]:
    result = claims("export", "--format", "json", "--skip-unsafe", *flags)
    doc = json.loads(result.stdout) if result.stdout else {"rows": []}
    return result.exit_code, [r["key"] for r in doc["rows"]], result.stderr


def signed_reread(claims, page, key: str, by: str, *sign: str):
    where = {"widget.pretrain": WIDGET_PRETRAIN, "widget.context": WIDGET_CONTEXT}[key]
    return claims("reread", key, *where.flags(page), "--by", by, *sign, "--yes")


@pytest.fixture
def ada_and_grace(claims, keys):
    """Ada registered first (freely), Grace added by Ada's signature; returns their keys."""
    ada, grace = keys("ada"), keys("grace")
    first = claims("people", "add", "Ada", "--key", f"{ada}.pub")
    assert first.exit_code == 0, first.output
    assert "the first person, unsigned" in first.stdout
    added = claims("people", "add", "Grace", "--key", f"{grace}.pub", "--sign-with", ada)
    assert added.exit_code == 0, added.output
    return ada, grace


def test_the_first_person_is_added_freely_and_a_second_only_signed(claims, store, keys):
    ada, grace = keys("ada"), keys("grace")
    assert claims("people", "add", "Ada", "--key", f"{ada}.pub").exit_code == 0
    before = store_digest(store)
    refused = claims("people", "add", "Grace", "--key", f"{grace}.pub")
    assert refused.exit_code == 2
    assert "must be signed by a registered person" in refused.stderr
    assert store_digest(store) == before
    # signed by a key nobody registered (Grace's own): refused too
    refused = claims("people", "add", "Grace", "--key", f"{grace}.pub", "--sign-with", grace)
    assert refused.exit_code == 2 and "is no registered person's key" in refused.stderr
    assert store_digest(store) == before
    added = claims("people", "add", "Grace", "--key", f"{grace}.pub", "--sign-with", ada)
    assert added.exit_code == 0, added.output
    listed = json.loads(claims("people", "list", "--format", "json").stdout)["rows"]
    assert [(r["kind"], r["name"], r["fingerprint"], r["by"]) for r in listed] == [
        ("added", "Ada", fingerprint(ada), "Ada"),
        ("added", "Grace", fingerprint(grace), "Ada"),
    ]
    assert listed[0]["signed"] is None and listed[1]["signed"] == fingerprint(ada)
    # the registry as git's allowed-signers file: ssh-keygen itself checks a re-read's signature with it
    signers = claims("people", "export-signers").stdout.splitlines()
    assert signers[0].startswith('Ada namespaces="claimsdb-reread,claimsdb-people" ssh-ed25519 ')
    assert len(signers) == 2


def test_a_signed_reread_vouches_and_names_its_key(claims, page, ada_and_grace, tmp_path):
    ada, _ = ada_and_grace
    done = signed_reread(claims, page, "widget.pretrain", "Ada", "--sign-with", ada)
    assert done.exit_code == 0, done.output
    assert "warning:" in done.stderr and "unencrypted private key" in done.stderr
    shown = show_json(claims, "widget.pretrain")
    assert shown["signed_by"] == fingerprint(ada) and shown["unsigned"] is None
    assert shown["tag_reason"].endswith(f", signed with {fingerprint(ada)}")
    # the table's last column (details), its wrapped lines joined again
    lines = claims("history", "widget.pretrain").stdout.splitlines()
    details = "".join(line.split("│")[-2].strip() for line in lines if line.count("│") > 2)
    assert f"signedwith{fingerprint(ada)}(sshsig)" in details.replace(" ", "")
    history = json.loads(claims("history", "widget.pretrain", "--format", "json").stdout)["events"]
    signature = history[-1]["detail"]["signature"]
    assert signature["fingerprint"] == fingerprint(ada)
    # the signature is what ssh-keygen makes and checks: verified here by ssh-keygen itself too
    from claimsdb.trust.signatures import REREAD_NAMESPACE, reread_message

    allowed = tmp_path / "allowed"
    allowed.write_text(claims("people", "export-signers").stdout)
    sig = tmp_path / "reread.sig"
    sig.write_text(signature["signature"])
    event = {**history[-1], "detail": history[-1]["detail"]}
    checked = subprocess.run(
        [
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            allowed,
            "-I",
            "Ada",
            "-n",
            REREAD_NAMESPACE,
            "-s",
            sig,
        ],
        input=reread_message("widget.pretrain", event),
        capture_output=True,
    )
    assert checked.returncode == 0, checked.stderr


def test_once_required_only_a_signed_reread_vouches(claims, store, page, ada_and_grace, tmp_path):
    ada, grace = ada_and_grace
    assert signed_reread(claims, page, "widget.pretrain", "Ada", "--sign-with", ada).exit_code == 0
    assert signed_reread(claims, page, "widget.context", "Grace").exit_code == 0  # unsigned
    code, keys, said = exported(claims)
    assert {"widget.pretrain", "widget.context"} <= set(keys)
    assert "re-reads are not signed: anyone who can run claims here can vouch" in said
    unsigned = claims("people", "unsigned", "--format", "json")
    assert unsigned.exit_code == 1
    assert [r["key"] for r in json.loads(unsigned.stdout)] == ["widget.context"]

    required = claims("people", "require-signatures", "--sign-with", grace)
    assert required.exit_code == 0, required.output
    code, keys, said = exported(claims)
    assert "widget.pretrain" in keys and "widget.context" not in keys
    manifest = json.loads(claims("export", "--format", "json", "--skip-unsafe").stdout)["manifest"]
    assert manifest["signatures_required"] is True
    assert manifest["signed_by"] == [{"fingerprint": fingerprint(ada), "person": "Ada", "rows": 1}]
    assert "widget.context" in said and "is not signed" in said
    assert "re-reads are not signed" not in said
    assert show_json(claims, "widget.context")["unsigned"].startswith("the re-read by Grace")
    # lint says the same of a manuscript that states the figure (and no longer says re-reads are unsigned)
    paper = tmp_path / "paper.md"
    paper.write_text("Widget-7's context grew from 8K to 256K tokens.\n", encoding="utf-8")
    linted = claims("lint", paper, "--format", "json")
    assert linted.exit_code == 1 and "re-reads are not signed" not in linted.stderr
    report = json.loads(linted.stdout)
    assert report["signatures_required"] is True
    assert any(
        "widget.context" in f["message"] and "(signatures are required)" in f["message"]
        for f in report["findings"]
    )
    # no unsigned re-read is recorded any more, whatever the flags
    before = store_digest(store)
    refused = signed_reread(claims, page, "widget.context", "Grace")
    assert refused.exit_code == 2 and "signatures are required in this store" in refused.stderr
    assert store_digest(store) == before


def test_an_unregistered_key_or_another_persons_key_is_refused(
    claims, store, page, keys, ada_and_grace
):
    ada, grace = ada_and_grace
    mallory = keys("mallory")
    before = store_digest(store)
    wrong = signed_reread(claims, page, "widget.context", "Ada", "--sign-with", mallory)
    assert wrong.exit_code == 2 and "a key no one registered" in wrong.stderr
    other = signed_reread(claims, page, "widget.context", "Ada", "--sign-with", grace)
    assert other.exit_code == 2 and "is signed by Grace's key" in other.stderr
    assert store_digest(store) == before
    # the key named by CLAIMS_SIGNING_KEY signs when no --sign-with is given
    import os

    os.environ["CLAIMS_SIGNING_KEY"] = str(grace)
    try:
        done = signed_reread(claims, page, "widget.context", "Grace")
    finally:
        del os.environ["CLAIMS_SIGNING_KEY"]
    assert done.exit_code == 0, done.output
    assert show_json(claims, "widget.context")["signed_by"] == fingerprint(grace)


def test_a_data_files_reread_vouches_once_its_person_signs_it(
    claims, store, write_json, sample, ada_and_grace, tmp_path
):
    """A data file's unsigned `reread` does not vouch once signatures are required; `claims people sign`
    signs the re-reads the file records in the signer's name, and the file imported again records the
    signed re-read, which does. A signed file changed afterwards does not vouch."""
    ada, grace = ada_and_grace
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    record = dict(sample["claims"][2])
    record["key"] = "gadget.fleet.reread"
    record["tag"] = "spot-checked"
    locator, quote = PLACES["gadget.fleet"]
    record["reread"] = reread("widget-report", locator=locator, quote=quote, by="Ada")
    graces = {**record, "key": "gadget.fleet.grace", "reread": {**record["reread"], "by": "Grace"}}
    path = write_json({"sources": sample["sources"], "claims": [record, graces]}, "rereads.json")
    assert claims("import", path).exit_code == 0
    shown = show_json(claims, "gadget.fleet.reread")
    assert shown["trust"] == "verified" and "is not signed" in shown["unsigned"]
    assert "gadget.fleet.reread" not in exported(claims)[1]

    signed = tmp_path / "signed.json"
    done = claims("people", "sign", path, "-o", signed, "--sign-with", ada, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) | {"file": None} == {
        "file": None,
        "signed": 1,
        "others": 1,
        "person": "Ada",
    }
    doc = json.loads(signed.read_text())
    assert doc["claims"][0]["reread"]["signature"].startswith("-----BEGIN SSH SIGNATURE-----")
    assert "signature" not in doc["claims"][1]["reread"]  # Grace's, left for Grace to sign
    assert claims("import", signed).exit_code == 0
    shown = show_json(claims, "gadget.fleet.reread")
    assert shown["unsigned"] is None and shown["signed_by"] == fingerprint(ada)
    assert "gadget.fleet.reread" in exported(claims)[1]
    assert claims("db", "check").exit_code == 0

    # the quote changed after signing: imported (it is a valid record), but it vouches for nothing
    doc["claims"][0]["key"] = "gadget.fleet.changed"
    doc["claims"][0]["reread"]["quote"] = "Gadget runs 40–60K sandboxes"
    changed = write_json({"sources": sample["sources"], "claims": [doc["claims"][0]]}, "c.json")
    assert claims("import", changed).exit_code == 0
    assert "does not verify" in show_json(claims, "gadget.fleet.changed")["unsigned"]
    # a signature that is not one is refused as bad input, naming the field; nothing is written
    doc["claims"][0]["reread"]["signature"] = "not a signature"
    before = store_digest(store)
    bad = claims("import", write_json({"claims": [doc["claims"][0]]}, "bad.json"))
    assert bad.exit_code == 2 and "reread.signature" in bad.stderr
    assert store_digest(store) == before


def _forge(store: str, key: str, actor: str, detail: dict) -> None:
    """Append a re-read to `key` with the store's own code, as someone who can write the store would:
    correct hashes, the claim's tag set after its event (the triggers allow exactly that)."""
    from claimsdb import recording

    engine = db.make_engine(db.resolve_url(store))
    with db.session_scope(engine) as session:
        claim = session.exec(select(Claim).where(Claim.key == key)).one()
        recording.record(
            session,
            claim,
            {
                "kind": "reread",
                "actor": actor,
                "tag_before": claim.tag,
                "tag_after": "spot-checked",
                "origin": "widget-report",
                "content_sha256": None,
                "detail": json.dumps(detail),
            },
            tag="spot-checked",
        )
    engine.dispose()


def test_a_forged_reread_is_reported_by_db_check_and_vouches_for_nothing(
    claims, store, keys, ada_and_grace
):
    ada, _ = ada_and_grace
    assert claims("db", "check").exit_code == 0
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    _forge(store, "widget.context", "Ada", {"source": "widget-report", "quote": "invented"})
    checked = claims("db", "check", "--format", "json")
    assert checked.exit_code == 1
    found = checks(checked)
    assert not found["re-read signatures"]["ok"]
    assert "widget.context" in found["re-read signatures"]["detail"]
    assert "widget.context" not in exported(claims)[1]
    # a signature by a key no one registered fails the same way
    mallory = keys("mallory")
    from claimsdb.trust import sshsig

    armored = sshsig.sign(b"anything", "claimsdb-reread", mallory)
    _forge(
        store,
        "widget.pretrain",
        "Ada",
        {"signature": {"format": "sshsig", "fingerprint": "x", "signature": armored}},
    )
    found = checks(claims("db", "check", "--format", "json"))
    assert "a key no one registered" in found["re-read signatures"]["detail"]
    assert "widget.pretrain" not in exported(claims)[1]


def test_a_person_row_forged_into_the_registry_grants_nothing(
    claims, store, keys, page, ada_and_grace
):
    from claimsdb.trust import people, sshsig

    mallory = keys("mallory")
    engine = db.make_engine(db.resolve_url(store))
    with db.session_scope(engine) as session:
        reg = people.load(session)
        row = people._row(
            "added",
            "Mallory",
            sshsig.read_public_key(mallory).line,
            sshsig.read_public_key(mallory).fingerprint,
            "Ada",
            reg.head,
            None,
        )
        people._append(session, row, None, None)
    engine.dispose()
    checked = claims("db", "check", "--format", "json")
    assert checked.exit_code == 1
    found = checks(checked)
    assert "only the first person is added unsigned" in found["people registry"]["detail"]
    refused = signed_reread(claims, page, "widget.context", "Mallory", "--sign-with", mallory)
    assert refused.exit_code == 2 and "a key no one registered" in refused.stderr


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_signed_registry_changes_write_every_format(claims, keys, write_json, fmt):
    from tests.cli.test_formats import parse

    ada, grace = keys("ada"), keys("grace")
    assert claims("people", "add", "Ada", "--key", f"{ada}.pub").exit_code == 0
    added = claims("people", "add", "Grace", "--key", f"{grace}.pub", "--sign-with", ada)
    assert added.exit_code == 0
    invited = claims("people", "passkey", "Grace", "--sign-with", ada, "--format", fmt)
    assert invited.exit_code == 0, invited.output
    parse(fmt, invited.stdout)
    doc = {"claims": []}
    path = write_json(doc, "empty.json")
    signed = claims("people", "sign", path, "-o", path, "--sign-with", ada, "--format", fmt)
    assert signed.exit_code == 0, signed.output
    parse(fmt, signed.stdout)
    removed = claims("people", "remove", "Grace", "--sign-with", ada, "--format", fmt)
    assert removed.exit_code == 0, removed.output
    parse(fmt, removed.stdout)
    required = claims("people", "require-signatures", "--sign-with", ada, "--format", fmt)
    assert required.exit_code == 0, required.output
    parse(fmt, required.stdout)
    # Ada cannot remove herself: nobody would be left to sign
    alone = claims("people", "remove", "Ada", "--sign-with", ada)
    assert alone.exit_code == 2 and "nobody registered" in alone.stderr


def test_cutting_the_requirement_out_of_the_registry_is_caught_by_the_anchor_or_fails_closed(
    claims, store, page, ada_and_grace, tmp_path
):
    """Someone who can write the store drops the triggers and changes the registry: the last row
    cut (the requirement: the chain left is intact, so only the anchor tells), or a row edited (the
    registry no longer verifies, and then nothing vouches rather than everything)."""
    from tests.conftest import run_sql

    ada, grace = ada_and_grace
    assert signed_reread(claims, page, "widget.context", "Grace").exit_code == 0  # unsigned
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    anchor = tmp_path / "claims.anchor"
    assert claims("db", "anchor", "-o", anchor).exit_code == 0
    assert "people_head" in json.loads(anchor.read_text())
    assert "widget.context" not in exported(claims)[1]

    run_sql(store, "DELETE FROM person WHERE kind = 'required'", without_triggers=True)
    assert (
        "widget.context" in exported(claims)[1]
    )  # the cut registry no longer requires signatures...
    checked = claims("db", "check", "--anchor", anchor)
    assert checked.exit_code == 1 and "rows were cut" in checked.stdout  # ...which the anchor shows
    assert claims("export", "--format", "json", "--anchor", anchor).exit_code == 1

    run_sql(store, "UPDATE person SET name = 'Mallory' WHERE name = 'Ada'", without_triggers=True)
    assert "widget.context" not in exported(claims)[1]
    assert show_json(claims, "widget.context")["unsigned"].startswith(
        "the people registry does not verify"
    )
    assert claims("db", "check").exit_code == 1


def test_a_forged_signature_is_blocked_when_a_worker_checks_signatures(
    claims, store, page, ada_and_grace, monkeypatch
):
    """The parallel path (trust.prefetch, forced from the first claim): a worker process checks the
    signatures ahead of the views, and a re-read whose signature does not verify still vouches for
    nothing; a worker that cannot start leaves every check inline."""
    import sys

    from claimsdb import views
    from claimsdb.trust import people, prefetch, signatures, sshsig

    ada, _ = ada_and_grace
    assert signed_reread(claims, page, "widget.pretrain", "Ada", "--sign-with", ada).exit_code == 0
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    armored = sshsig.sign(b"other words", "claimsdb-reread", ada)  # Ada's key, not this message
    fp = sshsig.read_public_key(ada).fingerprint
    _forge(
        store,
        "widget.context",
        "Ada",
        {"signature": {"format": "sshsig", "fingerprint": fp, "signature": armored}},
    )
    monkeypatch.setenv(prefetch.ENV, "1")
    engine = db.make_engine(db.resolve_url(store))
    try:
        with db.session_scope(engine) as session:
            reg = people.load(session)
            ids = views.select_ids(session)
            digests = {
                k: signatures.verdict_key(k, e) for _, k, e in signatures.vouching_events(session)
            }
            with prefetch.Prefetch(session, reg, prefetch.VOUCHING, ids) as ahead:
                assert ahead.proc is not None
                while not ahead.done and ahead.proc is not None:  # every verdict the worker's
                    ahead.wait(10.0)
                assert ahead.agreed.is_set() and ahead.done
            assert ahead.proc is None
            assert "does not verify" in (reg.verdicts[digests["widget.context"]] or "")
            assert reg.verdicts[digests["widget.pretrain"]] is None
            # the views stand on the worker's verdicts: nothing is checked inline now
            inline = signatures._problem
            monkeypatch.setattr(signatures, "_problem", lambda *a: pytest.fail("checked inline"))
            shown = {v.key: v for v in views.load(session, ids)}
            assert "does not verify" in (shown["widget.context"].unsigned or "")
            assert shown["widget.pretrain"].unsigned is None
            monkeypatch.setattr(signatures, "_problem", inline)
    finally:
        engine.dispose()
    assert "widget.context" not in exported(claims)[1]
    assert "widget.pretrain" in exported(claims)[1]
    found = checks(claims("db", "check", "--format", "json"))
    assert "does not verify" in found["re-read signatures"]["detail"]
    # a worker that cannot start: every signature is checked inline, the forged one blocked as well
    monkeypatch.setattr(sys, "executable", "/bin/false")
    assert "widget.context" not in exported(claims)[1]


def test_a_verdict_is_kept_by_what_was_checked_not_by_a_copied_hash(
    claims, store, page, ada_and_grace
):
    """Within one command a verdict is reused for the same fields only: a forged event that copies a real
    event's stored sha256 (but not its words, or its claim) is checked on its own."""
    from claimsdb import queries
    from claimsdb.trust import people, signatures

    ada, _ = ada_and_grace
    assert signed_reread(claims, page, "widget.pretrain", "Ada", "--sign-with", ada).exit_code == 0
    assert claims("people", "require-signatures", "--sign-with", ada).exit_code == 0
    engine = db.make_engine(db.resolve_url(store))
    with db.session_scope(engine) as session:
        view = queries.claim_views(session, [queries.get_claim(session, "widget.pretrain")])[0]
        real = dict(view.vouched_event)
        reg = people.load(session)
        assert signatures.problem(reg, "widget.pretrain", real) is None
        other_claim = signatures.problem(reg, "widget.context", real)
        other_words = signatures.problem(
            reg, "widget.pretrain", {**real, "detail": real["detail"].replace("3,072", "4,096")}
        )
    engine.dispose()
    assert other_claim is not None and "does not verify" in other_claim
    assert other_words is not None and "does not verify" in other_words


def test_a_name_that_reads_as_a_registered_persons_is_refused(
    claims, store, page, keys, ada_and_grace
):
    """ "Grаce" with a Cyrillic а reads as Grace: while signatures are not required an unsigned re-read or
    retag under it would show in the history as hers; nor may the registry take it as another person."""
    ada, _ = ada_and_grace
    before = store_digest(store)
    lookalike = "Gr\u0430ce"
    refused = signed_reread(claims, page, "widget.context", lookalike)
    assert refused.exit_code == 2
    assert "--by" in refused.stderr and "reads as 'Grace', a registered person" in refused.stderr
    retag = claims(
        "retag", "widget.context", "agent-reported", "--reason", "x", "--by", "\uff27race"
    )
    assert retag.exit_code == 2 and "reads as 'Grace'" in retag.stderr
    other = keys("other")
    added = claims("people", "add", lookalike, "--key", f"{other}.pub", "--sign-with", ada)
    assert added.exit_code == 2 and "reads as 'Grace'" in added.stderr
    assert store_digest(store) == before
    assert (
        signed_reread(claims, page, "widget.context", "Grace").exit_code == 0
    )  # spelt as registered


def test_db_check_starts_a_worker_for_signed_rereads_only(claims, store, page, keys, monkeypatch):
    """`claims db check` hands its signatures' worker the signed re-reads alone: unsigned re-reads start
    none (a worker costs a process's start), and a signed one is still checked (by the worker or inline)."""
    from claimsdb.trust import prefetch, signatures

    monkeypatch.setenv(prefetch.ENV, "1")
    assert signed_reread(claims, page, "widget.context", "Ada").exit_code == 0  # unsigned

    def started() -> bool:
        engine = db.make_engine(db.resolve_url(store))
        try:
            with db.session_scope(engine) as session, signatures.start_audit(session) as ahead:
                return ahead.proc is not None
        finally:
            engine.dispose()

    assert not started()
    ada = keys("ada")
    assert claims("people", "add", "Ada", "--key", f"{ada}.pub").exit_code == 0
    assert signed_reread(claims, page, "widget.pretrain", "Ada", "--sign-with", ada).exit_code == 0
    assert started()
    found = checks(claims("db", "check", "--format", "json"))
    assert found["re-read signatures"]["detail"].startswith("1 signed re-read(s) verify")
