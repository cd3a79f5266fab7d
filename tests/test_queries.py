"""queries.ClaimFilter: validated once, when made, naming the field (each door names it its own way)."""

from __future__ import annotations

import pytest

from claimsdb.errors import BadQuery, InvalidField
from claimsdb.queries import ClaimFilter


@pytest.mark.parametrize(
    "field, value, known",
    [
        ("trust", "certain", "verified, secondary, unverified"),
        ("status", "any", "active, superseded, withdrawn"),
    ],
)
def test_a_filter_with_an_unknown_trust_or_status_is_refused_naming_its_field(field, value, known):
    with pytest.raises(InvalidField) as refused:
        ClaimFilter(**{field: value})
    assert refused.value.field == field and isinstance(refused.value, BadQuery)
    assert refused.value.message == f"{field} must be one of: {known}"
    assert refused.value.named(f"--{field}") == f"--{field} must be one of: {known}"


def test_a_filter_of_known_values_is_made_as_given():
    chosen = ClaimFilter(tag="paper", trust="verified", status="active", search="H100")
    assert (chosen.trust, chosen.status, chosen.search) == ("verified", "active", "H100")
    assert ClaimFilter() == ClaimFilter(trust=None, status=None)
