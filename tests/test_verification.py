"""verification's place among the layers: a domain module, below every door."""

from __future__ import annotations

import pytest

from claimsdb import provenance, selection, verification
from tests.test_integrity import claimsdb_imports


def test_verification_and_the_reread_never_import_a_door():
    """`claims verify --unverified` checks the re-read queue's claims through claimsdb.selection, the
    domain's selection the web's pages use too: no domain module reaches up into web/ or cli/."""
    for module in (verification, provenance, selection):
        doors = {
            m for m in claimsdb_imports(module) if m.startswith(("claimsdb.web", "claimsdb.cli"))
        }
        assert doors == set(), module.__name__
    assert "claimsdb.selection" in claimsdb_imports(verification)


def test_a_plan_of_nothing_names_the_field_not_a_flag(engine):
    from claimsdb import db
    from claimsdb.errors import InvalidField

    with db.session_scope(engine) as session, pytest.raises(InvalidField) as refused:
        verification.plan(session, [])
    assert refused.value.field == "selection" and "--" not in refused.value.message
