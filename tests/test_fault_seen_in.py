"""Every fault model says where it was seen (issue 21): `Fault.seen_in` names the backend and version and
"measured here" or the upstream issue, or says "not seen; modelled as <why plausible>" (docs/fault_models.md).
A diagnosis names a fault to a vendor; without seen_in nobody can tell a known bug from a guess."""

from __future__ import annotations

import re

import pytest

from generator import families, faults

FAMILIES = tuple(sorted(families.FAMILIES))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_fault_says_where_it_was_seen(family):
    catalogue = faults.catalogue(family)
    assert catalogue, f"{family} has no fault models"
    missing = [f.name for f in catalogue if not (isinstance(f.seen_in, str) and f.seen_in.strip())]
    assert not missing, f"{len(missing)} of {len(catalogue)} fault models of {family} lack seen_in: {', '.join(missing)}"


# The names of kernels a runtime selects by CPU feature: a seen_in naming one says the fault shows on that path
# only (cast's "x86's cvtps2dq" or "x86 FTZ" name instructions and modes every x86 has: no kernel is selected).
KERNEL_PATH = re.compile(r"\b(AVX\w*|VNNI|NEON|SVE2?|AMX|SSE\d\w*|vpmaddubsw|VPDPBUSD|SDOT)\b", re.I)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_fault_seen_on_a_cpu_path_says_which(family):
    """Fault.cpu is set exactly where seen_in names a kernel chosen by CPU feature: the report and the gate
    label the items such a fault explains as depending on the CPU (a baseline belongs to a machine class)."""
    for f in faults.catalogue(family):
        named = KERNEL_PATH.search(f.seen_in)
        assert bool(f.cpu) == bool(named), (f"{f.name}: seen_in names {named.group(0)!r} but cpu is unset" if named
                                            else f"{f.name}: cpu {f.cpu!r} but seen_in names no CPU path")


def test_the_diagnosis_says_a_fault_depends_on_the_cpu():
    from runners.diagnose import cpu_paths, fault_whats

    name = "qlinear_matmul.int16_pair_saturation"
    assert fault_whats([name])[name].endswith("[depends on the CPU: x86-64 without VNNI]")
    assert cpu_paths([name, "qlinear_matmul.bias_ignored", "cast.ftz_result"]) == ["x86-64 without VNNI"]
