"""The MatMulNBits family (generator/families/matmul_nbits/): the contract, what the catalogue covers, the compare
each case states, the opconform backend passing every case written to disk, the kill matrix of the family's own
cases (every fault killed in every group where it applies and is not proven equivalent), and the hunt."""

from __future__ import annotations

import dataclasses

import pytest

from generator.families import matmul_nbits as fam
from generator.family import Family
from generator.kill_matrix import KillMatrix
from generator.reference import matmul_nbits as ref
from generator.serialize import case_files
from family_cases import generate, opconform_failures
from hunt_checks import assert_rebuilds, hunt_kills


@pytest.fixture(scope="module")
def cases():
    return generate(fam)


def test_the_family_follows_the_contract(cases):
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == "matmul_nbits" and fam.FAMILY.domain == ref.DOMAIN
    for c in cases.values():
        assert c.name.startswith("test_matmulnbits_") and c.meta["family"] == "matmul_nbits", c.name
        assert c.meta["spec"]["file"] == ref.SPEC_FILE and c.meta["domain"] == "com.microsoft", c.name
        imports = {o.domain: o.version for o in c.model.opset_import}
        assert imports == {"": fam.OPSET, "com.microsoft": 1}, c.name
        if c.kind == "node":  # never a blanket tolerance: the bound of the case's own dot products
            cmp = c.meta["compare"]
            assert cmp["mode"] == "dot" and cmp["abs_bound"] == 2 * (c.meta["params"]["K"] + c.meta["params"]["bias"])
        if c.kind == "negative":
            assert c.meta["error"] and c.meta["phase"] in ("prepare", "run"), c.name


def test_the_catalogue_covers_the_text(cases):
    params = [c.meta["params"] for c in cases.values() if c.kind == "node"]
    assert {p["bits"] for p in params} == set(ref.BITS)
    assert {p["zero_points"] for p in params} == {"none", "packed", "typed"}
    assert {p["t1"] for p in params} >= {"float32", "float16", "bfloat16"}
    assert {p["accuracy_level"] for p in params} >= {0, 1, 4}
    assert any(p["K"] % p["block_size"] for p in params) and any(p["block_size"] >= 512 for p in params)
    assert any(p["g_idx"] for p in params) and any(p["bias"] for p in params)
    assert any(p["N"] > 8 and p["N"] % 8 for p in params) and any(p["g_idx"] and p["K"] % p["block_size"]
                                                                   for p in params)
    probes = [c for c in cases.values() if c.kind == "probe"]
    assert [c.meta["undefined"] for c in probes] == [[ref.UNDEF_G_IDX]]
    negatives = {c.name.removeprefix("test_matmulnbits_negative_") for c in cases.values() if c.kind == "negative"}
    assert {"block_size_8", "block_size_24", "bits_1", "b_blob_size", "scales_shape", "zero_points_shape"} <= negatives


def test_each_judged_case_names_the_readings_it_rests_on(cases):
    """accuracy_level 0 (the sum in A's type), 4 (int8 A rounded to nearest) and g_idx rest on readings: each such
    node case's case.json says so; levels 1 .. 3 rest on the level's sentence."""
    for c in (c for c in cases.values() if c.kind == "node"):
        p, reading = c.meta["params"], c.meta.get("reading") or ""
        assert (ref.READING_G_IDX in reading) == p["g_idx"], c.name
        assert (ref.READING_LEVEL_0 in reading) == (p["accuracy_level"] == 0), c.name
        assert (ref.READING_INT8 in reading) == (p["accuracy_level"] == 4), c.name


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_fault_is_killed_where_it_can_differ(cases):
    matrix = KillMatrix(["matmul_nbits"])
    for c in cases.values():
        matrix.add(c)
    m = matrix.matrix()["matmul_nbits"]
    assert m["counts"]["survived"] == 0 and m["score"] == 1.0
    for fault in m["faults"]:
        assert any(row[fault]["status"] == "killed" for row in m["groups"].values()), fault


def test_the_suite_stays_small(cases):
    size = sum(len(data) for c in cases.values() for data in case_files(c).values())
    assert size < 1_500_000, size


def test_hunt_examples_rebuild_and_pass(tmp_path):
    from hypothesis import given, settings, HealthCheck
    drawn = []

    slices = fam.hunt(fam.OPSET)
    assert set(slices) == {"float32", "float32_g_idx", "float16", "float16_g_idx"}

    @settings(max_examples=12, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(slices["float32"] | slices["float16_g_idx"])
    def collect(example):
        drawn.append(example)

    collect()
    assert drawn and fam.hunt(fam.OPSET - 1) is None
    assert_rebuilds(fam.rebuild, drawn[:4])
    named = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(drawn[:6])]
    assert opconform_failures(named, tmp_path) == []


def test_hunt_draws_kill_every_fault_model():
    """100 draws of each slice kill every fault model (the hunt is biased toward them through its data kinds)."""
    from hypothesis import given, settings, HealthCheck
    from generator import faults
    drawn = []
    for strategy in fam.hunt(fam.OPSET).values():
        @settings(max_examples=100, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(example):
            drawn.append(example)
        collect()
    assert hunt_kills("matmul_nbits", drawn) == {f.name for f in faults.catalogue("matmul_nbits")}
