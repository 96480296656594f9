"""The MatMulIntegerToFloat family (generator/families/matmul_integer_to_float/): the contract, what the catalogue
covers, the bound each case states, the opconform backend passing every case written to disk, the kill matrix of
the family's own cases, and the hunt."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from generator.families import matmul_integer_to_float as fam
from generator.family import Family
from generator.kill_matrix import KillMatrix
from generator.reference import matmul_integer as mi
from generator.reference import matmul_integer_to_float as ref
from generator.serialize import case_files
from family_cases import generate, opconform_failures
from hunt_checks import assert_rebuilds, hunt_kills

FAMILY = "matmul_integer_to_float"


@pytest.fixture(scope="module")
def cases():
    return generate(fam)


def test_the_family_follows_the_contract(cases):
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == FAMILY and fam.FAMILY.domain == "com.microsoft"
    for c in cases.values():
        assert c.name.startswith("test_matmulintegertofloat_") and c.meta["family"] == FAMILY, c.name
        assert {o.domain: o.version for o in c.model.opset_import} == {"": fam.OPSET, "com.microsoft": 1}, c.name
        if c.kind == "node":  # never a blanket tolerance: the bound of the case's own products, its roundings stated
            cmp, p = c.meta["compare"], c.meta["params"]
            per_k = "k" in (p["a_zp"], p["a_scale"])
            k = max(np.shape(d[0])[-1] for d in c.inputs)
            terms = (k + 2 if per_k else 3) + int(p["bias"])
            assert cmp["mode"] == "dot" and cmp["abs_bound"] == 2 * terms, c.name
            assert cmp["accumulation"] == p["t3"] and cmp["operands"] == FAMILY, c.name
            assert ref.READING_FORMULA in c.meta["reading"], c.name
            assert (ref.READING_A_SCALE in c.meta["reading"]) == per_k, c.name
        if c.kind == "negative":
            assert c.meta["invalid"] and c.meta["phase"] == "run", c.name


def test_the_catalogue_covers_the_text(cases):
    params = [c.meta["params"] for c in cases.values() if c.kind == "node"]
    assert {(p["a_type"], p["b_type"]) for p in params} == {(a, b) for a in mi.INPUT_TYPES for b in mi.INPUT_TYPES}
    assert {p["a_zp"] for p in params} == {"absent", "tensor", "one", "k"}
    assert {p["b_zp"] for p in params} == {"absent", "tensor", "one", "column"}
    assert {p["a_scale"] for p in params} == {"tensor", "one", "k"} and {p["t3"] for p in params} == {"float", "float16"}
    assert {p["b_scale"] for p in params} == {"tensor", "one", "column"} and any(p["bias"] for p in params)
    assert any(len(p["b_shape"]) > 2 for p in params) and any(len(p["a_shape"]) == 4 for p in params)
    ks = {p["a_shape"][-1] for p in params}
    assert {0, 1, 33} <= ks and any(k % 2 for k in ks) and max(ks) > 2**15
    probes = [c for c in cases.values() if c.kind == "probe"]
    assert [c.meta["undefined"] for c in probes] == [[mi.UNDEF_ACC_INT32]]
    negatives = {c.name.removeprefix("test_matmulintegertofloat_negative_") for c in cases.values()
                 if c.kind == "negative"}
    assert {"a_zero_point_type", "a_scale_per_row", "b_scale_length", "bias_length", "k_mismatch"} <= negatives


def test_far_products_and_pairs_reach_their_ends(cases):
    """The far kind's products are 255 * 255 where the types allow; the pairs kind saturates int16 pairs."""
    c = cases["test_matmulintegertofloat_a_uint8_b_uint8"]
    a, b = c.inputs[2][0], c.inputs[2][1]
    za, zb = c.inputs[2][4], c.inputs[2][5]
    assert np.all(np.abs(a.astype(int) - int(za)) == 255) and np.all(np.abs(b.astype(int) - int(zb)) == 255)
    pairs = cases["test_matmulintegertofloat_u8_s8_int16_pairs"].inputs[0]
    raw = pairs[0][0, :2].astype(int) @ pairs[1][:2].astype(int)
    assert abs(raw[0]) > 2**15 - 1


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_fault_is_killed_where_it_can_differ(cases):
    matrix = KillMatrix([FAMILY])
    for c in cases.values():
        matrix.add(c)
    m = matrix.matrix()[FAMILY]
    assert m["counts"]["survived"] == 0 and m["score"] == 1.0
    for fault in m["faults"]:
        assert any(row[fault]["status"] == "killed" for row in m["groups"].values()), fault
    # the swamp companions (a partial sum past 2**24 units, then 64 products of 1) kill the K-order float32 sum
    swamps = [c for n, c in cases.items() if n.endswith(("_swamp", "_swamp_random"))]
    assert swamps and all(c.meta["params"]["t3"] == "float" for c in swamps)
    for c in swamps:
        assert c.inputs[0][0].shape[-1] > 2**24 // 65025, c.name
        assert f"{FAMILY}.accumulate_float32" in c.meta["kills"][0], c.name


def test_the_suite_stays_small(cases):
    size = sum(len(data) for c in cases.values() for data in case_files(c).values())
    assert size < 1_500_000, size


def test_hunt_examples_rebuild_and_pass(tmp_path):
    from hypothesis import HealthCheck, given, settings
    drawn = []
    slices = fam.hunt(fam.OPSET)
    assert set(slices) == {"float", "float16"} and fam.hunt(fam.OPSET - 1) is None

    @settings(max_examples=12, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(slices["float"] | slices["float16"])
    def collect(example):
        drawn.append(example)

    collect()
    assert_rebuilds(fam.rebuild, drawn[:4])
    named = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(drawn) if ex.case]
    assert named and opconform_failures(named[:6], tmp_path) == []


def test_hunt_draws_kill_the_fault_models():
    """150 draws of each slice kill every fault model but the swamp's (accumulate_float32 needs K past 258 terms of
    255 * 255; the catalogue's companions kill it)."""
    from hypothesis import HealthCheck, given, settings
    from generator import faults
    drawn = []
    for strategy in fam.hunt(fam.OPSET).values():
        @settings(max_examples=150, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(example):
            drawn.append(example)
        collect()
    want = {f.name for f in faults.catalogue(FAMILY)} - {f"{FAMILY}.accumulate_float32"}
    assert want <= hunt_kills(FAMILY, drawn)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_configurations_kill_their_groups_faults(seed):
    """A random configuration may found a group alone: its own data sets must kill every fault model there."""
    matrix = KillMatrix([FAMILY])
    for cfg in fam.random_configs(24, seed):
        for c in fam.cases(cfg, seed, ("random",)):
            matrix.add(c)
    assert matrix.matrix()[FAMILY]["counts"]["survived"] == 0
