"""The DequantizeLinear family (ONNX DequantizeLinear-10 .. 28): y = (x - x_zero_point) * x_scale.

Each entry of CATALOGUE is a short function named for what it checks; it yields (variant, Spec) pairs, and each
pair is one model (test_dequantizelinear_<function>_<variant>) with its data sets: x, x_scale and x_zero_point
are graph inputs (the zero point left out where the spec is about its absence). The versions whose text
changed are each checked at an opset where it holds (generator/reference/dequantize_linear.py lists what each
version says; case.json "opset" and spec.file name the version):
  each_version            int8 / uint8, every bit pattern, at every opset of the installed onnx
  every_pattern           every bit pattern of every type of <= 8 bits (float8 NaN / Inf, int4 / int2, float4,
                          float6) at the first version that lists it, with a float32 / float16 / bfloat16 scale
  no_zero_point           the same without the x_zero_point input ("Zero point is 0 when it's not specified")
  wide_integers           int16 / uint16 (strided patterns and extremes), int32 within and beyond 2**24
  per_axis / blocked      granularities (axis default, positive, negative; short last blocks)
  rank1_opset19           [DQL-19] "When the rank of the input is 1, per-tensor quantization is applied"
  output_dtype            [DQL-23] output_dtype against the scale's type
  e8m0_scale              [DQL-24] float8e8m0 scales (powers of two, NaN), MX-style float4 blocks
  scale_specials          zero, negative, subnormal, huge, Inf and NaN scales (IEEE 754 arithmetic)
  float8_zero_point       float8 zero points, NaN / Inf among them
  <granularity>_<type>_random  seeded random values per granularity (generator.sampling)
  negative/ (kind)        models the version rules out; the backend must refuse them at prepare
  witness_*               the fault models' witnesses (generator/witness/catalogue/dequantize_linear.json)
`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py), one slice per x type: a small model and one
data set per example, drawn toward the fault models' boundaries, built by cases_of as every case here;
rebuild(args) gives it again from the drawn bit patterns.

Expected values come from generator.reference.dequantize_linear only. Where plausible intermediate precisions
give other finite values (the reference's `spread`), the case compares in ulps (mode ulp) and says why; where
one overflows and another does not, or for an int32 input with a nonzero zero point, the data set goes to
<name>_probe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from generator import axes, dtypes, sampling, witness
from generator.case import Case, node_model
from generator.family import Catalogue, Family, split
from generator.outcome import Outcome
from generator.reference import dequantize_linear as ref

FAMILY = Family("dequantize_linear", "DequantizeLinear", "onnx.defs:DequantizeLinear")
MIN_OPSET = ref.OPSETS[0]
PROFILES = {"quick": dict(random=0), "default": dict(random=4), "exhaustive": dict(random=32)}
CLAUSE = "The dequantization formula is `y = (x - x_zero_point) * x_scale`"
EXACT = {"mode": "exact", "reason": "(x - x_zero_point) * x_scale is exact in the output type, or rounds to one "
                                    "value whatever intermediate precision an implementation takes"}


@dataclass
class Spec:
    """One model and its data sets: (x, x_scale, x_zero_point or None) each."""

    opset: int
    x: str
    scale: str
    sets: list[tuple] = field(default_factory=list)
    zero_point: bool = True
    axis: int | None = None
    block_size: int = 0
    output_dtype: str | None = None
    clause: str = CLAUSE
    flags: tuple = ("edge",)
    reading: str | None = None
    # negative cases: no data; the shapes of x / x_scale / x_zero_point, the declared output type and the error
    shapes: tuple | None = None
    error: str | None = None
    zp_type: str | None = None  # a negative case's zero point type (else x's)
    phase: str = "prepare"  # a negative case's: "run" where the refusal depends on shapes (one data set of zeros)
    explicit_defaults: bool = False  # every attribute the version has written, the defaults with their values

    @property
    def out(self) -> str:
        return self.output_dtype or self.scale

    def attrs(self) -> dict:
        a = {}
        if self.axis is not None:
            a["axis"] = self.axis
        if self.block_size:
            a["block_size"] = self.block_size
        if self.output_dtype:
            a["output_dtype"] = dtypes.get(self.output_dtype).onnx
        if self.explicit_defaults:  # the explicit-defaults axis (generator/axes.py)
            a = dict(axes.attribute_defaults("DequantizeLinear", self.opset), **a)
        return a


CATALOGUE = Catalogue()
READING_SCALAR_SCALE_10 = ("DequantizeLinear-10's \"'x_scale' and 'x_zero_point' are both scalars\" (x_scale: \"It's a "
                           "scalar, which means a per-tensor/layer quantization\") is read as a rule a model must "
                           "keep, so a 1-D x_scale is refused; no sentence says so, and onnx.checker accepts the "
                           "model (its shape inference of version 10 does not check the scale's rank)")
READING_IEEE = ("NaN, Inf, zero and negative scales and NaN / Inf inputs follow IEEE 754 arithmetic in the formula "
                "(the text states the formula only)")


# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------
def arr(values, t: str, shape: tuple | None = None) -> np.ndarray:
    """Values (exact in type t) as an array of t."""
    d = dtypes.get(t)
    a = np.asarray(values, dtype=np.float64 if d.is_float else np.int64).astype(d.np_dtype)
    return a if shape is None else a.reshape(shape)


def patterns(t: str) -> np.ndarray:
    """Every bit pattern of t (<= 16 bits), in encoding order."""
    return dtypes.get(t).all_values()


def first_opset(t: str) -> int:
    """The first version that lists x type t (at least the given minimum)."""
    return ref._T1_SINCE[t]


def zero_points(t: str) -> list:
    """A few zero points of x type t: 0, one near each end, and one inside."""
    d = dtypes.get(t)
    if d.is_float:
        return [0.0, 1.5, -2.0]  # -0.0: float8_zero_point (IEEE: (-0) - (-0) = +0)
    return sorted({0, d.int_min, d.int_max, d.int_min + (d.int_max - d.int_min) // 3})


SCALES = {"float": [0.1, 3.0, 2.0**-130, 1.25e30], "float16": [0.1, 3.0, 2.0**-20, 1000.0],
          "bfloat16": [0.1, 3.0, 2.0**-130, 1.25e30]}


def per_tensor_sets(x: np.ndarray, t: str, scale: str, zero_point: bool = True,
                    scales: list[float] | None = None) -> list[tuple]:
    """x with each scale (SCALES[scale] by default) and each zero point (or none), paired in turn (the shorter
    list cycles): scalars."""
    zps = zero_points(t) if zero_point else [None]
    scales = SCALES[scale] if scales is None else scales
    n = max(len(scales), len(zps))
    return [(x, arr(scales[i % len(scales)], scale, ()), None if zps[i % len(zps)] is None
             else arr(zps[i % len(zps)], t, ())) for i in range(n)]


def ladder(n: int, lo: float, hi: float, t: str) -> np.ndarray:
    """n values of t from lo to hi (rounded to t's grid: integers, or t's floats)."""
    return arr(np.linspace(lo, hi, n).round() if not dtypes.get(t).is_float else np.linspace(lo, hi, n), t)


# ---------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------
@CATALOGUE
def each_version():
    """int8 / uint8, every bit pattern, per-tensor, at every version of the installed onnx."""
    for v in ref.OPSETS:
        for t in ("int8", "uint8"):
            yield f"{t}_opset{v}", Spec(v, t, "float", per_tensor_sets(patterns(t), t, "float"))


@CATALOGUE
def every_pattern():
    """Every bit pattern of each x type of <= 8 bits at the first version that lists it, each scale type the
    version allows (float16 / bfloat16 from 19: 'x_scale' determines the output type)."""
    for t, since in ref._T1_SINCE.items():
        if dtypes.get(t).bits > 8:
            continue
        for s in ("float", "float16", "bfloat16"):
            v = max(since, 19) if s != "float" else since
            yield f"{t}_{dtypes.short(dtypes.get(s))}_opset{v}", Spec(v, t, s, per_tensor_sets(patterns(t), t, s))


@CATALOGUE
def no_zero_point():
    """The x_zero_point input left out: 'Zero point is 0 when it's not specified'."""
    for t, since in ref._T1_SINCE.items():
        x = patterns(t) if dtypes.get(t).bits <= 8 else wide_values(t)
        yield f"{t}_opset{since}", Spec(since, t, "float", per_tensor_sets(x, t, "float", False), zero_point=False)
    yield from scale_types_without_zero_point()


def scale_types_without_zero_point() -> Iterator[tuple[str, Spec]]:
    """The scale-type axis without a zero point: every x type of <= 8 bits (float8 among them: onnx#5408, a
    float8 x with a float16 scale and no zero point) with each float16 / bfloat16 x_scale, at the first version
    that lists both (every_pattern has them with a zero point, the float32 scale is above)."""
    for t, since in ref._T1_SINCE.items():
        if dtypes.get(t).bits > 8:
            continue
        for s in ("float16", "bfloat16"):
            v = max(since, 19)
            yield f"{t}_{dtypes.short(dtypes.get(s))}_opset{v}", Spec(
                v, t, s, per_tensor_sets(patterns(t), t, s, False), zero_point=False)


def wide_values(t: str) -> np.ndarray:
    """int16 / uint16: every 257th pattern and both ends; int32: values exact in float32 (|x| <= 2**24)."""
    d = dtypes.get(t)
    if t == "int32":
        v = [0, 1, -1, 2**24, -(2**24), 2**23 + 1, -(2**23) - 1, 255, -256, 12345678, -7654321, 2**20 * 3]
        return arr(v, t)
    return arr(sorted(set(range(d.int_min, d.int_max + 1, 257)) | {d.int_min, d.int_max, d.int_max - 1}), t)


@CATALOGUE
def wide_integers():
    """int16 / uint16 (21+) and int32 (10+): x - x_zero_point beyond 8 bits."""
    for t in ("int16", "uint16"):
        yield f"{t}_opset21", Spec(21, t, "float", per_tensor_sets(wide_values(t), t, "float"))
    yield "int16_float16_opset21", Spec(21, "int16", "float16",
                                        [(wide_values("int16"), arr(s, "float16", ()), arr(0, "int16", ()))
                                         for s in (0.001, 0.5, 2.0**-14)])
    x = wide_values("int32")
    yield "int32_opset10", Spec(10, "int32", "float", [(x, arr(s, "float", ()), arr(0, "int32", ()))
                                                       for s in SCALES["float"]])
    big = arr([2**24 + 1, -(2**24) - 3, 2**31 - 1, -(2**31), 2**30 + 7, 123456789, -987654321], "int32")
    yield "int32_beyond_float32_opset13", Spec(13, "int32", "float", [(big, arr(s, "float", ()), arr(0, "int32", ()))
                                                                      for s in (0.1, 1.0 + 2.0**-23, 3.0)])
    yield "int32_nonzero_zero_point_opset13", Spec(13, "int32", "float", [(x, arr(0.5, "float", ()),
                                                                           arr(z, "int32", ())) for z in (0, 3)])


@CATALOGUE
def per_axis():
    """1-D scales along axis (13+): the default axis 1, explicit, negative ('counting dimensions from the back')."""
    shape = (2, 3, 5)
    for v, t, s in ((13, "int8", "float"), (13, "uint8", "float"), (19, "uint8", "float16"),
                    (21, "int4", "float"), (21, "int16", "bfloat16")):
        for axis in (None, 0, 2, -1, -3):
            i = 1 if axis is None else axis % 3
            d = dtypes.get(t)
            x = ladder(30, d.int_min, d.int_max, t).reshape(shape)
            sets = []
            for k in range(2):
                first = [0.5, 0.125, 3.0, 0.2, 1.5][:shape[i]]
                scales = arr(first if k == 0 else [0.1 * (j + 1) for j in range(shape[i])], s)
                zps = arr(np.linspace(d.int_min, d.int_max, shape[i]).round() if k else np.zeros(shape[i]), t)
                sets.append((x, scales, zps))
            name = f'{t}_{dtypes.short(dtypes.get(s))}_{"default_axis" if axis is None else f"axis{axis}"}_opset{v}'
            yield name.replace("-", "_minus"), Spec(v, t, s, sets, axis=axis)
            if v == 13 and t == "int8":  # the zero point left out
                yield name.replace("-", "_minus") + "_no_zero_point", Spec(v, t, s, [(a, b, None) for a, b, _ in sets],
                                                                           zero_point=False, axis=axis)


@CATALOGUE
def blocked():
    """Blocked scales (21+): every scale replicated block_size times along axis, the last block short where
    block_size does not divide the dimension."""
    for t, s, shape, axis, bs in (("int8", "float", (4, 6), 1, 2), ("int8", "float", (4, 6), 1, 4),
                                  ("uint8", "float", (4, 6), 0, 3), ("int4", "float16", (3, 8), -1, 3),
                                  ("uint4", "float", (2, 5, 4), -2, 2), ("int16", "float", (6, 2), 0, 4),
                                  ("float8e4m3fn", "float", (2, 7), 1, 4)):
        d = dtypes.get(t)
        i = axis % len(shape)
        sshape = tuple(-(-n // bs) if j == i else n for j, n in enumerate(shape))
        n = int(np.prod(shape))
        lo, hi = (-d.finite_max, d.finite_max) if d.is_float else (d.int_min, d.int_max)
        x = ladder(n, lo, hi, t).reshape(shape)
        m = int(np.prod(sshape))
        sets = [(x, arr([2.0 ** ((j % 7) - 3) * (1 + (j % 3) / 4) for j in range(m)], s, sshape),
                 arr(np.zeros(m) if k == 0 else ladder(m, lo / 2, hi / 2, t).astype(np.float64), t, sshape))
                for k in range(2)]
        name = f"{t}_{dtypes.short(dtypes.get(s))}_axis{axis}_block{bs}".replace("-", "_minus")
        yield name + "_opset21", Spec(21, t, s, sets, axis=axis, block_size=bs)
        yield name + "_no_zero_point_opset21", Spec(21, t, s, [(a, b, None) for a, b, _ in sets], zero_point=False,
                                                    axis=axis, block_size=bs)


@CATALOGUE
def rank1_opset19():
    """[DQL-19] 'When the rank of the input is 1, per-tensor quantization is applied': a rank-1 x with a scalar
    scale and an axis attribute that is then unnecessary."""
    x = patterns("int8")
    for axis in (None, 0):
        yield "axis_absent" if axis is None else "axis0", Spec(19, "int8", "float", per_tensor_sets(x, "int8", "float"),
                                                               axis=axis, clause="When the rank of the input is 1, "
                                                               "per-tensor quantization is applied")


@CATALOGUE
def output_dtype():
    """[DQL-23] 'The output type is determined by the attribute `output_dtype`. If `output_dtype` is not supplied
    then the output type is the same as `x_scale`. The output type also determines the precision of the
    multiplication operation.'"""
    clause = "The output type is determined by the attribute `output_dtype`"
    for t in ("int8", "uint8", "float8e4m3fn", "float4e2m1"):
        for s, o in (("float", "float16"), ("float", "bfloat16"), ("float16", "float"), ("bfloat16", "float"),
                     ("float16", "float16"), ("bfloat16", "float16")):
            name = f"{t}_{dtypes.short(dtypes.get(s))}_to_{dtypes.short(dtypes.get(o))}_opset23"
            sets = per_tensor_sets(patterns(t), t, s, scales=SCALES["float16"])  # scales every T3 type holds
            yield name, Spec(23, t, s, sets, output_dtype=o, clause=clause)


@CATALOGUE
def e8m0_scale():
    """[DQL-24] float8e8m0 scales (2**k, 0xFF NaN) with output_dtype: per-tensor, and float4e2m1 blocks of 32
    (the MX format's layout)."""
    e8 = dtypes.get("float8e8m0")
    scales = [e8.from_bits(np.array(b, np.uint8)) for b in (127, 0, 1, 120, 140, 254, 255)]  # 1, 2**-127 .. NaN
    for o in ("float", "float16", "bfloat16"):
        sets = [(patterns("int8"), s, arr(3, "int8", ())) for s in scales]
        yield f"int8_to_{dtypes.short(dtypes.get(o))}_opset24", Spec(24, "int8", "float8e8m0", sets, output_dtype=o,
                                                                     reading=READING_IEEE)
    x = np.resize(patterns("float4e2m1"), 2 * 64).reshape(2, 64)
    bits = [np.array([[127, 130], [100, 160]], np.uint8), np.array([[1, 254], [126, 128]], np.uint8)]
    sets = [(x, e8.from_bits(b), None) for b in bits]
    for o in ("float", "bfloat16"):
        yield f"float4e2m1_block32_to_{dtypes.short(dtypes.get(o))}_opset24", Spec(
            24, "float4e2m1", "float8e8m0", sets, zero_point=False, axis=1, block_size=32, output_dtype=o)


@CATALOGUE
def scale_specials():
    """Scales the text puts no bound on: zero, negative (x == x_zero_point gives -0), subnormal, huge (overflow
    to Inf), Inf and NaN."""
    x = patterns("int8")
    for s in ("float", "float16"):
        v = 19 if s != "float" else 13
        d = dtypes.get(s)
        vals = [0.0, -0.0, -0.5, -d.smallest_subnormal, d.smallest_subnormal, d.smallest_normal, d.finite_max,
                np.inf, -np.inf, np.nan]
        sets = [(x, arr(val, s, ()), arr(z, "int8", ())) for val in vals for z in (0, -5)]
        yield f"int8_{dtypes.short(d)}_opset{v}", Spec(v, "int8", s, sets, reading=READING_IEEE)


@CATALOGUE
def float8_zero_point():
    """Float8 zero points ('usually not used ... the dequantization formula remains the same'): finite ones,
    NaN / Inf (Inf - Inf is NaN) and -0 ((-0) - (-0) is +0)."""
    for t in ref.x_types(19):
        d = dtypes.get(t)
        if not d.is_float:
            continue
        special = [d.nan_bits] + ([d.inf_bits, d.inf_bits | d.sign_mask] if d.has_inf else [])
        zps = [d.from_bits(np.array(b, np.uint8)) for b in special] + [arr(v, t, ()) for v in (0.5, -3.0, 16.0, -0.0)]
        sets = [(patterns(t), arr(1.0, "float", ()), np.asarray(z).reshape(())) for z in zps]
        yield f"{t}_opset19", Spec(19, t, "float", sets, reading=READING_IEEE)


# ---------------------------------------------------------------------------------------
# the axes of generation (generator/axes.py): explicit defaults, vector tails, NaN payloads, opset boundaries
# ---------------------------------------------------------------------------------------
@CATALOGUE
def explicit_defaults():
    """Every attribute the version has written with its default value (axis=1, block_size=0, output_dtype=0):
    the per-axis case along axis 1 and the per-tensor one at each version with attributes, so that reading a
    present attribute wrongly shows."""
    for v in (13, 19, 21, 23, 24, 25, 28):
        x = ladder(30, -128, 127, "int8").reshape(2, 3, 5)
        sets = [(x, arr([0.5, 0.125, 3.0], "float"), arr([0, -7, 5], "int8"))]
        yield f"per_axis_int8_opset{v}", Spec(v, "int8", "float", sets, explicit_defaults=True)
        yield f"per_tensor_uint8_opset{v}", Spec(v, "uint8", "float", per_tensor_sets(patterns("uint8"), "uint8",
                                                                                       "float")[1:2],
                                                 explicit_defaults=True)


TAIL_FILLER = {"int8": [1, 2, 3], "uint8": [130, 127, 129], "int4": [1, -1, 2], "float8e4m3fn": [0.5, 1.0, -2.0]}
TAIL_DECISIVE = {"int8": [-128], "uint8": [0], "int4": [-8], "float8e4m3fn": [448.0]}  # x - zp at its extreme


@CATALOGUE
def vector_tail():
    """Lengths around the vector widths (axes.VECTOR_LENGTHS) with the decisive element last (x - x_zero_point
    at the extreme of x's range, an int4 -8 in the last nibble, float8's largest value), so that it sits in the
    partial last vector: a scalar tail loop that drops the zero point or the sign extension shows. One model
    with a symbolic length per x type."""
    for t, v, zp in (("int8", 10, 127), ("uint8", 13, 255), ("int4", 21, 7), ("float8e4m3fn", 19, -448.0)):
        lengths = axes.tail_lengths(short=t != "int8", limit=257)  # 1023 / 1025 add bytes, not remainders
        xs = axes.tail_datasets(arr(TAIL_FILLER[t], t), arr(TAIL_DECISIVE[t], t), lengths)
        sets = [(x, arr(0.5, "float", ()), arr(zp, t, ())) for x in xs]
        yield f"{t}_opset{v}", Spec(v, t, "float", sets, flags=("edge", "vector_tail"))
    # blocked, the tail along the blocked axis: (2, n) with blocks of 32, the short last block's scale decisive
    sets = []
    for n in axes.tail_lengths(short=True):
        x = np.stack([axes.with_tail(arr([1, 2, 3], "int4"), arr([-8], "int4"), n)] * 2)
        m = -(-n // 32)
        sets.append((x, arr([2.0 ** -(j % 5) for j in range(2 * m)], "float", (2, m)),
                     arr([(j % 3) - 1 for j in range(2 * m)], "int4", (2, m))))
    yield "blocked_int4_block32_opset21", Spec(21, "int4", "float", sets, axis=1, block_size=32,
                                               flags=("edge", "vector_tail"))


@CATALOGUE
def nan_payload():
    """Every NaN encoding of each float x_scale type (axes.nan_values: quiet and signalling, low and high
    payloads, both signs): y is NaN (IEEE 754 propagation), also into a bfloat16 output from a float32 scale,
    where an add-and-shift rounding turns a low-payload NaN into Inf."""
    x = arr([0, 1, -1, 127, -128, 5, -3], "int8")
    for s, v, out in (("float", 13, None), ("float16", 19, None), ("bfloat16", 19, None), ("float", 23, "bfloat16"),
                      ("float", 23, "float16")):
        _, nans = axes.nan_values(s)
        sets = [(x, np.asarray(n).reshape(()), arr(3, "int8", ())) for n in nans]
        name = f"scale_{dtypes.short(dtypes.get(s))}" + (f"_to_{dtypes.short(dtypes.get(out))}" if out else "")
        yield f"{name}_opset{v}", Spec(v, "int8", s, sets, output_dtype=out, reading=READING_IEEE,
                                       flags=("edge", "nan_payload"))


# the versions whose text changed (ref.OPSETS past the first): each gets a case one opset below (the old rule:
# the new type or attribute refused) and one above (the new rule still in force); the changes' own opsets have
# their cases in the catalogue above
BOUNDARY_CHANGES = tuple(v for v in ref.OPSETS if v > ref.OPSETS[0])


@CATALOGUE
def boundary():
    """The opset-boundary axis (axes.boundary_opsets): what each version added, one opset after it (accepted,
    computed as at the version), and one opset before it (refused: negative/)."""
    firsts = {13: ("uint8", "float", (2, 3), 1), 19: ("float8e4m3fn", "float16", (4,), None),
              21: ("int4", "float", (2, 4), 1), 23: ("float4e2m1", "float", (4,), None),
              24: ("int8", "float8e8m0", (4,), None), 25: ("int2", "float", (4,), None),
              28: ("float6e2m3", "float", (4,), None)}
    for c in BOUNDARY_CHANGES:
        t, s, shape, axis = firsts[c]
        d = dtypes.get(t)
        x = patterns(t)[:int(np.prod(shape))].reshape(shape) if d.bits <= 8 else None
        if c == 13:  # per-axis
            sets = [(x, arr([0.5, 2.0, 0.25], s), arr([0, 3, 255], t))]
        elif c == 21:  # blocked
            sets = [(x, arr([[0.5, 2.0], [0.25, 1.0]], s), arr([[0, 1], [-1, 2]], t))]
        elif c == 24:  # 2**-1 and NaN (0xFF)
            sets = [(x, dtypes.get(s).from_bits(np.array(b, np.uint8)), arr(3, t, ())) for b in (126, 255)]
        else:
            sets = [(x, arr(0.5, s, ()), arr(0, t, ()))]
        kw = dict(axis=axis, block_size=2 if c == 21 else 0, output_dtype="float" if c == 24 else None)
        if c + 1 <= ref.OPSETS[-1]:
            yield f"{t}_opset{c + 1}", Spec(c + 1, t, s, sets, flags=("edge", "boundary"), **kw)
        below = c - 1
        if c == 13:
            shapes = ((2, 3), (3,), (3,))
        elif c == 21:
            shapes = ((2, 4), (2, 2), (2, 2))
        else:
            shapes = ((4,), (), ())
        yield f"negative_{t}_opset{below}", _neg(below, t, s, t, shapes, f"DequantizeLinear-{ref.version(below)} "
                                                 f"lacks what version {c} added ({t} x, {s} x_scale"
                                                 f"{', block_size' if c == 21 else ''}"
                                                 f"{', a 1-D x_scale' if c == 13 else ''})",
                                                 phase="run" if c == 13 else "prepare",
                                                 reading=READING_SCALAR_SCALE_10 if c == 13 else None, **{
                                                     k: v for k, v in kw.items() if v})


# ---------------------------------------------------------------------------------------
# negative cases: (x type, scale type, zero point type or None, shapes, attrs, output, opset, error)
# ---------------------------------------------------------------------------------------
def _neg(opset: int, x: str, scale: str, zp: str | None, shapes: tuple, error: str, **kw) -> Spec:
    """A model refused for its types or attributes (phase prepare: the model says all), or with shapes= ... and
    phase="run" for its shapes (a backend may wait for the data to see them: refused at prepare or at run)."""
    return Spec(opset, x, scale, zero_point=zp is not None, shapes=shapes, error=error,
                phase=kw.pop("phase", "prepare"),
                output_dtype=kw.pop("output_dtype", None), axis=kw.pop("axis", None),
                block_size=kw.pop("block_size", 0), clause=kw.pop("clause", CLAUSE), flags=("negative",), zp_type=zp,
                reading=kw.pop("reading", None))


NEGATIVES = {
    "zero_point_type_differs": _neg(13, "int8", "float", "uint8", ((4,), (), ()),
                                    "`x_zero_point` and `x` must have the same type"),
    "zero_point_shape_differs": _neg(13, "int8", "float", "int8", ((2, 3), (3,), ()),
                                     "`x_scale` and `x_zero_point` must have same shape", phase="run"),
    "per_axis_length_differs": _neg(13, "uint8", "float", "uint8", ((2, 3), (2,), (2,)),
                                    "a 1-D tensor for per-axis quantization (of the axis' length)", axis=1,
                                    phase="run"),
    "axis_out_of_range": _neg(13, "uint8", "float", "uint8", ((2, 3), (3,), (3,)),
                              "Accepted range is [-r, r-1] where r = rank(input)", axis=2, phase="run"),
    "axis_below_range": _neg(21, "uint8", "float", "uint8", ((2, 3), (2,), (2,)),
                             "Accepted range is [-r, r-1] where r = rank(input)", axis=-3, phase="run"),
    "per_axis_scale_opset10": _neg(10, "uint8", "float", "uint8", ((2, 3), (3,), (3,)),
                                   "'x_scale' and 'x_zero_point' are both scalars", phase="run",
                                   reading=READING_SCALAR_SCALE_10),
    "rank2_scale_without_block_size": _neg(21, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                                           "a scalar, a 1-D tensor, or rank identical to the input for blocked "
                                           "quantization (block_size is 0)", axis=1, phase="run"),
    "block_size_too_small": _neg(21, "int8", "float", "int8", ((2, 6), (2, 2), (2, 2)),
                                 "the accepted range is [ceil(Di/Si), ceil(Di/(Si-1))-1]", axis=1, block_size=2,
                                 phase="run"),
    "block_size_too_large": _neg(21, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                                 "the accepted range is [ceil(Di/Si), ceil(Di/(Si-1))-1]", axis=1, block_size=3,
                                 phase="run"),
    "blocked_shape_differs_off_axis": _neg(21, "int8", "float", "int8", ((2, 6), (3, 3), (3, 3)),
                                           "the same shape as the input, except for one dimension", axis=1,
                                           block_size=2, phase="run"),
    "blocked_rank_differs": _neg(21, "int4", "float", "int4", ((2, 6), (2, 3, 1), (2, 3, 1)),
                                 "a rank identical to the input for blocked quantization", axis=1, block_size=2,
                                 phase="run"),
    "block_size_opset19": _neg(19, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                               "DequantizeLinear-19 has no attribute block_size", axis=1, block_size=2),
    "output_dtype_opset21": _neg(21, "int8", "float", "int8", ((4,), (), ()),
                                 "DequantizeLinear-21 has no attribute output_dtype", output_dtype="float16"),
    "output_dtype_double": _neg(23, "int8", "float", "int8", ((4,), (), ()),
                                "T3: tensor(float), tensor(float16), tensor(bfloat16)", output_dtype="double"),
    "output_dtype_int8": _neg(23, "int8", "float", "int8", ((4,), (), ()),
                              "T3: tensor(float), tensor(float16), tensor(bfloat16)", output_dtype="int8"),
    "e8m0_scale_without_output_dtype": _neg(24, "int8", "float8e8m0", "int8", ((4,), (), ()),
                                            "the output type is the same as `x_scale` (T3 has no float8e8m0)"),
    "float8e4m3fn_opset13": _neg(13, "float8e4m3fn", "float", "float8e4m3fn", ((4,), (), ()), "T: int8, uint8, int32"),
    "int16_opset19": _neg(19, "int16", "float", "int16", ((4,), (), ()), "T1 of DequantizeLinear-19"),
    "int4_opset19": _neg(19, "int4", "float", "int4", ((4,), (), ()), "T1 of DequantizeLinear-19"),
    "float4e2m1_opset21": _neg(21, "float4e2m1", "float", "float4e2m1", ((4,), (), ()), "T1 of DequantizeLinear-21"),
    "int2_opset24": _neg(24, "int2", "float", "int2", ((4,), (), ()), "T1 of DequantizeLinear-24"),
    "float6e2m3_opset25": _neg(25, "float6e2m3", "float", "float6e2m3", ((4,), (), ()), "T1 of DequantizeLinear-25"),
    "uint32_input": _neg(25, "uint32", "float", "uint32", ((4,), (), ()), "T1 of DequantizeLinear-25"),
    "float_input": _neg(21, "float", "float", "float", ((4,), (), ()), "T1 of DequantizeLinear-21"),
    "float16_scale_opset13": _neg(13, "int8", "float16", "int8", ((4,), (), ()), "x_scale: tensor(float)"),
    "double_scale": _neg(21, "int8", "double", "int8", ((4,), (), ()), "T2: float, float16, bfloat16"),
    "int8_scale": _neg(21, "int8", "int8", "int8", ((4,), (), ()), "T2: float, float16, bfloat16"),
    "e8m0_scale_opset23": _neg(23, "int8", "float8e8m0", "int8", ((4,), (), ()), "T2 of DequantizeLinear-23",
                               output_dtype="float"),
}


@CATALOGUE
def negative():
    """Models a version rules out (negative/: the backend must refuse them at prepare)."""
    yield from NEGATIVES.items()


# ---------------------------------------------------------------------------------------
# random values, per granularity
# ---------------------------------------------------------------------------------------
def random_specs(n: int, seed: int) -> Iterator[tuple[str, Spec]]:
    """n seeded draws per granularity: x of a random type, uniform bit patterns; scales 2**[-8, 8) times
    [1, 2); zero points uniform in x's range (float types: 0)."""
    for g, (v, shape, axis, bs) in {"per_tensor": (21, (3, 9), None, 0), "per_axis": (21, (3, 9), -1, 0),
                                    "blocked": (21, (3, 9), 1, 3)}.items():  # whole blocks: short ones are blocked's
        s = sampling.Stream(sampling.case_seed(seed, f"test_dequantizelinear_random_{g}"))
        types = ("int8", "uint8", "int4", "uint4", "int16", "uint16", "float8e4m3fn", "float8e5m2")
        for t in types:
            d = dtypes.get(t)
            sshape = () if g == "per_tensor" else (9,) if g == "per_axis" else (3, 3)
            m = int(np.prod(sshape))
            sets = []
            for _ in range(n):
                x = d.from_bits(s.bits(d.bits, int(np.prod(shape))).astype(d.bits_dtype)).reshape(shape)
                if d.is_float:
                    x = np.where(d.isnan(x), d.from_bits(np.zeros((), d.bits_dtype)), x).astype(d.np_dtype)
                sc = (s.octaves(-8, 8, m) * (1 + s.random(m))).astype(np.float32).reshape(sshape)
                zp = arr(np.zeros(m) if d.is_float else s.integers(d.int_min, d.int_max, m), t, sshape)
                sets.append((x, sc, zp))
            yield f"{g}_{t}", Spec(v, t, "float", sets, axis=axis, block_size=bs, flags=("random",))


# ---------------------------------------------------------------------------------------
# turning a Spec into cases
# ---------------------------------------------------------------------------------------
def _params(spec: Spec, what: str) -> dict:
    shape = spec.shapes[1] if spec.shapes else np.shape(spec.sets[0][1])
    x_rank = len(spec.shapes[0]) if spec.shapes else np.ndim(spec.sets[0][0])
    gran = "per-tensor" if shape == () else "blocked" if spec.block_size else "per-axis"
    axis = 1 if spec.axis is None else spec.axis
    return {"what": what, "x": spec.x, "scale": spec.scale, "output": spec.out, "zero_point": spec.zero_point,
            "granularity": gran, "axis": None if gran == "per-tensor" else axis % max(x_rank, 1),
            "negative_axis": spec.axis is not None and spec.axis < 0, "block_size": spec.block_size}


def model_of(spec: Spec, x_shape: tuple, scale_shape: tuple):
    xt, st = dtypes.get(spec.x), dtypes.get(spec.scale)
    ins = [("x", xt, x_shape), ("x_scale", st, scale_shape)]
    if spec.zero_point:
        zt = dtypes.get(spec.zp_type) if spec.zp_type else xt
        ins.append(("x_zero_point", zt, scale_shape if not spec.error else spec.shapes[2]))
    return node_model("DequantizeLinear", ins, [("y", dtypes.get(spec.out), x_shape)], spec.attrs(), spec.opset)


def _compare(spread: int) -> dict:
    if not spread:
        return dict(EXACT)
    return {"mode": "ulp", "ulp": int(spread),
            "reason": f"within {int(spread)} ulp of the output type: the text fixes no precision for the steps "
                      "before it, and a float32 product rounded again, or operands rounded to the output type "
                      "first, land there (the reference rounds the exact product once)"}


def _zeros(t: str, shape: tuple) -> np.ndarray:
    """A negative case's data: zeros of type t (ones for a float scale, which a backend may check)."""
    d = dtypes.get(t)
    return np.full(shape, 1.0 if d.is_float else 0, dtype=np.float64 if d.is_float else np.int64).astype(d.np_dtype)


def cases_of(name: str, spec: Spec, seed: int = 0) -> Iterator[Case]:
    """The node case (defined data sets) and probe case (the others) of a Spec, or its negative case."""
    what = name.removeprefix(FAMILY.prefix + "_")
    spec_file = f"{FAMILY.spec_file}-{ref.version(spec.opset)}"
    if spec.error:
        data = [] if spec.phase == "prepare" else [[_zeros(t, sh) for t, sh in zip(
            (spec.x, spec.scale, spec.zp_type or spec.x), spec.shapes[:3 if spec.zero_point else 2])]]
        yield FAMILY.negative(name, model_of(spec, spec.shapes[0], spec.shapes[1]), data, phase=spec.phase,
                              opset=spec.opset, clause=spec.clause, flags=list(spec.flags), seed=seed,
                              params=_params(spec, what), spec_file=spec_file, error=spec.error,
                              reading=spec.reading)
        return
    kw = dict(axis=1 if spec.axis is None else spec.axis, block_size=spec.block_size,
              output_dtype=dtypes.get(spec.output_dtype).onnx if spec.output_dtype else None, opset=spec.opset,
              x_type=spec.x, scale_type=spec.scale)
    datasets, outcomes, spread = [], [], 0
    for x, s, z in spec.sets:
        out, sp = ref.dequantize_linear_explained(x, s, z, **kw)
        rest = [s] + ([z] if spec.zero_point else [])
        if out.defined:
            datasets.append([x] + rest)
            outcomes.append(out)
            spread = max(spread, int(sp.max(initial=0)))
            continue
        if not _elementwise(x, s):  # a data set as a whole: to the probe
            datasets.append([x] + rest)
            outcomes.append(out)
            continue
        # per-tensor 1-D x: the defined elements judged, only the open ones to the probe
        bad = out.mask()
        if (~bad).any():
            datasets.append([x[~bad]] + rest)
            outcomes.append(Outcome((out.outputs[0][~bad],)))
            spread = max(spread, int(sp[~bad].max(initial=0)))
        datasets.append([x[bad]] + rest)
        outcomes.append(Outcome((out.outputs[0][bad],), dict.fromkeys(out.reasons, np.True_)))
    readings = [spec.reading] + ([ref.READING_ONE_ROUNDING] if spread else []) + (
        [READING_IEEE] if any(_special(d, spec) for d, o in zip(datasets, outcomes) if o.defined) else [])
    meta = FAMILY.meta(opset=spec.opset, clause=spec.clause, compare=_compare(spread), flags=list(spec.flags),
                       seed=seed, params=_params(spec, what), spec_file=spec_file,
                       reading="; ".join(dict.fromkeys(r for r in readings if r)) or None)
    x_dims, s_dims = _dims([d[0] for d in datasets], "n"), _dims([d[1] for d in datasets], "m")
    yield from split(name, datasets, outcomes, lambda ins: model_of(spec, x_dims or ins[0].shape,
                                                                    s_dims or ins[1].shape), meta)


def _special(inputs: list, spec: Spec) -> bool:
    """A judged data set with a NaN or an infinite x, scale or zero point: its y rests on READING_IEEE."""
    types = (spec.x, spec.scale, spec.x)
    for a, t in zip(inputs, types):
        d = dtypes.get(t)
        if d.is_float:
            with np.errstate(invalid="ignore"):
                if not np.isfinite(np.asarray(a).astype(np.float64)).all():
                    return True
    return False


def _elementwise(x: np.ndarray, s: np.ndarray) -> bool:
    """A 1-D x with a scalar scale: each element on its own (split element by element)."""
    return np.ndim(x) == 1 and np.ndim(s) == 0


def _dims(arrays: list[np.ndarray], name: str) -> tuple | None:
    """The dims of a model input whose data sets differ in shape: a symbolic dim (name + index) where they
    differ (one model takes every length of the vector-tail axis, or an element-wise split); None if they agree."""
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) == 1:
        return None
    first = np.shape(arrays[0])
    return tuple(f"{name}{i}" if len({sh[i] for sh in shapes}) > 1 else d for i, d in enumerate(first))


def work(profile: str = "default", seed: int = 0,
         max_opset: int = ref.OPSETS[-1]) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: each catalogue entry, the random cases, the witnesses."""
    if max_opset < MIN_OPSET:
        return []
    opts = PROFILES[profile]

    def entry(fn_name: str) -> Iterator[Case]:
        for variant, spec in CATALOGUE[fn_name]():
            if spec.opset <= max_opset:
                yield from cases_of(f"{FAMILY.prefix}_{fn_name}_{variant}", spec)

    def random() -> Iterator[Case]:
        for variant, spec in random_specs(opts["random"], seed):
            if spec.opset <= max_opset:
                yield from cases_of(f"{FAMILY.prefix}_{variant}_random",
                                    spec, sampling.case_seed(seed, f"test_dequantizelinear_random_{variant}"))

    units = [lambda n=n: entry(n) for n in CATALOGUE]
    if opts["random"]:
        units.append(random)
    units.append(lambda: witness_cases(max_opset))
    return units


def witness_cases(max_opset: int = ref.OPSETS[-1]) -> Iterator[Case]:
    """The fault models' witnesses from the committed catalogue: one case per group (params rebuild its Spec)."""
    groups = witness.load(FAMILY.name).get("groups", {})
    if not groups:
        return
    from generator.witness import dequantize_linear as W

    for key, group in sorted(groups.items()):
        spec, names = W.spec_of(group)
        if spec is None or spec.opset > max_opset:
            continue
        for case in cases_of(f"{FAMILY.prefix}_witness_{W.slug(key)}", spec):
            if case.kind == "node":
                case.meta["witnesses"] = names
            yield case


# ---------------------------------------------------------------------------------------
# live hunting (generator/hunting.py): one small model and one data set per example, built as every case here
# (cases_of), biased to where the fault models (reference/dequantize_linear_faults.py) part from the reference
# ---------------------------------------------------------------------------------------
HUNT_GRANULARITIES = ("per-tensor", "per-axis", "blocked")


def _hunt_scale_values(st: dtypes.DType) -> list[float]:
    """Scales worth trying first: simple ones, values whose products tie in a narrower output type, the scale
    type's subnormals and extremes (flush_subnormals, overflow, scale_distributed's x * x_scale)."""
    if st.name == "float8e8m0":
        return [1.0, 0.5, 2.0, 2.0**-127, 2.0**127, 2.0**-20, 2.0**15]
    return [1.0, 0.5, 0.1, 3.0, 1.0 + 2.0**-9, 1.0 + 2.0**-12, st.smallest_subnormal, st.smallest_normal,
            st.finite_max, st.finite_max / 3, 2.0**-20, 2.0**-130]


def hunt_spec(draw, x_type: str, max_opset: int) -> Spec:
    """A Spec of one data set drawn for x type x_type: version, scale and output types, zero point or none,
    granularity (negative axes, short blocks), shapes of at most 24 elements, values from the types' boundaries
    or any bits."""
    from hypothesis import strategies as st

    from generator import hunting

    opset = draw(st.sampled_from([v for v in ref.OPSETS if ref._T1_SINCE[x_type] <= v <= max_opset]))
    scale = draw(st.sampled_from(ref.scale_types(opset)))
    outs = [o for o in ref.output_types(opset) if o != scale] if opset >= 23 else []
    out = draw(st.sampled_from([None] + outs)) if scale != "float8e8m0" else draw(st.sampled_from(outs))
    zero_point = draw(st.booleans())
    grans = [g for g, v in zip(HUNT_GRANULARITIES, (10, 13, 21)) if v <= opset]
    gran = draw(st.sampled_from(grans))
    rank = 1 if gran == "per-tensor" else draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    axis, block_size, sshape = None, 0, ()
    if gran != "per-tensor":
        i = draw(st.integers(0, rank - 1))
        axis = i - rank if draw(st.booleans()) else i
        if gran == "per-axis":
            sshape = (shape[i],)
        else:
            block_size = draw(st.integers(1, 4))
            sshape = tuple(-(-n // block_size) if j == i else n for j, n in enumerate(shape))
    xt, stt = dtypes.get(x_type), dtypes.get(scale)
    n, m = int(np.prod(shape)), int(np.prod(sshape)) if sshape else 1
    x_bits = draw(st.lists(hunting.elements(xt, hunting.pool(xt), extra_bits=hunting.nan_patterns(xt)),
                           min_size=n, max_size=n))
    s_bits = draw(st.lists(hunting.elements(stt, _hunt_scale_values(stt), extra_bits=hunting.nan_patterns(stt)),
                           min_size=m, max_size=m))
    x = hunting.array_of(xt, x_bits, shape)
    s = hunting.array_of(stt, s_bits, sshape)
    z = None
    if zero_point:
        z_bits = draw(st.lists(hunting.elements(xt, [0, 1, -1, xt.int_min, xt.int_max] if xt.is_integer
                                                else [0.0, 1.0, -0.5]), min_size=m, max_size=m))
        z = hunting.array_of(xt, z_bits, sshape)
        if x_type == "int32" and draw(st.booleans()):
            z = np.zeros(sshape, np.int32)  # a nonzero int32 zero point is undefined: mostly keep it defined
    return Spec(opset, x_type, scale, [(x, s, z)], zero_point=zero_point, axis=axis, block_size=block_size,
                output_dtype=out, flags=("hunt",))


def _bits_of(a, t: str) -> dict:
    d = dtypes.get(t)
    return {"shape": list(np.shape(a)), "bits": [int(b) for b in d.to_bits(np.asarray(a)).reshape(-1).tolist()]}


def _from_bits(d: dict, t: str) -> np.ndarray:
    return dtypes.get(t).from_bits(np.array(d["bits"], dtype=np.uint64)).reshape(d["shape"])


def hunt_example(spec: Spec):
    """The hunt Example of a one-data-set Spec: the node case test_dequantizelinear_hunt (or the probe
    test_dequantizelinear_hunt_probe where the reference leaves an element undefined), built by cases_of; args:
    the Spec with its tensors as bit patterns (exact), for rebuild."""
    from generator.hunting import Example

    made = {c.kind: c for c in cases_of(f"{FAMILY.prefix}_hunt", spec)}
    x, s, z = spec.sets[0]
    args = {"opset": spec.opset, "x_type": spec.x, "scale_type": spec.scale, "output_dtype": spec.output_dtype,
            "axis": spec.axis, "block_size": spec.block_size, "x": _bits_of(x, spec.x),
            "x_scale": _bits_of(s, spec.scale), "x_zero_point": None if z is None else _bits_of(z, spec.x)}
    return Example(made.get("node"), made.get("probe"), args)


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same tensors, expected outputs from the reference."""
    z = args.get("x_zero_point")
    sets = [(_from_bits(args["x"], args["x_type"]), _from_bits(args["x_scale"], args["scale_type"]),
             None if z is None else _from_bits(z, args["x_type"]))]
    return hunt_example(Spec(int(args["opset"]), args["x_type"], args["scale_type"], sets, zero_point=z is not None,
                             axis=args.get("axis"), block_size=int(args.get("block_size") or 0),
                             output_dtype=args.get("output_dtype"), flags=("hunt",)))


def hunt(max_opset: int):
    """The hunt strategy (generator/hunting.py): one slice per x type the installed versions up to max_opset
    list, each drawing Examples of one small model (hunt_spec, hunt_example). None below opset 10."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    def slice_of(t: str):
        @st.composite
        def examples(draw):
            return hunt_example(hunt_spec(draw, t, max_opset))
        return examples()

    return {t: slice_of(t) for t, v in ref._T1_SINCE.items() if v <= max_opset}
