"""Every fault model says where it was seen (issue 21): `Fault.seen_in` names the backend and version and
"measured here" or the upstream issue, or says "not seen; modelled as <why plausible>" (docs/fault_models.md).
A diagnosis names a fault to a vendor; without seen_in nobody can tell a known bug from a guess."""

from __future__ import annotations

import pytest

from generator import families, faults

FAMILIES = tuple(sorted(families.FAMILIES))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_fault_says_where_it_was_seen(family):
    catalogue = faults.catalogue(family)
    assert catalogue, f"{family} has no fault models"
    missing = [f.name for f in catalogue if not (isinstance(f.seen_in, str) and f.seen_in.strip())]
    assert not missing, f"{len(missing)} of {len(catalogue)} fault models of {family} lack seen_in: {', '.join(missing)}"
