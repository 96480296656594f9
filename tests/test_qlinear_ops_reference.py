"""The QLinear operators' reference (generator/reference/qlinear_ops.py, float_ops.py): each operator against an
independent computation written here from its text (exact rationals, plain loops), exhaustively where the input space
is small (QLinearAdd over every pair of uint8 values, the unary operators over every value of T), the readings'
consequences (ties to even after the rounding, the zero point added after), the range the float32 reading allows, and
what validate refuses."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from generator import dtypes
from generator.reference import float_ops
from generator.reference import qlinear_ops as ref

U8, I8 = np.uint8, np.int8


def _rhe(x: Fraction) -> int:
    return round(x)  # Python rounds a Fraction half to even


def _quant(x: Fraction, zp: int, t) -> int:
    info = np.iinfo(t)
    return min(max(_rhe(x) + zp, info.min), info.max)


def _quant_first(x: Fraction, zp: int, t) -> int:
    """QLinearAdd / QLinearMul: the formula's right-hand side, the zero point in it, rounded once."""
    info = np.iinfo(t)
    return min(max(_rhe(x + zp), info.min), info.max)


def _f(v) -> Fraction:
    return Fraction(float(np.float32(v)))


def test_qlinearadd_every_uint8_pair_with_power_of_two_scales_is_exact_and_ties_to_even():
    """C = (A_scale (A - A_zp) + B_scale (B - B_zp)) / C_scale + C_zp over all 65536 pairs: with power-of-two
    scales every float32 evaluation is exact, so the range is one value, the independent rational one."""
    a = np.repeat(np.arange(256), 256).astype(U8)
    b = np.tile(np.arange(256), 256).astype(U8)
    sa, za, sb, zb, sc, zc = 2.0 ** -4, 77, 2.0 ** -5, 130, 2.0 ** -3, 101
    inputs = [a, np.float32(sa), U8(za), b, np.float32(sb), U8(zb), np.float32(sc), U8(zc)]
    e, lo, hi, why = ref.bounds("QLinearAdd", inputs, {})
    assert (lo == hi).all() and (e == lo).all() and (why == "").all()
    want = np.array([_quant_first((_f(sa) * (int(x) - za) + _f(sb) * (int(y) - zb)) / _f(sc), zc, U8)
                     for x, y in zip(a.tolist(), b.tolist())], U8)
    assert (e == want).all()
    ties = [(_f(sa) * (int(x) - za) + _f(sb) * (int(y) - zb)) / _f(sc) for x, y in zip(a[:4096].tolist(),
                                                                                     b[:4096].tolist())]
    assert any(t.denominator == 2 for t in ties)  # ties occur, and round to even with C_zp (odd) in the sum


def test_where_the_zero_point_goes_in_the_rounding():
    """QLinearAdd's formula '... / C_scale + C_zero_point' rounds the whole: -33.5 + 71 = 37.5 -> 38
    (READING_FORMULA_ROUNDING); QuantizeLinear's order (a DQ -> Add -> Q chain) rounds -33.5 to -34 first: 37. The
    other operators' quantize() is QuantizeLinear's: a mean of -2.5 steps at an odd zero point 3 gives -2 + 3 = 1."""
    inputs = [np.array([63], U8), np.float32(2.0 ** -5), U8(99), np.array([65], U8), np.float32(2.0 ** -6), U8(127),
              np.float32(2.0 ** -4), U8(71)]
    assert ref.qlinear("QLinearAdd", inputs, {}).outputs[0].tolist() == [38]
    assert ref.bounds("QLinearAdd", inputs, {}, zero_point_first=False)[0].tolist() == [37]
    x = np.array([[[[0, 5]]]], U8)  # mean (0 + 5) / 2 - 5 = -2.5 steps of 1
    pool = ref.qlinear("QLinearAveragePool", [x, np.float32(1), U8(5), np.float32(1), U8(3)], {"kernel_shape": [1, 2]})
    assert pool.outputs[0].ravel().tolist() == [1]


def test_general_scales_give_a_range_that_holds_the_exact_value():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-128, 128, (2, 500)).astype(I8)
    inputs = [a, np.float32(0.0173), I8(-3), b, np.float32(0.0411), I8(12), np.float32(0.0529), I8(-7)]
    e, lo, hi, _ = ref.bounds("QLinearAdd", inputs, {})
    exact = [(_f(0.0173) * (int(x) + 3) + _f(0.0411) * (int(y) - 12)) / _f(0.0529) for x, y in zip(a, b)]
    assert (e == np.array([_quant_first(x, -7, I8) for x in exact])).all()
    assert ((lo <= e) & (e <= hi)).all() and (hi.astype(int) - lo.astype(int) <= 1).all()
    assert (lo == hi).mean() > 0.99  # a neighbour is allowed only near a rounding boundary


def test_qlinearmul_and_where_and_concat_against_their_formulas():
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 256, (2, 3, 4)).astype(U8)
    s = [np.float32(v) for v in (0.02, 0.03, 0.05)]
    y = ref.qlinear("QLinearMul", [a, s[0], U8(120), b, s[1], U8(3), s[2], U8(128)], {}).outputs[0]
    want = [_quant_first((_f(s[0]) * (int(x) - 120)) * (_f(s[1]) * (int(z) - 3)) / _f(s[2]), 128, U8)
            for x, z in zip(a.ravel().tolist(), b.ravel().tolist())]
    e, lo, hi, _ = ref.bounds("QLinearMul", [a, s[0], U8(120), b, s[1], U8(3), s[2], U8(128)], {})
    assert ((np.array(want) >= lo.ravel()) & (np.array(want) <= hi.ravel())).all() and y.shape == (3, 4)
    cond = rng.integers(0, 2, (3, 1)).astype(bool)
    z = ref.qlinear("QLinearWhere", [cond, a, s[0], U8(120), b[:1], s[1], U8(3), s[2], U8(10)], {}).outputs[0]
    for i, j in product(range(3), range(4)):
        src = (_f(s[0]) * (int(a[i, j]) - 120)) if cond[i, 0] else (_f(s[1]) * (int(b[0, j]) - 3))
        assert int(z[i, j]) == _quant(src / _f(s[2]), 10, U8)
    c = ref.qlinear("QLinearConcat", [s[2], U8(7), a, s[0], U8(120), b, s[1], U8(3)], {"axis": 1}).outputs[0]
    assert c.shape == (3, 8)
    assert int(c[2, 5]) == _quant(_f(s[1]) * (int(b[2, 1]) - 3) / _f(s[2]), 7, U8)


@pytest.mark.parametrize("t", [U8, I8])
def test_unary_operators_over_every_value_of_t(t):
    """QLinearSigmoid, QLinearLeakyRelu over T's 256 values: the range holds the independently rounded value of
    the float64 function, and is one value wherever that value is not within 2**-16 of a rounding boundary."""
    x = np.arange(np.iinfo(t).min, np.iinfo(t).max + 1).astype(t)
    xs, xz, ys, yz = np.float32(0.0372), t(5), np.float32(1 / 255), t(np.iinfo(t).min)
    for op, f, attrs in (("QLinearSigmoid", lambda v: 1 / (1 + np.exp(-v)), {}),
                         ("QLinearLeakyRelu", lambda v: v if v >= 0 else 0.01 * v, {}),
                         ("QLinearLeakyRelu", lambda v: v if v >= 0 else 0.25 * v, {"alpha": 0.25})):
        e, lo, hi, _ = ref.bounds(op, [x, xs, xz, ys, yz], attrs)
        q = np.array([f(float(xs) * (int(v) - int(xz))) for v in x.tolist()]) / float(ys)
        want = np.clip(np.rint(q) + int(yz), np.iinfo(t).min, np.iinfo(t).max)
        assert ((want >= lo) & (want <= hi)).all(), op
        near = np.abs(q - np.floor(q) - 0.5) < 2.0 ** -16
        assert (lo[~near] == hi[~near]).all() and (e[~near] == want[~near]).all(), op


def test_softmax_opset_12_coerces_and_13_takes_one_axis():
    """QLinearSoftmax: opset < 13 is Softmax-11's 2-D coercion at axis; 13 one axis; axis defaults to -1."""
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    flat = np.exp(x.reshape(2, 12) - x.reshape(2, 12).max(1, keepdims=True))
    want12 = (flat / flat.sum(1, keepdims=True)).reshape(2, 3, 4)
    assert np.allclose(float_ops.softmax(x, {"opset": 12, "axis": 1}), want12)
    per = np.exp(x - x.max(1, keepdims=True))
    assert np.allclose(float_ops.softmax(x, {"opset": 13, "axis": 1}), per / per.sum(1, keepdims=True))
    last = np.exp(x - x.max(2, keepdims=True))
    for opset in (11, 12, 13):
        assert np.allclose(float_ops.softmax(x, {"opset": opset}), last / last.sum(2, keepdims=True))


def _pool_loop(x, k, s, pads, include):
    """AveragePool of one 2-D channel by plain loops (pads: top, left, bottom, right)."""
    h, w = x.shape
    oh = (h + pads[0] + pads[2] - k[0]) // s[0] + 1
    ow = (w + pads[1] + pads[3] - k[1]) // s[1] + 1
    out = np.zeros((oh, ow))
    for i, j in product(range(oh), range(ow)):
        cells = [(i * s[0] - pads[0] + di, j * s[1] - pads[1] + dj) for di in range(k[0]) for dj in range(k[1])]
        real = [x[p, q] for p, q in cells if 0 <= p < h and 0 <= q < w]
        out[i, j] = sum(real) / (len(cells) if include else len(real))
    return out


@pytest.mark.parametrize("include", [0, 1])
def test_average_pool_against_loops(include):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 2, 5, 6))
    attrs = {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1], "count_include_pad": include}
    total, count = float_ops.average_pool(x, attrs)
    for c in range(2):
        assert np.allclose((total / count)[0, c], _pool_loop(x[0, c], (3, 2), (2, 1), (1, 0, 1, 1), include))
    last = float_ops.evaluate("AveragePool", {"X": np.moveaxis(x, 1, -1)}, {"X": 1.0},
                              dict(attrs, channels_last=1))[0]
    assert np.allclose(np.moveaxis(last, -1, 1), total / count)


def test_same_padding_puts_the_odd_pad_at_the_end_for_upper_and_the_beginning_for_lower():
    assert float_ops.pool_pads({"kernel_shape": [2], "auto_pad": "SAME_UPPER"}, (7,))[:2] == ([0], [1])
    assert float_ops.pool_pads({"kernel_shape": [2], "auto_pad": "SAME_LOWER"}, (7,))[:2] == ([1], [0])
    assert float_ops.pool_pads({"kernel_shape": [3], "strides": [2], "ceil_mode": 1}, (6,))[2] == [3]
    assert float_ops.pool_pads({"kernel_shape": [3], "strides": [2]}, (6,))[2] == [2]


def test_global_average_pool_and_an_empty_window():
    x = np.arange(32, dtype=U8).reshape(1, 2, 4, 4)
    y = ref.qlinear("QLinearGlobalAveragePool", [x, np.float32(1), U8(0), np.float32(1), U8(0)], {}).outputs[0]
    assert y.shape == (1, 2, 1, 1) and y.ravel().tolist() == [8, 24]  # 7.5 and 23.5 round to even
    out = ref.qlinear("QLinearAveragePool", [np.ones((1, 1, 3, 3), U8), np.float32(1), U8(0), np.float32(1), U8(0)],
                      {"kernel_shape": [2, 2], "pads": [2, 2, 0, 0], "strides": [2, 2]})
    assert out.reasons == [ref.UNDEF_EMPTY_WINDOW] and out.mask()[0, 0, 0, 0] and not out.mask()[0, 0, 1, 1]


def test_a_ceil_mode_window_past_the_end_covers_nothing():
    """kernel 1, stride 3, ceil_mode over 2 rows: the text's ceil((2 - 1) / 3 + 1) = 2 windows, the second starting
    at row 3, past the input and its padding: its count is 0 (count_include_pad or not), its mean 0 / 0."""
    x = np.array([80, 242], U8).reshape(1, 1, 2, 1)
    for include in (0, 1):
        out = ref.qlinear("QLinearAveragePool", [x, np.float32(1), U8(0), np.float32(1), U8(0)],
                          {"kernel_shape": [1, 1], "strides": [3, 1], "ceil_mode": 1, "count_include_pad": include})
        assert out.outputs[0].shape == (1, 1, 2, 1) and out.mask().ravel().tolist() == [False, True]
        assert out.outputs[0].ravel()[0] == 80


def test_same_padding_below_zero_is_zero():
    """SAME_UPPER, kernel 1, stride 3 over 9 rows: (3 - 1) * 3 + 1 - 9 = -2 pads, read as 0 (the text's max(0, ...)):
    rows 0, 3, 6."""
    x = np.arange(9, dtype=U8).reshape(1, 1, 9, 1)
    y = ref.qlinear("QLinearAveragePool", [x, np.float32(1), U8(0), np.float32(1), U8(0)],
                    {"kernel_shape": [1, 1], "strides": [3, 1], "auto_pad": "SAME_UPPER"}).outputs[0]
    assert y.ravel().tolist() == [0, 3, 6]


def test_a_zero_y_scale_is_undefined():
    out = ref.qlinear("QLinearSigmoid", [np.zeros(3, U8), np.float32(1), U8(0), np.float32(0), U8(0)], {})
    assert out.reasons == [ref.UNDEF_Y_SCALE] and out.mask().all()


def test_validate_refuses_what_the_texts_rule_out():
    u8, i8, f, h, b = (dtypes.get(n) for n in ("uint8", "int8", "float", "float16", "bool"))
    ref.validate("QLinearAdd", {}, [u8, f, u8, u8, f, u8, f, u8])
    for op, attrs, types in (("QLinearAdd", {}, [u8, f, u8, i8, f, i8, f, u8]),
                             ("QLinearAdd", {}, [u8, h, u8, u8, f, u8, f, u8]),
                             ("QLinearAveragePool", {}, [u8, f, u8, f, u8]),
                             ("QLinearSoftmax", {}, [u8, f, u8, f, u8]),
                             ("QLinearConcat", {}, [f, u8, u8, f, u8]),
                             ("QLinearWhere", {}, [u8, u8, f, u8, u8, f, u8, f, u8])):
        with pytest.raises(ValueError):
            ref.validate(op, attrs, types)
    ref.validate("QLinearWhere", {}, [b, u8, f, u8, u8, f, u8, f, u8])
    with pytest.raises(ValueError, match="scalar"):
        ref.qlinear("QLinearSigmoid", [np.zeros(3, U8), np.ones(2, np.float32), U8(0), np.float32(1), U8(0)], {})


def test_every_row_has_a_float_function_and_a_clause():
    for op, row in ref.QOPS.items():
        assert row.float_op in float_ops.ROWS and row.clause.startswith(op), op
        assert (ref.DOMAIN, op) in ref.NODES
