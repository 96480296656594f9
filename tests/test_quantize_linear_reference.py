"""generator/reference/quantize_linear.py against the schema texts' statements and examples, and an exact rational
computation written apart from it (fractions.Fraction)."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from generator import dtypes
from generator.reference import quantize_linear as Q
from generator.reference.quant_axes import QuantShapeError

INT_TYPES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
             "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1)}  # [QL-21 / QL-25] ranges


def _ql(x, s, z=None, **kw):
    """(y, why): the reference's y and, per element, the reason it is undefined ("" where defined)."""
    outcome = Q.quantize_linear(x, s, z, **kw)
    (y,) = outcome.outputs
    why = np.full(y.shape, "", dtype=object)
    for reason, mask in outcome.undefined.items():
        why[np.broadcast_to(np.asarray(mask, dtype=bool), y.shape)] = reason
    return y, why


def _zp(t: str, v=0):
    return np.array(v, dtype=dtypes.get(t).np_dtype)


def test_the_versions_are_onnx_s():
    import onnx

    assert Q.VERSIONS == tuple(sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history()
                                       if s.name == "QuantizeLinear"}))
    for v in Q.VERSIONS:
        s = onnx.defs.get_schema("QuantizeLinear", v)
        tc = {t.type_param_str: {a[7:-1] for a in t.allowed_type_strs} for t in s.type_constraints}
        assert set(Q.x_types(v)) == tc["T1"]
        assert set(Q.output_types(v)) == tc["T3" if v >= 23 else "T2"]
        assert set(Q.scale_types(v)) == (tc["T2"] if v >= 23 else tc["T1"] if v >= 19 else {"float"})
        assert set(Q.attributes(v)) == set(s.attributes)


# ---------------------------------------------------------------------------------------
# the schema's examples (onnx/backend/test/case/node/quantizelinear.py, shown in Operators.md)
# ---------------------------------------------------------------------------------------
def test_example_uint8():
    y, why = _ql(np.array([0, 2, 3, 1000, -254, -1000], np.float32), np.float32(2), np.uint8(128), opset=10)
    assert y.tolist() == [128, 129, 130, 255, 1, 0] and (why == "").all()


def test_examples_uint16_int16():
    x = np.array([0.0, -128.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65536.0, -65534.0, 70000.0, -70000.0], np.float32)
    y, _ = _ql(x, np.float32(2), np.uint16(32767), opset=21)
    assert y.tolist() == [32767, 32703, 32769, 32765, 32768, 32766, 32769, 32765, 65535, 0, 65535, 0]
    x = np.array([0.0, -514.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65022.0, -66046.0, 65023.0, -66047.0, 65024.0,
                  -66048.0, 70000.0, -70000.0], np.float32)
    y, _ = _ql(x, np.float32(2), np.int16(256), opset=21)
    assert y.tolist() == [256, -1, 258, 254, 257, 255, 258, 254, 32767, -32767, 32767, -32768, 32767, -32768,
                          32767, -32768]


@pytest.mark.parametrize("t, z, opset, expected", [
    ("uint4", 1, 21, [1, 2, 3, 5, 0, 0, 3, 4, 4, 5, 5, 11]),
    ("int4", 1, 21, [1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7]),
])
def test_examples_4bit_per_axis(t, z, opset, expected):
    x = np.array([[0.0, 2.5, 4.8, 8.6], [-30, -20, 6, 9], [12, 15, 16, 40]], np.float32)
    zp = np.full(3, z, dtype=dtypes.get(t).np_dtype)
    y, why = _ql(x, np.array([2.0, 3.0, 4.0], np.float32), zp, axis=0, opset=opset)
    assert y.astype(np.int64).ravel().tolist() == expected and (why == "").all()


def test_examples_2bit_per_axis():
    s = np.array([2.0, 3.0, 4.0], np.float32)
    x = np.array([[0.0, 2.5, 4.8, 8.6], [-2.0, -1.0, 1.0, 3.0], [4.0, 5.0, 6.0, 7.0]], np.float32)
    y, _ = _ql(x, s, np.zeros(3, ml_dtypes.uint2), axis=0, opset=25)
    assert y.astype(np.int64).ravel().tolist() == [0, 1, 2, 3, 0, 0, 0, 1, 1, 1, 2, 2]
    x = np.array([[0.0, 2.5, 4.8, 8.6], [-4.0, -3.0, 1.0, 2.0], [-0.0, -2.5, -4.8, -8.6]], np.float32)
    y, _ = _ql(x, s, np.zeros(3, ml_dtypes.int2), axis=0, opset=25)
    assert y.astype(np.int64).ravel().tolist() == [0, 1, 1, 1, -1, -1, 0, 1, 0, -1, -1, -2]


def test_examples_float8():
    x = np.array([0.0, 1.0, 2.0, 100000.0, 200.0], np.float32)
    y, _ = _ql(x, np.float32(2), _zp("float8e4m3fn"), opset=19)
    assert y.astype(np.float64).tolist() == [0, 0.5, 1, 448, 96]
    y, _ = _ql(x, np.float32(2), _zp("float8e5m2"), opset=19)
    assert y.astype(np.float64).tolist() == [0, 0.5, 1, 49152, 96]


def test_example_float4e2m1_and_the_sign_of_a_zero_quotient():
    x = np.array([[0.0, 2.5, 4.8, 8.6], [-30, -20, 6, 9], [-0.0, -2.5, -4.8, -8.6]], np.float32)
    y, why = _ql(x, np.array([2.0, 3.0, 4.0], np.float32), np.zeros(3, ml_dtypes.float4_e2m1fn), axis=0, opset=23)
    assert y.astype(np.float64).ravel().tolist() == [0, 1, 2, 4, -6, -6, 2, 3, 0, -0.5, -1, -2]
    # -0 / 4 + 0: IEEE's +0 (the example's), or -0 with the zero point left out (onnx's float8 path): open
    assert why[2, 0] == Q.UNDEF_SUM and (why.ravel()[np.arange(12) != 8] == "").all()


def test_example_blocked_symmetric_int16():
    x = np.array([[6.0, -8, -10, 5.0], [1.0, 8.0, 4.0, 5.0], [0.0, 20.0, 10.0, 4.0]], np.float32)
    s = np.array([[1.5, 2.5], [3.0, 4.9], [5.1, 6.9]], np.float32)
    y, why = _ql(x, s, None, axis=1, block_size=2, output_dtype=dtypes.get("int16").onnx, opset=21)
    scale = np.repeat(s, 2, axis=1).astype(np.float64)
    assert y.dtype == np.int16 and (why == "").all()
    assert y.tolist() == np.rint(x / scale).astype(int).tolist()  # every quotient is far from a tie


# ---------------------------------------------------------------------------------------
# exhaustive / exact
# ---------------------------------------------------------------------------------------
_F16 = np.unique(np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64))
_F16 = _F16[np.isfinite(_F16)]  # every finite float16 value, sorted (-0 and +0 are one value)


def _round_f16(q: Fraction) -> Fraction:
    """q (within float16's range) rounded to float16: the two neighbours compared exactly, ties to the one
    whose bit pattern is even (written apart from the reference)."""
    i = int(np.searchsorted(_F16, float(q)))
    cands = {Fraction(float(_F16[j])) for j in (i - 2, i - 1, i, i + 1) if 0 <= j < len(_F16)}
    below = max(c for c in cands if c <= q)
    above = min(c for c in cands if c >= q)
    if below == above or q - below != above - q:
        return below if q - below < above - q else above
    even = lambda c: int(np.array(float(c), np.float16).view(np.uint16)) % 2 == 0  # noqa: E731
    return below if even(below) else above


@pytest.mark.parametrize("t, z, s", [("int8", 3, 0.3), ("uint8", 128, 7.0)])
def test_every_float16_x_matches_an_exact_rational_computation(t, z, s):
    """QL-23 with x and y_scale float16: the division in float16 (y_scale's type), then ties to even and
    saturation."""
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    scale = np.float16(s)
    y, why = _ql(x, scale, _zp(t, z), opset=23)
    lo, hi = INT_TYPES[t]
    fs = Fraction(float(scale))
    big = Fraction(65504)
    for i in range(1 << 16):
        v = x[i]
        if np.isnan(v):
            assert why[i] == Q.UNDEF_NAN_TO_INT
            continue
        if np.isinf(v):
            assert why[i] == Q.UNDEF_INF_TO_INT
            continue
        q = Fraction(float(v)) / fs
        if abs(q) > big + Fraction(16):  # beyond float16's max: Inf in float16, saturating
            want = hi if q > 0 else lo
        else:
            want = min(max(round(_round_f16(q)) + z, lo), hi)  # round(): Python's ties to even
        assert why[i] == "" and int(y[i]) == want, (float(v), int(y[i]), want)


@pytest.mark.parametrize("t", list(INT_TYPES))
def test_every_tie_rounds_to_even_and_saturates_at_both_ends(t):
    lo, hi = INT_TYPES[t]
    opset = 25
    k = np.arange(lo - 3, hi + 3)
    x = (k + 0.5).astype(np.float32)  # exact
    y, why = _ql(x, np.float32(1.0), _zp(t), opset=opset)
    want = np.clip(np.where(k % 2 == 0, k, k + 1), lo, hi)
    assert (why == "").all() and y.astype(np.int64).tolist() == want.tolist()
    ends = np.array([-3e38, lo - 1.0, lo - 0.5, lo, hi, hi + 0.5, hi + 1.0, 3e38], np.float32)
    y, _ = _ql(ends, np.float32(0.5), _zp(t), opset=opset)  # 3e38 / 0.5 overflows float32: Inf, saturating
    assert y.astype(np.int64).tolist() == [lo, lo, lo, lo, hi, hi, hi, hi]


def test_the_zero_point_shifts_before_saturation():
    y, _ = _ql(np.array([-300.0, -128.5, 126.5, 300.0], np.float32), np.float32(1), np.int8(-1), opset=13)
    assert y.tolist() == [-128, -128, 125, 127]


def test_per_axis_negative_axis_is_counted_from_the_back():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    s = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    a, _ = _ql(x, s, np.zeros(4, np.uint8), axis=-1, opset=13)
    b, _ = _ql(x, s, np.zeros(4, np.uint8), axis=2, opset=13)
    assert a.tolist() == b.tolist() == np.rint(x / s).astype(int).tolist()


def test_blocked_last_block_short():
    x = np.arange(10, dtype=np.float32).reshape(2, 5) * 4
    s = np.array([[1.0, 2.0, 4.0], [8.0, 1.0, 2.0]], np.float32)
    y, _ = _ql(x, s, np.zeros((2, 3), np.uint8), axis=1, block_size=2, opset=21)
    full = np.repeat(s, 2, axis=1)[:, :5]
    assert y.tolist() == np.clip(np.rint(x / full), 0, 255).astype(int).tolist()


# ---------------------------------------------------------------------------------------
# float outputs: Cast's tables [Cast], per opset
# ---------------------------------------------------------------------------------------
def test_float8_saturate_on_and_off():
    x = np.array([1000.0, -1000.0, np.inf, -np.inf, np.nan], np.float32)
    y, _ = _ql(x, np.float32(1), _zp("float8e4m3fn"), saturate=1, opset=19)
    assert y.astype(np.float64)[:4].tolist() == [448, -448, 448, -448] and np.isnan(float(y[4]))
    y, _ = _ql(x, np.float32(1), _zp("float8e4m3fn"), saturate=0, opset=19)
    assert np.isnan(y.astype(np.float64)).all()
    y, _ = _ql(x[:4] * 100, np.float32(1), _zp("float8e5m2"), saturate=0, opset=19)
    assert y.astype(np.float64).tolist() == [np.inf, -np.inf, np.inf, -np.inf]
    big = np.array([60000.0, -60000.0], np.float32)  # beyond 57344 but below e5m2's rounding limit 61440
    y, _ = _ql(big, np.float32(1), _zp("float8e5m2"), saturate=0, opset=19)
    assert y.astype(np.float64).tolist() == [57344, -57344]


def test_fnuz_infinity_with_saturate_changed_at_opset_24():
    x = np.array([np.inf, -np.inf], np.float32)
    for t in ("float8e4m3fnuz", "float8e5m2fnuz"):
        y23, _ = _ql(x, np.float32(1), _zp(t), saturate=1, opset=23)
        y24, _ = _ql(x, np.float32(1), _zp(t), saturate=1, opset=24)
        fmax = dtypes.get(t).finite_max
        assert np.isnan(y23.astype(np.float64)).all()
        assert y24.astype(np.float64).tolist() == [fmax, -fmax]


def test_float4_and_float6_ignore_saturate_and_leave_nan_open():
    x = np.array([100.0, -100.0, np.nan], np.float32)
    for t, opset in (("float4e2m1", 23), ("float6e2m3", 28), ("float6e3m2", 28)):
        for sat in (0, 1):
            y, why = _ql(x, np.float32(1), _zp(t), saturate=sat, opset=opset)
            fmax = dtypes.get(t).finite_max
            assert y.astype(np.float64)[:2].tolist() == [fmax, -fmax] and why[2] != "" and why[0] == ""


def test_a_float_zero_point_is_added():
    y, why = _ql(np.array([1.0, 2.0, -2.0], np.float32), np.float32(1), _zp("float8e4m3fn", 2.0), opset=19)
    assert y.astype(np.float64).tolist() == [3.0, 4.0, 0.0] and (why == "").all()


# ---------------------------------------------------------------------------------------
# precision, undefined elements
# ---------------------------------------------------------------------------------------
def test_the_division_is_in_the_scale_s_type():
    """QL-23: float32 x over a float16 scale divides in float16: a float32 quotient just above a tie becomes the
    tie in float16 and rounds to even; the same with precision=float32 rounds up."""
    x = np.array([2052.0], np.float32)  # 2052 / 4 = 513 exact; pick a non-exact one below
    s = np.float16(3.0)
    # 1539 / 3 = 513 exactly; 1541 / 3 = 513.67 -> float16 513.5 (ulp 0.5 at 512) -> tie -> 514 (even)
    x = np.array([1541.0], np.float32)
    y16, why = _ql(x, s, np.uint16(0), opset=23)
    y32, _ = _ql(x, s, np.uint16(0), opset=23, precision=dtypes.get("float").onnx)
    assert why[0] == "" and int(y16[0]) == 514 and int(y32[0]) == 514
    x = np.array([1540.0], np.float32)  # 513.333 -> float16 513.5 -> 514; in float32 513.33 -> 513
    y16, _ = _ql(x, s, np.uint16(0), opset=23)
    y32, _ = _ql(x, s, np.uint16(0), opset=23, precision=dtypes.get("float").onnx)
    assert int(y16[0]) == 514 and int(y32[0]) == 513


def test_before_23_a_float16_division_is_open_where_float32_differs():
    """QL-19 / 21 name no precision: float16 x / float16 y_scale in float16 or in float32."""
    x = np.arange(0, 2048, dtype=np.float16) * np.float16(0.0625)
    y19, why19 = _ql(x, np.float16(0.15), np.uint8(0), opset=19)
    y23, why23 = _ql(x, np.float16(0.15), np.uint8(0), opset=23)
    assert (why23 == "").all() and (why19 == Q.UNDEF_PRECISION_UNSTATED).any()
    wide = np.rint(x.astype(np.float32) / np.float32(np.float16(0.15)))
    ok = why19 == ""
    assert (y19[ok] == y23[ok]).all() and (np.clip(wide, 0, 255)[ok] == y19[ok]).all()
    assert (y23[~ok] != np.clip(wide, 0, 255)[~ok]).all()


def test_operands_not_exact_in_the_precision_are_open_where_it_matters():
    x = np.arange(2040, 2100, dtype=np.float32) + np.float32(0.25)
    y, why = _ql(x, np.float16(3.0), np.uint16(0), opset=23)
    assert (why == Q.UNDEF_OPERANDS).any() and (why == "").any()
    ok = why == ""
    q = (x.astype(np.float16).astype(np.float64) / 3.0).astype(np.float16).astype(np.float64)
    assert y[ok].tolist() == np.rint(q[ok]).astype(int).tolist()


def test_undefined_elements_by_reason():
    _, why = _ql(np.array([np.nan, np.inf, 1.0], np.float32), np.float32(1), np.uint8(0), opset=13)
    assert why.tolist() == [Q.UNDEF_NAN_TO_INT, Q.UNDEF_INF_TO_INT, ""]
    _, why = _ql(np.array([1.0, 0.0], np.float32), np.float32(0), np.uint8(0), opset=13)
    assert (why == Q.UNDEF_SCALE_ZERO).all()
    _, why = _ql(np.array([1.0], np.float32), np.float32(np.inf), np.uint8(0), opset=13)
    assert (why == Q.UNDEF_SCALE_NONFINITE).all()
    _, why = _ql(np.array([5], np.int32), np.int32(2), np.uint8(0), opset=19)
    assert (why == Q.UNDEF_PRECISION).all()
    # 3e38 / 0.5 is finite beyond float32: Inf in P, saturating (defined); an int32 x beyond 2**24 may round
    _, why = _ql(np.array([3e38], np.float32), np.float32(0.5), np.uint8(0), opset=13)
    assert why.tolist() == [""]
    # an int32 x beyond 2**24 is rounded to float32 (P at opset 13) before dividing, or the exact quotient is
    x = np.arange(2**24 + 1, 2**24 + 16384, 2, dtype=np.int32)  # odd: none exact in float32
    y, why = _ql(x, np.float32(1000.3), np.uint16(0), opset=23)
    assert (why == Q.UNDEF_OPERANDS).any() and (why == "").any()
    ok = why == ""
    q = x.astype(np.float32) / np.float32(1000.3)
    assert y[ok].tolist() == np.rint(q[ok]).astype(int).tolist()


def test_outcome_contract():
    o = Q.quantize_linear(np.array([np.nan, 1.0], np.float32), np.float32(1), np.uint8(0), opset=13)
    assert o.reasons == [Q.UNDEF_NAN_TO_INT] and o.mask().tolist() == [True, False]


def test_explained_is_the_outcome_and_the_readings():
    """(Outcome, readings) as Cast's explain: float outputs rest on Cast's tables, integer outputs on no reading."""
    x = np.array([1.0, np.inf], np.float32)
    o, readings = Q.quantize_linear_explained(x, np.float32(1), _zp("float8e4m3fnuz"), opset=23)
    assert readings == (Q.READING_CAST_TABLES,) and o.defined
    assert o.outputs[0].astype(np.float64)[0] == 1.0 and np.isnan(o.outputs[0].astype(np.float64)[1])
    o, readings = Q.quantize_linear_explained(x, np.float32(1), np.uint8(0), opset=13)
    assert readings == () and o.reasons == [Q.UNDEF_INF_TO_INT] and o.outputs[0].tolist()[0] == 1


# ---------------------------------------------------------------------------------------
# invalid models
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, err", [
    (dict(x=np.zeros(3, np.float32), s=np.ones(2, np.float32), z=np.zeros(2, np.uint8), axis=0, opset=13),
     QuantShapeError),
    (dict(x=np.zeros(3, np.float32), s=np.ones(3, np.float32), z=np.zeros((), np.uint8), axis=0, opset=13),
     QuantShapeError),
    (dict(x=np.zeros(3, np.float32), s=np.ones(3, np.float32), z=np.zeros(3, np.uint8), axis=0, opset=10),
     QuantShapeError),
    (dict(x=np.zeros((2, 4), np.float32), s=np.ones((2, 3), np.float32), z=None, axis=1, block_size=2, opset=21),
     QuantShapeError),
    (dict(x=np.zeros(3, np.float32), s=np.float16(1), z=np.uint8(0), opset=19), Q.ModelError),
    (dict(x=np.zeros(3, np.float32), s=np.float32(1), z=np.uint8(0), output_dtype=3, opset=21), Q.ModelError),
    (dict(x=np.zeros(3, np.float32), s=np.float32(1), z=np.int16(0), opset=19), Q.ModelError),
    (dict(x=np.zeros(3, np.float32), s=np.float32(1), z=np.uint8(0), output_dtype=2, opset=19), Q.ModelError),
    (dict(x=np.zeros(3, np.float16), s=np.float32(1), z=np.uint8(0), opset=13), Q.ModelError),
])
def test_invalid_models_raise(kw, err):
    x, s, z = kw.pop("x"), kw.pop("s"), kw.pop("z")
    with pytest.raises(err):
        Q.quantize_linear_explained(x, s, z, **kw)


def test_the_node_function_and_its_checks():
    from generator import reference

    fn = reference.lookup("", "QuantizeLinear")
    f32, u8 = dtypes.get("float"), dtypes.get("uint8")
    (y,) = fn([np.array([1.0, 3.0], np.float32), np.float32(2), np.uint8(1)], {}, 13, [f32, f32, u8])
    assert y.tolist() == [1, 3]  # 0.5 -> 0 (even) + 1; 1.5 -> 2 + 1
    with pytest.raises(Q.ModelError):
        fn.validate({"axis": 0}, 10, [f32, f32, u8], [1, 0, 0])
    with pytest.raises(QuantShapeError):
        fn.validate_shapes([(3,), (2,), (3,)], {"axis": 0}, 13)
