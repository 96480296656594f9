"""The DynamicQuantizeMatMul family (generator/families/dynamic_quantize_matmul/): the contract, what the catalogue
covers, the bound each case states, A's kinds on the quantization grid, the opconform backend passing every case
written to disk, the kill matrix of the family's own cases, and the hunt."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from generator.families import dynamic_quantize_matmul as fam
from generator.families.dynamic_quantize_matmul import config
from generator.family import Family
from generator.kill_matrix import KillMatrix
from generator.reference import dynamic_quantize_linear as dql
from generator.reference import dynamic_quantize_matmul as ref
from generator.serialize import case_files
from family_cases import generate, opconform_failures
from hunt_checks import assert_rebuilds, hunt_kills

FAMILY = "dynamic_quantize_matmul"


@pytest.fixture(scope="module")
def cases():
    return generate(fam)


def test_the_family_follows_the_contract(cases):
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == FAMILY and fam.FAMILY.domain == "com.microsoft"
    for c in cases.values():
        assert c.name.startswith("test_dynamicquantizematmul_") and c.meta["family"] == FAMILY, c.name
        if c.kind == "node":
            cmp, p = c.meta["compare"], c.meta["params"]
            k = max(np.shape(d[0])[-1] for d in c.inputs)
            assert cmp["mode"] == "dot" and cmp["abs_bound"] == 2 * (k + 2 + int(p["bias"])), c.name
            assert cmp["accumulation"] == "float" and c.meta["reading"] == ref.READING_A_QUANT, c.name


def test_the_catalogue_covers_the_text(cases):
    params = [c.meta["params"] for c in cases.values() if c.kind == "node"]
    assert {p["b_type"] for p in params} == {"int8", "uint8"} and any(p["bias"] for p in params)
    assert {p["b_zp"] for p in params} == {"absent", "tensor", "one", "column"}
    assert {p["b_scale"] for p in params} == {"tensor", "one", "column"}
    assert any(len(p["b_shape"]) > 2 for p in params) and any(len(p["a_shape"]) == 4 for p in params)
    undefined = sorted(r for c in cases.values() if c.kind == "probe" for r in c.meta["undefined"])
    assert set(undefined) == {dql.UNDEF_EMPTY, dql.UNDEF_X_NAN, dql.UNDEF_SCALE_ZERO}
    negatives = {n.removeprefix("test_dynamicquantizematmul_negative_") for n, c in cases.items()
                 if c.kind == "negative"}
    assert {"a_float16", "b_int16", "b_scale_length", "bias_length", "k_mismatch"} <= negatives


@pytest.mark.parametrize("kind", ["grid", "positive", "negative", "pairs"])
def test_a_on_the_grid_leaves_no_quantization_allowance(kind):
    """A of these kinds quantizes exactly: qerr is 0 and the bound is the float32 roundings' alone."""
    cfg = fam.Config("x", a_shape=(3, 7), b_shape=(7, 4), bias=True)
    import generator.sampling as sampling
    data = config.draw(cfg, sampling.Stream(1), kind)
    _, _, qerr = ref.dot_terms(config.as_reference(cfg, data), {})
    assert np.all(qerr == 0), kind
    a = data[0]
    if kind == "positive":
        assert a.min() > 0
    if kind == "negative":
        assert a.max() < 0


def test_truncated_a_sits_three_quarters_of_a_step_over_the_grid():
    import generator.sampling as sampling
    cfg = fam.Config("x", a_shape=(3, 7), b_shape=(7, 4))
    a, b, b_s, b_zp = config.draw(cfg, sampling.Stream(2), "truncated")
    _, scale, _ = ref.quantized_a(a).outputs
    frac = np.mod(a.astype(np.float64) / float(scale), 1).reshape(-1)[2:]
    assert float(scale) == config.STEP and np.all(frac == 0.75)
    assert np.all(b.astype(int) > int(b_zp))


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


def test_the_suite_stays_small(cases):
    size = sum(len(data) for c in cases.values() for data in case_files(c).values())
    assert size < 1_000_000, size


def test_hunt_examples_rebuild_pass_and_kill(tmp_path):
    from hypothesis import HealthCheck, given, settings
    from generator import faults
    drawn = []
    slices = fam.hunt(fam.OPSET)
    assert set(slices) == {"int8", "uint8"} and fam.hunt(fam.OPSET - 1) is None
    for strategy in slices.values():
        @settings(max_examples=100, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(example):
            drawn.append(example)
        collect()
    assert_rebuilds(fam.rebuild, drawn[:4])
    named = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(drawn) if ex.case]
    assert opconform_failures(named[:6], tmp_path) == []
    a_side = {f.name for f in faults.catalogue(FAMILY) if f.name.split(".")[1].startswith("a_")}
    assert a_side <= hunt_kills(FAMILY, drawn)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_configurations_kill_their_groups_faults(seed):
    """A random configuration may found a group alone: its own data sets must kill every fault model there."""
    matrix = KillMatrix([FAMILY])
    for cfg in fam.random_configs(24, seed):
        for c in fam.cases(cfg, seed, ("random",)):
            matrix.add(c)
    assert matrix.matrix()[FAMILY]["counts"]["survived"] == 0
