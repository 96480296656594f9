"""generator/reference/dequantize_linear.py against the schema texts (onnx.defs DequantizeLinear-10..28) and
against an independent exact computation: every bit pattern of every input type of <= 8 bits, a few scales and
zero points, (x - x_zero_point) * x_scale in Fractions rounded once to the output type by a nearest-value search.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import onnx
import pytest

from generator import dtypes
from generator.reference import dequantize_linear as R
from generator.reference.quant_axes import QuantShapeError

VERSIONS = sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == "DequantizeLinear"})


def _constraint(v: int, param: str) -> set[str]:
    s = onnx.defs.get_schema("DequantizeLinear", v)
    (tc,) = [t for t in s.type_constraints if t.type_param_str == param]
    return {t[len("tensor("):-1] for t in tc.allowed_type_strs}


def test_the_versions_are_the_installed_onnx_s():
    assert tuple(VERSIONS) == R.OPSETS


@pytest.mark.parametrize("v", VERSIONS)
def test_type_tables_are_the_schema_s(v):
    s = onnx.defs.get_schema("DequantizeLinear", v)
    x_param = s.inputs[0].type_str
    assert set(R.x_types(v)) == _constraint(v, x_param)
    scale_param = s.inputs[1].type_str
    scale = {"float"} if scale_param == "tensor(float)" else _constraint(v, scale_param)
    assert set(R.scale_types(v)) == scale
    out_param = s.outputs[0].type_str
    out = {"float"} if out_param == "tensor(float)" else _constraint(v, out_param)
    assert set(R.output_types(v)) == out - {"float8e8m0"}  # T2 doubles as the output type at 19 / 21
    assert ("output_dtype" in s.attributes) == (v >= 23)
    assert ("block_size" in s.attributes) == (v >= 21)
    assert ("axis" in s.attributes) == (v >= 13)


# ---------------------------------------------------------------------------------------
# an independent exact computation
# ---------------------------------------------------------------------------------------
def _nearest(q: Fraction, t: dtypes.DType) -> float:
    """q rounded to the nearest value of t (ties to the even encoding; beyond max + half an ulp: Inf), found
    by searching t's neighbouring values (no rounding code of the reference)."""
    if q == 0:
        return 0.0
    top = Fraction(t.finite_max)
    half_ulp = Fraction(2) ** (int(np.log2(t.finite_max)) - t.mantissa_bits - 1)
    if abs(q) > top + half_ulp or (abs(q) == top + half_ulp):
        return float(np.copysign(np.inf, float(q)))  # the tie above max goes to the even (Inf)
    guess = np.array(float(q), dtype=np.float64).astype(np.float32).astype(t.np_dtype)
    cands = {float(guess)}
    for direction in (np.inf, -np.inf):
        g = guess
        for _ in range(3):
            g = np.nextafter(g.astype(np.float32), np.float32(direction)).astype(t.np_dtype) \
                if t.name == "bfloat16" else np.nextafter(g, t.np_dtype.type(direction))
            cands.add(float(g))
    if t.name == "bfloat16":  # nextafter in float32 steps through bfloat16 slowly: walk its encodings instead
        b = int(np.array(guess).view(np.uint16))
        cands |= {float(np.array(b + k, dtype=np.uint16).view(ml_dtypes.bfloat16)) for k in range(-3, 4)
                  if 0 <= b + k < 1 << 16}
    cands = [c for c in cands if np.isfinite(c)]
    best = min(abs(Fraction(c) - q) for c in cands)
    ties = [c for c in cands if abs(Fraction(c) - q) == best]
    if len(ties) > 1:
        ties = [c for c in ties if int(t.to_bits(np.array(c).astype(t.np_dtype))) % 2 == 0]
    return float(np.copysign(ties[0], float(q))) if ties[0] == 0 else ties[0]


def _expected(x, xt, scale: float, zp, t) -> np.ndarray:
    out = []
    for v in np.asarray(x).astype(np.float64) if xt.is_float else np.asarray(x).astype(np.int64):
        v = float(v)
        z = 0.0 if zp is None else float(zp)
        if not (np.isfinite(v) and np.isfinite(scale)):
            with np.errstate(all="ignore"):
                out.append((v - z) * scale)
            continue
        q = (Fraction(v) - Fraction(z)) * Fraction(scale)
        r = _nearest(q, t)
        if r == 0:  # IEEE sign of a zero product: the signs of (x - zp) and of the scale
            with np.errstate(all="ignore"):
                r = float(np.copysign(0.0, (v - z) * scale if q == 0 else float(q)))
        out.append(r)
    return np.array(out, dtype=np.float64)


SMALL = [n for n in R._T1_SINCE if dtypes.get(n).bits <= 8]
SCALES = {"float": [0.1, 3.0, 2.0**-130, 1e30], "float16": [0.1, 3.0, 2.0**-20], "bfloat16": [0.1, 3.0, 1e30]}


def _zero_points(xt: dtypes.DType) -> list:
    if xt.is_float:
        return [None, 0.0, float(xt.all_values()[3].astype(np.float64))]
    return [None, 0, xt.int_min + 1, xt.int_max]


@pytest.mark.parametrize("x_name", SMALL)
@pytest.mark.parametrize("scale_name", ["float", "float16", "bfloat16"])
def test_every_bit_pattern_against_exact_arithmetic(x_name, scale_name):
    xt, st = dtypes.get(x_name), dtypes.get(scale_name)
    opset = max(R._T1_SINCE[x_name], 19)
    x = xt.all_values()
    for scale in SCALES[scale_name]:
        s = np.array(scale).astype(st.np_dtype)
        for zp in _zero_points(xt):
            z = None if zp is None else np.array(zp).astype(xt.np_dtype)
            out, spread = R.dequantize_linear_explained(x, s, z, opset=opset)
            assert out.defined and out.outputs[0].dtype == st.np_dtype and out.outputs[0].shape == x.shape
            want = _expected(x, xt, float(s.astype(np.float64)), None if z is None else z.astype(np.float64), st)
            got = out.outputs[0].astype(np.float64)
            same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
            assert same.all(), (x_name, scale, zp, x[~same][:4], got[~same][:4], want[~same][:4])
            if scale_name != "float" and not (xt.is_float and zp):
                # x - zp (<= 9 bits, or a float8 / 4 / 6 with no zero point) and the scale fit in T, and their
                # product in float32: every path gives one answer
                assert not spread.any(), (x_name, scale, zp)


def test_float8_nan_and_inf_patterns_decode_as_nan_and_inf():
    for name in ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"):
        t = dtypes.get(name)
        x = t.all_values()
        y = R.dequantize_linear(x, np.float32(2.0), opset=19).outputs[0]
        assert (np.isnan(y) == t.isnan(x)).all(), name
        if t.has_inf:
            inf = t.to_bits(x) & 0x7F == t.inf_bits
            assert (np.isinf(y) == inf).all() and (np.signbit(y[inf]) == (t.to_bits(x[inf]) >= 0x80)).all()
        else:
            assert not np.isinf(y).any()


def test_sub_byte_integers_are_signed_or_not():
    """int4 / int2 patterns 0b1... are negative; uint4 / uint2 ones are not (two's complement)."""
    for name, want in (("int4", list(range(0, 8)) + list(range(-8, 0))), ("uint4", list(range(16))),
                       ("int2", [0, 1, -2, -1]), ("uint2", [0, 1, 2, 3])):
        t = dtypes.get(name)
        y = R.dequantize_linear(t.all_values(), np.float32(1.0), opset=25).outputs[0]
        assert y.tolist() == want, name


def test_zero_point_absent_is_zero():
    x = np.array([-3, 0, 7], np.int8)
    a = R.dequantize_linear(x, np.float32(0.5), None, opset=13).outputs[0]
    b = R.dequantize_linear(x, np.float32(0.5), np.int8(0), opset=13).outputs[0]
    assert a.tolist() == b.tolist() == [-1.5, 0.0, 3.5]


def test_per_axis_negative_axis_is_counted_from_the_back():
    x = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    s = np.array([0.5, 1.0, 2.0], np.float32)
    z = np.array([1, 2, 3], np.uint8)
    a = R.dequantize_linear(x, s, z, axis=1, opset=13).outputs[0]
    b = R.dequantize_linear(x, s, z, axis=-2, opset=13).outputs[0]
    assert np.array_equal(a, b)
    assert a[1, 2, 3] == (23 - 3) * 2.0 and a[0, 0, 0] == (0 - 1) * 0.5
    with pytest.raises(QuantShapeError):
        R.dequantize_linear(x, s, z, axis=-4, opset=13)


def test_blocked_replicates_each_scale_block_size_times():
    x = np.arange(10, dtype=np.int8).reshape(2, 5)
    s = np.array([[1, 2, 4], [8, 16, 32]], np.float32)
    y = R.dequantize_linear(x, s, None, axis=-1, block_size=2, opset=21).outputs[0]
    assert y.tolist() == [[0, 1, 4, 6, 16], [40, 48, 112, 128, 288]]
    for bad in (1, 3):  # 5 elements in 3 blocks take block_size 2 only
        with pytest.raises(QuantShapeError):
            R.dequantize_linear(x, s, None, axis=1, block_size=bad, opset=21)
    with pytest.raises(QuantShapeError):  # no blocked quantization before 21
        R.check_shapes((2, 5), (2, 3), None, 1, 2, 19)


def test_output_type_is_the_scale_s_unless_output_dtype():
    x = np.array([1, 2], np.int8)
    assert R.dequantize_linear(x, np.float16(0.5), opset=19).outputs[0].dtype == np.float16
    y = R.dequantize_linear(x, np.float32(0.5), output_dtype=onnx.TensorProto.BFLOAT16, opset=23).outputs[0]
    assert y.dtype == ml_dtypes.bfloat16
    with pytest.raises(R.DequantizeError):  # no output_dtype before 23
        R.dequantize_linear(x, np.float32(0.5), output_dtype=onnx.TensorProto.FLOAT16, opset=21)
    with pytest.raises(R.DequantizeError):  # not in T3
        R.dequantize_linear(x, np.float32(0.5), output_dtype=onnx.TensorProto.DOUBLE, opset=23)
    e8 = np.array(130, np.uint8).view(ml_dtypes.float8_e8m0fnu)  # 2**3
    with pytest.raises(R.DequantizeError):  # a float8e8m0 scale is no output type
        R.dequantize_linear(x, e8, opset=24)
    y = R.dequantize_linear(x, e8, output_dtype=onnx.TensorProto.FLOAT16, opset=24).outputs[0]
    assert y.dtype == np.float16 and y.tolist() == [8.0, 16.0]


def test_invalid_types_and_shapes_are_refused():
    with pytest.raises(R.DequantizeError):  # zero point of another type
        R.check_types(dtypes.get("int8"), dtypes.get("float"), dtypes.get("uint8"), {}, 13)
    with pytest.raises(R.DequantizeError):  # float8 before 19
        R.check_types(dtypes.get("float8e4m3fn"), dtypes.get("float"), None, {}, 13)
    with pytest.raises(R.DequantizeError):  # int4 before 21
        R.check_types(dtypes.get("int4"), dtypes.get("float"), None, {}, 19)
    with pytest.raises(R.DequantizeError):  # float16 scale before 19
        R.check_types(dtypes.get("int8"), dtypes.get("float16"), None, {}, 13)
    with pytest.raises(QuantShapeError):  # zero point and scale shapes differ
        R.check_shapes((2, 3), (3,), (), 1, 0, 13)
    with pytest.raises(QuantShapeError):  # opset 10: scalars only
        R.check_shapes((2, 3), (3,), None, 1, 0, 10)
    with pytest.raises(QuantShapeError):  # a per-axis scale of the wrong length
        R.check_shapes((2, 3), (2,), None, 1, 0, 13)


def test_int32_zero_point_nonzero_is_undefined_zero_is_not():
    x = np.array([5, -7], np.int32)
    assert R.dequantize_linear(x, np.float32(2.0), np.int32(0), opset=13).defined
    out = R.dequantize_linear(x, np.float32(2.0), np.int32(1), opset=13)
    assert out.reasons == [R.UNDEF_INT32_ZERO_POINT]


def test_large_int32_and_float32_output_may_round_twice():
    """2**24 + 1 is no float32: float32(x) * scale rounds twice, and may differ by an ulp: the spread says so."""
    x = np.array([2**24 + 1, 2**30 + 3, 100], np.int32)
    out, spread = R.dequantize_linear_explained(x, np.float32(1.0 + 2.0**-23), opset=13)
    assert out.defined and spread[2] == 0 and spread[:2].max() >= 1
    want = [_nearest(Fraction(int(v)) * Fraction(1.0 + 2.0**-23), dtypes.get("float")) for v in x]
    assert out.outputs[0].astype(np.float64).tolist() == want


def test_an_intermediate_that_overflows_in_float16_is_undefined():
    """uint16 65535 is beyond float16: converting x - zp to the output type first gives Inf."""
    out = R.dequantize_linear(np.array([65535, 3], np.uint16), np.float16(2.0**-10), opset=21)
    assert out.reasons == [R.UNDEF_INTERMEDIATE] and out.mask().tolist() == [True, False]


def test_bfloat16_output_rounds_once_not_through_float32():
    """x * s = 1 + 2**-8 + 2**-22 exactly: float32 holds it, so bfloat16 gets 1 + 2**-7; the reference agrees
    (ml_dtypes' float64 -> bfloat16 would round through float32, which is the same here)."""
    s = np.float32(1 + 2**-8 + 2**-22)
    y = R.dequantize_linear(np.array([1], np.int8), s, output_dtype=onnx.TensorProto.BFLOAT16, opset=23)
    assert float(y.outputs[0][0]) == 1 + 2**-7


def test_the_node_function_runs_through_the_interpreter():
    from generator.case import node_model
    from generator.interpret import compile_model, run_program

    i8, f32 = dtypes.get("int8"), dtypes.get("float")
    m = node_model("DequantizeLinear", [("x", i8, (2, 3)), ("x_scale", f32, (3,)), ("x_zero_point", i8, (3,))],
                   [("y", f32, (2, 3))], {"axis": -1}, 13)
    x = np.array([[1, 2, 3], [-4, -5, -6]], np.int8)
    s = np.array([0.5, 0.25, 2.0], np.float32)
    z = np.array([1, 0, -1], np.int8)
    (y,) = run_program(compile_model(m, validate=True), [x, s, z])
    assert y.tolist() == [[0.0, 0.5, 8.0], [-2.5, -1.25, -10.0]]
    bad = node_model("DequantizeLinear", [("x", i8, (2, 3)), ("x_scale", f32, (2,)), ("x_zero_point", i8, (2,))],
                     [("y", f32, (2, 3))], {"axis": 1}, 13)
    with pytest.raises(QuantShapeError):
        compile_model(bad, validate=True)
