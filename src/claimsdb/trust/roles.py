"""Who may do what on a team's PostgreSQL store (`claims db grant`).

- a **writer** imports, adds and records re-reads, retags and status changes: it may insert into every
  table and update or delete only what imports rewrite (claims' cached columns, sources, quantities,
  evidence and figures). It may not update or delete events, snapshots, verifications, tags, anchors (the
  heads of the history `claims db anchor` recorded) or the people registry, and, not owning the tables, it cannot drop or disable
  their triggers;
- a **reader** may only read.
Roles are created by the database's administrator (with their logins and passwords); this grants them
their rights on the store's tables, as the owner who ran the migrations.
"""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlmodel import Session

from claimsdb.errors import BadQuery, DatabaseProblem, InvalidField

ACCESS = ("writer", "reader")
ROLE_PATTERN = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
TABLES = (
    "tag",
    "source",
    "quantity",
    "claim",
    "evidence",
    "figure",
    "figure_number",
    "event",
    "snapshot",
    "verification",
    "anchor",
    "person",
    "definition",
)
WRITER_UPDATES = ("claim", "source", "quantity")
WRITER_DELETES = ("evidence", "figure", "figure_number")


def grant(session: Session, role: str, access: str) -> list[str]:
    """Give `role` the rights of a writer or a reader; returns the statements run."""
    if session.get_bind().dialect.name != "postgresql":
        raise DatabaseProblem(
            "roles are PostgreSQL's: a SQLite store's access is its file's permissions"
        )
    if access not in ACCESS:
        raise InvalidField("access", f"must be one of: {', '.join(ACCESS)}")
    if not ROLE_PATTERN.match(role):
        raise BadQuery(f"{role!r} is not a role name: lowercase letters, digits and '_'")
    if (
        session.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
        is None
    ):
        raise BadQuery(
            f"no role {role!r}: create it first (CREATE ROLE {role} LOGIN PASSWORD '...')"
        )
    database = session.execute(text("SELECT current_database()")).scalar()
    everything = ", ".join((*TABLES, "alembic_version"))
    statements = [
        f"REVOKE ALL ON {everything} FROM {role}",
        f'GRANT CONNECT ON DATABASE "{database}" TO {role}',
        f"GRANT USAGE ON SCHEMA public TO {role}",
        f"GRANT SELECT ON {everything} TO {role}",
    ]
    if access == "writer":
        statements += [
            f"GRANT INSERT ON {', '.join(TABLES)} TO {role}",
            f"GRANT UPDATE ON {', '.join(WRITER_UPDATES)} TO {role}",
            f"GRANT DELETE ON {', '.join(WRITER_DELETES)} TO {role}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        ]
    for sql in statements:
        session.execute(text(sql))
    return statements
