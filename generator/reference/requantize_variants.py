"""Wrong requantizations: an int32 accumulator to the output type by another arithmetic than the reference's
(generator/reference/requantize.py), as real kernels do: the multiplier and product in float32 (onnxruntime's MLAS)
or float64, a Q31 fixed-point multiplier (gemmlowp / TFLite), y_zero_point added before rounding (onnx.reference),
ties away from zero, saturation before adding y_zero_point, no saturation. QLinearConv's fault models
(generator/reference/qlinear_conv_faults.py) are built on them; QLinearMatMul's share them.
"""

from __future__ import annotations

from fractions import Fraction
from math import frexp, prod

import numpy as np

from generator.dtypes import DType
from generator.reference.requantize import INT32_MAX, INT32_MIN, multiplier, requantize

_LIMIT = 4096  # |round(acc * c)| beyond this saturates every 8-bit type whatever the zero point


def _wrap(v: np.ndarray, t: DType) -> np.ndarray:
    """Integers to type t modulo 2**bits (a C cast of an int32 to an 8-bit type)."""
    span = t.int_max - t.int_min + 1
    return ((v.astype(np.int64) - t.int_min) % span + t.int_min).astype(t.np_dtype)


def _saturate(v: np.ndarray, t: DType) -> np.ndarray:
    return np.clip(v, t.int_min, t.int_max).astype(t.np_dtype)


def exact_round(acc: np.ndarray, multipliers: list[tuple[int, int]], limit: int = _LIMIT
                ) -> tuple[np.ndarray, np.ndarray]:
    """(q, half) of v = acc * c[m] (c[m] = num / den of output channel m, axis 1), exactly:
    q = round_half_even(v) clipped to [-_LIMIT, _LIMIT] (int64); half = +1 where v == q + 1/2,
    -1 where v == q - 1/2 (a tie), 0 elsewhere. A float64 estimate, recomputed in rational arithmetic
    where it lies within 2**-20 of a half-integer (its error is below 2**-39 for |v| <= _LIMIT + 1)."""
    shape = [1] * acc.ndim
    shape[1] = len(multipliers)
    c = np.array([n / d for n, d in multipliers], dtype=np.float64).reshape(shape)
    est = np.clip(np.asarray(acc, dtype=np.float64) * c, -limit - 1, limit + 1)
    q = np.rint(est)
    near = np.flatnonzero(np.abs(est - q) >= 0.5 - 2.0**-20)
    half = np.zeros(acc.shape, dtype=np.int64)
    if near.size:
        flat_acc, flat_q, flat_half = np.asarray(acc).reshape(-1), q.reshape(-1), half.reshape(-1)
        channel = (near // max(1, prod(acc.shape[2:]))) % acc.shape[1]
        for i, ch in zip(near.tolist(), channel.tolist()):
            num, den = multipliers[ch]
            v = Fraction(int(flat_acc[i]) * num, den)
            r = round(v)  # ties to even
            flat_q[i] = max(-limit - 1, min(limit + 1, r))
            flat_half[i] = 1 if v - r == Fraction(1, 2) else -1 if r - v == Fraction(1, 2) else 0
    return np.clip(q, -limit, limit).astype(np.int64), half


def _rne_ratio(t: np.ndarray, num: int, den: int) -> tuple[np.ndarray, np.ndarray]:
    """exact_round for integers t (object array of Python ints) times num / den."""
    q = np.empty(t.shape, dtype=np.int64)
    half = np.zeros(t.shape, dtype=np.int64)
    for i, ti in enumerate(t.reshape(-1).tolist()):
        v = Fraction(int(ti) * num, den)
        r = round(v)
        q.flat[i] = max(-_LIMIT, min(_LIMIT, r))
        half.flat[i] = 1 if v - r == Fraction(1, 2) else -1 if r - v == Fraction(1, 2) else 0
    return q, half


def _requantize(acc: np.ndarray, bound: int, xs: float, ws: list[float], ys: float, y_zero_point: int, to: DType,
                how: str) -> np.ndarray:
    """acc (exact integers, N x M x ...) -> y by `how`: "exact" (the reference), "float32", "float64",
    "zero_point_first", "half_away", "saturate_first"."""
    m = acc.shape[1]
    ws = ws * m if len(ws) == 1 else ws
    shape = [1] * acc.ndim
    shape[1] = m
    lo, hi = to.int_min - y_zero_point, to.int_max - y_zero_point
    if how == "fixed_point":
        c = [float(xs) * float(s) / float(ys) for s in ws]  # double, as TFLite's GetQuantizedConvolutionMultipler
        y = np.concatenate([_fixed_point(np.asarray(acc)[:, i:i + 1].astype(np.int64), c[i]) for i in range(m)], axis=1)
        return _saturate(y + y_zero_point, to)
    if how in ("float32", "float64"):
        f = np.float32 if how == "float32" else np.float64
        # the multiplier as C computes it in that type: (x_scale * w_scale) / y_scale, two roundings
        c = (f(xs) * np.array(ws, dtype=f)) / f(ys)
        v = np.asarray(acc).astype(f) * c.reshape(shape)  # float(acc) * scale: MLAS MlasRequantizeOutput
        v = np.clip(v, f(lo), f(hi))
        return (np.rint(v).astype(np.int64) + y_zero_point).astype(to.np_dtype)
    unique = {s: multiplier(xs, s, ys) for s in set(ws)}
    multipliers = [unique[s] for s in ws]
    if how == "exact":
        return requantize(acc, multipliers, y_zero_point, to, min(bound, 2**31))
    if how == "unsaturated":  # round_half_even(acc * c) + y_zero_point converted modulo 2**8 (a C cast)
        q, _ = exact_round(acc, multipliers, 2**40)
        return _wrap(q + y_zero_point, to)
    q, half = exact_round(acc, multipliers)
    return _round_variant(q, half, y_zero_point, to, how)


def _fixed_point(acc: np.ndarray, c: float) -> np.ndarray:
    """round(acc * c) the gemmlowp / TFLite way: c = q * 2**shift with q a Q31 integer (QuantizeMultiplier),
    SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT (ties away from zero, twice)."""
    mant, shift = frexp(c)
    q = int(mant * 2**31 + 0.5)  # std::round of a positive value
    if q == 2**31:
        q, shift = q // 2, shift + 1
    left, right = max(shift, 0), min(max(-shift, 0), 62)
    a = np.clip(acc * (1 << left), INT32_MIN, INT32_MAX)
    ab = a * q  # |ab| < 2**62
    nudged = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(nudged >= 0, nudged // (1 << 31), -((-nudged) // (1 << 31)))  # C division: toward zero
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + ((high & mask) > threshold)


def _round_variant(q: np.ndarray, half: np.ndarray, y_zero_point: int, to: DType, how: str) -> np.ndarray:
    """y from the exact rounding (q, half) of v (exact_round) by a wrong rounding step."""
    if how == "exact":
        return _saturate(q + y_zero_point, to)
    if how == "half_away":
        # at a tie v = q + half / 2: away from zero is floor(v) + 1 for v > 0, floor(v) for v < 0
        floor = q - (half < 0)
        away = np.where(2 * q + half > 0, floor + 1, floor)
        return _saturate(np.where(half != 0, away, q) + y_zero_point, to)
    if how == "zero_point_first":
        # round_half_even(v + y_zero_point): at a tie, the even one of t and t + half (t = q + zero point)
        t = q + y_zero_point
        tied = np.where(t % 2 == 0, t, t + half)
        return _saturate(np.where(half != 0, tied, t), to)
    if how == "saturate_first":
        return _wrap(np.clip(q, to.int_min, to.int_max) + y_zero_point, to)
    raise ValueError(how)


# The requantization fault models every requantizing family declares (QLinearConv's, QLinearMatMul's): (name within
# the family, _requantize's `how`, what it does). Each family adds its own seen_in (where it was measured for that op).
REQUANT_FAULTS: tuple[tuple[str, str, str], ...] = (
    ("requant_float32", "float32",
     "requantizes in float32: float(acc) * float32((x_scale * w_scale) / y_scale), rounded half to even"),
    ("requant_float64", "float64",
     "requantizes in float64: acc * ((x_scale * w_scale) / y_scale) in double, rounded half to even"),
    ("requant_fixed_point", "fixed_point",
     "requantizes in fixed point: a Q31 multiplier and shift from the double x_scale * w_scale / y_scale, "
     "rounding doubling high multiply, rounding right shift (ties away from zero)"),
    ("zero_point_before_rounding", "zero_point_first",
     "adds y_zero_point before rounding: round_half_even(acc * c + y_zero_point)"),
    ("round_half_away", "half_away",
     "rounds requantization ties away from zero instead of to even (C roundf / std::round)"),
    ("saturate_before_zero_point", "saturate_first",
     "saturates round(acc * c) to the output type, then adds y_zero_point (the sum wraps)"),
)
