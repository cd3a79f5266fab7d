"""Who may do what on a team's PostgreSQL store (`claims db grant`).

- a **writer** imports, adds and records re-reads, retags and status changes: it may insert into every
  table and update or delete only what imports rewrite (claims' cached columns, sources, quantities,
  evidence and figures). It may not update or delete events, snapshots, verifications, tags, anchors (the
  heads of the history `claims db anchor` recorded) or the people registry, and, not owning the tables, it cannot drop or disable
  their triggers;
- a **reader** may only read.
Roles are created by the database's administrator (with their logins and passwords); this grants them
their rights on the store's tables, as the owner who ran the migrations. PostgreSQL answers a GRANT or
REVOKE by someone who does not own the tables with a warning, not an error, and changes nothing: so the
rights are read back afterwards, and a role that did not get exactly its access is an error (the
transaction is rolled back).
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
    _ensure_granted(session, role, access)
    return statements


def _expected(access: str) -> set[tuple[str, str]]:
    rights = {(t, "SELECT") for t in (*TABLES, "alembic_version")}
    if access == "writer":
        rights |= {(t, "INSERT") for t in TABLES}
        rights |= {(t, "UPDATE") for t in WRITER_UPDATES}
        rights |= {(t, "DELETE") for t in WRITER_DELETES}
    return rights


def _ensure_granted(session: Session, role: str, access: str) -> None:
    """DatabaseProblem unless `role` now holds exactly the rights of `access` on the tables (granted to
    it by name), can connect and use the schema, and (a writer) use the sequences."""
    tables = list((*TABLES, "alembic_version"))
    held = {
        (table, privilege)
        for table, privilege in session.execute(
            text(
                "SELECT c.relname, a.privilege_type FROM pg_class c "
                "CROSS JOIN LATERAL aclexplode(c.relacl) a "
                "WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY(:tables) "
                "AND a.grantee = CAST(:role AS regrole)"
            ),
            {"tables": tables, "role": role},
        )
    }
    usable = session.execute(
        text(
            "SELECT has_database_privilege(:role, current_database(), 'CONNECT') "
            "AND has_schema_privilege(:role, 'public', 'USAGE') "
            "AND (:reader OR NOT EXISTS (SELECT 1 FROM pg_sequences s WHERE s.schemaname = 'public' "
            "AND NOT has_sequence_privilege(:role, format('%I.%I', s.schemaname, s.sequencename), "
            "'USAGE')))"
        ),
        {"role": role, "reader": access == "reader"},
    ).scalar()
    if held == _expected(access) and usable:
        return
    me, owner = session.execute(
        text(
            "SELECT current_user, (SELECT tableowner FROM pg_tables "
            "WHERE schemaname = 'public' AND tablename = 'claim')"
        )
    ).one()
    if me != owner:
        raise DatabaseProblem(
            f"{me} cannot grant: PostgreSQL granted and revoked nothing (it only warns when someone "
            f"who does not own the tables grants); run it as the tables' owner ({owner}); "
            "nothing was changed"
        )
    raise DatabaseProblem(
        f"{role} did not get exactly the rights of a {access} (PostgreSQL left them otherwise); "
        "nothing was changed"
    )
