"""The MatMulInteger family (generator/families/matmul_integer/): its default cases written to disk pass on the
opconform backend, the undefined elements go to the probe only, the negatives are refused for the reason they
state, and the hunt strategy's draws rebuild and kill the fault models."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest

from generator.families import matmul_integer as fam
from generator.kill_matrix import KillMatrix
from generator.reference import matmul_integer as ref
from generator.reference import matmul_integer_faults as F

from family_cases import generate, opconform_failures, opconform_results
from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples


NEWEST = 28  # gen-cases' default --max-opset


@pytest.fixture(scope="module")
def cases():
    return generate(fam, max_opset=NEWEST)


def test_the_default_suite_passes_on_the_opconform_backend(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_catalogue_entry_and_the_axes_make_cases(cases):
    names = set(cases)
    for entry in fam.CATALOGUE:
        assert f"{fam.FAMILY.prefix}_{entry}" in names, entry
    assert {"test_matmulinteger_opset11", "test_matmulinteger_int32_ends_probe",
            "test_matmulinteger_negative_k_mismatch"} <= names
    # a 2-D case per group, a 1-D A case where a_zero_point is not per row, a 1-D B one where b's is not per column
    witness_names = {n for n in names if n.startswith("test_matmulinteger_witness_")}
    groups = F.all_groups()
    one_d = sum(g[2] != "row" for g in groups) + sum(g[3] != "column" for g in groups)
    assert len(witness_names) == len(groups) + one_d
    assert {n for n in witness_names if n.endswith("_a_1d")} == {
        "test_matmulinteger_witness_" + F.key_of(*g).replace(" ", "_").replace("=", "_") + "_a_1d"
        for g in groups if g[2] != "row"}
    assert sum(c.kind == "negative" for c in cases.values()) == 7


def test_the_probe_holds_only_sums_beyond_int32_and_states_no_expectation(cases):
    probes = [c for c in cases.values() if c.kind == "probe"]
    assert [c.name for c in probes] == ["test_matmulinteger_int32_ends_probe"]
    (probe,) = probes
    assert probe.outputs is None and probe.meta["undefined"] == [ref.UNDEF_ACC_INT32]
    for inputs in probe.inputs:
        assert fam.expected(fam.as_reference(fam.MM(a_zp="tensor", b_zp="column"), inputs)).mask().all()


def test_judged_cases_cite_the_reading_they_rest_on(cases):
    """The int32 ends rest on READING_EXACT (partial sums may leave int32), [1] zero points on READING_ONE_ELEMENT;
    a small case rests on the text alone."""
    assert ref.READING_EXACT in cases["test_matmulinteger_int32_ends"].meta["reading"]
    assert ref.READING_ONE_ELEMENT in cases["test_matmulinteger_zero_points_one_element"].meta["reading"]
    assert "reading" not in cases["test_matmulinteger_schema_example"].meta


@pytest.mark.parametrize("name", ["test_matmulinteger_u8_s8_int16_pairs", "test_matmulinteger_u8_s8_int16_pairs_odd_k"])
def test_the_pair_cases_saturate_where_the_kernel_pairs(cases, name):
    """The raw products of K indices 2j, 2j + 1 (x86 VPMADDUBSW's pairs, an odd K's last index with a zero) leave int16
    in columns 0 and 1, none in column 2; a pairing shifted by one, (2j + 1, 2j + 2), saturates in column 2 and not in
    column 1. The data set kills int16_pair_saturation."""
    case = dataclasses.replace(cases[name], meta=dict(cases[name].meta))
    KillMatrix(["matmul_integer"]).add(case)
    assert "matmul_integer.int16_pair_saturation" in case.meta["kills"][0]
    a, b = (np.asarray(v, np.int64) for v in case.inputs[0][:2])
    p = a[0][:, None] * b  # [K, N]: a = 255 everywhere, so one row of A says it all
    k = len(p)
    leaves = lambda s: (s > 2**15 - 1) | (s < -(2**15))  # noqa: E731
    kernel = leaves(p[0:k - 1:2] + p[1::2])
    shifted = leaves(p[1:k - 1:2] + p[2::2])
    assert kernel[:, :2].all() and not kernel[:, 2].any() and not leaves(p[-1:]).any()
    assert shifted[:, 2].all() and not shifted[:, 1].any()


def test_negatives_are_refused_for_the_rule_they_break(cases, tmp_path):
    negatives = [c for c in cases.values() if c.kind == "negative"]
    for case, result in opconform_results(negatives, tmp_path):
        assert result.verdict == "pass", (case.name, result.message)
        assert case.meta["invalid"] and case.meta["phase"] == "run"


def test_quick_profile_is_smaller_and_random_cases_follow_the_seed():
    quick = generate(fam, "quick")
    default = generate(fam, max_opset=NEWEST)
    assert not any("random" in n for n in quick) and sum("random" in n for n in default) == 4
    other = generate(fam, "default", 1)
    a = [c for n, c in default.items() if n.endswith("_random")]
    b = [c for n, c in other.items() if n.endswith("_random")]
    assert any(not np.array_equal(x.inputs[0][0], y.inputs[0][0]) for x, y in zip(a, b))


def test_no_case_below_opset_10():
    assert fam.work("default", 0, 9) == []


@pytest.fixture(scope="module")
def examples(hypothesis_home):
    from hypothesis import strategies as st

    slices = fam.hunt(fam.OPSET)
    assert set(slices) == {"a_zp_per_tensor", "a_zp_absent", "a_zp_per_row"}
    return draw_examples(st.one_of(*slices.values()), 80, zlib.crc32(b"matmul_integer"))


def test_hunt_examples_rebuild_and_pass_on_the_opconform_backend(examples, tmp_path):
    assert len(examples) == 80
    assert_rebuilds(fam.rebuild, examples[::6])
    judged = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(examples[::6])
              if ex.case is not None]
    assert judged and opconform_failures(judged, tmp_path) == []


def test_hunt_draws_kill_most_fault_models(examples):
    """The draws reach every zero-point form, type pair and arithmetic boundary the faults need; a long K (the
    float32 sum) and the empty-name refusal are rarer, so only most are required here. The saturating int32
    accumulator needs K >= 33026 (a partial sum beyond int32), beyond the hunt's K: out of its reach."""
    killed = hunt_kills("matmul_integer", examples)
    reachable = {f.name for f in F.FAULTS} - {"matmul_integer.accumulate_int32_saturating"}
    assert len(killed & reachable) >= len(reachable) - 2, sorted(reachable - killed)


def test_empty_operands_and_2d_against_batched(cases):
    """K = 0: Y is zeros whatever the zero points; M = 0 / N = 0: empty Y; a 2-D operand against a batched one."""
    k0 = cases["test_matmulinteger_k_0"]
    (inputs,), ((y,),) = k0.inputs, k0.outputs
    assert y.shape == (3, 4) and not y.any() and int(inputs[2]) != 0 and int(inputs[3]) != 0
    assert cases["test_matmulinteger_m_0"].outputs[0][0].shape == (0, 3)
    assert cases["test_matmulinteger_n_0"].outputs[0][0].shape == (3, 0)
    assert cases["test_matmulinteger_a_2d_b_batched"].outputs[0][0].shape == (2, 1, 3, 5)
    assert cases["test_matmulinteger_a_batched_b_2d"].outputs[0][0].shape == (1, 2, 3, 5)


def test_the_saturating_witnesses_rest_on_the_exact_reading(cases):
    """A witness case whose data sets sum long K (partial sums beyond int32: accumulate_int32_saturating's) carries
    READING_EXACT, though its declared K is symbolic: one per group where the fault can differ (35 of 36)."""
    long_k = [name for name, case in cases.items() if name.startswith("test_matmulinteger_witness_") and any(
        "matmul_integer.accumulate_int32_saturating" in w for w in case.meta["witnesses"])]
    assert len(long_k) == len(F.all_groups()) - 1
    for name in long_k:
        assert ref.READING_EXACT in cases[name].meta["reading"], name
