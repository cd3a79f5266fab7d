"""`claims serve`: the store in a browser, on this machine."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from claimsdb import db
from claimsdb.cli.options import (
    AllowFromOption,
    AllowLocalOption,
    DbOption,
    HostOption,
    LocalRootOption,
    PortOption,
    PublicNameOption,
    ServeReaderOption,
    ServeStrictOption,
    SourcesDirOption,
    local_root,
    snapshots_root,
)
from claimsdb.errors import BadQuery

if TYPE_CHECKING:
    from claimsdb.web.guard import Access


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port), so the URL printed is the real one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise BadQuery(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def serve(
    port: PortOption = 8421,
    host: HostOption = "127.0.0.1",
    allow_from: AllowFromOption = None,
    public_names: PublicNameOption = None,
    by: ServeReaderOption = None,
    strict: ServeStrictOption = False,
    sources_dir: SourcesDirOption = None,
    allow_local: AllowLocalOption = False,
    local_root_: LocalRootOption = None,
    db_: DbOption = None,
) -> None:
    """Serve the store in a browser: the stage grid, the claims, each claim's page, and a re-read queue.

    The queue walks through the claims the export gate would block, each beside the located passage of
    its page's latest snapshot (the claims whose figures were found there first), and records a re-read
    under the rules of `claims reread`. Its "Fetch the page now" button runs `claims verify` for one claim,
    under the same fetch policy: public addresses only unless --allow-local, local copies only inside
    --local-root (default: the database's folder), snapshots in --sources-dir. The server
    listens on 127.0.0.1 and answers loopback clients only (--allow-from widens that), and only requests
    sent to one of its names: localhost, 127.0.0.1, [::1], the --host address and each --public-name (so
    a web page whose name was made to resolve to this machine gets nothing); a write must come from one
    of its own pages. Ctrl-C stops it.

    Example: claims serve --host 0.0.0.0 --allow-from 192.168.1.0/24 --public-name 192.168.1.5 --by "Ada Lovelace"
    """
    from claimsdb.fetching.targets import FetchPolicy
    from claimsdb.web.app import Settings, create_app

    db.open_engine(
        db_, create=False
    )  # a missing database is an error here, not an empty store served
    root = snapshots_root(sources_dir, db_)
    names, access = _reach(host, allow_from or [], public_names or [])
    fetch_policy = FetchPolicy(allow_local=allow_local, local_root=local_root(local_root_, db_))
    app = create_app(
        Settings(
            db=db_,
            sources_dir=root,
            reader=by,
            strict=strict,
            access=access,
            fetch_policy=fetch_policy,
        )
    )
    sock = listen(host, port)
    _announce(host, sock.getsockname()[1], db_, root, access, allow_from or [], names)
    _run(app, sock)


def _reach(
    host: str, allow_from: list[str], public_names: list[str]
) -> tuple[list[tuple[str, int | None]], Access]:
    """The names other machines reach the server by, and who it answers; a bad one is refused by its
    flag."""
    from claimsdb.web.guard import Access, public_name

    try:
        names = [public_name(name) for name in public_names]
    except ValueError as exc:
        raise BadQuery(f"--public-name: {exc}") from None
    try:
        access = Access.build(host, allow_from, public_names)
    except ValueError as exc:
        raise BadQuery(f"--allow-from: {exc}") from None
    return names, access


def _announce(
    host: str,
    bound: int,
    db_: str | None,
    root: Path,
    access: Access,
    allow_from: list[str],
    names: list[tuple[str, int | None]],
) -> None:
    """Where the server listens, what it serves and who it answers; the other names it answers to, or
    how other machines get one."""
    from claimsdb.web.guard import origin_of

    shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "[::1]"}.get(
        host, f"[{host}]" if ":" in host else host
    )
    typer.echo(
        f"claims serve: http://{shown}:{bound}/  (database {db.describe_url(db.resolve_url(db_))}; "
        f"snapshots in {root / 'snapshots'}; "
        f"{'loopback clients only' if not access.networks else 'loopback and ' + ', '.join(allow_from)}; "
        "Ctrl-C stops)",
        err=False,
    )
    if names:
        typer.echo(
            f"  also at {', '.join(origin_of(name, at or bound) + '/' for name, at in names)}"
        )
    elif access.networks:
        typer.echo(
            f"  other machines reach it only by a name given with --public-name (this machine's LAN name "
            f"or address, like --public-name {socket.gethostname()}); it answers as "
            f"{', '.join(access.origins(bound))}",
            err=True,
        )


def _run(app: Any, sock: socket.socket, *, lifespan: str = "off") -> None:
    """Serve on the socket until Ctrl-C (`lifespan` "on" for an app that starts work in it: claims mcp
    --http's session manager)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
        server_header=False,
        lifespan=lifespan,
        timeout_graceful_shutdown=5,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except (
        KeyboardInterrupt
    ):  # uvicorn re-raises the Ctrl-C it stopped on: a stop asked for is a success
        pass
