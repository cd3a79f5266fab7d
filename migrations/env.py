"""Alembic environment: the package's own URL resolution, engine and metadata."""

from alembic import context
from sqlmodel import SQLModel

from claimsdb import models  # noqa: F401  (registers every table on SQLModel.metadata)
from claimsdb.db import make_engine, resolve_url

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    url = config.attributes.get("claimsdb_url") or resolve_url(None)
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("claimsdb migrations run online only: use `claims db upgrade`")
run_migrations_online()
