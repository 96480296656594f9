"""The values of ConvertPromoteTypes' cases: per type, the edge catalogue, seeded draws and the values a scalar
input takes (Values: made once per generation)."""

from __future__ import annotations

import math

import numpy as np

from generator import axes, sampling
from generator.dtypes import DType
from generator.families.convert_promote_types.variant import FAMILY
from generator.reference import cast as cast_ref
from generator.reference import convert_promote_types as ref


def _float_types() -> list[DType]:
    return [t for t in ref.spec_types() if t.is_float]


def _as_type(values: list, t: DType) -> np.ndarray:
    """Python numbers as elements of t (floats rounded by Cast, saturating; integers out of range dropped)."""
    if t.kind == "bool":
        return np.array(sorted({bool(v) for v in values}), dtype=bool)
    if t.is_integer:
        ints = sorted({int(v) for v in values if t.int_min <= v <= t.int_max})
        return np.array(ints, dtype=object).astype(t.np_dtype)
    outcome = cast_ref.cast_outcome(np.array([float(v) for v in values], dtype=np.float64), "double", t)
    return outcome.outputs[0][~outcome.mask()]


def _unique(a: np.ndarray, t: DType) -> np.ndarray:
    _, idx = np.unique(t.to_bits(a), return_index=True)
    return a[np.sort(idx)]


def _int_candidates() -> list[int]:
    """Integers where conversion to a float type of the spec rounds or overflows."""
    out = [0, 1, -1, 2, -2, 3, -7, 100, -100]
    for f in _float_types():
        p = f.mantissa_bits + 1  # precision: 2**p + 1 is the first integer f cannot hold
        out += [(1 << p) - 1, 1 << p, (1 << p) + 1, (1 << p) + 3]
        if f.finite_max < 2.0**64:
            fmax = int(f.finite_max)
            half_ulp = 1 << (fmax.bit_length() - 1 - f.mantissa_bits - 1)
            out += [fmax, fmax + 1, fmax + half_ulp - 1, fmax + half_ulp, fmax + half_ulp + 1]
    out += [(1 << 31), (1 << 32) - 1, (1 << 63) - (1 << 10) + 1, (1 << 63) + (1 << 40) + 1]
    return out + [-v for v in out]


def _float_candidates(t: DType) -> list[float]:
    """+-0, +-1, thirds, the type's extremes, and the boundaries of every narrower float type of the spec
    (its largest value, the tie just above it, its smallest subnormal and half of it, mantissa ties)."""
    out = [0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 1 / 3, -1 / 3, t.finite_max, -t.finite_max, t.smallest_normal,
           t.smallest_subnormal, -t.smallest_subnormal]
    for f in _float_types():
        if f == t:
            continue
        big, sub, m = f.finite_max, f.smallest_subnormal, f.mantissa_bits
        ulp = 2.0 ** (math.floor(math.log2(big)) - m)
        out += [big, big + ulp / 2, big + ulp / 2 * (1 + 2.0**-20), -(big + ulp), sub, sub / 2, -sub * 0.75,
                1 + 2.0 ** -(m + 1), 1 + 3 * 2.0 ** -(m + 1)]
    return [v for v in out if abs(v) <= t.finite_max]  # (f64's own boundaries overflow to inf: dropped)


def _specials(t: DType) -> np.ndarray:
    """+-Inf, and every NaN encoding kind of t (the NaN-payload axis, generator.axes.nan_values: quiet and
    signalling, low-bit and full payloads, both signs, from bits): converted to the common type, each is NaN
    [CPT: values as Cast, which maps NaN to NaN]."""
    vals = [np.inf, -np.inf] if t.has_inf else []
    out = np.array(vals, dtype=np.float64).astype(t.np_dtype)
    return np.concatenate([out, axes.nan_values(t)[1]])


def signalling_nan(t: DType) -> np.ndarray:
    """t's signalling NaN with the lowest payload (float32 0x7F800001: an add-and-shift to bfloat16 makes it
    Inf), else its first NaN encoding: the NaN a scalar input takes."""
    labels, x = axes.nan_values(t)
    return x[labels.index("snan_min_payload") if "snan_min_payload" in labels else 0]


def edge_values(t: DType) -> np.ndarray:
    """The value catalogue of one type: extremes (u64 max, i64 min ...), integers that float types cannot
    hold exactly, the range boundaries of the narrower types, NaN and infinities."""
    if t.kind == "bool":
        return np.array([False, True])
    if t.is_integer:
        return _unique(_as_type(_int_candidates() + [t.int_min, t.int_max, t.int_min + 1, t.int_max - 1], t), t)
    return _unique(np.concatenate([_as_type(_float_candidates(t), t), _specials(t)]), t)


def random_values(t: DType, n: int, seed: int) -> np.ndarray:
    """n seeded draws (generator.sampling): integers each (1/3 alike) uniform over the whole range, spread
    over magnitudes (log_integers: small values too, which narrower types hold) or within 15 of either
    end of the range; floats as bit patterns (every exponent, NaNs)."""
    if n == 0 or t.kind == "bool":
        return np.array([], dtype=t.np_dtype)
    s = sampling.Stream(seed)
    if t.is_integer:
        kinds = s.integers(0, 2, n)
        uniform = s.integers(t.int_min, t.int_max, n, dtype=t.np_dtype)
        spread = s.log_integers(t.int_min, t.int_max, n).astype(t.np_dtype)
        off = s.integers(0, 15, n).tolist()
        ends = np.array([t.int_max - d if top else t.int_min + d for d, top in zip(off, s.booleans(n).tolist())],
                        dtype=object).astype(t.np_dtype)
        return np.where(kinds == 0, uniform, np.where(kinds == 1, spread, ends))
    return t.from_bits(s.bits(t.bits, n))


def scalar_values(t: DType, k: int) -> np.ndarray:
    """The first k values a scalar input takes, one data set each: the largest value, one inside every
    type's range, the smallest, then a value that float types cannot hold exactly (integers) or the
    smallest subnormal (floats), then zero."""
    if t.kind == "bool":
        picks: list = [True, False]
    elif t.is_integer:
        hard = [(1 << p) + 1 for p in (53, 24, 11, 8, 4, 3) if (1 << p) + 1 <= t.int_max]
        picks = [t.int_max, 5, t.int_min] + hard[:1] + [0]
    else:
        picks = [t.finite_max, -1.5, np.nan, -t.smallest_subnormal, 0.0]
    picks = picks[:k]
    if t.is_float:
        x = cast_ref.cast_outcome(np.array(picks, dtype=np.float64), "double", t).outputs[0]
        return np.where(t.isnan(x), signalling_nan(t), x)  # the NaN-payload axis: a signalling NaN, from bits
    return np.array(picks, dtype=object).astype(t.np_dtype)


class Values:
    """Per-type values of one generation, made once (a type's values are the same in every case)."""

    def __init__(self, profile: dict, seed: int):
        self.profile, self.seed = profile, seed
        self._dim: dict[str, np.ndarray] = {}
        self._random: dict[str, np.ndarray] = {}

    def dim(self, t: DType) -> np.ndarray:
        """The edge catalogue, plus every bit pattern of a <= 8-bit type (profiles default, exhaustive)."""
        if t.name not in self._dim:
            x = edge_values(t)
            if self.profile["all8"] and t.bits <= 8 and t.kind != "bool":
                x = np.concatenate([x, t.all_values()])
            self._dim[t.name] = _unique(x, t)
        return self._dim[t.name]

    def random(self, t: DType) -> np.ndarray:
        """Seeded draws for a type wider than 8 bits (empty for narrower ones: `dim` holds all of them)."""
        if t.name not in self._random:
            n = self.profile["random"] if t.bits > 8 else 0
            x = random_values(t, n, sampling.case_seed(self.seed, f"{FAMILY.prefix}_{t.name}"))
            self._random[t.name] = _unique(x, t) if x.size else x
        return self._random[t.name]

    def scalar(self, t: DType) -> np.ndarray:
        return scalar_values(t, self.profile["scalars"])
