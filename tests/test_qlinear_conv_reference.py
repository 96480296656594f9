"""The QLinearConv reference (generator/reference/qlinear_conv.py) held to its spec.

Independent oracle: slow_qlinear_conv() below, written from the spec text with explicit loops over every
output position, Python integers for the accumulation and fractions.Fraction for the requantization
(Python's round() of a Fraction rounds half to even). It shares no code with the reference. Then
hand-computed examples, the padding arithmetic of auto_pad, undefined elements, invalid models, and seeded
hypothesis configurations (1-D to 3-D, groups, strides, dilations, every auto_pad, per-channel quantization,
all type triples, bias) against the oracle.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import dtypes
from generator.outcome import Outcome
from generator.reference import qlinear_conv as ref
from generator.reference.qlinear_conv import qlinear_conv

F32 = np.float32
U8, I8 = np.uint8, np.int8


# ---------------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------------
def slow_padding(in_size, k, s, d, auto_pad, begin_pad, end_pad):
    """(begin, end, out) of one axis, from the spec's words: SAME gives ceil(in / stride) outputs, the
    padding split equally, the odd one at the end (UPPER) or the beginning (LOWER)."""
    span = d * (k - 1) + 1
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = math.ceil(in_size / s)
        total = max(0, (out - 1) * s + span - in_size)
        begin = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        return begin, total - begin, out
    if auto_pad == "VALID":
        begin_pad = end_pad = 0
    return begin_pad, end_pad, (in_size + begin_pad + end_pad - span) // s + 1


def slow_qlinear_conv(x, xs, xz, w, ws, wz, ys, yz, bias=None, auto_pad="NOTSET", dilations=None, group=1,
                      pads=None, strides=None, kernel_shape=None):
    """y (of y_zero_point's type) and a bool mask of elements whose acc leaves int32 (None: a bad scale)."""
    x, w = np.asarray(x), np.asarray(w)
    n_batch, c_in = x.shape[:2]
    m_out, cg = w.shape[:2]
    kernel = tuple(kernel_shape) if kernel_shape is not None else w.shape[2:]  # "inferred from input w"
    assert kernel == w.shape[2:]
    nd = len(kernel)
    strides = strides or [1] * nd
    dilations = dilations or [1] * nd
    pads = pads or [0] * (2 * nd)
    axes = [slow_padding(x.shape[2 + a], kernel[a], strides[a], dilations[a], auto_pad, pads[a], pads[a + nd])
            for a in range(nd)]
    ws = np.broadcast_to(np.asarray(ws, F32).reshape(-1), (m_out,))
    wz = np.broadcast_to(np.asarray(wz).reshape(-1), (m_out,))
    scales = [float(np.asarray(xs, F32)), float(np.asarray(ys, F32))] + [float(v) for v in ws]
    if not all(math.isfinite(v) and v > 0 for v in scales):
        return None, None
    t = dtypes.from_numpy(np.asarray(yz).dtype)
    out_shape = (n_batch, m_out) + tuple(o for _, _, o in axes)
    y = np.zeros(out_shape, dtype=t.np_dtype)
    outside = np.zeros(out_shape, dtype=bool)
    per_group = m_out // group
    for n in range(n_batch):
        for m in range(m_out):
            g = m // per_group
            c_mult = (Fraction(float(np.asarray(xs, F32))) * Fraction(float(ws[m]))
                      / Fraction(float(np.asarray(ys, F32))))
            for pos in itertools.product(*(range(o) for _, _, o in axes)):
                acc = int(bias[m]) if bias is not None else 0
                for c in range(cg):
                    for kpos in itertools.product(*(range(k) for k in kernel)):
                        idx = [pos[a] * strides[a] - axes[a][0] + kpos[a] * dilations[a] for a in range(nd)]
                        inside = all(0 <= idx[a] < x.shape[2 + a] for a in range(nd))
                        xv = int(x[(n, g * cg + c) + tuple(idx)]) if inside else int(xz)  # padding = zero point
                        acc += (xv - int(xz)) * (int(w[(m, c) + kpos]) - int(wz[m]))
                if not -(2**31) <= acc < 2**31:
                    outside[(n, m) + pos] = True
                    continue
                q = round(acc * c_mult) + int(yz)
                y[(n, m) + pos] = min(max(q, t.int_min), t.int_max)
    return y, outside


def _check(inputs: dict, **attrs):
    outcome = qlinear_conv(**inputs, **attrs)
    (y,) = outcome.outputs
    want, outside = slow_qlinear_conv(*inputs.values(), **attrs)
    if want is None:
        assert outcome.reasons == [ref.UNDEF_SCALE] and outcome.undefined[ref.UNDEF_SCALE].all()
        return
    assert y.shape == want.shape and y.dtype == want.dtype
    if outside.any():
        assert outcome.reasons == [ref.UNDEF_ACC_INT32] and np.array_equal(outcome.mask(), outside)
    else:
        assert outcome.undefined == {}
    ok = ~outside
    assert np.array_equal(y[ok], want[ok]), np.argwhere((y != want) & ok)[:5]


def _inputs(x, w, xs=1.0, xz=0, ws=1.0, wz=0, ys=1.0, yz=0, bias=None, x_type=U8, w_type=U8, y_type=U8):
    d = dict(x=np.asarray(x, x_type), x_scale=F32(xs), x_zero_point=x_type(xz), w=np.asarray(w, w_type),
             w_scale=np.asarray(ws, F32), w_zero_point=np.asarray(wz, w_type), y_scale=F32(ys),
             y_zero_point=y_type(yz))
    if bias is not None:
        d["bias"] = np.asarray(bias, np.int32)
    return d


# ---------------------------------------------------------------------------------------------
# hand-computed examples
# ---------------------------------------------------------------------------------------------
X1 = [[[1, 2, 3, 4]]]  # N=1, C=1, W=4


@pytest.mark.parametrize("attrs, xz, want", [
    ({}, 0, [3, 5, 7]),
    ({"pads": [1, 1]}, 0, [1, 3, 5, 7, 4]),
    ({"pads": [1, 1]}, 1, [0, 1, 3, 5, 3]),  # padding holds x_zero_point: adds nothing
    ({"strides": [2]}, 0, [3, 7]),
    ({"dilations": [2]}, 0, [4, 6]),
    ({"auto_pad": "VALID"}, 0, [3, 5, 7]),
    ({"auto_pad": "SAME_UPPER"}, 0, [3, 5, 7, 4]),  # total padding 1, at the end
    ({"auto_pad": "SAME_LOWER"}, 0, [1, 3, 5, 7]),  # total padding 1, at the beginning
    ({"auto_pad": "SAME_UPPER", "strides": [2]}, 0, [3, 7]),  # ceil(4 / 2) = 2, no padding needed
])
def test_hand_computed_1d(attrs, xz, want):
    outcome = qlinear_conv(**_inputs(X1, [[[1, 1]]], xz=xz), **attrs)
    assert outcome.defined and outcome.outputs[0].ravel().tolist() == want


def test_hand_computed_requantization_ties_round_half_to_even():
    # acc = x (1x1 kernel, w = 1), y = round(acc * 1 * 1 / 2) + 10
    x = [[[1, 3, 5, 7, 0, 2]]]
    (y,) = qlinear_conv(**_inputs(x, [[[1]]], ys=2.0, yz=10)).outputs
    assert y.ravel().tolist() == [10, 12, 12, 14, 10, 11]  # 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4
    # the zero point is added after rounding: an odd y_zero_point keeps the ties where they were
    (y,) = qlinear_conv(**_inputs(x, [[[1]]], ys=2.0, yz=11)).outputs
    assert y.ravel().tolist() == [11, 13, 13, 15, 11, 12]
    # negative ties: (x - 8) / 2 for x = 1, 3, 5, 7 -> -3.5, -2.5, -1.5, -0.5 -> -4, -2, -2, -0
    (y,) = qlinear_conv(**_inputs(x, [[[1]]], xz=8, ys=2.0, yz=100)).outputs
    assert y.ravel().tolist() == [96, 98, 98, 100, 96, 97]


def test_hand_computed_group_per_channel_bias_and_saturation():
    x = np.array([[[[2]], [[3]]]], U8)  # N=1, C=2, 1x1
    w = np.array([[[[4]]], [[[5]]]], U8)  # M=2, C/group=1: group 2
    (y,) = qlinear_conv(**_inputs(x, w, ws=[1.0, 0.5], wz=[0, 1]), group=2).outputs
    assert y.ravel().tolist() == [8, 6]  # 2 * 4 * 1, 3 * (5 - 1) * 0.5
    (y,) = qlinear_conv(**_inputs(x, w, ws=[1.0, 0.5], wz=[0, 1], bias=[-10, 300]), group=2).outputs
    assert y.ravel().tolist() == [0, 156]  # 8 - 10 = -2 saturates to 0; (12 + 300) * 0.5
    (y,) = qlinear_conv(**_inputs(x, w, ws=[1.0, 0.5], wz=[0, 1], bias=[-200, 300], y_type=I8, yz=-3), group=2).outputs
    assert y.ravel().tolist() == [-128, 127]  # -192 - 3 and 156 - 3 saturate at both ends of int8


def test_onnx_example():
    # the example of ONNX's own QLinearConv test (1x1 kernel, per-channel w_scale of one element)
    x = np.array([[255, 174, 162, 25, 203, 168, 58], [15, 59, 237, 95, 129, 0, 64],
                  [56, 242, 153, 221, 168, 12, 166], [232, 178, 186, 195, 237, 162, 237],
                  [188, 39, 124, 77, 80, 102, 43], [127, 230, 21, 83, 41, 40, 134],
                  [255, 154, 92, 141, 42, 148, 247]], U8).reshape(1, 1, 7, 7)
    want = np.array([[0, 81, 93, 230, 52, 87, 197], [240, 196, 18, 160, 126, 255, 191],
                     [199, 13, 102, 34, 87, 243, 89], [23, 77, 69, 60, 18, 93, 18],
                     [67, 216, 131, 178, 175, 153, 212], [128, 25, 234, 172, 214, 215, 121],
                     [0, 101, 163, 114, 213, 107, 8]], U8).reshape(1, 1, 7, 7)
    (y,) = qlinear_conv(x, F32(0.00369204697), U8(132), np.zeros((1, 1, 1, 1), U8), np.array([0.00172794575], F32),
                        np.array([255], U8), F32(0.00162681262), U8(123)).outputs
    assert np.array_equal(y, want)


# ---------------------------------------------------------------------------------------------
# padding arithmetic
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"])
def test_padding_matches_the_spec_words_for_every_size(mode):
    for in_size, k, s, d in itertools.product(range(1, 12), range(1, 5), range(1, 4), range(1, 3)):
        pads = [1, 2] if mode == "NOTSET" else None
        begin, end, out = ref.resolve_padding((in_size,), (k,), [s], [d], mode, pads)
        want = slow_padding(in_size, k, s, d, mode, 1, 2)
        assert (begin[0], end[0], out[0]) == want
        if mode.startswith("SAME"):
            assert out[0] == -(-in_size // s) and abs(begin[0] - end[0]) <= 1


def test_pads_with_auto_pad_is_refused():
    with pytest.raises(ValueError, match="pads cannot be used together with auto_pad"):
        ref.resolve_padding((5,), (3,), [1], [1], "SAME_UPPER", [1, 1])


# ---------------------------------------------------------------------------------------------
# undefined elements and invalid models
# ---------------------------------------------------------------------------------------------
def test_acc_beyond_int32_is_undefined_per_element():
    x = np.array([[[255, 0, 255]]], U8)
    d = _inputs(x, [[[255]]], bias=[2**31 - 255 * 255 + 10])  # 255 * 255 + bias > int32 max
    outcome = qlinear_conv(**d)
    (y,) = outcome.outputs
    assert isinstance(outcome, Outcome) and outcome.reasons == [ref.UNDEF_ACC_INT32]
    assert outcome.undefined[ref.UNDEF_ACC_INT32].ravel().tolist() == [True, False, True]
    assert y.ravel()[1] == 255  # the defined element saturates
    _check(d)


@pytest.mark.parametrize("field, value", [("y_scale", 0.0), ("y_scale", -1.0), ("x_scale", np.inf),
                                          ("w_scale", np.nan), ("x_scale", -0.0)])
def test_scales_that_are_not_positive_finite_are_undefined(field, value):
    d = _inputs(X1, [[[1, 1]]])
    d[field] = np.asarray(value, F32)
    outcome = qlinear_conv(**d)
    assert outcome.reasons == [ref.UNDEF_SCALE] and outcome.mask().all()
    assert outcome.undefined[ref.UNDEF_SCALE].shape == outcome.outputs[0].shape


@pytest.mark.parametrize("change, match", [
    (dict(w_scale=np.ones(3, F32)), "w_scale has 3 elements"),
    (dict(w_zero_point=np.zeros(2, U8)), "w_zero_point has 2 elements"),
    (dict(bias=np.zeros(5, np.int32)), "B has shape"),
    (dict(x=np.zeros((1, 3, 4, 4), U8)), "channels"),
    (dict(y_scale=np.ones(2, F32)), "y_scale has 2 elements"),
])
def test_invalid_shapes_raise(change, match):
    d = _inputs(np.zeros((1, 2, 4, 4)), np.zeros((4, 2, 3, 3)))
    d.update(change)
    with pytest.raises(ValueError, match=match):
        qlinear_conv(**d)
    shapes = [np.shape(d[k]) for k in ("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
                                       "y_scale", "y_zero_point")] + [np.shape(d["bias"]) if "bias" in d else None]
    with pytest.raises(ValueError, match=match):
        ref.qlinear_conv_check(shapes, {}, 10)


@pytest.mark.parametrize("attrs, match", [
    ({"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]}, "pads cannot be used together"),
    ({"auto_pad": "SAME"}, "auto_pad must be one of"),
    ({"strides": [1]}, "strides has 1 values"),
    ({"pads": [1, 1]}, "pads has 2 values"),
])
def test_check_refuses_invalid_attributes(attrs, match):
    with pytest.raises(ValueError, match=match):
        ref.qlinear_conv_check([(1, 2, 5, 5), (), (), (4, 2, 3, 3), (), (), (), ()], attrs, 10)


def test_check_accepts_valid_and_unknown_shapes():
    ref.qlinear_conv_check([(1, 4, 5, 5), (), (), (6, 2, 3, 3), (6,), (6,), (), (), (6,)], {"group": 2}, 10)
    ref.qlinear_conv_check([None] * 8, {}, 10)
    with pytest.raises(ValueError, match="group"):
        ref.qlinear_conv_check([(1, 3, 5, 5), (), (), (4, 1, 3, 3), (), (), (), ()], {"group": 2}, 10)


def test_kernel_larger_than_the_padded_input_is_refused():
    with pytest.raises(ValueError, match="larger than the padded input"):
        qlinear_conv(**_inputs(X1, [[[1, 1, 1, 1, 1]]]))


# ---------------------------------------------------------------------------------------------
# requantization paths: exact, float32 and float64 estimates, the exact fallback
# ---------------------------------------------------------------------------------------------
def _slow_requantize(acc, num, den, yz, t):
    return [min(max(round(Fraction(int(a) * num, den)) + yz, t.int_min), t.int_max) for a in acc]


@pytest.mark.parametrize("xs, ws, ys", [
    (0.5, 0.25, 0.75),  # c = 1/6: no float, exact ties where acc = 3 mod 6 (the exact fallback)
    (1.0, 1.0, 3.0),  # c = 1/3: no ties, estimates near half-integers
    (0.125, 1.0, 1.0),  # c = 2**-3: exact estimate
    (2.0**-100, 2.0**-40, 2.0**-135),  # c = 2**-5 from extreme scales
    (1e-30, 3e-38, 1e-40),  # c far from any float32 (the float64 path)
    (3e38, 3e38, 1e-45),  # c ~ 2**405 (float64 path): everything nonzero saturates
    (0.0213, 0.0071, 0.173),
])
def test_requantize_against_fractions(xs, ws, ys):
    num, den = ref.multiplier(F32(xs), F32(ws), F32(ys))
    assert Fraction(num, den) == Fraction(float(F32(xs))) * Fraction(float(F32(ws))) / Fraction(float(F32(ys)))
    rs = np.random.RandomState(3)
    for acc_type, top in ((np.float32, 2**24 - 1), (np.float64, 2**31 - 1)):
        acc = np.concatenate([np.arange(-300, 301), rs.randint(-top, top, 2000)]).astype(acc_type)
        for t, yz in ((dtypes.get("uint8"), 7), (dtypes.get("int8"), -3)):
            y = ref.requantize(acc.reshape(1, 1, -1), [(num, den)], yz, t, top)
            assert y.ravel().tolist() == _slow_requantize(acc, num, den, yz, t)


def test_requantize_near_ties_of_an_inexact_multiplier():
    # c = 1/6 * (1 + 2**-23): acc = 3 gives 0.5 + 2**-24, just above the tie (rounds up, not to even)
    num, den = ref.multiplier(F32(1.0 + 2.0**-23), F32(1.0), F32(6.0))
    acc = np.array([3, -3, 9, 15, 6 * 2**20 + 3], np.float32).reshape(1, 1, -1)
    y = ref.requantize(acc, [(num, den)], 0, dtypes.get("int8"), 2**24)
    assert y.ravel().tolist() == _slow_requantize(acc.ravel(), num, den, 0, dtypes.get("int8"))
    assert y.ravel().tolist()[:4] == [1, -1, 2, 3]


def test_float32_estimate_wrong_side_of_half_is_recomputed():
    # c = (1 + 2**-23)(1 - 2**-24) / 2 = 0.5 + 2**-25 - 2**-48 is 0.5 in float32: acc = 1 estimates 0.5
    # (to even: 0) while the exact value is above the tie (1)
    num, den = ref.multiplier(F32(1 + 2.0**-23), F32(1 - 2.0**-24), F32(2.0))
    acc = np.array([1, 3, 5, -1], np.float32).reshape(1, 1, -1)
    y = ref.requantize(acc, [(num, den)], 0, dtypes.get("int8"), 5)
    assert y.ravel().tolist() == [1, 2, 3, -1]


def test_float32_estimate_just_below_a_half_is_recomputed():
    # random float32 scales where acc = 1791 estimates 235.49998 in float32 while the exact value is above
    # 235.5 (found by search): the float32 window must reach 2**-15 below the tie
    xs, ws, ys = F32(0.7108298540115356), F32(0.009434971027076244), F32(0.05100478231906891)
    num, den = ref.multiplier(xs, ws, ys)
    acc = np.array([1791, -1791], np.float32).reshape(1, 1, -1)
    assert np.float32(1791) * np.float32(num / den) == F32(235.49998474121094)
    y = ref.requantize(acc, [(num, den)], 10, dtypes.get("uint8"), 1791)
    assert y.ravel().tolist() == [246, 0]  # round(235.5000...) = 236, + 10
    y = ref.requantize(acc, [(num, den)], 110, dtypes.get("int8"), 1791)
    assert y.ravel().tolist() == [127, -126]  # 236 + 110 saturates; -236 + 110


def test_float64_estimate_within_the_window_is_recomputed_exactly():
    # c = 0.5 + 2**-54 rounds to 0.5 in float64: the estimates 0.5, 2.5 are ties, the exact values are not
    c = [(2**53 + 1, 2**54)]
    acc = np.array([1, 3, 5, -5, 7], np.float64).reshape(1, 1, -1)
    y = ref.requantize(acc, c, 0, dtypes.get("int8"), 7)
    assert y.ravel().tolist() == [1, 2, 3, -3, 4]


# ---------------------------------------------------------------------------------------------
# seeded random configurations against the oracle
# ---------------------------------------------------------------------------------------------
@st.composite
def configurations(draw):
    nd = draw(st.integers(1, 3))
    group = draw(st.sampled_from([1, 2, 3]))
    cg, mg = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    auto_pad = draw(st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    pads = [draw(st.integers(0, 2)) for _ in range(2 * nd)] if auto_pad == "NOTSET" else None
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    spatial = tuple(draw(st.integers(e, e + 4)) for e in extent)
    x_t, w_t, y_t = (draw(st.sampled_from([U8, I8])) for _ in range(3))
    per_channel = draw(st.booleans())
    m = mg * group
    rs = np.random.RandomState(draw(st.integers(0, 2**31)))

    def ints(t, shape):
        info = np.iinfo(t)
        return rs.randint(info.min, info.max + 1, shape).astype(t)

    def zero_point(t, shape):  # an end of the type's range, or anything
        end = draw(st.sampled_from(["min", "max", "any"]))
        return ints(t, shape) if end == "any" else np.full(shape, getattr(np.iinfo(t), end), t)

    x = ints(x_t, (draw(st.integers(1, 2)), cg * group) + spatial)
    w = ints(w_t, (m, cg) + kernel)
    n_w = (m,) if per_channel else ()
    scales = draw(st.sampled_from(["random", "pow2"]))
    if scales == "pow2":
        xs, ys = 2.0 ** rs.randint(-6, 0), 2.0 ** rs.randint(0, 12)
        ws = (2.0 ** rs.randint(-6, 0, n_w)) if per_channel else 2.0 ** rs.randint(-6, 0)
    else:
        xs, ys = 2.0 ** rs.uniform(-8, 0), 2.0 ** rs.uniform(-6, 6)
        ws = 2.0 ** rs.uniform(-8, 0, n_w) if per_channel else 2.0 ** rs.uniform(-8, 0)
    bias = rs.randint(-(2**16), 2**16, m) if draw(st.booleans()) else None
    inputs = dict(x=x, x_scale=F32(xs), x_zero_point=zero_point(x_t, ()), w=w, w_scale=np.asarray(ws, F32),
                  w_zero_point=zero_point(w_t, n_w), y_scale=F32(ys), y_zero_point=zero_point(y_t, ()))
    if bias is not None:
        inputs["bias"] = bias.astype(np.int32)
    attrs = dict(auto_pad=auto_pad, dilations=dilations, group=group, pads=pads, strides=strides)
    if draw(st.booleans()):
        attrs["kernel_shape"] = list(kernel)
    return inputs, attrs


@settings(max_examples=250, deadline=None, derandomize=True)
@given(configurations())
def test_random_configurations_against_the_oracle(config):
    inputs, attrs = config
    _check(inputs, **attrs)


def test_float64_and_int32_paths_against_the_oracle():
    # 16 channels x 5 x 5 taps of 255 * 255: partial sums beyond 2**24 (float64 accumulation); biases near
    # the ends of int32 push some elements beyond it
    rs = np.random.RandomState(11)
    x = rs.choice([0, 255], (1, 16, 6, 6), p=[0.05, 0.95]).astype(U8)
    w = rs.choice([0, 255], (2, 16, 5, 5), p=[0.05, 0.95]).astype(U8)
    acc, bound = ref.accumulate(x, 0, w, np.zeros(1), 1, [2, 2], [2, 2], [6, 6], [1, 1], [1, 1])
    assert acc.dtype == np.float64 and bound >= 2**24 and np.abs(acc).max() > 2**24
    d = _inputs(x, w, ys=2.0**20, yz=0, bias=[2**31 - 2**24, -(2**31) + 2**24], y_type=I8)
    _check(d, pads=[2, 2, 2, 2])
    undefined = ref.qlinear_conv(**d, pads=[2, 2, 2, 2]).undefined[ref.UNDEF_ACC_INT32]
    assert undefined.any() and not undefined.all()


def test_node_function_and_attributes_by_onnx_name():
    d = _inputs(X1, [[[1, 1]]])
    [y] = ref.qlinear_conv_node(list(d.values()), {"pads": [1, 1], "auto_pad": b"NOTSET"}, 10, [None] * 8)
    assert y.ravel().tolist() == [1, 3, 5, 7, 4]
    with pytest.raises(ValueError, match="8 or 9 inputs"):
        ref.qlinear_conv_node(list(d.values())[:7], {}, 10, [None] * 7)
