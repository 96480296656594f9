"""Issue 21 for Cast: the axes of generation (explicit defaults, NaN payloads, vector tails, opset boundaries,
uint64 double rounding), the fault models of the causes the baseline left unexplained, and the readings."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from generator import axes, dtypes, faults, witness
from generator.families import cast as family
from generator.reference import cast as ref
from generator.reference.cast_reasons import READING_STRING_BEYOND_DOUBLE, READING_STRING_NEGATIVE_INF
from generator.reference import cast_faults
from generator.serialize import write_case
from generator.witness import cast as search

FAULTS = {f.name: f for f in cast_faults.FAULTS}
CATALOGUE = witness.load("cast")["groups"]


def _variant(src: str, to: str, saturate=None, round_mode=None) -> family.Variant:
    for v in family.variants(family.NEWEST_CAST):
        if (v.src.name, v.to.name, v.saturate, v.round_mode) == (src, to, saturate, round_mode):
            return v
    raise KeyError((src, to, saturate, round_mode))


def _cases(fn, v: family.Variant) -> dict:
    ctx = family.Context(family.PROFILES["default"], 0, family.NEWEST_CAST, CATALOGUE)
    return {c.name: c for c in fn(family.CAST, v, ctx)}


def _kills(case, name: str) -> bool:
    """Does some data set of the case tell the fault from its expected outputs (the kill matrix's test)?"""
    types = [dtypes.get(case.model.graph.output[0].type.tensor_type.elem_type)]
    for inputs, expected in zip(case.inputs, case.outputs):
        out = faults.fault_outputs(FAULTS[name], case.model, inputs, case.meta)
        if faults.differs(expected, out, types, case.meta["compare"]):
            return True
    return False


def _attrs(model: onnx.ModelProto) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in model.graph.node[0].attribute}


# ---------------------------------------------------------------------------------------
# explicit defaults
# ---------------------------------------------------------------------------------------
def test_a_present_saturate_read_as_0_is_killed_only_by_a_model_that_writes_it():
    v = _variant("float", "float8e4m3fn", True)
    (case,) = _cases(family.explicit_defaults, v).values()
    assert case.name == "test_cast_float32_to_float8e4m3fn_explicit_defaults"
    assert _attrs(case.model) == {"to": v.to.onnx, "saturate": 1}  # at Cast-19, its first opset with saturate
    assert case.meta["opset"] == 19 and case.meta["group_opset"] == 19
    assert cast_faults.group_key(case.meta) == "float->float8e4m3fn saturate=1 opset=19"
    assert _kills(case, "cast.present_saturate_read_as_0")
    fault = FAULTS["cast.present_saturate_read_as_0"]
    x = np.array([1000.0], np.float32)
    assert float(fault.fn([x], v.attrs, 19, [v.src])[0][0]) == 448.0  # the attribute left out: read right


def test_e8m0_writes_round_mode_up_and_kills_a_present_round_mode_read_as_nearest():
    v = _variant("float", "float8e8m0", True, "up")
    (case,) = _cases(family.explicit_defaults, v).values()
    assert _attrs(case.model)["round_mode"] == b"up" and case.meta["opset"] == 24
    assert _kills(case, "cast.present_round_mode_as_nearest")


def test_a_saturate_applied_to_float16_is_killed_where_the_model_writes_saturate():
    v = _variant("float", "float16")
    (case,) = _cases(family.explicit_defaults, v).values()
    assert _attrs(case.model)["saturate"] == 1 and case.meta["opset"] == 19 and case.meta["group_opset"] == 13
    assert _kills(case, "cast.present_saturate_beyond_float8")


def test_targets_no_present_attribute_fault_touches_get_no_explicit_model():
    assert not _cases(family.explicit_defaults, _variant("float", "int8"))


# ---------------------------------------------------------------------------------------
# NaN payloads
# ---------------------------------------------------------------------------------------
def test_nan_payloads_reach_the_file_bit_for_bit_and_kill_add_and_shift(tmp_path):
    v = _variant("float", "bfloat16")
    (case,) = _cases(family.nan_payloads, v).values()
    _, want = axes.nan_values("float")
    write_case(case, tmp_path)
    tensor = onnx.load_tensor(str(tmp_path / "node" / case.name / "test_data_set_0" / "input_0.pb"))
    got = numpy_helper.to_array(tensor)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()  # signalling NaNs not quieted
    assert _kills(case, "cast.bf16_round_bias_nan")
    assert _kills(case, "cast.snan_as_overflow")


def test_add_and_shift_turns_a_low_payload_nan_into_inf():
    fault = FAULTS["cast.bf16_round_bias_nan"]
    x = np.array([0x7F800001, 0x7FC00000], np.uint32).view(np.float32)
    y = fault.fn([x], {"to": onnx.TensorProto.BFLOAT16}, 19, [dtypes.get("float")])[0]
    assert np.isinf(float(y[0])) and np.isnan(float(y[1]))


def test_nan_payloads_only_where_nan_has_a_stated_result():
    assert not _cases(family.nan_payloads, _variant("float", "int32"))
    assert not _cases(family.nan_payloads, _variant("float", "float4e2m1"))
    assert _cases(family.nan_payloads, _variant("float16", "bool"))


# ---------------------------------------------------------------------------------------
# vector tails
# ---------------------------------------------------------------------------------------
def test_vector_tail_is_one_symbolic_model_with_the_decisive_elements_last():
    v = _variant("float", "float8e4m3fn", True)
    (case,) = _cases(family.vector_tail, v).values()
    dim = case.model.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == "n"
    lengths = [inputs[0].size for inputs in case.inputs]
    assert lengths == list(axes.VECTOR_LENGTHS_SHORT)
    longest = case.inputs[-1][0]
    assert (longest[:8] == 1).all() and not (longest[-1] == 1)
    assert case.meta["group_opset"] if "group_opset" in case.meta else True
    assert _kills(case, "cast.via_float16")


def test_vector_tail_covers_packed_sub_byte_targets():
    (case,) = _cases(family.vector_tail, _variant("float", "int4")).values()
    assert any(inputs[0].size % 2 == 1 for inputs in case.inputs)


# ---------------------------------------------------------------------------------------
# opset boundaries
# ---------------------------------------------------------------------------------------
def test_fnuz_inf_row_switched_on_at_23_is_killed_at_cast_23():
    v = _variant("float", "float8e4m3fnuz", True)
    cases = _cases(family.opset_boundaries, v)
    c23, c25 = cases["test_cast_float32_to_float8e4m3fnuz_inf_opset23"], cases[
        "test_cast_float32_to_float8e4m3fnuz_inf_opset25"]
    assert cast_faults.group_key(c23.meta).endswith("opset=19") and cast_faults.group_key(c25.meta).endswith("opset=24")
    assert _kills(c23, "cast.fnuz_inf_rule_at_23")
    assert not _kills(c25, "cast.fnuz_inf_rule_at_23")
    assert _kills(c23, "cast.fnuz_inf_saturates_before_24")


def test_a_type_introduced_at_a_change_gets_the_opset_above():
    cases = _cases(family.opset_boundaries, _variant("float", "int4"))
    assert "test_cast_float32_to_int4_opset22" in cases
    assert cases["test_cast_float32_to_int4_opset22"].meta["group_opset"] == 21


# ---------------------------------------------------------------------------------------
# uint64 double rounding
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("to", ["double", "bfloat16", "float"])
def test_uint64_double_rounding_has_a_witness(to):
    entry = CATALOGUE[f"uint64->{to} opset=13"]["faults"]
    for name in ("cast.u64_sticky_lost", "cast.u64_via_int64"):
        assert entry[name].get("witnesses"), (to, name)


def test_uint64_sticky_bit_lost_rounds_above_a_tie_as_the_tie():
    x = np.array([(1 << 63) + (1 << 10) + 1], np.uint64)
    fault = FAULTS["cast.u64_sticky_lost"]
    y = fault.fn([x], {"to": onnx.TensorProto.DOUBLE}, 13, [dtypes.get("uint64")])[0]
    assert float(y[0]) == 2.0**63
    assert float(ref.cast_outcome(x, "uint64", "double").outputs[0][0]) == 2.0**63 + 2.0**11


# ---------------------------------------------------------------------------------------
# causes of the baseline's unexplained failures
# ---------------------------------------------------------------------------------------
def _fault(name, x, src, to, opset=25, **attrs):
    return FAULTS[name].fn([np.asarray(x)], dict(attrs, to=dtypes.get(to).onnx), opset, [dtypes.get(src)])[0]


def test_onnxruntime_float8_kernel_as_measured():
    bf16 = dtypes.get("bfloat16")
    y = _fault("cast.ort_float8", np.array([480, -482], ml_dtypes.bfloat16), "bfloat16", "float8e4m3fn", saturate=0)
    assert dtypes.get("float8e4m3fn").to_bits(y).tolist() == [0x7E, 0xFE]
    y = _fault("cast.ort_float8", np.array([61440], np.float32), "float", "float8e5m2", saturate=0)
    assert dtypes.get("float8e5m2").to_bits(y).tolist() == [0x7F]
    neg_nan = bf16.from_bits(np.array([0xFFC0]))
    y = _fault("cast.ort_float8", neg_nan, "bfloat16", "float8e4m3fn", saturate=0)
    assert dtypes.get("float8e4m3fn").to_bits(y).tolist() == [0x7F]
    y = _fault("cast.ort_float8", np.array([np.inf], np.float32), "float", "float8e4m3fnuz", opset=19)
    assert dtypes.get("float8e4m3fnuz").to_bits(y).tolist() == [0x7F]


def test_onnx_reference_e8m0_bits_as_measured():
    e8 = dtypes.get("float8e8m0")
    x = np.array([0x00400000, 0x7F800000], np.uint32).view(np.float32)  # 2**-128, +Inf
    assert e8.to_bits(_fault("cast.e8m0_onnx_bits", x, "float", "float8e8m0")).tolist() == [0x01, 0xFF]
    y = _fault("cast.e8m0_up_mask_0x4fffff", np.array([1.25, 1.5], np.float32), "float", "float8e8m0")
    assert e8.to_bits(y).tolist() == [127, 128]  # onnx#7784: 1.25 stays 1


def test_bool_from_bits_string_digits_and_float4_max():
    x = dtypes.get("float8e4m3fn").from_bits(np.array([0x80]))
    assert _fault("cast.bool_from_bits", x, "float8e4m3fn", "bool").tolist() == [True]
    s = _fault("cast.double_to_string_8_digits", np.array([np.finfo(np.float64).max]), "double", "string")
    assert s.tolist() == ["1.7976931e+308"]
    y = _fault("cast.float4_max_to_int_max", np.array([6.0, -6.0], ml_dtypes.float4_e2m1fn), "float4e2m1", "int8")
    assert y.tolist() == [127, -128]


def test_every_cast_fault_says_where_it_was_seen():
    assert all(f.seen_in.strip() for f in cast_faults.FAULTS)


# ---------------------------------------------------------------------------------------
# readings
# ---------------------------------------------------------------------------------------
def test_minus_inf_in_another_case_is_a_reading_and_minus_INF_is_stated():
    _, reading = ref.explain(np.array(["-inf", "-iNF", "-INF", "INF", "inf"], dtype=object), "string", "float")
    assert [bool(r) for r in reading] == [True, True, False, False, False]
    assert ref.readings(reading) == [READING_STRING_NEGATIVE_INF]


def test_strings_beyond_double_and_same_type_inf_carry_a_reading():
    _, reading = ref.explain(np.array(["1e400", "1.5"], dtype=object), "string", "float16")
    assert READING_STRING_BEYOND_DOUBLE in reading[0] and reading[1] == ""
    x = np.array([np.inf, 1.0], ml_dtypes.float8_e5m2)
    _, reading = ref.explain(x, "float8e5m2", "float8e5m2")
    assert reading.tolist() == [ref.READING_SAME_TYPE_SATURATE, ""]


@pytest.mark.parametrize("to", ["float8e4m3fnuz", "float8e5m2fnuz"])
def test_flt_max_plus_half_ulp_strings_into_fnuz_at_19_are_probes(to):
    x = np.array(["340282356779733661637539395458142568448"], dtype=object)
    assert not ref.cast_outcome(x, "string", to, opset=19).defined
    assert ref.cast_outcome(x, "string", to, opset=24).defined
