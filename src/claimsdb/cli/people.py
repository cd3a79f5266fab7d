"""`claims people`: who may vouch for a figure, with the SSH keys their re-reads are signed with (register,
list, remove), the rule that only signed re-reads vouch, the claims whose re-read is not signed, and the
registry as an allowed-signers file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from claimsdb import db
from claimsdb.cli.commands import command, group
from claimsdb.cli.options import DbOption, FormatOption, OutputFormat, SignWithOption
from claimsdb.cli.output import Output, emit, emit_record, emit_table, err_console

app = group(
    "People who may vouch, with the SSH keys their re-reads are signed with.",
    invoke_without_command=True,
)

NameArgument = Annotated[
    str, typer.Argument(help="The person's name, as their re-reads record it.")
]
KeyFileOption = Annotated[
    Path,
    typer.Option(
        "--key",
        help="The person's SSH public key file (FILE.pub: ed25519, ecdsa, or the security-key forms ed25519-sk, ecdsa-sk).",
    ),
]
FingerprintOption = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Remove only this key (its SHA256: fingerprint, or a passkey as 'passkey ID', as `claims people list` shows it); default: all of theirs.",
    ),
]
DataFileArgument = Annotated[
    Path, typer.Argument(help="A data file (JSON) whose claims carry re-reads by you.")
]
SignedOutputOption = Annotated[
    Path,
    typer.Option(
        "--output", "-o", help="Write the signed data file here (it may be the same file)."
    ),
]
SignersOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", help="Write the allowed-signers file here (default: standard output)."
    ),
]
LIST_COLUMNS = ("at", "kind", "name", "fingerprint", "by", "signed")


def signer(given: str | None, *, needed: bool = False):
    """The signing key named by --sign-with or the settings, its warning printed; None when none is."""
    from claimsdb.errors import BadQuery
    from claimsdb.trust import keys

    key = keys.signing_key(given)
    if key is None and needed:
        raise BadQuery(
            "this must be signed by a registered person: give --sign-with KEY (or set CLAIMS_SIGNING_KEY)"
        )
    if key is not None and key.warning:
        err_console.print(f"warning: {key.warning}", markup=False)
    if key is not None and key.public.security_key:
        err_console.print(
            f"signing with the security key {key.public.fingerprint}: touch it when it blinks",
            markup=False,
        )
    return key


@app.callback()
def people(
    ctx: typer.Context, db_: DbOption = None, fmt: FormatOption = OutputFormat.table
) -> None:
    """List the registry (what `claims people list` shows) when no command is given."""
    if ctx.invoked_subcommand is None:
        list_(db_, fmt)


@command(app, "list")
def list_(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Every row of the people registry: who was added with which key, removed, and who signed it.

    Example: claims people list
    """
    from claimsdb.trust import people as registry

    with db.session_of(db_) as session:
        rows = registry.listing(session)
        reg = registry.load(session)
    for problem in reg.problems:  # each row that grants nothing; then no re-read vouches
        err_console.print(f"warning: {problem}", markup=False)
    required = (
        f"signatures required since {reg.required_at[:19]}Z (by {reg.required_by})"
        if reg.required_at
        else "signatures not required: anyone who can run claims here can vouch"
    )
    emit(
        fmt,
        Output(
            {"rows": rows, "required_at": reg.required_at, "problems": reg.problems},
            LIST_COLUMNS,
            rows,
            lambda: emit_table(
                f"{len(reg.people())} person(s); {required}",
                ("when", "what", "name", "key", "by"),
                [
                    (r["at"][:19], r["kind"], r["name"], r["fingerprint"] or "", r["by"])
                    for r in rows
                ],
            ),
        ),
    )


@command(app, "add")
def add(
    name: NameArgument,
    key: KeyFileOption,
    sign_with: SignWithOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Register a person with an SSH public key. The first person is added freely; anyone after is added
    by a registered person, who signs the addition (--sign-with).

    Example: claims people add "Ada Lovelace" --key ~/.ssh/id_ed25519.pub
    """
    from claimsdb.trust import keys, sshsig
    from claimsdb.trust import people as registry

    public = keys.public_key(key)
    signing = signer(sign_with)
    with db.session_scope(db.open_engine(db_, create=False)) as session:
        row = registry.add(
            session,
            name,
            public,
            sign=signing.sign if signing else None,
            signed_with=signing.public if signing else None,
        )
    if public.security_key is False:
        exposure = sshsig.exposure(key.with_suffix("") if key.suffix == ".pub" else key)
        if exposure:
            err_console.print(f"warning: {exposure}", markup=False)
    emit_record(
        fmt,
        _shown(row),
        f"{row['name']} registered with {row['fingerprint']}"
        + (f" (signed by {row['actor']})" if row["signer"] else " (the first person, unsigned)"),
    )


@command(app, "remove")
def remove(
    name: NameArgument,
    fingerprint: FingerprintOption = None,
    sign_with: SignWithOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Remove a person's key (or all their keys and passkeys), signed by a registered person. Their
    re-reads signed before the removal still verify; none signed after it does.

    Example: claims people remove "Ada Lovelace" --sign-with ~/.ssh/id_ed25519
    """
    from claimsdb.trust import people as registry

    signing = signer(sign_with, needed=True)
    with db.session_scope(db.open_engine(db_, create=False)) as session:
        rows = registry.remove(
            session, name, fingerprint, sign=signing.sign, signed_with=signing.public
        )
    shown = [_shown(r) for r in rows]
    emit(
        fmt,
        Output(
            shown,
            tuple(shown[0]),
            shown,
            lambda: emit_table(
                f"removed {len(rows)} key(s) of {name}",
                ("key", "by"),
                [(r["fingerprint"], r["actor"]) for r in rows],
            ),
        ),
    )


@command(app, "require-signatures")
def require_signatures(
    sign_with: SignWithOption = None, db_: DbOption = None, fmt: FormatOption = OutputFormat.table
) -> None:
    """From now on a re-read vouches only when it is signed by the person it names, with a key registered
    to them then: export, lint, macros, the web view, MCP and `db check` all count so. Signed by a
    registered person. `claims people unsigned` lists the claims it stops.

    Example: claims people require-signatures --sign-with ~/.ssh/id_ed25519
    """
    from claimsdb.trust import people as registry

    signing = signer(sign_with, needed=True)
    with db.session_scope(db.open_engine(db_, create=False)) as session:
        row = registry.require(session, sign=signing.sign, signed_with=signing.public)
    emit_record(
        fmt,
        _shown(row),
        f"signatures are required from now on (signed by {row['actor']}, {row['signer']})",
    )


@command(app, "passkey")
def passkey(
    name: NameArgument,
    sign_with: SignWithOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Invite a person to register a passkey in the browser, signed by a registered person: prints a
    one-time link, valid for a day, to open on the address `claims serve` shows. Open it at
    http://localhost:PORT, not 127.0.0.1: a passkey belongs to a domain. Their re-reads recorded in the
    web view are then signed by the passkey.

    Example: claims people passkey "Grace Hopper" --sign-with ~/.ssh/id_ed25519
    """
    from claimsdb.trust import people as registry

    signing = signer(sign_with, needed=True)
    with db.session_scope(db.open_engine(db_, create=False)) as session:
        row, token = registry.invite(session, name, sign=signing.sign, signed_with=signing.public)
    path = f"/passkey?token={token}"
    expires = json.loads(row["key"])["expires"]
    record = {**_shown(row), "path": path, "expires": expires}
    said = (
        f"{row['name']} is invited to register a passkey (signed by {row['actor']}); until "
        f"{expires[:19]}Z, once, open\n  http://localhost:PORT{path}\n"
        "where PORT is the port `claims serve` listens on (localhost, not 127.0.0.1: a passkey "
        "needs a domain). Anyone with this link can register a passkey as them: give it to them only."
    )
    # typer.echo, not the console: a link is never wrapped
    emit(fmt, Output(record, tuple(record), [record], lambda: typer.echo(said)))


@command(app, "unsigned")
def unsigned(db_: DbOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """The verified claims whose re-read is not signed by the person it names (or whose signature does
    not verify): once signatures are required they vouch for nothing, and a person re-reads and signs
    them. Exit 1 when there is any.

    Example: claims people unsigned
    """
    from claimsdb.errors import ExitCode
    from claimsdb.trust import signatures

    with db.session_of(db_) as session:
        rows = signatures.unsigned(session)
    emit(
        fmt,
        Output(
            rows,
            ("key", "reason"),
            rows,
            lambda: emit_table(
                f"{len(rows)} verified claim(s) whose re-read is not signed",
                ("key", "why"),
                [(r["key"], r["reason"]) for r in rows],
            ),
        ),
    )
    if rows:
        raise typer.Exit(int(ExitCode.FINDINGS))


@command(app, "export-signers")
def export_signers(
    output: SignersOutputOption = None, db_: DbOption = None, fmt: FormatOption = OutputFormat.table
) -> None:
    """The registered keys as an allowed-signers file (git's gpg.ssh.allowedSignersFile, ssh-keygen -Y
    verify -f): one line per key, its person as the principal, for the namespaces claims signs in.

    Example: claims people export-signers -o allowed_signers
    """
    from claimsdb.trust import people as registry

    with db.session_of(db_) as session:
        lines = registry.allowed_signers(registry.load(session))
    text = "".join(line + "\n" for line in lines)
    if output is None or str(output) == "-":
        typer.echo(text, nl=False)
        return
    from claimsdb.userfiles import write_atomically

    write_atomically(output, text)
    emit_record(
        fmt, {"file": str(output), "keys": len(lines)}, f"{len(lines)} key(s) written to {output}"
    )


def _shown(row: dict) -> dict:
    return {k: row[k] for k in ("at", "kind", "name", "fingerprint", "actor", "signer")}


@command(app, "sign")
def sign(
    file: DataFileArgument,
    output: SignedOutputOption,
    sign_with: SignWithOption = None,
    db_: DbOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Sign the re-reads a data file records in your name: each claim's `reread` whose `by` is the person
    the signing key is registered to gets its `signature`, over what the import will record. Others'
    re-reads are left as they are. The file is read and checked as `claims import` reads it.

    Example: claims people sign data/rereads.json -o data/rereads.json --sign-with ~/.ssh/id_ed25519
    """
    import json

    from claimsdb.errors import BadQuery
    from claimsdb.trust import people as registry
    from claimsdb.trust import signatures
    from claimsdb.userfiles import check_writable, write_atomically

    check_writable(output)
    if not file.is_file():  # a FIFO would never end, a device never stop
        raise BadQuery(f"{file}: not a data file (not a regular file); nothing was written")
    signing = signer(sign_with, needed=True)
    with db.session_of(db_) as session:
        held = registry.load(session).current(signing.public.fingerprint)
    if held is None:
        raise BadQuery(
            f"{signing.public.fingerprint} is no registered person's key: see `claims people`"
        )
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadQuery(f"{file}: not a JSON data file ({exc}); nothing was written") from None
    signed, others = signatures.sign_data_file(doc, str(file), held.name, signing.sign)
    write_atomically(output, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    emit_record(
        fmt,
        {"file": str(output), "signed": len(signed), "others": len(others), "person": held.name},
        f"{output}: signed {len(signed)} re-read(s) by {held.name}"
        + (f"; {len(others)} by others left as they are" if others else ""),
    )
