"""Issue 21 for QuantizeLinear / DequantizeLinear: the axes of generation (explicit defaults, vector tails, NaN
payloads, opset boundaries), the scale-type x float8 x zero-point axis (onnx#5408), probes that hold only open
elements, readings on every judged expectation that rests on one, and the fault models the baselines needed."""

from __future__ import annotations

import numpy as np
import pytest
from family_cases import generate
from onnx import helper

from generator import axes, dtypes
from generator.families import dequantize_linear as DF
from generator.families import quantize_linear as QF
from generator.reference import dequantize_linear as DR
from generator.reference import dequantize_linear_faults as DFAULTS
from generator.reference import quantize_linear as QR
from generator.reference import quantize_linear_faults as QFAULTS

F = {f.name: f for f in QFAULTS.FAULTS}


@pytest.fixture(scope="module")
def qcases():
    return generate(QF)


@pytest.fixture(scope="module")
def dcases():
    return generate(DF)


def _attrs(case) -> dict:
    return {a.name: helper.get_attribute_value(a) for a in case.model.graph.node[0].attribute}


def _types(case) -> list:
    return [dtypes.get(i.type.tensor_type.elem_type) for i in case.model.graph.input]


def _outcome(case, ins):
    """The reference's Outcome of one data set of a case, from its model's attributes and types."""
    attrs, types, op = _attrs(case), _types(case), case.meta["opset"]
    z = ins[2] if len(ins) > 2 else None
    if case.meta["family"] == "quantize_linear":
        return QR.quantize_linear(ins[0], ins[1], z, x_type=types[0], scale_type=types[1],
                                  zero_point_type=types[2] if z is not None else None, opset=op,
                                  **QR._attrs(attrs, op))
    return DR.dequantize_linear(ins[0], ins[1], z, axis=int(attrs.get("axis", 1)),
                                block_size=int(attrs.get("block_size", 0)), output_dtype=attrs.get("output_dtype"),
                                opset=op, x_type=types[0], scale_type=types[1])


# --- precision of claims -------------------------------------------------------------------------------------
def test_every_probe_holds_only_undefined_elements(qcases, dcases):
    """A probe states nothing: each of its elements is one the texts leave open (the e8m0 int8 -> float16 probe
    held 255 defined results beside one open one)."""
    for case in list(qcases.values()) + list(dcases.values()):
        if case.kind != "probe":
            continue
        for ins in case.inputs:
            assert _outcome(case, ins).mask().all(), case.name


def test_e8m0_scale_int8_to_float16_judges_the_defined_elements(dcases):
    node = dcases["test_dequantizelinear_e8m0_scale_int8_to_float16_opset24"]
    probe = dcases["test_dequantizelinear_e8m0_scale_int8_to_float16_opset24_probe"]
    assert sum(ins[0].size for ins in probe.inputs) == 1
    assert sum(ins[0].size for ins in node.inputs) == 7 * 256 - 1


def test_quantize_before_23_says_where_it_reads_the_division_precision(qcases):
    """The elements an exact quotient would change at opsets 13 and 21 (scale 0.3) rest on a reading."""
    marked = {n for n, c in qcases.items() if QR.READING_DIVISION_PRECISION in (c.meta.get("reading") or "")}
    assert "test_quantizelinear_per_axis_default_axis_opset13" in marked
    assert "test_quantizelinear_blocked_axis0_opset21" in marked
    assert all(qcases[n].meta["opset"] < 23 for n in marked)
    x = np.array([0.3 * 7.5], np.float32)  # no exact tie in float32: float32 and exact quotients can part
    _, readings = QR.quantize_linear_explained(x, np.float32(0.3), np.uint8(0), opset=13)
    _, later = QR.quantize_linear_explained(x, np.float32(0.3), np.uint8(0), opset=23)
    assert QR.READING_DIVISION_PRECISION not in later


def test_a_1d_scale_at_version_10_is_refused_on_a_reading(qcases, dcases):
    d = dcases["test_dequantizelinear_negative_per_axis_scale_opset10"]
    assert d.meta["reading"] == DF.READING_SCALAR_SCALE_10
    q = qcases["test_quantizelinear_negative_per_axis_scale_opset12"]
    assert q.meta["reading"] == QF.READING_SCALAR_SCALE_10


# --- onnx#5408: scale types x float8 inputs x zero point ----------------------------------------------------------
def test_every_small_input_type_meets_every_scale_type_with_and_without_zero_point(dcases):
    seen = {(c.meta["params"]["x"], c.meta["params"]["scale"], c.meta["params"]["zero_point"])
            for c in dcases.values() if c.kind == "node" and c.meta["params"]["granularity"] == "per-tensor"}
    for t in DR._T1_SINCE:
        if dtypes.get(t).bits > 8:
            continue
        for s in ("float", "float16", "bfloat16"):
            for zp in (True, False):
                assert (t, s, zp) in seen, (t, s, zp)
    c = dcases["test_dequantizelinear_no_zero_point_float8e4m3fn_float16_opset19"]
    assert len(c.model.graph.input) == 2 and _types(c)[1].name == "float16"
    assert c.model.graph.output[0].type.tensor_type.elem_type == dtypes.get("float16").onnx


# --- the axes of generation ------------------------------------------------------------------------------------------
def test_explicit_defaults_write_every_attribute_the_version_has(qcases, dcases):
    for cases, op in ((qcases, "QuantizeLinear"), (dcases, "DequantizeLinear")):
        explicit = [c for n, c in cases.items() if "explicit_defaults" in n and c.kind == "node"]
        assert {c.meta["opset"] for c in explicit} >= {13, 19, 21, 23, 24, 25, 28}
        for c in explicit:
            defaults = axes.attribute_defaults(op, c.meta["opset"])
            assert defaults and set(defaults) <= set(_attrs(c)), c.name


def test_vector_tails_put_every_length_in_one_model(qcases, dcases):
    for name, lengths in (("test_quantizelinear_vector_tail_uint8_tie_opset10", axes.tail_lengths(limit=257)),
                          ("test_dequantizelinear_vector_tail_int8_opset10", axes.tail_lengths(limit=257)),
                          ("test_quantizelinear_vector_tail_blocked_int4_block32_opset21", axes.VECTOR_LENGTHS_SHORT),
                          ("test_dequantizelinear_vector_tail_blocked_int4_block32_opset21",
                           axes.VECTOR_LENGTHS_SHORT)):
        c = (qcases | dcases)[name]
        assert sorted(ins[0].shape[-1] for ins in c.inputs) == sorted(lengths), name
        dims = c.model.graph.input[0].type.tensor_type.shape.dim
        assert dims[-1].dim_param, name  # a symbolic length: one model
    c = qcases["test_quantizelinear_vector_tail_uint8_tie_opset10"]
    assert all(ins[0][-1] == np.float32(1.25) for ins in c.inputs)  # the tie last (1.25 / 0.5 = 2.5)


def test_nan_payloads_are_every_encoding_bit_for_bit(qcases, dcases):
    c = qcases["test_quantizelinear_nan_payload_float32_to_float8e4m3fn_opset19"]
    _, nans = axes.nan_values("float")
    x = c.inputs[0][0]
    assert set(x.view(np.uint32)[:nans.size].tolist()) == set(nans.view(np.uint32).tolist())
    assert c.meta["compare"]["mode"] == "exact"
    probe = qcases["test_quantizelinear_nan_payload_float32_to_uint8_opset13_probe"]  # NaN -> integer: open
    assert probe.inputs[0][0].size == nans.size
    d = dcases["test_dequantizelinear_nan_payload_scale_float32_to_bfloat16_opset23"]
    scales = {int(np.asarray(ins[1]).view(np.uint32)) for ins in d.inputs}
    assert scales == set(nans.view(np.uint32).tolist())
    for ins, out in zip(d.inputs, d.outputs):
        assert np.isnan(np.asarray(out[0], np.float32)).all()


def test_opset_boundaries_have_the_opset_below_and_above_each_change(qcases, dcases):
    q_opsets = {c.meta["opset"] for c in qcases.values()}
    d_opsets = {c.meta["opset"] for c in dcases.values()}
    assert set(axes.boundary_opsets(QR.VERSIONS[1:], 10, 28)) <= q_opsets
    assert set(axes.boundary_opsets(DR.OPSETS[1:], 10, 28)) <= d_opsets
    for c in (12, 18, 20, 22, 27):
        assert any(x.kind == "negative" and x.meta["opset"] == c for x in qcases.values()), c
    assert "test_quantizelinear_float8e4m3fnuz_inf_saturate_opset25" in qcases


# --- fault models ----------------------------------------------------------------------------------------------------
def _run(fault, x, s, z, attrs, opset, types):
    return fault.fn([x, s, z], attrs, opset, [dtypes.get(t) for t in types])[0]


def test_every_fault_of_both_families_says_where_it_was_seen():
    for f in QFAULTS.FAULTS + DFAULTS.FAULTS:
        assert f.seen_in.strip(), f.name


def test_e5m2_round_overflow_nan_is_onnxruntimes_output():
    """onnxruntime 1.32: 61440 and 62054.4 -> float8e5m2 (saturate=0) give 0x7F / 0xFF, not Inf; 1e30 gives Inf."""
    e5 = dtypes.get("float8e5m2")
    x = np.array([61440.0, 62054.4, -61440.0, 1e30, 57344.0], np.float32)
    y = _run(F["quantize_linear.e5m2_round_overflow_nan"], x, np.float32(1.0), e5.from_bits(np.array(0, np.uint8)),
             {"saturate": 0}, 19, ["float", "float", "float8e5m2"])
    assert e5.to_bits(y).tolist() == [0x7F, 0x7F, 0xFF, 0x7C, 0x7B]
    ref_y = QR.quantize_linear(x, np.float32(1.0), e5.from_bits(np.array(0, np.uint8)), zero_point_type="float8e5m2",
                               saturate=0, opset=19).outputs[0]
    assert e5.to_bits(ref_y).tolist() == [0x7C, 0x7C, 0xFC, 0x7C, 0x7B]


def test_int32_before_clip_adds_the_zero_point_in_int32():
    """onnx's evaluator 1.23: -3e38 -> INT32_MIN, + (-32768) wraps positive, saturates to 32767."""
    x = np.array([-3e38, -1e10, 5.0], np.float32)
    y = _run(F["quantize_linear.int32_before_clip"], x, np.float32(1.0), np.int16(-32768), {}, 21,
             ["float", "float", "int16"])
    assert y.tolist() == [32767, 32767, -32763]


def test_fnuz_inf_one_opset_early_differs_at_23_only():
    f = F["quantize_linear.fnuz_inf_one_opset_early"]
    t = dtypes.get("float8e4m3fnuz")
    x = np.array([np.inf, -np.inf], np.float32)
    z = t.from_bits(np.array(0, np.uint8))
    for opset, differs in ((22, False), (23, True), (24, False)):
        y = _run(f, x, np.float32(1.0), z, {"saturate": 1}, opset, ["float", "float", "float8e4m3fnuz"])
        r = QR.quantize_linear(x, np.float32(1.0), z, zero_point_type="float8e4m3fnuz", saturate=1,
                               opset=opset).outputs[0]
        assert (t.to_bits(y).tolist() != t.to_bits(r).tolist()) == differs, opset
    params = {"y": "float8e4m3fnuz", "saturate": 1, "version": 24}
    assert f.equivalent(params) and not f.equivalent(dict(params, version=23))


def test_present_saturate_as_zero_reads_only_a_written_attribute():
    f = F["quantize_linear.present_saturate_as_zero"]
    e4 = dtypes.get("float8e4m3fn")
    x, z = np.array([1e4], np.float32), e4.from_bits(np.array(0, np.uint8))
    types = ["float", "float", "float8e4m3fn"]
    assert e4.to_bits(_run(f, x, np.float32(1.0), z, {}, 19, types)).tolist() == [0x7E]  # left out: saturates
    assert e4.to_bits(_run(f, x, np.float32(1.0), z, {"saturate": 1}, 19, types)).tolist() == [0x7F]  # NaN


def test_judged_nan_and_inf_dequantizations_carry_the_ieee_reading(dcases):
    """A float8 NaN / Inf x (every_pattern) gives NaN / Inf only by IEEE 754 arithmetic: no sentence says so."""
    for name, c in dcases.items():
        if c.kind != "node":
            continue
        special = any(not np.isfinite(np.asarray(a).astype(np.float64)).all() for ins in c.inputs for a in ins
                      if np.asarray(a).dtype.kind == "f" or "float" in str(np.asarray(a).dtype))
        if special:
            assert DF.READING_IEEE in (c.meta.get("reading") or ""), name
