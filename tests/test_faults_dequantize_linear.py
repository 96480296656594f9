"""The DequantizeLinear fault models (generator/reference/dequantize_linear_faults.py) and their witnesses
(generator/witness/dequantize_linear.py, catalogue generator/witness/catalogue/dequantize_linear.json):
  - every catalogued witness kills its fault, and the family's witness cases carry them through the interpreter;
  - each fault is the reference wherever its one deviation cannot matter, and the equivalence proofs hold;
  - the family's default cases leave no (group, fault) pair alive;
  - the committed catalogue is what the search writes today.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from generator import dtypes, faults, witness
from generator.catalogue import dequantize_linear as codec
from generator.families import dequantize_linear as fam
from generator.kill_matrix import KillMatrix
from generator.reference import dequantize_linear as ref
from generator.reference import dequantize_linear_faults as F
from generator.witness import dequantize_linear as W

CATALOGUE = witness.load("dequantize_linear")
FAULTS = {f.name: f for f in F.FAULTS}
I8, U8, F32 = dtypes.get("int8"), dtypes.get("uint8"), dtypes.get("float")


def _run(name: str, x, s, z, attrs: dict, opset: int, types: list) -> np.ndarray:
    return FAULTS[name].fn([x, s, z], attrs, opset, types)[0]


def _ref(x, s, z, **kw) -> np.ndarray:
    return ref.dequantize_linear(x, s, z, **kw).outputs[0]


def test_group_key_names_every_property_a_fault_depends_on():
    meta = {"opset": 21, "params": {"x": "int4", "scale": "float16", "output": "float16", "zero_point": True,
                                    "granularity": "per-axis", "negative_axis": True}}
    assert F.group_key(meta) == "opset=21 x=int4 scale=float16 out=float16 zp=1 per-axis negative-axis"


def _witnesses():
    for key, group in sorted(CATALOGUE["groups"].items()):
        for name, entry in sorted(group["faults"].items()):
            for i, wit in enumerate(entry.get("witnesses", [])):
                yield pytest.param(group["params"], name, wit, id=f"{codec.slug(key)}-{name.split('.')[1]}-{i}")


@pytest.mark.parametrize("params,name,wit", list(_witnesses()))
def test_witness_kills_its_fault(params, name, wit):
    x, s, z = codec.decode(wit, params)
    assert W._kills(FAULTS[name], params, codec.template(params), x, s, z), wit["what"]


def test_witness_cases_kill_through_the_interpreter():
    cases = [c for c in fam.witness_cases() if c.kind == "node"]
    assert len(cases) == len(CATALOGUE["groups"])
    for case in cases:
        key = F.group_key(case.meta)
        assert key in CATALOGUE["groups"], case.name
        assert case.meta["compare"]["mode"] == "exact", case.name
        for inputs, outputs, names in zip(case.inputs, case.outputs, case.meta["witnesses"]):
            for name in names:
                try:
                    got = faults.fault_outputs(FAULTS[name], case.model, inputs, case.meta)
                except faults.Refusal:  # it raises where a result is due: killed, as the kill matrix counts it
                    assert FAULTS[name].may_refuse, (case.name, name)
                    continue
                assert F.killed(FAULTS[name], case.meta, outputs, got), (case.name, name)


def test_faults_are_the_reference_where_their_deviation_cannot_matter():
    x = I8.all_values()
    s, z = np.float32(0.37), np.int8(-3)
    same = {  # fault -> a model where it does what the reference does
        "zero_point_ignored": (x, s, None, {}, 13, [I8, F32, None]),
        "zero_point_other_signedness": (x, s, np.int8(5), {}, 13, [I8, F32, I8]),  # 5 reads the same either way
        "subbyte_sign_extension": (x, s, z, {}, 13, [I8, F32, I8]),  # not a sub-byte type
        "difference_in_input_type": (np.arange(-60, 60, dtype=np.int8), s, z, {}, 13, [I8, F32, I8]),  # no wrap
        "float8_specials_as_numbers": (x, s, z, {}, 13, [I8, F32, I8]),
        "negative_axis_as_default": (x.reshape(16, 16), np.full(16, s), np.full(16, z), {"axis": 1}, 13,
                                     [I8, F32, I8]),
        "block_size_from_shape": (x.reshape(16, 16), np.full((16, 4), s), np.full((16, 4), z),
                                  {"axis": 1, "block_size": 4}, 21, [I8, F32, I8]),  # ceil(16 / 4) = 4
        "computed_in_scale_type": (x, s, z, {}, 13, [I8, F32, I8]),
        "bfloat16_truncation": (x, s, z, {}, 13, [I8, F32, I8]),  # a float32 output
        "scale_distributed": (x, np.float32(0.5), z, {}, 13, [I8, F32, I8]),  # every product exact
        "flush_subnormals": (x, s, z, {}, 13, [I8, F32, I8]),  # no subnormal anywhere
        "e8m0_nan_as_number": (x, s, z, {}, 13, [I8, F32, I8]),
        "bfloat16_results_flushed": (x, s, z, {}, 13, [I8, F32, I8]),  # a float32 output
        "float16_result_clamped": (x, s, z, {}, 13, [I8, F32, I8]),  # a float32 output
        "float8_zero_point_refused": (x, s, z, {}, 13, [I8, F32, I8]),  # not a float 8 x
        "output_dtype_ignored": (x, s, z, {"output_dtype": 1}, 23, [I8, F32, I8]),  # output_dtype names x_scale's
        "e4m3fn_negative_nan_as_number": (x, s, z, {}, 13, [I8, F32, I8]),  # not a float8e4m3fn x
        "zero_scale_folded": (x, s, z, {}, 13, [I8, F32, I8]),  # a nonzero x_scale
        "short_last_block_refused": (x.reshape(16, 16), np.full((16, 4), s), np.full((16, 4), z),
                                     {"axis": 1, "block_size": 4}, 21, [I8, F32, I8]),  # 16 = 4 blocks of 4
    }
    assert {f"dequantize_linear.{n}" for n in same} == set(FAULTS)
    for name, (xx, ss, zz, attrs, opset, types) in same.items():
        got = _run(f"dequantize_linear.{name}", xx, ss, zz, attrs, opset, types)
        want = _ref(xx, ss, zz, axis=attrs.get("axis", 1), block_size=attrs.get("block_size", 0), opset=opset,
                    x_type=types[0], scale_type=types[1])
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), name


def test_each_fault_does_what_it_says():
    i4 = dtypes.get("int4")
    x4 = i4.all_values()
    got = _run("dequantize_linear.subbyte_sign_extension", x4, np.float32(1), None, {}, 21, [i4, F32, None])
    assert got.tolist() == list(range(16))  # 0b1000 read as 8
    e4 = dtypes.get("float8e4m3fn")
    nan = e4.from_bits(np.array([0x7F], np.uint8))
    got = _run("dequantize_linear.float8_specials_as_numbers", nan, np.float32(1), None, {}, 19, [e4, F32, None])
    assert got.tolist() == [480.0]  # the exponent rule extended: 1.875 * 2**8
    both = e4.from_bits(np.array([0x7F, 0xFF], np.uint8))
    got = _run("dequantize_linear.e4m3fn_negative_nan_as_number", both, np.float32(1), None, {}, 19, [e4, F32, None])
    assert np.isnan(got[0]) and got[1] == -480.0  # what IREE 3.13 decodes (its Cast too)
    got = _run("dequantize_linear.difference_in_input_type", np.array([127], np.int8), np.float32(1), np.int8(-1),
               {}, 13, [I8, F32, I8])
    assert got.tolist() == [-128.0]  # 127 - (-1) wraps in int8
    bf = dtypes.get("bfloat16")
    got = _run("dequantize_linear.bfloat16_truncation", np.array([129], np.uint8),
               np.array(0.1, ml_dtypes.bfloat16), np.uint8(0), {}, 19, [U8, bf, U8])
    assert float(got[0]) == 12.875  # what OpenVINO 2026.4 returns here; the reference rounds to 12.9375
    want = _ref(np.array([129], np.uint8), np.array(0.1, ml_dtypes.bfloat16), np.uint8(0), opset=19)
    assert float(want[0]) == 12.9375
    f16 = dtypes.get("float16")
    got = _run("dequantize_linear.output_dtype_ignored", np.array([3], np.int8), np.float32(0.1), None,
               {"output_dtype": f16.onnx}, 23, [I8, F32, None])
    assert got.dtype == np.float32 and got.tolist() == [np.float32(0.3)]  # x_scale's type, as tract 0.23.9 gives


def test_zero_scale_folded_gives_tinygrads_numbers():
    """tinygrad 0.14.0 (CPU), --inputs initializers: test_dequantizelinear_scale_specials_int8_float32_opset13[0 .. 3],
    a 0-d x_scale of +0 or -0 with zero point 0 or -5, gives +0 for every x; due is -0 where x - x_zero_point and
    x_scale differ in sign (x_scale -0: x >= -5 with zero point -5). A zero scale per axis is not one constant."""
    x = np.array([-128, -6, -5, 0, 127], np.int8)
    for s in (0.0, -0.0):
        for z in (0, -5):
            got = _run("dequantize_linear.zero_scale_folded", x, np.float32(s), np.int8(z), {}, 13, [I8, F32, I8])
            assert got.dtype == np.float32 and got.view(np.uint32).tolist() == [0] * 5, (s, z)
    want = _ref(x, np.float32(-0.0), np.int8(-5), opset=13)
    assert np.signbit(want).tolist() == [False, False, True, True, True] and not want.any()
    x2, s2, z2 = x[[3, 4, 0, 1]].reshape(2, 2), np.array([-0.0, 0.0], np.float32), np.array([0, -5], np.int8)
    got = _run("dequantize_linear.zero_scale_folded", x2, s2, z2, {"axis": 0}, 13, [I8, F32, I8])
    want = _ref(x2, s2, z2, axis=0, opset=13)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)) and np.signbit(got).any()


def test_short_last_block_refused_raises_as_tinygrad_does():
    """tinygrad 0.14.0 (CPU, fed or not), test_dequantizelinear_blocked_int8_float32_axis1_block4_opset21: x (4, 6),
    block_size 4, x_scale (4, 2) raises "shape mismatch: objects cannot be broadcast to a single shape ((4, 6),
    (4, 8))"."""
    x, s, z = np.arange(24, dtype=np.int8).reshape(4, 6), np.full((4, 2), 0.5, np.float32), np.zeros((4, 2), np.int8)
    with pytest.raises(faults.Refusal):
        _run("dequantize_linear.short_last_block_refused", x, s, z, {"axis": 1, "block_size": 4}, 21, [I8, F32, I8])


def test_bfloat16_truncation_cannot_differ_with_power_of_two_scales_and_8_bit_differences():
    """The equivalence proof of bfloat16_truncation for float8e8m0 scales, checked exhaustively for int8 x and
    zero points at the ends and inside, every scale pattern but NaN."""
    e8, bf = dtypes.get("float8e8m0"), dtypes.get("bfloat16")
    params = {"scale": "float8e8m0", "x": "int8", "output": "bfloat16"}
    assert FAULTS["dequantize_linear.bfloat16_truncation"].equivalent(params)
    x = I8.all_values()
    for bits in range(255):
        s = e8.from_bits(np.array(bits, np.uint8))
        for z in (-128, -1, 0, 127):
            a = {"output_dtype": bf.onnx}
            got = _run("dequantize_linear.bfloat16_truncation", x, s, np.int8(z), a, 24, [I8, e8, I8])
            want = _ref(x, s, np.int8(z), output_dtype=bf.onnx, opset=24)
            assert bf.same_values(got, want).all(), (bits, z)


def test_the_family_leaves_no_fault_alive():
    km = KillMatrix(["dequantize_linear"])
    for unit in fam.work("default", 0, ref.OPSETS[-1]):
        for case in unit():
            km.add(case)
    m = km.matrix()["dequantize_linear"]
    survivors = [(k, f) for k, row in m["groups"].items() for f, e in row.items() if e["status"] == "survived"]
    assert not survivors, survivors[:5]
    assert m["counts"]["killed"] > 500


def test_committed_catalogue_is_what_the_search_writes():
    assert W.find(ref.OPSETS[-1], 0) == CATALOGUE["groups"]


def test_float8_zero_point_refused_raises_only_on_a_nonzero_float8_zero_point():
    from generator.faults import Refusal
    e4 = dtypes.get("float8e4m3fn")
    x = e4.from_bits(np.arange(0, 120, dtype=np.uint8))
    zero, one = e4.from_bits(np.array(0, np.uint8)), e4.from_bits(np.array(0x38, np.uint8))
    with pytest.raises(Refusal):
        _run("dequantize_linear.float8_zero_point_refused", x, np.float32(0.5), one, {}, 21, [e4, F32, e4])
    got = _run("dequantize_linear.float8_zero_point_refused", x, np.float32(0.5), zero, {}, 21, [e4, F32, e4])
    want = _ref(x, np.float32(0.5), zero, axis=1, block_size=0, opset=21, x_type=e4, scale_type=F32)
    assert np.array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))
