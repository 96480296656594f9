"""The DynamicQuantizeLinear family (ONNX DynamicQuantizeLinear-11): float32 x -> (y, y_scale, y_zero_point).

Cases (test_dynamicquantizelinear_<what>), each one model with several data sets of one shape; every
data set checks all three outputs. The edge cases and probes are CATALOGUE's functions, one per case:
  mixed / all_positive / all_negative        signs of x: zero point inside, at 0, at 255
  single_element / scalar / 4d               shapes (1,), 0-d, (2, 3, 4, 5)
  zero_point_ties / zero_point_near_ties     min chosen so that -min / y_scale is exactly k + 0.5 in
                                             float32, or one float32 ulp to either side of it
  y_ties / y_near_ties                       elements with x / y_scale exactly j + 0.5, or one ulp off
  range_near_flt_max / range_overflow        ranges up to FLT_MAX; max - min overflowing to inf (y_scale
                                             inf: every step still defined)
  range_smallest_normal / scale_subnormal    ranges near the smallest normal float32; y_scale subnormal
  large_random                               65536 elements (2**20 in the exhaustive profile)
  witness_opset11                            the fault models' witnesses (reference/dynamic_quantize_linear_faults),
                                             from the committed catalogue (generator/witness/catalogue/)
  length<n>_random                           seeded PCG64 draws (generator.sampling) of n float32 values
  vector_tail_min_last / _max_last / _y_tie_last   the vector-tail axis (generator/axes.py): one model of
                                             symbolic length n, a data set per n, the decisive element last: the
                                             min (axes.VECTOR_LENGTHS: 1..65 and a few large), the max or an element
                                             with x / y_scale an exact tie (axes.VECTOR_LENGTHS_SHORT)
  mixed_opset<n>                             the opset-boundary axis: `mixed` at opset 12 (just above
                                             DynamicQuantizeLinear-11, its one version) and at the newest opset,
                                             which still resolve to version 11 (a runtime that keys kernels by
                                             opset may miss them)
  nonfinite_tail_probe                       (probe/) the NaN-payload axis: every float32 NaN encoding kind
                                             (axes.nan_values, signalling ones included) and +-Inf, last in x of
                                             a few lengths: the body's result has no value there
  probe / empty_probe / length<n>_random_probe  (probe/) inputs whose result the spec leaves undefined: all
                                             zeros, ranges that underflow to y_scale 0, NaN, infinities, empty

`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py): one x per example, its min / max and
elements drawn toward the fault models' boundaries (HUNT_RANGES below), built by cases_of as every case here;
one form in four is 1-D of a vector-tail length (axes.VECTOR_LENGTHS_SHORT up to 65) with an extreme last.

The operator has no attributes: the explicit-defaults axis has nothing to write. The body's element-wise
quantization cannot saturate a defined x (x / y_scale + zero point stays within [0, 255] up to rounding), so
the tail's decisive element of the quantization loop is a tie, not a saturating value.
Cases whose expected values rest on reading the body's float32 steps as IEEE arithmetic (an overflowing range,
a subnormal y_scale) carry case.json "reading" (reference READING_*).

Expected values come from generator.reference.dynamic_quantize_linear only.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

import onnx

from generator import axes, dtypes, sampling, witness
from generator.case import Case, node_model
from generator.family import Catalogue, Family, split
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


# ---------------------------------------------------------------------------------------------
# the catalogue: one function per case, returning (flags, data sets: one x each)
# ---------------------------------------------------------------------------------------------
CATALOGUE = Catalogue()
EDGE, SHAPE, PROBE = ["edge"], ["edge", "shape"], ["probe"]
_SINGLES = [1.0, -1.0, 3.5, -1e-3, 255.0, -255.0, FLT_MAX, -FLT_MAX, TINY, -TINY, 1e-40]
_TIE_KS = [0, 1, 2, 3, 64, 127, 128, 200, 253, 254]  # zero point ties k + 0.5: even and odd k, both ends
_TIE_RANGES = [(-1.0, 1.0), (0.0, 3.0), (-2.0, 0.0), (-0.3, 7.9), (-100.0, 27.0), (-1e-3, 5e-3)]


@CATALOGUE
def mixed():
    """min < 0 < max: the zero point inside (0, 255)."""
    return EDGE, [_f32(v) for v in (
        [0, 2, -3, -2.5, 1.34, 0.5],  # ONNX's own example: zero point 153
        [-1, 1, 0.1, -0.1, 0.5, -0.5],
        [-0.0, 1e-3, -7.25, 100.0, 3.0, -3.0],
        [1e-30, -1e-30, 1.0, -0.001, 0.0, 255.0],
        [-1e20, 1e20, 1.0, -1.0, 0.0, 3e19],
        [-128.0, 127.0, -64.5, 0.25, 63.75, 1.5],
    )]


@CATALOGUE
def all_positive():
    """min widened to 0: the zero point 0."""
    return EDGE, [_f32(v) for v in (
        [1, 2.1, 1.3, 2.5, 3.34, 4.0], [0.0, 0.5, 1.0, 1.5, 2.0, 255.0], [3e-5, 1e-5, 2e-5, 7e-6, 9e-6, 1e-6],
        [7.0, 7.0, 7.0, 7.0, 7.0, 7.0], [1e30, 2e30, 5e29, 3e30, 1.5e30, 1e29],
    )]


@CATALOGUE
def all_negative():
    """max widened to 0: the zero point 255."""
    return EDGE, [_f32(v) for v in (
        [-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], [-0.0, -0.5, -1.0, -1.5, -2.0, -255.0],
        [-7.0, -7.0, -7.0, -7.0, -7.0, -7.0], [-1e30, -2e30, -5e29, -3e30, -1.5e30, -1e29],
    )]


@CATALOGUE
def single_element():
    return SHAPE, [_f32([v]) for v in _SINGLES]


@CATALOGUE
def scalar():
    return SHAPE, [_f32(v).reshape(()) for v in _SINGLES]


@CATALOGUE.named("4d")
def four_d():
    grid = np.linspace(-3.0, 5.0, 120).reshape(2, 3, 4, 5)
    return SHAPE, [_f32(grid), _f32(-grid[::-1] * 7.5), _f32(np.abs(grid))]


@CATALOGUE
def zero_point_ties():
    """-min / y_scale exactly k + 0.5 in float32: Round ties to even."""
    return EDGE, _pad([zero_point_input(k + 0.5, mx) for k, mx in zip(_TIE_KS, [1.0, 3.0, 0.75, 10.0] * 3)])


@CATALOGUE
def zero_point_near_ties():
    """-min / y_scale one float32 ulp to either side of k + 0.5."""
    near = [(t, mx) for k, mx in zip(_TIE_KS, [1.0, 5.0, 0.3] * 4) for t in _near(k + 0.5)]
    return EDGE, _pad([zero_point_input(t, mx) for t, mx in near])


@CATALOGUE
def y_ties():
    """Elements with x / y_scale exactly j + 0.5: QuantizeLinear's ties to even."""
    return EDGE, _pad([_tie_dataset(lo, hi, 48, False) for lo, hi in _TIE_RANGES])


@CATALOGUE
def y_near_ties():
    """Elements with x / y_scale one float32 ulp off j + 0.5."""
    return EDGE, _pad([_tie_dataset(lo, hi, 24, True) for lo, hi in _TIE_RANGES])


@CATALOGUE
def range_near_flt_max():
    return EDGE, [_f32(v) for v in (
        [FLT_MAX, -(2.0**102), 0.5, 1e38, -1e30, 3e38],  # FLT_MAX + 2**102 rounds back to FLT_MAX
        [FLT_MAX / 2, -FLT_MAX / 2, 0.0, 1e38, -1e38, 1.0],
        [-FLT_MAX, 1.0, -1e38, -3e38, 0.0, -1.0],
        [FLT_MAX, FLT_MAX, 0.9 * FLT_MAX, 0.5 * FLT_MAX, 1.0, 0.0],
        [-FLT_MAX, -FLT_MAX, -0.9 * FLT_MAX, -0.5 * FLT_MAX, -1.0, -0.0],
    )]


@CATALOGUE
def range_overflow():
    """X_Range overflows to +inf: y_scale = inf, zero point 0 - (min / inf) = 0, y = x / inf = 0."""
    return EDGE, [_f32(v) for v in (
        [FLT_MAX, -FLT_MAX, 0.0, 1.0, -1.0, 1e38],
        [FLT_MAX, -FLT_MAX / 1024, 3e38, -1e35, 2.0, -2.0],
        [2e38, -2e38, 1e38, -1e38, 0.5, -0.5],
        [FLT_MAX, -(2.0**103), 1.0, -1.0, 0.0, 2.0],  # FLT_MAX + 2**103: the halfway point, to even: inf
    )]


@CATALOGUE
def range_smallest_normal():
    return EDGE, [_f32(v) for v in (
        [255 * TINY, 0.0, TINY, 100 * TINY, 254.5 * TINY, 0.5 * TINY],  # y_scale = the smallest normal
        [-255 * TINY, -TINY, -0.5 * TINY, -128 * TINY, -127.5 * TINY, 0.0],
        [256 * TINY, -TINY, TINY, 2 * TINY, -3 * TINY, 17 * TINY],
        [510 * TINY, -255 * TINY, 3 * TINY, -2.5 * TINY, 0.0, 1.5 * TINY],
    )]


@CATALOGUE
def scale_subnormal():
    return EDGE, [_f32(v) for v in (
        [TINY, 0.0, 0.5 * TINY, 0.25 * TINY, 0.75 * TINY, DENORM],  # y_scale = TINY / 255 (subnormal)
        [-TINY, TINY, 0.0, -0.5 * TINY, DENORM, -DENORM],
        [255 * DENORM, DENORM, 2 * DENORM, 127 * DENORM, 128 * DENORM, 0.0],  # y_scale = 2**-149
        [300 * DENORM, -DENORM, 0.0, 5 * DENORM, 150 * DENORM, 299 * DENORM],  # y_scale rounds a lot
    )]


@CATALOGUE
def probe():
    """Inputs the spec leaves undefined (the reference says why): y_scale 0, NaN, infinities."""
    return PROBE, [_f32(v) for v in (
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
        [DENORM, 0.0, DENORM, DENORM, 0.0, 0.0], [-DENORM, 0.0, -DENORM, 0.0, 0.0, 0.0],  # y_scale 0
        [np.nan, 1.0, -1.0, 0.0, 2.0, 3.0], [1.0, 2.0, 3.0, -np.nan, 0.0, 0.5],
        [np.inf, 1.0, -1.0, 0.0, 2.0, 3.0], [-np.inf, 1.0, -1.0, 0.0, 2.0, 3.0],
        [np.inf, -np.inf, 0.0, 1.0, -1.0, 0.5],
    )]


@CATALOGUE
def empty_probe():
    return PROBE, [np.zeros((0,), dtype=F32)]


# ---------------------------------------------------------------------------------------------
# the vector-tail axis (generator/axes.py): the decisive element last, a data set per length
# ---------------------------------------------------------------------------------------------
TAIL_MIN, TAIL_MAX = -1.5, 4.25  # y_scale 5.75 / 255, zero point 66.5...: no tie of its own
TAIL_INNER = [0.5, -0.25, 1.0, 2.0, 0.0, 3.0, -1.0, 1.75]  # strictly inside (min, max), no tie


def tail_tie() -> float:
    """An element of (0, TAIL_MAX) whose x / y_scale is exactly an even j + 0.5 (y_scale of [TAIL_MIN, TAIL_MAX]):
    the reference rounds it down, half away from zero up."""
    scale, _ = ref.quantization_parameters(_f32([TAIL_MIN, TAIL_MAX]))
    hit = quotient_inputs(scale, [j + 0.5 for j in range(100, 180, 2)], 0.0, TAIL_MAX)
    return float(hit[0])


def _tail(filler: list[float], decisive: list[float], short: bool) -> tuple[list[str], list[np.ndarray]]:
    return ["edge", "vector_tail"], axes.tail_datasets(_f32(filler), _f32(decisive), axes.tail_lengths(short))


# every data set costs a directory (4 KiB on disk): the minimum, which the fault misses, gets every length
# 1..65 and the large ones; the maximum and the tie the short list (every remainder of 8 and 16, past 32 and 64)
@CATALOGUE
def vector_tail_min_last():
    """The minimum last (the maximum first): a min reduction without its remainder loop misses it."""
    return _tail([TAIL_MAX] + TAIL_INNER, [TAIL_MIN], short=False)


@CATALOGUE
def vector_tail_max_last():
    return _tail([TAIL_MIN] + TAIL_INNER, [TAIL_MAX], short=True)


@CATALOGUE
def vector_tail_y_tie_last():
    """min and max first, an exact tie x / y_scale = j + 0.5 (j even) last: the quantization loop's remainder."""
    return _tail([TAIL_MIN, TAIL_MAX] + TAIL_INNER, [tail_tie()], short=True)


NONFINITE_LENGTHS = (9,)  # the value in the partial last vector of every width


@CATALOGUE
def nonfinite_tail_probe():
    """Every float32 NaN encoding kind (quiet, signalling, low / high payloads, both signs) and +-Inf, last in x:
    the body's ReduceMin / ReduceMax give NaN, or x / y_scale is inf / inf: no value (probe)."""
    _, nans = axes.nan_values("float")
    decisive = list(nans) + [F32(np.inf), F32(-np.inf)]
    filler = np.array([TAIL_MIN, TAIL_MAX] + TAIL_INNER, dtype=F32)
    return PROBE, [axes.with_tail(filler, np.array([v], dtype=F32), n) for v in decisive for n in NONFINITE_LENGTHS]


# ---------------------------------------------------------------------------------------------
# random inputs (seeded PCG64 draws, generator.sampling)
# ---------------------------------------------------------------------------------------------
_FINITE_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, FLT_MAX, -FLT_MAX, TINY, -TINY, DENORM, -DENORM]
_NON_FINITE = [np.nan, -np.nan, np.inf, -np.inf]


def _elements(s: sampling.Stream, kind: int, n: int) -> np.ndarray:
    """n float64 values exact in float32 or rounded to it by _f32: 0 any finite float32 (sign, exponent field
    0..254 and mantissa uniform: every magnitude), 1 uniform in [-10, 10], 2 tiny magnitudes (octaves 2**-150
    to 2**-99: subnormals, and zeros once rounded), 3 finite specials (zeros, +-1, 0.5, +-FLT_MAX, smallest
    normal and subnormal)."""
    if kind == 0:
        bits = (s.bits(1, n) << np.uint64(31)) | (s.integers(0, 254, n).astype(np.uint64) << np.uint64(23)) \
            | s.bits(23, n)
        return bits.astype(np.uint32).view(F32).astype(np.float64)
    if kind == 1:
        return s.uniform(-10.0, 10.0, n)
    if kind == 2:
        return np.where(s.booleans(n), -1.0, 1.0) * s.octaves(-150, -99, n)
    return np.array(s.choices(_FINITE_SPECIALS, n), dtype=np.float64)


def random_inputs(n_elements: int, n_draws: int, seed: int) -> list[np.ndarray]:
    """n_draws lists of n_elements float32 values. Each list takes all its elements from one kind of
    _elements (4 in 5, each kind alike) or each element from a kind of its own (1 in 5); then 1 list in 4
    gets NaN or infinities at 1 to max(1, n_elements // 16) places: those draws become probes."""
    s = sampling.Stream(seed)
    out = []
    for _ in range(n_draws):
        mode = s.integers(0, 4)
        kinds = s.integers(0, 3, n_elements) if mode == 4 else np.full(n_elements, mode)
        x = np.zeros(n_elements, dtype=np.float64)
        for kind in range(4):  # every kind draws its elements, in kind order, even when none is used
            x = np.where(kinds == kind, _elements(s, kind, n_elements), x)
        if s.integers(0, 3) == 0:
            places = s.sample(range(n_elements), s.integers(1, max(1, n_elements // 16)))
            x[places] = s.choices(_NON_FINITE, len(places))
        out.append(_f32(x))
    return out


def large_input(n: int, seed: int) -> np.ndarray:
    """n float32 values, bell-shaped around a shift: (u1 + u2 + u3 + u4 - 2) * sqrt(3) with u uniform in
    [0, 1) (mean 0, variance 1), times a scale 2**[-10, 10) (octaves), plus a shift uniform in [-1, 1];
    float64 arithmetic only (no pow / exp / log), so the values are the same on every machine."""
    s = sampling.Stream(seed)
    scale, shift = s.octaves(-10, 10), s.uniform(-1.0, 1.0)
    u = s.random((4, n))
    bell = (((u[0] + u[1]) + u[2]) + u[3] - 2.0) * 1.7320508075688772
    return _f32(bell * scale + shift)


# ---------------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------------
def _model(shape: tuple, opset: int = OPSET):
    """The one-node model of an x of this shape (a str dim is symbolic)."""
    f32, u8 = dtypes.get("float"), dtypes.get("uint8")
    return node_model(FAMILY.op, [("x", f32, shape)],
                      [("y", u8, shape), ("y_scale", f32, ()), ("y_zero_point", u8, ())], {}, opset)


def _shape_of(sets: list[np.ndarray]) -> tuple:
    """The declared shape of x for these data sets: theirs if they share it, else 1-D of symbolic length n."""
    shapes = {x.shape for x in sets}
    if len(shapes) == 1:
        return next(iter(shapes))
    if any(len(s) != 1 for s in shapes):
        raise ValueError("data sets of different shapes must all be 1-D (one symbolic length)")
    return ("n",)


def _readings(datasets: list[np.ndarray]) -> str | None:
    found = {r for x in datasets for r in ref.readings(x)}
    return "; ".join(sorted(found)) or None


def cases_of(what: str, datasets: list[np.ndarray], flags: list[str], seed: int, opset: int = OPSET,
             **extra) -> Iterator[Case]:
    """The node case test_dynamicquantizelinear_<what> of the defined data sets (one x each) and the probe case
    of the others (generator.family.split); `extra` goes into case.json. Data sets of different lengths share one
    model of symbolic length; the node case's "reading" names what its defined data sets rest on."""
    outcomes = [ref.dynamic_quantize_linear(x) for x in datasets]
    defined = [x for x, o in zip(datasets, outcomes) if o.defined]
    undefined = [x for x, o in zip(datasets, outcomes) if not o.defined]
    meta = FAMILY.meta(opset=opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=seed, params={"what": what},
                       reading=_readings(defined), **extra)
    shapes = {True: _shape_of(defined) if defined else None, False: _shape_of(undefined) if undefined else None}
    yield from split(f"{FAMILY.prefix}_{what}", [[x] for x in datasets], outcomes,
                     lambda inputs: _model(shapes[any(inputs[0] is x for x in defined)], opset), meta)


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed witness catalogue (generator/witness/catalogue/
    dynamic_quantize_linear.json): test_dynamicquantizelinear_witness_<group>, one data set per distinct
    witness x (float32 values as decimals that read back exactly), expected outputs from the reference;
    case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        sets, made_for, seen = [], [], {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                x = np.array([float(v) for v in wit["x"].split()], dtype=np.float64).astype(F32)
                if x.tobytes() in seen:
                    made_for[seen[x.tobytes()]].append(name)
                    continue
                reasons = ref.dynamic_quantize_linear(x).reasons
                if reasons:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} is undefined: {reasons[0]}")
                seen[x.tobytes()] = len(sets)
                sets.append(x)
                made_for.append([name])
        if sets:
            what = "witness_" + key.replace("=", "").replace(" ", "_")
            yield from cases_of(what, sets, ["witness"], 0, witnesses=made_for)


def boundary_opsets(max_opset: int) -> list[int]:
    """The opset-boundary axis: opset 12, just above the one version (11), and the newest opset this run
    allows that onnx knows, both resolving to DynamicQuantizeLinear-11."""
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int) -> Iterator[Case]:
    """`mixed` (ONNX's own example among them) at each boundary opset: test_dynamicquantizelinear_mixed_opset<n>."""
    _, sets = CATALOGUE["mixed"]()
    for opset in boundary_opsets(max_opset):
        yield from cases_of(f"mixed_opset{opset}", sets, ["edge", "opset_boundary"], 0, opset=opset)


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the large case, each random case."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]

    def catalogue() -> Iterator[Case]:
        for name, build in CATALOGUE.items():
            flags, sets = build()
            yield from cases_of(name, sets, flags, 0)

    def large() -> Iterator[Case]:
        s = sampling.case_seed(seed, f"{FAMILY.prefix}_large_random")
        yield from cases_of("large_random", [large_input(opts["large"], s), -large_input(opts["large"], s + 1)],
                            ["large", "random"], s)

    def random(n: int) -> Iterator[Case]:
        what = f"length{n}_random"
        s = sampling.case_seed(seed, f"{FAMILY.prefix}_{what}")
        yield from cases_of(what, random_inputs(n, opts["random"], s), ["random"], s)

    units = [catalogue, witness_cases, lambda: boundary_cases(max_opset)]
    if opts["large"]:
        units.append(large)
    if opts["random"]:
        units += [lambda n=n: random(n) for n in (2, 7, 64)]
    return units


# ---------------------------------------------------------------------------------------------
# live hunting (generator/hunting.py): one x per example, built as the catalogue's cases are, biased to
# where the fault models (reference/dynamic_quantize_linear_faults.py) part from the reference
# ---------------------------------------------------------------------------------------------
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
