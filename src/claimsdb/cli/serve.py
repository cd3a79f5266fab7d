"""`claims serve`: the store in a browser, on this machine."""

from __future__ import annotations

import socket
from typing import Annotated, Optional

import typer

from claimsdb import db
from claimsdb.cli.options import DbOption, SourcesDirOption, snapshots_root
from claimsdb.errors import BadQuery


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
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port to listen on (0: any free port; the URL is printed).")] = 8421,
    host: Annotated[str, typer.Option("--host", help="Address to listen on. Default: 127.0.0.1, this machine only.")] = "127.0.0.1",
    allow_from: Annotated[Optional[list[str]], typer.Option("--allow-from", help="Also answer clients from this network (192.168.1.0/24) or address; repeatable. Default: loopback clients only.", show_default=False)] = None,
    by: Annotated[Optional[str], typer.Option("--by", help="Record every re-read as this person. Default: the browser asks on the first visit (never guessed).", show_default=False)] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Only verified tags are paper-safe (the queue then holds secondary claims too).")] = False,
    sources_dir: SourcesDirOption = None,
    db_: DbOption = None,
) -> None:
    """Serve the store in a browser: the stage grid, the claims, each claim's page, and a re-read queue.

    The queue walks through the claims the export gate would block, each beside the located passage of
    its page's latest snapshot, and records a re-read under the rules of `claims reread`. The server
    listens on 127.0.0.1 and answers loopback clients only (--allow-from widens that); a write must
    come from one of its own pages. Ctrl-C stops it.

    Example: claims serve --port 8421 --by "Ada Lovelace"
    """
    import uvicorn

    from claimsdb.web.app import Settings, create_app
    from claimsdb.web.guard import Access

    db.open_engine(db_, create=False)  # a missing database is an error here, not an empty store served
    root = snapshots_root(sources_dir, db_)
    try:
        access = Access.build(host, allow_from or ())
    except ValueError as exc:
        raise BadQuery(f"--allow-from: {exc}") from None
    try:
        app = create_app(Settings(db=db_, sources_dir=root, reader=by, strict=strict, access=access))
    except ValueError as exc:
        raise BadQuery(str(exc)) from None
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"claims serve: http://{shown}:{bound}/  (database {db.describe_url(db.resolve_url(db_))}; "
               f"snapshots in {root / 'snapshots'}; "
               f"{'loopback clients only' if not access.networks else 'loopback and ' + ', '.join(allow_from or ())}; "
               "Ctrl-C stops)", err=False)
    config = uvicorn.Config(app, log_level="warning", access_log=False, proxy_headers=False, server_header=False,
                            lifespan="off", timeout_graceful_shutdown=5)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it stopped on: a stop asked for is a success
        pass
