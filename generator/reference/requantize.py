"""Requantization, the last step of the quantized operators that accumulate in int32 (QLinearConv-10; QLinearMatMul
shares it): y = saturate(round_half_even(acc * c[m]) + y_zero_point) with c[m] = x_scale * w_scale[m] / y_scale,
the exact product of the float32 scale values (exact dyadic rationals), rounded half to even as ONNX's quantization
operators round (docs/quantization.md; the reading READING_REQUANTIZATION of generator/reference/qlinear_conv.py).

Speed: requantization estimates acc * c in float32 or float64 (c rounded once) and proves each element's rounding:
an element whose estimate lies within the estimate's error bound of a half-integer is estimated again in float64,
then computed exactly (Fraction).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, prod

import numpy as np

from generator import dtypes
from generator.dtypes import DType

INT32_MIN, INT32_MAX = dtypes.get("int32").int_min, dtypes.get("int32").int_max
# the float64 estimate of an unsaturated value (|acc * c| < 2**9) is within 2**-42 of it: well inside
_WINDOW = 2.0**-36


def multiplier(x_scale: float, w_scale: float, y_scale: float) -> tuple[int, int]:
    """x_scale * w_scale / y_scale of float32 values as an exact reduced fraction (numerator, denominator)."""
    (xn, xd), (wn, wd), (yn, yd) = (float(v).as_integer_ratio() for v in (x_scale, w_scale, y_scale))
    num, den = xn * wn * yd, xd * wd * yn
    g = gcd(num, den)
    return num // g, den // g


def requantize(acc: np.ndarray, multipliers: list[tuple[int, int]], y_zero_point: int, to: DType,
               acc_bound: int) -> np.ndarray:
    """saturate(round_half_even(acc * c[m]) + y_zero_point) exactly; c[m] = num / den, the exact multiplier
    of output channel m (axis 1 of acc) [QLinearConv: summary; the rounding of ONNX's quantization ops].

    acc: exact integers with |acc| <= acc_bound <= 2**31. An estimate of
    acc * c, clipped first to the saturation bounds (integers: rounding is monotonic), rounds as the exact
    value does unless a half-integer lies within its error bound; only such elements are looked at again,
    first in float64, then in exact integer arithmetic."""
    shape = [1] * acc.ndim
    shape[1] = len(multipliers)
    c64 = {nd: nd[0] / nd[1] for nd in set(multipliers)}  # int / int is correctly rounded
    lo, hi = to.int_min - y_zero_point, to.int_max - y_zero_point
    window = None
    # the float64 estimate is exact when c is a float64 and acc * c needs no more than 53 bits
    if all(f.as_integer_ratio() == nd and _odd_bits(nd[0]) + acc_bound.bit_length() <= 53
           for nd, f in c64.items()):
        dt = np.float64
    elif acc.dtype == np.float32 and all(2.0**-126 <= f <= 2.0**127 for f in c64.values()):
        # float32 (|acc| < 2**24 exact, c a normal float32): error < 2**-22.9 |acc * c| < 2**-14.9 for the
        # unclipped values (|acc * c| <= 256)
        dt, window = np.float32, 2.0**-14
    else:
        dt, window = np.float64, _WINDOW  # error < 2**-51.9 |acc * c| < 2**-43.9, unclipped
    if len(c64) == 1:  # one multiplier: a scalar (numpy broadcasts a per-channel array much slower)
        c = dt(next(iter(c64.values())))
    else:
        c = np.array([c64[nd] for nd in multipliers], dtype=dt).reshape(shape)
    est = np.multiply(acc, c, dtype=dt)
    np.clip(est, lo, hi, out=est)
    q = np.rint(est)
    if window is not None:
        d = np.subtract(est, q, out=est)
        if d.max(initial=0) >= 0.5 - window or d.min(initial=0) <= window - 0.5:
            flat = np.flatnonzero(np.abs(d) >= dt(0.5 - window))
            channel = (flat // prod(acc.shape[2:])) % acc.shape[1]
            q.reshape(-1)[flat] = np.clip(_round_near(acc.reshape(-1)[flat], channel, multipliers), lo, hi)
    y = np.empty(q.shape, dtype=to.np_dtype)
    np.add(q, y_zero_point, out=y, casting="unsafe")  # q + y_zero_point is in the type's range
    return y


def _odd_bits(num: int) -> int:
    """Bits of num without its trailing zeros (the significand a float64 must hold)."""
    num = abs(num)
    return (num >> ((num & -num).bit_length() - 1)).bit_length() if num else 0


def _round_near(acc: np.ndarray, channel: np.ndarray, multipliers: list[tuple[int, int]]) -> np.ndarray:
    """round_half_even(acc[i] * c[channel[i]]) of a few elements: the float64 estimate, and exact rational
    arithmetic where that estimate is within _WINDOW of a half-integer."""
    acc = acc.astype(np.float64)
    est = acc * np.array([num / den for num, den in multipliers])[channel]
    q = np.rint(est)
    for i in np.flatnonzero(np.abs(est - q) >= 0.5 - _WINDOW).tolist():
        q[i] = round(Fraction(int(acc[i]) * multipliers[channel[i]][0], multipliers[channel[i]][1]))  # ties to even
    return q


# ---------------------------------------------------------------------------------------
# requantization of a float result: "dequantize -> float operator -> quantize" (QLinearAdd, QLinearSigmoid, ...,
# and the DequantizeLinear -> op -> QuantizeLinear chains, generator/reference/dq_op_q.py)
# ---------------------------------------------------------------------------------------
U32 = 2.0 ** -24  # the unit roundoff of float32


def float_range(r: np.ndarray, err: np.ndarray, y_scale: float, y_zero_point: int, to: DType,
                exact: np.ndarray | bool = False,
                zero_point_first: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(expected, lo, hi) per element of y = saturate(round_half_even(x / y_scale) + y_zero_point) [QuantizeLinear:
    "rounding to nearest ties to even"; the zero point added to the rounded integer], where x is a float result
    known only to lie within err of r (r, err: float64): expected is that of r; lo and hi of the two ends of
    [r - err, r + err] / y_scale, widened by the float32 division's own rounding (|q| * 2**-24), except where
    `exact` says every float32 evaluation gives r and r / y_scale exactly (then lo = hi = expected).
    zero_point_first: y = saturate(round_half_even(x / y_scale + y_zero_point)) instead (QLinearAdd's and QLinearMul's
    formulas, the zero point inside the expression rounded: a tie at an odd zero point rounds the other way)."""
    r, err = np.asarray(r, np.float64), np.asarray(err, np.float64)
    ys = float(y_scale)
    lo_int, hi_int = to.int_min, to.int_max

    def final(q):
        with np.errstate(invalid="ignore"):
            if zero_point_first:
                return np.clip(np.rint(q + y_zero_point), lo_int, hi_int).astype(to.np_dtype)
            return np.clip(np.rint(q) + y_zero_point, lo_int, hi_int).astype(to.np_dtype)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        q = r / ys
        q1, q2 = (r - err) / ys, (r + err) / ys
        qlo, qhi = np.minimum(q1, q2), np.maximum(q1, q2)
        qlo = qlo - np.abs(qlo) * U32 * 1.0001 - 2.0 ** -140
        qhi = qhi + np.abs(qhi) * U32 * 1.0001 + 2.0 ** -140
    exact = np.broadcast_to(np.asarray(exact, dtype=bool), q.shape)
    qlo, qhi = np.where(exact, q, qlo), np.where(exact, q, qhi)
    return final(q), final(qlo), final(qhi)


def is_power_of_two(v: float) -> bool:
    """v is a positive power of two (a float32 scale that multiplies and divides exactly)."""
    m, _ = np.frexp(np.float64(v))
    return bool(v > 0 and m == 0.5)
