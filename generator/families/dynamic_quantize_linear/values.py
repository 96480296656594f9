"""DynamicQuantizeLinear's constants and the float32 constructions its data sets are built from: inputs whose
zero point or quotients are exact ties (or one ulp off) in the function body's float32 steps."""

from __future__ import annotations

import numpy as np

from generator.family import Family
from generator.reference import dynamic_quantize_linear as ref

FAMILY = Family("dynamic_quantize_linear", "DynamicQuantizeLinear", ref.SPEC_FILE)
OPSET = 11
F32 = np.float32
FLT_MAX = float(np.finfo(F32).max)
TINY = float(np.finfo(F32).tiny)  # smallest normal, 2**-126
DENORM = float(np.finfo(F32).smallest_subnormal)  # 2**-149

PROFILES = {
    # random: seeded draws per random case; large: elements of the large case (0: none)
    "quick": dict(random=0, large=0),
    "default": dict(random=24, large=1 << 16),
    "exhaustive": dict(random=256, large=1 << 20),
}

COMPARE = {
    "mode": "exact",
    "reason": "one result per input: the function body fixes every float32 operation and its rounding",
    "tolerant": {"mode": "abs", "abs": 1,
                 "reason": "y and y_zero_point within 1: implementations that round or divide differently"},
    "outputs": {"y_scale": {"tolerant": {"mode": "ulp", "ulp": 1,
                                         "reason": "y_scale within 1 ulp of the one correctly rounded division"}}},
}
CLAUSE = ("Function Body: Scale = Div(X_Range, Q_Max); Zeropoint = Cast(Round(Clip(Sub(Q_Min, "
          "Div(X_Min_Adjusted, Scale))))); y = QuantizeLinear(x, Scale, Zeropoint)")


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(F32)


def around(v: float, n: int) -> np.ndarray:
    """The float32 values whose bit patterns are within n of float32(v)'s, with its sign, in order."""
    b = int(np.array(v, dtype=F32).view(np.uint32)) & 0x7FFFFFFF
    mags = np.arange(max(b - n, 0), min(b + n, 0x7F7FFFFF) + 1, dtype=np.uint32).view(F32)
    return -mags[::-1] if v < 0 else mags


def zero_point_range(target: float, x_max: float) -> tuple[float, float]:
    """(min, max) with min < 0 chosen so that Initial_ZeroPoint_FP = -min / y_scale is exactly `target` in the
    float32 steps of the function body. max is x_max, or the first of a few values near it for which some
    float32 min gives the target (not every quotient is reachable from every max)."""
    for mx in [x_max] + [x_max * (1 + i / 7) for i in range(1, 40)]:
        mx = float(F32(mx))
        ideal = -target * mx / (255.0 - target)
        cand = around(ideal, 1 << 12)
        with np.errstate(all="ignore"):
            scale = (F32(mx) - cand) / F32(255)
            zp = F32(0) - cand / scale
        hits = cand[zp == F32(target)]
        if hits.size:
            return float(hits[np.argmin(np.abs(hits.astype(np.float64) - ideal))]), mx
    raise ValueError(f"no float32 min gives the zero point {target!r} with a max near {x_max!r}")


def zero_point_input(target: float, x_max: float) -> np.ndarray:
    """[min, max, interior values] with (min, max) from zero_point_range: -min / y_scale is exactly `target`."""
    best, mx = zero_point_range(target, x_max)
    x = _f32([best, mx, 0.0, best / 2, mx / 4, mx / 2, best / 3])  # min and max unchanged
    assert ref.quantization_parameters(x)[1] == F32(target)
    return x


def quotient_candidates(scale: np.float32, target: float, lo: float, hi: float) -> np.ndarray:
    """The float32 x in [lo, hi], within 96 ulps of target * scale, with x / scale == target in float32."""
    cand = around(float(target) * float(scale), 96)
    cand = cand[(cand >= lo) & (cand <= hi)]
    with np.errstate(all="ignore"):
        return cand[cand / scale == F32(target)]


def quotient_inputs(scale: np.float32, targets: list[float], lo: float, hi: float) -> np.ndarray:
    """For each target quotient, a float32 x in [lo, hi] with x / scale == target in float32 (targets no
    x reaches are left out)."""
    out = []
    for t in targets:
        hit = quotient_candidates(scale, t, lo, hi)
        if hit.size:
            out.append(hit[len(hit) // 2])
    return np.array(out, dtype=F32)


def _near(t: float) -> list[float]:
    """The float32 neighbours of t, one ulp below and above."""
    return [float(np.nextafter(F32(t), F32(-np.inf))), float(np.nextafter(F32(t), F32(np.inf)))]


def _tie_dataset(x_min: float, x_max: float, n: int, near: bool) -> np.ndarray:
    """[x_min, x_max, elements whose x / y_scale is j + 0.5 (or one ulp off) for unsaturated j]."""
    base = _f32([x_min, x_max])
    scale, zp_fp = ref.quantization_parameters(base)
    zp = int(np.rint(np.clip(zp_fp, 0, 255)))
    js = np.linspace(-zp, 254 - zp, n).round().astype(int)
    targets = [t for j in js for t in (_near(j + 0.5) if near else [j + 0.5])]
    ties = quotient_inputs(scale, targets, x_min, x_max)
    return np.concatenate([base, ties])


def _pad(sets: list[np.ndarray]) -> list[np.ndarray]:
    """Data sets of one length: each is repeated cyclically to the longest (min and max unchanged)."""
    n = max(s.size for s in sets)
    return [np.resize(s, n) for s in sets]
