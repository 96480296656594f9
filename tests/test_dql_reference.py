"""The DynamicQuantizeLinear reference (generator/reference/dynamic_quantize_linear.py) held to its spec.

Independent oracle: slow_dql() below, one float32 scalar operation at a time in the order of the spec's
function body, with Python's round() (ties to even) and explicit loops; it shares no code with the
reference. Then hand-computed examples whose arithmetic is exact, the undefined inputs and their reasons,
and seeded hypothesis inputs (signs, magnitudes from subnormal to FLT_MAX, shapes) against the oracle.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from generator.outcome import Outcome
from generator.reference import dynamic_quantize_linear as ref
from generator.reference.dynamic_quantize_linear import dynamic_quantize_linear

F32 = np.float32
FLT_MAX = float(np.finfo(F32).max)
TINY = 2.0**-126
DENORM = 2.0**-149


def slow_dql(values):
    """(y list, scale, zero point) or None where a step is undefined. Each step one float32 operation."""
    xs = [F32(v) for v in np.ravel(values)]
    if not xs or any(math.isnan(v) for v in xs):
        return None
    lo, hi = xs[0], xs[0]
    for v in xs:
        lo, hi = (v if v < lo else lo), (v if v > hi else hi)
    lo, hi = min(lo, F32(0)), max(hi, F32(0))
    with np.errstate(all="ignore"):
        scale = F32(F32(hi - lo) / F32(255))  # Scale = Div(Sub(max, min), 255)
        if scale == 0:
            return None
        zp = F32(F32(0) - F32(lo / scale))  # Initial_ZeroPoint_FP = Sub(0, Div(min, Scale))
        if math.isnan(zp):
            return None
        zp = round(float(min(max(zp, F32(0)), F32(255))))  # Clip, Round (half to even), Cast
        y = []
        for v in xs:
            q = F32(v / scale)
            if math.isnan(q):
                return None
            r = round(float(q)) if math.isfinite(q) else (math.inf if q > 0 else -math.inf)
            y.append(int(min(max(r + zp, 0), 255)))  # saturate(round(x / scale) + zero point)
    return y, scale, zp


def _check(x):
    x = np.asarray(x, dtype=F32)
    outcome = dynamic_quantize_linear(x)
    y, scale, zp = outcome.outputs
    want = slow_dql(x)
    assert y.shape == x.shape and y.dtype == np.uint8 and scale.dtype == F32 and zp.dtype == np.uint8
    assert scale.shape == () and zp.shape == ()
    if want is None:
        assert len(outcome.reasons) == 1 and outcome.mask().all(), x
        return
    assert outcome.defined and not outcome.mask().any(), (x, outcome.reasons)
    wy, ws, wz = want
    assert y.ravel().tolist() == wy, x
    assert scale.view(np.uint32) == np.asarray(ws, F32).view(np.uint32), (x, scale, ws)
    assert int(zp) == wz


# ---------------------------------------------------------------------------------------------
# hand-computed examples (exact arithmetic)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x, y, scale, zp", [
    # range 255 -> scale 1: zero point round(2) = 2, y = round(x) + 2
    ([-2.0, 0.0, 253.0, 1.5], [0, 2, 255, 4], 1.0, 2),
    # -min / scale = 127.5: a tie, to even 128; round(127.5) = 128 -> 256 saturates to 255
    ([-127.5, 127.5, 0.5, -0.5], [0, 255, 128, 128], 1.0, 128),
    # scale 2**-4 (range 255 * 2**-4): -min / scale = 0.5 -> 0; 254.5 -> 254
    ([-0.03125, 15.90625], [0, 254], 0.0625, 0),
    # -min / scale = 1.5 -> 2; round(-1.5) + 2 = 0; round(253.5) + 2 = 256 -> 255
    ([-0.09375, 15.84375], [0, 255], 0.0625, 2),
    # all positive: min adjusted to 0, zero point 0; 255 * 2 / 510 = 255
    ([510.0, 255.0, 1.0, 3.0], [255, 128, 0, 2], 2.0, 0),
    # all negative: max adjusted to 0, zero point 255
    ([-510.0, -255.0, -1.0, -3.0], [0, 127, 255, 253], 2.0, 255),  # -127.5 -> -128, -0.5 -> -0
    # X_Range overflows: scale inf, zero point 0 - (-FLT_MAX / inf) = 0, y = x / inf + 0 = 0
    ([FLT_MAX, -FLT_MAX, 1.0], [0, 0, 0], math.inf, 0),
    # the smallest normal scale: x / 2**-126 exactly
    ([255 * TINY, TINY, 2.5 * TINY, 0.0], [255, 1, 2, 0], TINY, 0),
])
def test_hand_computed_examples(x, y, scale, zp):
    outcome = dynamic_quantize_linear(np.array(x, dtype=F32))
    out_y, out_scale, out_zp = outcome.outputs
    assert outcome.defined
    assert out_y.tolist() == y
    assert float(out_scale) == scale and int(out_zp) == zp
    _check(x)


def test_onnx_example_from_its_summary():
    # DynamicQuantizeLinear's own example: scale 0.0196078438, zero point 153
    outcome = dynamic_quantize_linear(np.array([0, 2, -3, -2.5, 1.34, 0.5], dtype=F32))
    y, scale, zp = outcome.outputs
    assert outcome.defined and int(zp) == 153 and scale == F32(5.0) / F32(255.0)
    assert y.tolist() == [153, 255, 0, 26, 221, 179]


def test_scale_is_one_float32_division_not_float64():
    # a range whose float64 quotient rounds to a different float32 than the float32 division does not exist
    # for / 255 (correct rounding of one division); what must hold is Scale == fl32(fl32(max - min) / 255)
    x = np.array([3.0000002, -1.0000001, 0.3], dtype=F32)
    _, scale, _ = dynamic_quantize_linear(x).outputs
    assert scale == F32(F32(x.max() - x.min()) / F32(255))


# ---------------------------------------------------------------------------------------------
# undefined inputs
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x, reason", [
    ([], ref.UNDEF_EMPTY),
    ([0.0, 0.0, -0.0], ref.UNDEF_SCALE_ZERO),
    ([DENORM, 0.0], ref.UNDEF_SCALE_ZERO),  # 2**-149 / 255 underflows to 0
    ([-DENORM], ref.UNDEF_SCALE_ZERO),
    ([1.0, np.nan], ref.UNDEF_X_NAN),
    ([np.inf, 1.0], ref.UNDEF_Y_NAN),  # scale inf, inf / inf
    ([-np.inf, -1.0], ref.UNDEF_ZP_NAN),  # min -inf: scale inf, -inf / inf
    ([np.inf, -np.inf], ref.UNDEF_ZP_NAN),  # -inf / inf
])
def test_undefined_inputs_say_why(x, reason):
    outcome = dynamic_quantize_linear(np.array(x, dtype=F32))
    y, scale, zp = outcome.outputs
    assert isinstance(outcome, Outcome) and outcome.reasons == [reason] and outcome.mask().shape == y.shape
    assert y.shape == (len(x),) and y.dtype == np.uint8 and zp.dtype == np.uint8 and scale.dtype == F32
    assert slow_dql(x) is None


def test_smallest_range_that_does_not_underflow_is_defined():
    # 128 * 2**-149 / 255 rounds to 2**-149 (> half of it): defined, y saturates where x / scale > 255
    x = np.array([128 * DENORM, DENORM, 0.0], dtype=F32)
    outcome = dynamic_quantize_linear(x)
    y, scale, zp = outcome.outputs
    assert outcome.defined and scale == F32(DENORM)
    assert y.tolist() == [128, 1, 0]
    _check(x)


# ---------------------------------------------------------------------------------------------
# ties (exact and near) and the oracle on seeded random inputs
# ---------------------------------------------------------------------------------------------
def test_zero_point_and_y_ties_round_to_even():
    for k in range(0, 255, 17):
        x = np.array([-(k + 0.5), 254.5 - k], dtype=F32)  # range 255: scale 1, zero point tie k + 0.5
        _, scale, zp = dynamic_quantize_linear(x).outputs
        assert scale == 1.0 and int(zp) == (k if k % 2 == 0 else k + 1), k
        _check(x)
        near = np.nextafter(x[0], F32(0))  # -min / scale one ulp below the tie
        _check(np.array([near, x[1]], dtype=F32))


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
anything32 = st.floats(width=32)
small32 = st.floats(-float(F32(1e-36)), float(F32(1e-36)), width=32)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(finite32, anything32, small32, st.floats(-300, 300, width=32)), min_size=1, max_size=40))
def test_against_the_loop_oracle(values):
    _check(values)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(hnp.arrays(F32, hnp.array_shapes(min_dims=0, max_dims=4, max_side=4), elements=finite32))
def test_shapes_against_the_loop_oracle(x):
    _check(x)


def test_large_random_tensor_against_the_loop_oracle():
    rs = np.random.RandomState(7)
    x = (rs.standard_normal(20000) * 37.0 - 3.0).astype(F32)
    _check(x)


def test_node_function_returns_the_three_outputs():
    y, scale, zp = ref.dynamic_quantize_linear_node([np.array([-127.5, 127.5], F32)], {}, 11, [None])
    assert y.tolist() == [0, 255] and zp == 128 and scale == 1.0
