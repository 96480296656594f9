"""The DynamicQuantizeLinear family (ONNX DynamicQuantizeLinear-11): float32 x -> (y, y_scale, y_zero_point).

Cases (test_dynamicquantizelinear_<what>), each one model with several data sets of one shape; every
data set checks all three outputs:
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
  probe / empty_probe / length<n>_random_probe  (probe/) inputs whose result the spec leaves undefined: all
                                             zeros, ranges that underflow to y_scale 0, NaN, infinities, empty

Expected values come from generator.reference.dynamic_quantize_linear only.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from generator import dtypes, sampling, witness
from generator.case import Case, case_meta, node_model
from generator.reference import dynamic_quantize_linear as ref

FAMILY = "dynamic_quantize_linear"
OP = "DynamicQuantizeLinear"
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


def zero_point_input(target: float, x_max: float) -> np.ndarray:
    """[min, max, interior values] with min < 0 chosen so that Initial_ZeroPoint_FP = -min / y_scale is exactly `target`
    in the float32 steps of the function body. max is x_max, or the first of a few values near it for
    which some float32 min gives the target (not every quotient is reachable from every max)."""
    for mx in [x_max] + [x_max * (1 + i / 7) for i in range(1, 40)]:
        mx = float(F32(mx))
        ideal = -target * mx / (255.0 - target)
        cand = around(ideal, 1 << 12)
        with np.errstate(all="ignore"):
            scale = (F32(mx) - cand) / F32(255)
            zp = F32(0) - cand / scale
        hits = cand[zp == F32(target)]
        if hits.size:
            best = hits[np.argmin(np.abs(hits.astype(np.float64) - ideal))]
            x = _f32([best, mx, 0.0, best / 2, mx / 4, mx / 2, best / 3])  # min and max unchanged
            assert ref.quantization_parameters(x)[1] == F32(target)
            return x
    raise ValueError(f"no float32 min gives the zero point {target!r} with a max near {x_max!r}")


def quotient_inputs(scale: np.float32, targets: list[float], lo: float, hi: float) -> np.ndarray:
    """For each target quotient, a float32 x in [lo, hi] with x / scale == target in float32 (targets no
    x reaches are left out)."""
    out = []
    for t in targets:
        cand = around(float(t) * float(scale), 96)
        cand = cand[(cand >= lo) & (cand <= hi)]
        with np.errstate(all="ignore"):
            hit = cand[cand / scale == F32(t)]
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
# the catalogue: what -> (data sets, flags)
# ---------------------------------------------------------------------------------------------
def edge_catalogue() -> dict[str, tuple[list[np.ndarray], list[str]]]:
    cat: dict[str, tuple[list[np.ndarray], list[str]]] = {}
    cat["mixed"] = ([_f32(v) for v in (
        [0, 2, -3, -2.5, 1.34, 0.5],  # ONNX's own example: zero point 153
        [-1, 1, 0.1, -0.1, 0.5, -0.5],
        [-0.0, 1e-3, -7.25, 100.0, 3.0, -3.0],
        [1e-30, -1e-30, 1.0, -0.001, 0.0, 255.0],
        [-1e20, 1e20, 1.0, -1.0, 0.0, 3e19],
        [-128.0, 127.0, -64.5, 0.25, 63.75, 1.5],
    )], ["edge"])
    cat["all_positive"] = ([_f32(v) for v in (
        [1, 2.1, 1.3, 2.5, 3.34, 4.0], [0.0, 0.5, 1.0, 1.5, 2.0, 255.0], [3e-5, 1e-5, 2e-5, 7e-6, 9e-6, 1e-6],
        [7.0, 7.0, 7.0, 7.0, 7.0, 7.0], [1e30, 2e30, 5e29, 3e30, 1.5e30, 1e29],
    )], ["edge"])
    cat["all_negative"] = ([_f32(v) for v in (
        [-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], [-0.0, -0.5, -1.0, -1.5, -2.0, -255.0],
        [-7.0, -7.0, -7.0, -7.0, -7.0, -7.0], [-1e30, -2e30, -5e29, -3e30, -1.5e30, -1e29],
    )], ["edge"])
    singles = [1.0, -1.0, 3.5, -1e-3, 255.0, -255.0, FLT_MAX, -FLT_MAX, TINY, -TINY, 1e-40]
    cat["single_element"] = ([_f32([v]) for v in singles], ["edge", "shape"])
    cat["scalar"] = ([_f32(v).reshape(()) for v in singles], ["edge", "shape"])
    grid = np.linspace(-3.0, 5.0, 120).reshape(2, 3, 4, 5)
    cat["4d"] = ([_f32(grid), _f32(-grid[::-1] * 7.5), _f32(np.abs(grid))], ["edge", "shape"])
    # zero point ties k + 0.5 (even and odd k, both ends) and their float32 neighbours
    ks = [0, 1, 2, 3, 64, 127, 128, 200, 253, 254]
    cat["zero_point_ties"] = (_pad([zero_point_input(k + 0.5, mx) for k, mx in zip(ks, [1.0, 3.0, 0.75, 10.0] * 3)]),
                              ["edge"])
    near = [(t, mx) for k, mx in zip(ks, [1.0, 5.0, 0.3] * 4) for t in _near(k + 0.5)]
    cat["zero_point_near_ties"] = (_pad([zero_point_input(t, mx) for t, mx in near]), ["edge"])
    ranges = [(-1.0, 1.0), (0.0, 3.0), (-2.0, 0.0), (-0.3, 7.9), (-100.0, 27.0), (-1e-3, 5e-3)]
    cat["y_ties"] = (_pad([_tie_dataset(lo, hi, 48, False) for lo, hi in ranges]), ["edge"])
    cat["y_near_ties"] = (_pad([_tie_dataset(lo, hi, 24, True) for lo, hi in ranges]), ["edge"])
    cat["range_near_flt_max"] = ([_f32(v) for v in (
        [FLT_MAX, -(2.0**102), 0.5, 1e38, -1e30, 3e38],  # FLT_MAX + 2**102 rounds back to FLT_MAX
        [FLT_MAX / 2, -FLT_MAX / 2, 0.0, 1e38, -1e38, 1.0],
        [-FLT_MAX, 1.0, -1e38, -3e38, 0.0, -1.0],
        [FLT_MAX, FLT_MAX, 0.9 * FLT_MAX, 0.5 * FLT_MAX, 1.0, 0.0],
        [-FLT_MAX, -FLT_MAX, -0.9 * FLT_MAX, -0.5 * FLT_MAX, -1.0, -0.0],
    )], ["edge"])
    # X_Range overflows to +inf: y_scale = inf, zero point 0 - (min / inf) = 0, y = x / inf = 0
    cat["range_overflow"] = ([_f32(v) for v in (
        [FLT_MAX, -FLT_MAX, 0.0, 1.0, -1.0, 1e38],
        [FLT_MAX, -FLT_MAX / 1024, 3e38, -1e35, 2.0, -2.0],
        [2e38, -2e38, 1e38, -1e38, 0.5, -0.5],
        [FLT_MAX, -(2.0**103), 1.0, -1.0, 0.0, 2.0],  # FLT_MAX + 2**103: the halfway point, to even: inf
    )], ["edge"])
    cat["range_smallest_normal"] = ([_f32(v) for v in (
        [255 * TINY, 0.0, TINY, 100 * TINY, 254.5 * TINY, 0.5 * TINY],  # y_scale = the smallest normal
        [-255 * TINY, -TINY, -0.5 * TINY, -128 * TINY, -127.5 * TINY, 0.0],
        [256 * TINY, -TINY, TINY, 2 * TINY, -3 * TINY, 17 * TINY],
        [510 * TINY, -255 * TINY, 3 * TINY, -2.5 * TINY, 0.0, 1.5 * TINY],
    )], ["edge"])
    cat["scale_subnormal"] = ([_f32(v) for v in (
        [TINY, 0.0, 0.5 * TINY, 0.25 * TINY, 0.75 * TINY, DENORM],  # y_scale = TINY / 255 (subnormal)
        [-TINY, TINY, 0.0, -0.5 * TINY, DENORM, -DENORM],
        [255 * DENORM, DENORM, 2 * DENORM, 127 * DENORM, 128 * DENORM, 0.0],  # y_scale = 2**-149
        [300 * DENORM, -DENORM, 0.0, 5 * DENORM, 150 * DENORM, 299 * DENORM],  # y_scale rounds a lot
    )], ["edge"])
    return cat


def probe_catalogue() -> dict[str, list[np.ndarray]]:
    """Inputs the spec leaves undefined (the reference says why), by case."""
    return {
        "probe": [_f32(v) for v in (
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
            [DENORM, 0.0, DENORM, DENORM, 0.0, 0.0], [-DENORM, 0.0, -DENORM, 0.0, 0.0, 0.0],  # y_scale 0
            [np.nan, 1.0, -1.0, 0.0, 2.0, 3.0], [1.0, 2.0, 3.0, -np.nan, 0.0, 0.5],
            [np.inf, 1.0, -1.0, 0.0, 2.0, 3.0], [-np.inf, 1.0, -1.0, 0.0, 2.0, 3.0],
            [np.inf, -np.inf, 0.0, 1.0, -1.0, 0.5],
        )],
        "empty_probe": [np.zeros((0,), dtype=F32)],
    }


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
def _model(shape: tuple):
    f32, u8 = dtypes.get("float"), dtypes.get("uint8")
    return node_model(OP, [("x", f32, shape)], [("y", u8, shape), ("y_scale", f32, ()), ("y_zero_point", u8, ())],
                      {}, OPSET)


def _meta(what: str, seed: int, flags: list[str], compare: dict, **extra) -> dict:
    return case_meta(op=OP, domain="", opset=OPSET, family=FAMILY, spec_file=ref.SPEC_FILE, clause=CLAUSE,
                     compare=compare, flags=flags, seed=seed, params={"what": what}, **extra)


def cases_of(what: str, datasets: list[np.ndarray], flags: list[str], seed: int) -> Iterator[Case]:
    """The node case of the defined data sets and the probe case (<what>_probe) of the undefined ones."""
    defined, undefined, reasons = [], [], set()
    for x in datasets:
        y, scale, zp, why = ref.dynamic_quantize_linear(x)
        if why:
            undefined.append(x)
            reasons.add(why)
        else:
            defined.append((x, [y, scale, zp]))
    if defined:
        shape = defined[0][0].shape
        yield Case(f"test_dynamicquantizelinear_{what}", "node", _model(shape), [[x] for x, _ in defined],
                   [outs for _, outs in defined], _meta(what, seed, flags, COMPARE))
    if undefined:
        name = what if what.endswith("probe") else f"{what}_probe"
        yield Case(f"test_dynamicquantizelinear_{name}", "probe", _model(undefined[0].shape),
                   [[x] for x in undefined], None,
                   _meta(what, seed, ["probe"], {"mode": "none", "reason": "the spec defines no result"},
                         undefined=sorted(reasons)))


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed witness catalogue (generator/witness/catalogue/
    dynamic_quantize_linear.json): test_dynamicquantizelinear_witness_<group>, one data set per distinct
    witness x (float32 values as decimals that read back exactly), expected outputs from the reference;
    case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY)["groups"].items()):
        what = "witness_" + key.replace("=", "").replace(" ", "_")
        sets, made_for, seen = [], [], {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                x = np.array([float(v) for v in wit["x"].split()], dtype=np.float64).astype(F32)
                if x.tobytes() in seen:
                    made_for[seen[x.tobytes()]].append(name)
                    continue
                y, scale, zp, why = ref.dynamic_quantize_linear(x)
                if why:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} is undefined: {why}")
                seen[x.tobytes()] = len(sets)
                sets.append((x, [y, scale, zp]))
                made_for.append([name])
        if sets:
            yield Case(f"test_dynamicquantizelinear_{what}", "node", _model(sets[0][0].shape), [[x] for x, _ in sets],
                       [outs for _, outs in sets], _meta(what, 0, ["witness"], COMPARE, witnesses=made_for))


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the edge catalogue, the probes, the large case, each random case."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]

    def edges() -> Iterator[Case]:
        for what, (sets, flags) in edge_catalogue().items():
            yield from cases_of(what, sets, flags, 0)

    def probes() -> Iterator[Case]:
        for what, sets in probe_catalogue().items():
            yield from cases_of(what, sets, ["probe"], 0)

    def large() -> Iterator[Case]:
        s = sampling.case_seed(seed, "test_dynamicquantizelinear_large_random")
        yield from cases_of("large_random", [large_input(opts["large"], s), -large_input(opts["large"], s + 1)],
                            ["large", "random"], s)

    def random(n: int) -> Iterator[Case]:
        what = f"length{n}_random"
        s = sampling.case_seed(seed, f"test_dynamicquantizelinear_{what}")
        yield from cases_of(what, random_inputs(n, opts["random"], s), ["random"], s)

    units = [edges, probes, witness_cases]
    if opts["large"]:
        units.append(large)
    if opts["random"]:
        units += [lambda n=n: random(n) for n in (2, 7, 64)]
    return units
