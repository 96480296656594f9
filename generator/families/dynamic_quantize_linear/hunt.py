"""Live hunting over DynamicQuantizeLinear (generator/hunting.py): one x per example, built as the catalogue's
cases are, biased to where the fault models (reference/dynamic_quantize_linear_faults.py) part from the reference."""

from __future__ import annotations

import numpy as np

from generator import axes, dtypes
from generator.families.dynamic_quantize_linear.cases import cases_of
from generator.families.dynamic_quantize_linear.values import (DENORM, F32, FLT_MAX, OPSET, _f32, quotient_candidates,
                                                               zero_point_range)
from generator.reference import dynamic_quantize_linear as ref

# how min and max are drawn, the simplest first:
#   simple          signs (min < 0 < max, all positive, all negative, a zero end) and magnitudes from float32's
#                   boundaries or mantissa / exponent: range_not_widened (min > 0 or max < 0), scale_reciprocal
#   zero_point_tie  -min / y_scale exactly k + 0.5 or one float32 ulp off it (zero_point_range): round_half_away
#   exact_scale     y_scale 2**e exactly and -min / y_scale = z / 2: ties of the zero point and of y by
#                   construction, all positive (z = 0) and all negative (z = 510) included
#   subnormal_scale y_scale s * 2**(p - 149) with the range 255 * s + v units: -min / y_scale beyond 255 after
#                   rounding (zero_point_unclipped), and ranges that underflow to y_scale 0 (undefined: probe)
#   huge            ends near FLT_MAX: max - min overflowing to inf, x * 255 overflowing (y_from_range)
#   free            every element any float32 (bit patterns; NaN / Inf make the draw a probe) or a boundary
HUNT_RANGES = ("simple", "zero_point_tie", "exact_scale", "subnormal_scale", "huge", "free")
# elements between min and max: zero, a fraction of the range, x / y_scale at a tie j + 0.5 (or one ulp
# off: y_reciprocal, y_from_range, round_half_away), any float32 clipped into the range
HUNT_ELEMENTS = ("zero", "fraction", "tie", "bits")
# what turns a copy of x into a probe (undefined input), None first (no probe)
HUNT_SPOILS = (None, None, None, None, None, None, "nan", "inf", "-inf", "both_inf", "zeros", "underflow", "empty")
_SIMPLE_MAGNITUDES = (1.0, 2.0, 0.5, 3.0, 2.5, 255.0, 100.0, 7.25, 1e-3, 1e30, 1e-30)
_HUGE = (FLT_MAX, FLT_MAX / 2, 2.0**127, 2.0**126, 3e38, 2e38, 1e38, 2.0**103, 2.0**102,
         float(np.nextafter(F32(FLT_MAX), F32(0))), 1.7e38, 1e36)


def _hunt_magnitude():
    """A positive float32 (as a float): a simple value, one of float32's boundaries (hunting.float_boundaries),
    or (1 + m / 2**23) * 2**e."""
    from hypothesis import strategies as st

    from generator import hunting

    f32 = dtypes.get("float")
    bounds = [float(v) for v in hunting.as_elements(hunting.float_boundaries(f32), f32)]
    pool = list(dict.fromkeys(list(_SIMPLE_MAGNITUDES) + [v for v in bounds if 0 < v < np.inf]))
    built = st.builds(lambda e, m: float(F32(np.ldexp(1.0 + m / 2.0**23, e))),
                      st.integers(-30, 30) | st.integers(-149, 127), st.integers(0, (1 << 23) - 1))
    return st.sampled_from(pool) | built


def _hunt_ends(draw, kind: str) -> tuple[float, float]:
    """(min, max) of x by `kind` (HUNT_RANGES, not "free")."""
    from hypothesis import strategies as st

    if kind == "simple":
        a, b = sorted([draw(_hunt_magnitude()), draw(_hunt_magnitude())])
        signs = draw(st.sampled_from(("mixed", "positive", "negative", "zero_min", "zero_max")))
        return {"mixed": (-a, b), "positive": (a, b), "negative": (-b, -a), "zero_min": (0.0, b),
                "zero_max": (-b, 0.0)}[signs]
    if kind == "zero_point_tie":
        k, off = draw(st.integers(0, 254)), draw(st.sampled_from((0, -1, 1)))
        target = F32(k + 0.5)
        for _ in range(abs(off)):
            target = np.nextafter(target, F32(off * np.inf))
        mx = draw(st.builds(lambda e, m: float(F32(np.ldexp(1.0 + m / 2.0**23, e))), st.integers(-20, 20),
                            st.integers(0, (1 << 23) - 1)))
        try:
            return zero_point_range(float(target), mx)
        except ValueError:
            kind = "exact_scale"
    if kind == "exact_scale":
        z2 = draw(st.integers(0, 510))
        e = draw(st.integers(-8, 8) | st.integers(-148, 119))
        return -z2 / 2 * 2.0**e, (255 - z2 / 2) * 2.0**e
    if kind == "subnormal_scale":
        # y_scale = s units of 2**(p - 149) rounded down, and -min / y_scale >= 255.5 (zero_point_unclipped)
        # where v is in [ceil(s / 2), 127 / 2**p] and j <= v - ceil(s / 2); else any v, j, either sign
        beyond = draw(st.booleans())
        s, p = draw(st.integers(1, 8)), draw(st.integers(0, 6) if beyond else st.integers(0, 30))
        vmin, vmax = (s + 1) // 2, 127 >> p
        if beyond and vmin <= vmax:
            v = draw(st.integers(vmin, vmax))
            j = draw(st.integers(0, v - vmin))
        else:
            v = draw(st.integers(-128, 128))
            j = draw(st.integers(0, 4) | st.integers(0, 255 * s + v))
        r = 255 * s + v
        lo, hi = -(r - j) * DENORM * 2.0**p, j * DENORM * 2.0**p
        return (-hi, -lo) if not beyond and draw(st.booleans()) else (lo, hi)
    a, b = draw(st.sampled_from(_HUGE)), draw(st.sampled_from(_HUGE + (0.0, 1.0)))
    signs = draw(st.sampled_from(("mixed", "positive", "negative")))
    a, b = sorted([a, b])
    return {"mixed": (-a, b) if draw(st.booleans()) else (-b, a), "positive": (a, b), "negative": (-b, -a)}[signs]


def _hunt_interior(draw, lo: F32, hi: F32, scale: F32) -> F32:
    """One element of [lo, hi] (HUNT_ELEMENTS)."""
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(HUNT_ELEMENTS))
    if kind == "zero":
        return F32(0.0) if lo <= 0 <= hi else lo
    if kind == "bits":
        v = np.array(draw(st.integers(0, (1 << 32) - 1)), dtype=np.uint32).view(F32)
        return lo if np.isnan(v) else F32(np.clip(v, lo, hi))
    if kind == "tie" and 0 < scale < np.inf:
        with np.errstate(all="ignore"):
            qlo, qhi = float(lo / scale), float(hi / scale)
        jlo, jhi = int(np.ceil(qlo - 0.5)), int(np.floor(qhi - 0.5))
        if jlo <= jhi:
            j = jlo + draw(st.integers(0, 511)) % (jhi - jlo + 1)
            t = F32(j + 0.5)
            off = draw(st.sampled_from((0, 1, -1)))
            if off:
                t = np.nextafter(t, F32(off * np.inf))
            hits = quotient_candidates(scale, float(t), float(lo), float(hi))
            pick = draw(st.integers(0, 255))
            if hits.size:
                return hits[pick % hits.size]
    with np.errstate(all="ignore"):
        v = float(lo) + (float(hi) - float(lo)) * draw(st.integers(0, 16)) / 16
    return F32(np.clip(_f32(v), lo, hi))


def _hunt_spoil(draw, x: np.ndarray, how: str) -> np.ndarray:
    """A copy of x the spec leaves undefined (HUNT_SPOILS)."""
    from hypothesis import strategies as st

    from generator import hunting

    if how == "empty":
        return np.zeros((0,), dtype=F32)
    flat = x.reshape(-1).copy()
    if how == "zeros":
        flat = np.where(np.array([draw(st.booleans()) for _ in flat]), F32(-0.0), F32(0.0)).astype(F32)
    elif how == "underflow":  # a range below 127.5 * 2**-149: y_scale rounds to 0
        flat = np.array([draw(st.integers(-63, 63)) for _ in flat], dtype=np.float64).astype(F32) * F32(DENORM)
    else:
        i = draw(st.integers(0, flat.size - 1))
        if how == "nan":
            flat[i] = np.array(draw(st.sampled_from(hunting.nan_patterns(dtypes.get("float")))),
                               dtype=np.uint32).view(F32)
        elif how in ("inf", "-inf"):
            flat[i] = F32(np.inf if how == "inf" else -np.inf)
        else:
            flat[i] = F32(np.inf)
            flat[(i + 1) % flat.size] = F32(-np.inf)
    return flat.reshape(x.shape)


def hunt_x(draw) -> tuple[np.ndarray, np.ndarray | None]:
    """(x, a spoiled copy of x or None), drawn as HUNT_RANGES / HUNT_ELEMENTS / HUNT_SPOILS say."""
    from hypothesis import strategies as st

    from generator import hunting

    form = draw(st.sampled_from(("1d", "0d", "2d", "tail")))
    shape = {"1d": lambda: (draw(st.integers(1, 8)),), "0d": lambda: (),
             "2d": lambda: (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
             "tail": lambda: (draw(st.sampled_from(axes.tail_lengths(short=True, limit=65))),)}[form]()
    n = int(np.prod(shape, dtype=np.int64))
    kind = draw(st.sampled_from(HUNT_RANGES))
    if kind == "free":
        f32 = dtypes.get("float")
        values = list(_SIMPLE_MAGNITUDES) + hunting.pool(f32) + list(_HUGE)
        bits = draw(st.lists(hunting.elements(f32, values), min_size=n, max_size=n))
        x = hunting.array_of(f32, bits, shape)
    else:
        lo, hi = (F32(v) for v in _hunt_ends(draw, kind))
        if n == 1:
            flat = [hi if hi != 0 else lo]
        else:
            scale, _ = ref.quantization_parameters(np.array([lo, hi], dtype=F32))
            flat = [lo, hi] + [_hunt_interior(draw, lo, hi, scale) for _ in range(n - 2)]
            if form == "tail":  # an extreme last: in the partial last vector of the widths n is no multiple of
                flat = flat[2:] + ([lo, hi] if draw(st.booleans()) else [hi, lo])
            else:
                r = draw(st.integers(0, n - 1))
                flat = flat[r:] + flat[:r]
        x = np.array(flat, dtype=F32).reshape(shape)
    how = draw(st.sampled_from(HUNT_SPOILS))
    return x, (None if how is None else _hunt_spoil(draw, x, how))


def _hunt_bits(x: np.ndarray) -> dict:
    return {"shape": list(x.shape), "x": [f"0x{b:08x}" for b in x.reshape(-1).view(np.uint32).tolist()]}


def _from_bits(d: dict) -> np.ndarray:
    return np.array([int(b, 16) for b in d["x"]], dtype=np.uint32).view(F32).reshape(d["shape"])


def hunt_example(x: np.ndarray, spoiled: np.ndarray | None = None):
    """The hunt Example of x (and a spoiled copy of it): a defined x is the node case test_dynamicquantizelinear_hunt
    (cases_of: the model, meta and compare of every case here); an undefined x, or else the spoiled copy, is the
    probe test_dynamicquantizelinear_hunt_probe. args: x and the copy as float32 bit patterns (exact)."""
    from generator.hunting import Example

    made = {c.kind: c for c in cases_of("hunt", [x], ["hunt"], 0)}
    if "probe" not in made and spoiled is not None:
        made.update({c.kind: c for c in cases_of("hunt", [spoiled], ["hunt"], 0) if c.kind == "probe"})
    args = {"opset": OPSET, **_hunt_bits(x), "spoiled": None if spoiled is None else _hunt_bits(spoiled)}
    return Example(made.get("node"), made.get("probe"), args)


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same x, expected outputs from the reference."""
    spoiled = args.get("spoiled")
    return hunt_example(_from_bits(args), None if spoiled is None else _from_bits(spoiled))


def hunt(max_opset: int):
    """The hunt strategy (generator/hunting.py): Examples of one x each (hunt_x, hunt_example). None below
    opset 11 (the operator does not exist there)."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    @st.composite
    def examples(draw):
        return hunt_example(*hunt_x(draw))

    return examples()
