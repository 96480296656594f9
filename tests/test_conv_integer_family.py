"""The ConvInteger family (generator/families/conv_integer/): its default cases written to disk pass on the opconform
backend, the sums beyond int32 go to the probes only, the negatives are refused for the reason they state, the
readings are named where a case rests on them, and the axes are there."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from generator.families import conv_integer as fam
from generator.kill_matrix import KillMatrix
from generator.reference import conv_integer as ref
from generator.reference import conv_integer_faults as F

from family_cases import generate, opconform_failures, opconform_results

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
    assert {"test_convinteger_opset11", f"test_convinteger_opset{NEWEST}", "test_convinteger_vector_tail",
            "test_convinteger_explicit_defaults", "test_convinteger_int32_max_overflow_probe",
            "test_convinteger_int32_min_overflow_probe", "test_convinteger_negative_group_channels"} <= names
    # a case per group, and per group its float32, SAME and (where it needs one) 1-D witness configurations
    witness = {n for n in names if n.startswith("test_convinteger_witness_")}
    for g in F.all_groups():
        stem = "test_convinteger_witness_" + F.key_of(*g).replace(" ", "_").replace("=", "_")
        assert {stem, stem + "_float32", stem + "_same"} <= witness, stem
    assert sum(c.kind == "negative" for c in cases.values()) == 12


def test_the_probes_hold_only_sums_beyond_int32(cases):
    probes = [c for c in cases.values() if c.kind == "probe"]
    assert sorted(c.name for c in probes) == ["test_convinteger_int32_max_overflow_probe",
                                              "test_convinteger_int32_min_overflow_probe"]
    for probe in probes:
        assert probe.outputs is None and probe.meta["undefined"] == [ref.UNDEF_ACC_INT32]
        ci = fam.ci_of("probe", probe.meta["params"])
        for inputs in probe.inputs:
            assert fam.expected(ci, inputs).mask().all()


def test_the_int32_ends_are_exact_and_defined(cases):
    """2**31 - 1 and -2**31 exactly: the text allows overflow only beyond 32 bits."""
    (y,), = cases["test_convinteger_int32_max"].outputs
    assert int(y.reshape(-1)[0]) == 2**31 - 1
    (y,), = cases["test_convinteger_int32_min"].outputs
    assert int(y.reshape(-1)[0]) == -(2**31)
    assert ref.READING_EXACT in cases["test_convinteger_int32_max"].meta["reading"]


def test_judged_cases_cite_the_reading_they_rest_on(cases):
    assert ref.READING_PADDING in cases["test_convinteger_example_with_padding"].meta["reading"]
    assert ref.READING_PADDING not in cases["test_convinteger_example_without_padding"].meta.get("reading", "")
    assert ref.READING_ONE_ELEMENT in cases["test_convinteger_zero_points_one_element"].meta["reading"]
    assert "qlinear-same-dilated" in cases["test_convinteger_same_upper_s2_d2_odd"].meta["reading"]
    assert "qlinear-same-dilated" not in cases["test_convinteger_same_upper_s2_d1_odd"].meta["reading"]


def test_the_examples_give_the_operators_outputs(cases):
    (y,), = cases["test_convinteger_example_without_padding"].outputs
    assert y.tolist() == [[[[12, 16], [24, 28]]]]
    (y,), = cases["test_convinteger_example_with_padding"].outputs
    assert y[0, 0, 0].tolist() == [1, 3, 5, 3] and not y[0, 1].any()


def test_the_pair_cases_saturate_int16_pairs(cases):
    """x at 255, w's channels -128, -128, 127, 127: a u8 x s8 kernel's adjacent pairs leave int16; the data set kills
    int16_pair_saturation."""
    case = dataclasses.replace(cases["test_convinteger_x_uint8_w_int8_int16_pairs"],
                               meta=dict(cases["test_convinteger_x_uint8_w_int8_int16_pairs"].meta))
    KillMatrix(["conv_integer"]).add(case)
    assert all("conv_integer.int16_pair_saturation" in k for k in case.meta["kills"])
    x, w = (np.asarray(v, np.int64) for v in case.inputs[0][:2])
    assert (x == 255).all() and w[0, :4, 0, 0].tolist() == [-128, -128, 127, 127]


def test_the_vector_tail_kills_every_k_tail(cases):
    case = dataclasses.replace(cases["test_convinteger_vector_tail"], meta=dict(cases["test_convinteger_vector_tail"].meta))
    KillMatrix(["conv_integer"]).add(case)
    killed = {name for per_set in case.meta["kills"] for name in per_set}
    assert {f"conv_integer.k_tail{w}_dropped" for w in F.TAIL_WIDTHS} <= killed
    channels = [np.shape(inputs[0])[1] for inputs in case.inputs]
    assert channels == list(case.meta["lengths"])


def test_explicit_defaults_write_every_attribute(cases):
    model = cases["test_convinteger_explicit_defaults"].model
    written = {a.name for a in model.graph.node[0].attribute}
    assert written == {"auto_pad", "group", "strides", "dilations", "pads", "kernel_shape"}


def test_negatives_are_refused_for_the_rule_they_break(cases, tmp_path):
    negatives = [c for c in cases.values() if c.kind == "negative"]
    for case, result in opconform_results(negatives, tmp_path):
        assert result.verdict == "pass", (case.name, result.message)
        assert case.meta["invalid"] and case.meta["phase"] == "run"


def test_omitted_x_zero_point_is_the_empty_name(cases):
    node = cases["test_convinteger_w_zero_point_only"].model.graph.node[0]
    assert list(node.input) == ["x", "w", "", "w_zero_point"]


def test_quick_profile_is_smaller_and_random_cases_follow_the_seed():
    quick = generate(fam, "quick")
    default = generate(fam, max_opset=NEWEST)
    assert not any("random" in n for n in quick) and sum(n.endswith("_random") for n in default) == 12
    other = generate(fam, "default", 1)
    a = [c for n, c in default.items() if n.endswith("_random")]
    b = [c for n, c in other.items() if n.endswith("_random")]
    assert any(not np.array_equal(x.inputs[0][0], y.inputs[0][0]) for x, y in zip(a, b) if x.inputs and y.inputs)


def test_no_case_below_opset_10():
    assert fam.work("default", 0, 9) == []
