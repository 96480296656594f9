"""The QuantizeLinear family (ONNX QuantizeLinear-10..28): y = saturate(round(x / y_scale) + y_zero_point).

Each case is one function of the catalogue below, named for what it checks (test_quantizelinear_<name>): one
model (x, y_scale and y_zero_point as graph inputs, the zero point left out where the name says so), its
data sets, expected outputs from generator.reference.quantize_linear only. generator.family.split sends the
elements the texts leave open to <name>_probe. Semantics that changed between versions are checked at an
opset where each holds, and case.json names it (opset, params.version):
  opset 10      per-tensor int8 / uint8, float32 or int32 x, the schema's example
  opset 13      per-axis (axis 1, 0, negative); negative and subnormal scales; a 0-d x
  opset 19      float16 / bfloat16 x (y_scale of x's type), float8 outputs with saturate on / off
  opset 21      int16 / uint16 / int4 / uint4, blocked quantization, output_dtype with and without a zero point
  opset 23      y_scale of its own type: the division in float16 / bfloat16, the precision attribute, float4e2m1
                (output_dtype too)
  opset 24      float8e8m0 y_scale, and the MX layout (float4e2m1 in blocks of 32 over float8e8m0 scales);
                Inf -> FNUZ types with saturate=1 is +-FLT_MAX (Cast-24), NaN before
  opset 25      int2 / uint2 (output_dtype too); every output type again at the newest opset onnxruntime runs, and
                the float8 types with saturate=0
  opset 28      float6e2m3 / float6e3m2 (saturate has no effect)
  negative/     models the schema rules out (mismatched scale / zero point shapes, ranks or types, an axis out of
                range, output_dtype against the zero point, a block_size that does not fit, types and attributes
                a version lacks), each citing the rule's sentence
  witness_*     the fault models' witnesses (reference/quantize_linear_faults.py) from the committed catalogue
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Iterator

import numpy as np

from generator import axes, dtypes, sampling, witness
from generator.case import Case, node_model
from generator.family import Catalogue, Family, split, split_elements
from generator.outcome import Outcome
from generator.reference import quantize_linear as ref
from generator.reference.quant_axes import expand

FAMILY = Family("quantize_linear", "QuantizeLinear", ref.SPEC_FILE)
PROFILES = {"quick": dict(random=0), "default": dict(random=2), "exhaustive": dict(random=16)}
CATALOGUE = Catalogue(FAMILY.prefix + "_")
GRID = ("y", "version", ())  # the report's grid: output type x QuantizeLinear version, worst verdict per cell
MIN_OPSET = 10  # QuantizeLinear-10, the first version
NEWEST_RUNNABLE = 25  # the newest opset onnxruntime 1.31+ runs (IR 13 / opset <= 26; 26 changes nothing here)

F32 = np.float32
COMPARE_INT = {"mode": "exact", "reason": "one result per input: the division's precision, ties to even, saturation",
               "tolerant": {"mode": "abs", "abs": 1,
                            "reason": "y within 1: implementations that divide or round otherwise"}}
COMPARE_FLOAT = {"mode": "exact", "reason": "float outputs: Cast's correctly rounded conversion; any NaN matches NaN"}

CLAUSE_FORMULA = "y = saturate((x / y_scale) + y_zero_point); For (x / y_scale), it rounds to the nearest even"
CLAUSE_AXIS = ("per-axis: a 1-D tensor with the length of the quantization axis; axis: Negative value means "
               "counting dimensions from the back")
CLAUSE_BLOCKED = ("Blocked quantization: y_scale shape is (D0, ..., ceil(Di/B), ..., Dn); block_size: the number of "
                  "times every scale is replicated")
CLAUSE_FLOAT8 = "saturate: how the conversion behaves out of range (float 8 only); the two tables of Cast"
CLAUSE_OUTPUT_DTYPE = ("output_dtype: If not supplied, the output data type is inferred from y_zero_point; if neither, "
                       "uint8; if both, output_dtype must be T3")
READING_SCALAR_SCALE_10 = ("QuantizeLinear-10's y_scale \"It's a scalar, which means a per-tensor/layer "
                           "quantization\" is read as a rule a model must keep, so a 1-D y_scale is refused before "
                           "opset 13; onnx.checker does not check it")
CLAUSE_PRECISION = ("The type of y_scale determines the precision of the division operation between x and y_scale, "
                    "unless the precision attribute is specified")


@dataclass
class Spec:
    """One case: the node and its data sets (x, y_scale, y_zero_point or None)."""
    opset: int
    sets: list[tuple]
    x_type: str = "float"
    scale_type: str = "float"
    zp_type: str | None = "uint8"  # None: no zero point input
    attrs: dict = field(default_factory=dict)
    clause: str = CLAUSE_FORMULA
    flags: tuple = ("edge",)
    negative: str = ""  # the rule the model breaks (negative/)
    reading: str | None = None  # a negative case's refusal that rests on a reading (docs/readings.md)
    phase: str = "prepare"

    @property
    def out(self) -> dtypes.DType:
        if self.attrs.get("output_dtype"):
            return dtypes.get(int(self.attrs["output_dtype"]))
        return dtypes.get(self.zp_type or "uint8")


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------
def _arr(values, t: str) -> np.ndarray:
    d = dtypes.get(t)
    with np.errstate(all="ignore"):
        if d.is_float:
            return np.asarray(values, dtype=np.float64).astype(d.np_dtype)
        return np.asarray(values).astype(np.int64).astype(d.np_dtype)


def _js(lo: int, hi: int) -> np.ndarray:
    """Quotients j to put ties j + 0.5 at: every one of [lo - 2, hi + 2] for ranges up to 300 wide, else both
    ends, around zero and 40 spread between."""
    if hi - lo <= 300:
        return np.arange(lo - 2, hi + 3)
    return np.unique(np.concatenate([np.arange(lo - 3, lo + 5), np.arange(hi - 4, hi + 4), np.arange(-6, 7),
                                     np.linspace(lo, hi, 40).round().astype(int)]))


def int_values(out: dtypes.DType, zp: int, scale: float) -> np.ndarray:
    """x (float64, exact in float32 for a power-of-two scale) whose quotients x / scale are ties j + 0.5 and
    integers around the whole range of y - zp, both ends beyond it, zero, -0 and far beyond."""
    j = _js(out.int_min - zp, out.int_max - zp)
    big = [3e38, -3e38, 1e10, -1e10, 1e5, -1e5]
    return np.concatenate([(j + 0.5) * scale, j * scale, (j + 0.25) * scale, [0.0, -0.0], big])


def float_values(out: dtypes.DType, scale: float) -> np.ndarray:
    """x / scale on every finite value of a float output, every midpoint between neighbours (ties to even),
    just beyond the largest (rounding back to it, or out of range), +-Inf and NaN."""
    vals = sampling.distinct(out.all_values())  # +0 here, -0 below: np.unique's zero depends on the CPU
    vals = vals[np.isfinite(vals)]
    mids = (vals[1:] + vals[:-1]) / 2
    fmax = out.finite_max
    top = fmax + (fmax - vals[-2]) / 2  # the rounding boundary above the largest value
    beyond = [fmax * 1.01, top, top * 1.01, fmax * 4, 1e30]
    return np.concatenate([vals, mids, beyond, [-b for b in beyond], [np.inf, -np.inf, np.nan, -0.0]]) * scale


def _pad(sets: list[tuple]) -> list[tuple]:
    """Data sets of one x length: each x repeated cyclically to the longest."""
    n = max(s[0].size for s in sets)
    return [(np.resize(s[0], n), *s[1:]) for s in sets]


def _per_tensor(x_type: str, scale_type: str, zp_type: str | None, pairs: list[tuple[float, float]],
                values: Callable[[float, int], np.ndarray]) -> list[tuple]:
    """One data set per (scale, zero point): x = values(scale, zp) in x's type."""
    return _pad([(_arr(values(s, z), x_type), _arr(s, scale_type),
                  None if zp_type is None else _arr(z, zp_type)) for s, z in pairs])


def _int_sets(out: str, x_type: str = "float", scale_type: str = "float", zp: bool = True,
              scales=(1.0, 0.5, 4.0)) -> list[tuple]:
    o = dtypes.get(out)
    zps = [0, o.int_min, o.int_max, (o.int_min + o.int_max + 1) // 2 + 1] if zp else [0]
    pairs = [(s, z) for s in scales for z in zps][:6]
    return _per_tensor(x_type, scale_type, out if zp else None, pairs, lambda s, z: int_values(o, z, s))


def _float_sets(out: str, x_type: str = "float", scale_type: str = "float", zp: bool = True) -> list[tuple]:
    o = dtypes.get(out)
    return _per_tensor(x_type, scale_type, out if zp else None, [(1.0, 0.0), (0.25, 0.0), (4.0, 0.0)],
                       lambda s, z: float_values(o, s))


# ---------------------------------------------------------------------------------------------
# the catalogue: each function returns the Spec(s) of the case it names
# ---------------------------------------------------------------------------------------------
@CATALOGUE
def example_opset10():
    """The schema's own example (QuantizeLinear-10)."""
    x = _arr([0, 2, 3, 1000, -254, -1000], "float")
    return Spec(10, [(x, _arr(2, "float"), _arr(128, "uint8"))])


@CATALOGUE
def uint8_ties_saturation_opset10():
    return Spec(10, _int_sets("uint8"))


@CATALOGUE
def int8_ties_saturation_opset10():
    return Spec(10, _int_sets("int8", zp=True), zp_type="int8")


@CATALOGUE
def int32_x_opset10():
    """int32 x (T1): the division in float32 (y_scale's type); beyond 2**24 x is rounded first (probe where it
    matters)."""
    x = np.concatenate([np.arange(-300, 301, 3), [2**24 + 1, 2**24 + 3, -(2**31), 2**31 - 1, 2**25 + 7]])
    return Spec(10, [(_arr(x, "int32"), _arr(s, "float"), _arr(z, "uint8")) for s, z in ((2.0, 128), (0.3, 7))],
                x_type="int32")


@CATALOGUE
def default_zero_point_opset10():
    """No y_zero_point: uint8 with zero point 0 ('Default value is uint8 typed 0')."""
    return Spec(10, _int_sets("uint8", zp=False), zp_type=None)


def _axis_sets(shape, axis: int, out: str = "uint8", block: int = 0) -> list[tuple]:
    """x of `shape` with a scale / zero point per axis entry (or per block): scales 2**k and 0.3-ish, zero points
    spread; x covers ties and both ends for each."""
    o = dtypes.get(out)
    rank = len(shape)
    a = axis % rank
    n = shape[a] if not block else -(-shape[a] // block)
    pshape = (n,) if not block else tuple(n if i == a else d for i, d in enumerate(shape))
    rng = sampling.Stream(sampling.case_seed(0, f"axis{shape}{axis}{out}{block}"))
    sets = []
    for k in range(3):
        scales = np.array([[0.5, 2.0, 0.25, 1.0, 0.3, 3.0][(i + k) % 6] for i in range(int(np.prod(pshape)))])
        zps = np.array([[0, o.int_max, o.int_min, (o.int_min + o.int_max) // 2][(i + k) % 4]
                        for i in range(int(np.prod(pshape)))])
        scales, zps = scales.reshape(pshape), zps.reshape(pshape)
        j = rng.integers(o.int_min - 3, o.int_max + 3, int(np.prod(shape)))
        half = rng.integers(0, 2, int(np.prod(shape)))
        s_full = expand(scales, shape, axis, block)
        x = (j.reshape(shape) + 0.5 * half.reshape(shape)) * s_full
        sets.append((_arr(x, "float"), _arr(scales, "float"), _arr(zps, out)))
    return sets


@CATALOGUE
def per_axis_default_axis_opset13():
    return Spec(13, _axis_sets((2, 3, 4), 1), clause=CLAUSE_AXIS)


@CATALOGUE
def per_axis_axis0_opset13():
    return Spec(13, _axis_sets((3, 4), 0, "int8"), zp_type="int8", attrs={"axis": 0}, clause=CLAUSE_AXIS)


@CATALOGUE
def per_axis_negative_axis_opset13():
    """axis -1 of a (2, 5, 5) x: an implementation that reads the scales along axis 1 runs, and differs."""
    return Spec(13, _axis_sets((2, 5, 5), -1), attrs={"axis": -1}, clause=CLAUSE_AXIS)


@CATALOGUE
def per_axis_negative_axis_first_opset13():
    return Spec(13, _axis_sets((4, 3, 2), -3, "int8"), zp_type="int8", attrs={"axis": -3}, clause=CLAUSE_AXIS)


@CATALOGUE
def scale_negative_opset13():
    """A negative y_scale: the formula divides by it (no text excludes it); ties and both ends."""
    return Spec(13, _per_tensor("float", "float", "int8", [(-1.0, 0), (-0.5, 3), (-3.0, -7)],
                                lambda s, z: int_values(dtypes.get("int8"), z, s)), zp_type="int8")


@CATALOGUE
def scale_subnormal_opset13():
    """Subnormal float32 scales (IEEE gradual underflow; an implementation that flushes them to zero divides by 0):
    x a few subnormal steps, quotients inside the range and ties."""
    tiny = float(np.finfo(F32).smallest_subnormal)
    sets = [(_arr(np.array([0, 1, 2, 3, 5, 64, 127, 128, 250, -1, -3]) * s * 0.5, "float"), _arr(s, "float"),
             _arr(3, "uint8")) for s in (tiny * 2, tiny * 8, tiny * 1000, float(np.finfo(F32).tiny) / 2)]
    return Spec(13, sets)


@CATALOGUE
def scalar_x_opset13():
    """A 0-d x (per-tensor): ties and saturation, one element per data set."""
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, 300.0, -300.0, 127.5, 254.5]
    return Spec(13, [(_arr(v, "float").reshape(()), _arr(1.0, "float"), _arr(z, "uint8")) for v in vals
                     for z in (0, 1)])


@CATALOGUE
def float16_x_opset19():
    """x and y_scale float16 (T1): the division in float16."""
    return Spec(19, _int_sets("uint8", "float16", "float16", scales=(1.0, 0.5, 3.0)), x_type="float16",
                scale_type="float16", clause=CLAUSE_FORMULA + "; T1: float16")


@CATALOGUE
def bfloat16_x_opset19():
    return Spec(19, _int_sets("int8", "bfloat16", "bfloat16", scales=(1.0, 0.5, 3.0)), x_type="bfloat16",
                scale_type="bfloat16", zp_type="int8", clause=CLAUSE_FORMULA + "; T1: bfloat16")


def _float8(t: str, saturate: int, opset: int) -> Spec:
    return Spec(opset, _float_sets(t), zp_type=t, attrs={"saturate": saturate}, clause=CLAUSE_FLOAT8)


for _t in dtypes.FLOAT8_SATURATE_TYPES:
    for _sat in (1, 0):
        CATALOGUE.add(f"{_t}_{'saturate' if _sat else 'nosaturate'}_opset19", partial(_float8, _t, _sat, 19))
for _t in dtypes.FLOAT8_SATURATE_TYPES:  # saturate=0 again at the newest runnable opset (the _newest cases: 1)
    CATALOGUE.add(f"{_t}_nosaturate_opset{NEWEST_RUNNABLE}", partial(_float8, _t, 0, NEWEST_RUNNABLE))


def _fnuz_inf(t: str, opset: int) -> Spec:
    """+-Inf and overflowing x with saturate=1: NaN for the FNUZ types before opset 24, +-FLT_MAX from it."""
    x = _arr([np.inf, -np.inf, 1e30, -1e30, 1.0, -2.0], "float")
    return Spec(opset, [(x, _arr(1.0, "float"), _arr(0.0, t))], zp_type=t, attrs={"saturate": 1}, clause=CLAUSE_FLOAT8)


for _t in ("float8e4m3fnuz", "float8e5m2fnuz"):
    for _op in (23, 24):
        CATALOGUE.add(f"{_t}_inf_saturate_opset{_op}", partial(_fnuz_inf, _t, _op))


@CATALOGUE
def float8_zero_point_added_opset19():
    """A non-zero float8 zero point is added ('the quantization formula remains the same')."""
    x = _arr(np.arange(-16, 17) * 0.75, "float")
    return Spec(19, [(x, _arr(0.5, "float"), _arr(z, "float8e4m3fn")) for z in (1.0, -3.0, 0.5)],
                zp_type="float8e4m3fn")


def _int_type(t: str, opset: int) -> Spec:
    """Ties over the whole range and saturation at both ends of an integer output type."""
    return Spec(opset, _int_sets(t), zp_type=t)


for _t, _op in (("int16", 21), ("uint16", 21), ("int4", 21), ("uint4", 21), ("int2", 25), ("uint2", 25)):
    CATALOGUE.add(f"{_t}_ties_saturation_opset{_op}", partial(_int_type, _t, _op))


@CATALOGUE
def blocked_axis1_short_last_block_opset21():
    return Spec(21, _axis_sets((2, 7), 1, "uint8", block=3), attrs={"axis": 1, "block_size": 3},
                clause=CLAUSE_BLOCKED)


@CATALOGUE
def blocked_axis0_opset21():
    return Spec(21, _axis_sets((6, 3), 0, "int8", block=2), zp_type="int8", attrs={"axis": 0, "block_size": 2},
                clause=CLAUSE_BLOCKED)


@CATALOGUE
def blocked_negative_axis_int4_opset21():
    return Spec(21, _axis_sets((2, 3, 5), -1, "int4", block=2), zp_type="int4", attrs={"axis": -1, "block_size": 2},
                clause=CLAUSE_BLOCKED)


@CATALOGUE
def blocked_block_larger_than_needed_opset21():
    """block_size 4 over 9 columns with 3 scales: ceil(9/3) = 3 <= 4 <= ceil(9/2) - 1 = 4."""
    return Spec(21, _axis_sets((2, 9), 1, "uint8", block=4), attrs={"axis": 1, "block_size": 4},
                clause=CLAUSE_BLOCKED)


def _output_dtype(t: str, opset: int, with_zp: bool) -> Spec:
    o = dtypes.get(t)
    sets = _float_sets(t, zp=with_zp) if o.is_float else _int_sets(t, zp=with_zp)
    return Spec(opset, sets, zp_type=t if with_zp else None, attrs={"output_dtype": o.onnx}, clause=CLAUSE_OUTPUT_DTYPE)


for _t, _op in (("int8", 21), ("int16", 21), ("uint4", 21), ("float8e4m3fn", 21), ("float4e2m1", 23), ("int2", 25)):
    for _with in (False, True):
        CATALOGUE.add(f"output_dtype_{_t}_{'with' if _with else 'without'}_zero_point_opset{_op}",
                      partial(_output_dtype, _t, _op, _with))


@CATALOGUE
def no_zero_point_no_output_dtype_opset21():
    """Neither y_zero_point nor output_dtype: uint8."""
    return Spec(21, _int_sets("uint8", zp=False), zp_type=None, clause=CLAUSE_OUTPUT_DTYPE)


def _precision_pairs(p: str, count: int) -> tuple[np.ndarray, float]:
    """float32 x exact in P whose quotient by a P scale rounds to a tie j + 0.5 in P but not in float32 (the
    division's precision decides the integer; |j| < 120, so a zero point of 128 keeps y inside uint8), with the
    scale."""
    pd = dtypes.get(p)
    with np.errstate(invalid="ignore"):
        vals = pd.all_values().astype(np.float64)
    vals = np.unique(vals[np.isfinite(vals) & (vals > 0)])
    for s in (3.0, 7.0, 5.0, 11.0, 0.3):
        s_p = float(_arr(s, p).astype(np.float64))
        xs = vals[vals < 120 * s_p]
        q_p = ref.divide(xs, np.full(xs.shape, s_p), pd)
        q_32 = ref.divide(xs, np.full(xs.shape, s_p), dtypes.get("float"))
        hit = xs[np.rint(q_p) != np.rint(q_32)]
        if hit.size >= count:
            return hit[np.linspace(0, hit.size - 1, count).astype(int)], s_p
    raise ValueError(f"no precision witnesses for {p}")


def _precision_spec(p: str, scale_type: str, precision: str | None) -> Spec:
    x, s = _precision_pairs(p, 24)
    x = np.concatenate([x, -x, [0.0, 1.0, -1.0, 100.0]])
    attrs = {"precision": dtypes.get(precision).onnx} if precision else {}
    return Spec(23, [(_arr(x, "float"), _arr(s, scale_type), _arr(128, "uint8"))], scale_type=scale_type, attrs=attrs,
                clause=CLAUSE_PRECISION)


@CATALOGUE
def scale_float16_divides_in_float16_opset23():
    return _precision_spec("float16", "float16", None)


@CATALOGUE
def scale_bfloat16_divides_in_bfloat16_opset23():
    return _precision_spec("bfloat16", "bfloat16", None)


@CATALOGUE
def precision_float16_with_float32_scale_opset23():
    return _precision_spec("float16", "float", "float16")


@CATALOGUE
def precision_float32_with_float16_scale_opset23():
    """The same x over a float16 scale, divided in float32 as `precision` says."""
    x, s = _precision_pairs("float16", 24)
    return Spec(23, [(_arr(np.concatenate([x, -x]), "float"), _arr(s, "float16"), _arr(128, "uint8"))],
                scale_type="float16", attrs={"precision": dtypes.get("float").onnx}, clause=CLAUSE_PRECISION)


@CATALOGUE
def x_float32_scale_float16_operands_opset23():
    """float32 x not exact in float16 over a float16 scale: the division in float16; elements where rounding x
    first or the quotient once differ go to the probe."""
    x = np.arange(2040, 2100) + 0.25
    return Spec(23, [(_arr(x, "float"), _arr(3.0, "float16"), _arr(0, "uint16"))], scale_type="float16",
                zp_type="uint16", clause=CLAUSE_PRECISION)


@CATALOGUE
def x_int32_scale_float32_opset23():
    """int32 x over a float32 y_scale (T1 and T2 apart from 23): the division in float32."""
    x = np.concatenate([np.arange(-300, 301, 3), [2**24 + 1, 2**24 + 3, -(2**31), 2**31 - 1, 2**25 + 7]])
    return Spec(23, [(_arr(x, "int32"), _arr(s, "float"), _arr(z, "uint8")) for s, z in ((2.0, 128), (0.3, 7))],
                x_type="int32", clause=CLAUSE_PRECISION)


@CATALOGUE
def x_float16_scale_float32_opset23():
    """float16 x over a float32 y_scale: the division in float32, x exact in it."""
    return Spec(23, _int_sets("int8", "float16", "float", scales=(0.3, 3.0)), x_type="float16", zp_type="int8",
                clause=CLAUSE_PRECISION)


@CATALOGUE
def float4e2m1_opset23():
    return Spec(23, _float_sets("float4e2m1"), zp_type="float4e2m1",
                clause=CLAUSE_FLOAT8 + "; float4 note: RNE, saturating")


@CATALOGUE
def scale_float8e8m0_precision_float32_opset24():
    """A power-of-two float8e8m0 scale divided in float32 (precision)."""
    o = dtypes.get("uint8")
    sets = [(_arr(int_values(o, 128, s), "float"), _arr(s, "float8e8m0"), _arr(128, "uint8"))
            for s in (1.0, 0.25, 8.0)]
    return Spec(24, _pad(sets), scale_type="float8e8m0", attrs={"precision": dtypes.get("float").onnx},
                clause=CLAUSE_PRECISION)


@CATALOGUE
def scale_float8e8m0_division_opset24():
    """Without precision, the division 'in float8e8m0' (probe)."""
    return Spec(24, [(_arr([1.0, 2.5, -3.0, 100.0], "float"), _arr(2.0, "float8e8m0"), _arr(0, "uint8"))],
                scale_type="float8e8m0", clause=CLAUSE_PRECISION, flags=("probe",))


@CATALOGUE
def blocked_float4e2m1_float8e8m0_scales_block32_opset24():
    """The MX layout: float4e2m1 y in blocks of 32 along the last axis, one power-of-two float8e8m0 scale per block
    (T2 from 24), no zero point (output_dtype), the division in float32 (precision). Each block holds x / scale on
    every float4e2m1 value, every midpoint (ties to even) and beyond 6 (saturating); four different scales per
    data set, so a scale read from another block or axis changes y."""
    o = dtypes.get("float4e2m1")
    vals = np.unique(o.all_values().astype(np.float64))
    vals = vals[np.isfinite(vals) & (vals != 0)]  # +-0.5 .. +-6; a -0 quotient is open (the zero point's sum)
    pos = np.concatenate([[0.0], vals[vals > 0]])
    mids = (pos[1:] + pos[:-1]) / 2  # 0.25 .. 5
    q = np.concatenate([[0.0], vals, mids, -mids, [7.0, -7.0, 100.0]])  # 32 quotients a block
    assert q.size == 32
    sets = []
    for exps in ((-4, 0, 3, 10), (5, -8, 0, -1)):
        scales = np.ldexp(1.0, np.array(exps)).reshape(2, 2)
        x = np.stack([np.concatenate([q * s for s in row]) for row in scales])
        sets.append((_arr(x, "float"), _arr(scales, "float8e8m0"), None))
    return Spec(24, sets, scale_type="float8e8m0", zp_type=None,
                attrs={"axis": -1, "block_size": 32, "output_dtype": o.onnx, "precision": dtypes.get("float").onnx},
                clause=CLAUSE_BLOCKED + "; T2 (24): float8e8m0; " + CLAUSE_PRECISION)


def _float6(t: str, saturate: int) -> Spec:
    return Spec(28, _float_sets(t), zp_type=t, attrs={"saturate": saturate},
                clause="saturate has no effect for float4e2m1, float6e2m3, or float6e3m2")


for _t in ("float6e2m3", "float6e3m2"):
    for _sat in (1, 0):
        CATALOGUE.add(f"{_t}_{'saturate' if _sat else 'nosaturate'}_opset28", partial(_float6, _t, _sat))


def _newest(t: str) -> Spec:
    """Every output type again at the newest opset onnxruntime runs."""
    if dtypes.get(t).is_float:
        return Spec(NEWEST_RUNNABLE, _float_sets(t), zp_type=t, clause=CLAUSE_FLOAT8)
    return Spec(NEWEST_RUNNABLE, _int_sets(t, scales=(0.5, 3.0)), zp_type=t)


for _t in ref.output_types(NEWEST_RUNNABLE):
    CATALOGUE.add(f"{_t}_opset{NEWEST_RUNNABLE}", partial(_newest, _t))


# ---------------------------------------------------------------------------------------------
# the axes of generation (generator/axes.py): explicit defaults, vector tails, NaN payloads, opset boundaries
# ---------------------------------------------------------------------------------------------
def _defaults(opset: int, attrs: dict | None = None) -> dict:
    """Every attribute the version has, the schema's default where `attrs` leaves it out."""
    return dict(axes.attribute_defaults(FAMILY.op, opset), **(attrs or {}))


def _explicit_per_axis(opset: int) -> Spec:
    """axis=1 written (with every other default): a per-axis x of (2, 3, 4) whose axis 0 is another length."""
    return Spec(opset, _axis_sets((2, 3, 4), 1)[:1], attrs=_defaults(opset),
                clause=CLAUSE_AXIS + "; explicit defaults")


def _explicit_float8(opset: int) -> Spec:
    """saturate=1 written (with every other default): values beyond float8e4m3fn's range saturate."""
    return Spec(opset, _float_sets("float8e4m3fn")[:1], zp_type="float8e4m3fn", attrs=_defaults(opset),
                clause=CLAUSE_FLOAT8 + "; explicit defaults")


for _op in (13, 19, 21, 23, 24, 25, 28):
    CATALOGUE.add(f"explicit_defaults_per_axis_opset{_op}", partial(_explicit_per_axis, _op))
for _op in (19, 21, 23, 24, 25, 28):
    CATALOGUE.add(f"explicit_defaults_float8e4m3fn_opset{_op}", partial(_explicit_float8, _op))


def _tail(out: str, opset: int, filler, decisive, zp, short: bool = False) -> Spec:
    """The vector-tail axis: per-tensor x of every length of axes.tail_lengths, the decisive elements (a tie, a
    value that saturates) last, in the partial last vector; one model with a symbolic length."""
    lengths = axes.tail_lengths(short=short, limit=257)  # 1023 / 1025 add bytes, not remainders
    xs = axes.tail_datasets(_arr(filler, "float"), _arr(decisive, "float"), lengths)
    return Spec(opset, [(x, _arr(0.5, "float"), _arr(zp, out)) for x in xs], zp_type=out,
                attrs={"saturate": 1} if out in dtypes.FLOAT8_SATURATE_TYPES else {},
                flags=("edge", "vector_tail"))


CATALOGUE.add("vector_tail_uint8_tie_opset10", partial(_tail, "uint8", 10, [1.0, 2.0, -3.0], [1.25, 300.0, 1.25], 128))
CATALOGUE.add("vector_tail_int8_saturate_opset13", partial(_tail, "int8", 13, [1.0, -2.0, 3.0], [0.75, -1000.0], 1,
                                                          short=True))
CATALOGUE.add("vector_tail_int4_tie_opset21", partial(_tail, "int4", 21, [1.0, -2.0, 0.5], [-0.25, 100.0], -1,
                                                     short=True))
CATALOGUE.add("vector_tail_float8e4m3fn_saturate_opset19", partial(_tail, "float8e4m3fn", 19, [1.0, -2.0, 0.5],
                                                                  [0.5625, 1e4], 0.0, short=True))


@CATALOGUE
def vector_tail_blocked_int4_block32_opset21():
    """Blocked along the last axis, blocks of 32, x (2, n) for every short tail length: the short last block's
    scale and a tie in its last element."""
    sets = []
    for n in axes.tail_lengths(short=True):
        m = -(-n // 32)
        scales = np.array([[2.0 ** -(j % 4) for j in range(m)], [2.0 ** (j % 3) for j in range(m)]])
        q = axes.with_tail(np.array([1.0, -2.0, 3.0]), [2.5], n)
        x = np.stack([q * np.repeat(row, 32)[:n] for row in scales])
        sets.append((_arr(x, "float"), _arr(scales, "float"), _arr(np.zeros((2, m)), "int4")))
    return Spec(21, sets, zp_type="int4", attrs={"axis": -1, "block_size": 32}, clause=CLAUSE_BLOCKED,
                flags=("edge", "vector_tail"))


@CATALOGUE
def vector_tail_per_axis_opset13():
    """Per-axis along the last axis of x (2, n): the last channel's scale and zero point in the tail."""
    sets = []
    for n in axes.tail_lengths(short=True):
        scales = np.array([[0.5, 2.0, 0.25][j % 3] for j in range(n)])
        zps = np.array([(7 * j) % 256 for j in range(n)])
        x = np.stack([np.full(n, 2.5), np.full(n, -1.5)]) * scales
        sets.append((_arr(x, "float"), _arr(scales, "float"), _arr(zps, "uint8")))
    return Spec(13, sets, attrs={"axis": 1}, clause=CLAUSE_AXIS, flags=("edge", "vector_tail"))


def _nan_payload(out: str, x_type: str, opset: int, scale_type: str | None = None) -> Spec:
    """Every NaN encoding of x's type (axes.nan_values: quiet, signalling, low and high payloads, both signs),
    built from bits: NaN for a float8 output (Cast's tables), open (probe) for an integer one."""
    _, nans = axes.nan_values(x_type)
    x = np.concatenate([nans, _arr([1.0, -2.0], x_type)]).astype(nans.dtype)
    s_t = scale_type or (x_type if 19 <= opset < 23 else "float")
    return Spec(opset, [(x, _arr(1.0, s_t), _arr(0, out))], x_type=x_type, scale_type=s_t, zp_type=out,
                attrs={"saturate": 1} if out in dtypes.FLOAT8_SATURATE_TYPES else {},
                flags=("edge", "nan_payload"))


for _t in dtypes.FLOAT8_SATURATE_TYPES:
    CATALOGUE.add(f"nan_payload_float32_to_{_t}_opset19", partial(_nan_payload, _t, "float", 19))
for _x in ("float16", "bfloat16"):
    CATALOGUE.add(f"nan_payload_{_x}_to_float8e4m3fn_opset19", partial(_nan_payload, "float8e4m3fn", _x, 19))
CATALOGUE.add("nan_payload_float32_to_uint8_opset13", partial(_nan_payload, "uint8", "float", 13))


# the opset-boundary axis: what each version added, one opset after it (the rule still in force) and one before
# it (refused); FNUZ +-Inf with saturate=1 (Cast-24's row) at 25 beside the 23 / 24 cases above
CATALOGUE.add("per_axis_opset14", lambda: Spec(14, _axis_sets((2, 3, 4), 1), clause=CLAUSE_AXIS,
                                              flags=("edge", "boundary")))
CATALOGUE.add("float8e4m3fn_saturate_opset20", lambda: Spec(20, _float_sets("float8e4m3fn"), zp_type="float8e4m3fn",
                                                           attrs={"saturate": 1}, clause=CLAUSE_FLOAT8,
                                                           flags=("edge", "boundary")))
CATALOGUE.add("blocked_int4_opset22", lambda: Spec(22, _axis_sets((2, 6), 1, "int4", block=2), zp_type="int4",
                                                  attrs={"axis": 1, "block_size": 2}, clause=CLAUSE_BLOCKED,
                                                  flags=("edge", "boundary")))
CATALOGUE.add("float4e2m1_opset24", lambda: Spec(24, _float_sets("float4e2m1"), zp_type="float4e2m1",
                                                clause=CLAUSE_FLOAT8, flags=("edge", "boundary")))
for _t in ("float8e4m3fnuz", "float8e5m2fnuz"):
    CATALOGUE.add(f"{_t}_inf_saturate_opset25", partial(_fnuz_inf, _t, 25))
CATALOGUE.add("int2_ties_saturation_opset26", lambda: Spec(26, _int_sets("int2"), zp_type="int2",
                                                          flags=("edge", "boundary")))


@CATALOGUE
def undefined_opset13():
    """NaN / Inf x to an integer type, a zero / infinite / NaN scale (probe)."""
    x = _arr([np.nan, np.inf, -np.inf, 1.0, 0.0, -1.0], "float")
    return Spec(13, [(x, _arr(s, "float"), _arr(3, "uint8")) for s in (1.0, 0.0, np.inf, np.nan)], flags=("probe",))


@CATALOGUE
def int32_scale_opset19():
    """int32 x with an int32 scale (T1 at opset 19): a division 'in int32' (probe)."""
    return Spec(19, [(_arr([7, -7, 5, 300, -300, 1], "int32"), _arr(2, "int32"), _arr(0, "int8"))], x_type="int32",
                scale_type="int32", zp_type="int8", flags=("probe",))


# --- negatives: the model must be refused -----------------------------------------------------
# a type rule is the graph's (refused at prepare); a shape rule may be checked when the shapes are seen: "run" is
# either phase (runners/execute.py)
SHAPE_PHASE = "run"


def _neg(opset, x, s, z, why, attrs=None, x_type="float", scale_type="float", zp_type="uint8", phase="prepare",
         clause=CLAUSE_FORMULA, flags=("negative",), reading=None):
    return Spec(opset, [(_arr(x, x_type), _arr(s, scale_type), None if z is None else _arr(z, zp_type))],
                x_type=x_type, scale_type=scale_type, zp_type=zp_type if z is not None else None, attrs=attrs or {},
                negative=why, phase=phase, flags=flags, clause=clause, reading=reading)


def _t3(opset: int) -> str:
    """The clause of the zero point's and y's type constraint at an opset (T2 before 23, T3 from it)."""
    return (f"{'T3' if ref.schema_version(opset) >= 23 else 'T2'} (QuantizeLinear-{ref.schema_version(opset)}): "
            f"{', '.join(ref.output_types(opset))}: The type of the input `y_zero_point` and the output `y`")


@CATALOGUE
def negative_zero_point_shape_differs_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(3), np.zeros(()), "y_zero_point's shape is not y_scale's",
                {"axis": 1}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_per_axis_length_differs_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(2), np.zeros(2), "a per-axis scale of length 2 on an axis of length 3",
                {"axis": 1}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_two_d_scale_opset13():
    return _neg(13, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "a 2-D scale before blocked quantization",
                phase=SHAPE_PHASE)


@CATALOGUE
def negative_scale_not_x_type_opset19():
    return _neg(19, np.ones(4), 1.0, 0, "y_scale float16 for a float32 x (T1 at 19 / 21)", scale_type="float16")


@CATALOGUE
def negative_zero_point_int16_opset19():
    return _neg(19, np.ones(4), 1.0, 0, "an int16 zero point before opset 21", zp_type="int16")


@CATALOGUE
def negative_output_dtype_not_zero_point_type_opset21():
    return _neg(21, np.ones(4), 1.0, 0, "output_dtype int8 with a uint8 zero point",
                {"output_dtype": dtypes.get("int8").onnx})


@CATALOGUE
def negative_block_size_too_small_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 2)), np.zeros((2, 2)), "block_size 2 gives 3 blocks, y_scale has 2",
                {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_block_size_too_large_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 3)), np.zeros((2, 3)), "block_size 3 gives 2 blocks, y_scale has 3",
                {"axis": 1, "block_size": 3}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_block_size_attribute_opset19():
    return _neg(19, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "block_size is no attribute of version 19",
                {"axis": 1, "block_size": 2})


@CATALOGUE
def negative_float4_zero_point_opset21():
    return _neg(21, np.ones(4), 1.0, 0.0, "float4e2m1 outputs start at opset 23", zp_type="float4e2m1")


@CATALOGUE
def negative_axis_out_of_range_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(3), np.zeros(3), "axis 2 of a rank-2 x: accepted range is [-r, r-1]",
                {"axis": 2}, phase=SHAPE_PHASE,
                clause="axis: Negative value means counting dimensions from the back. Accepted range is [-r, r-1] "
                       "where r = rank(input)")


@CATALOGUE
def negative_blocked_zero_point_shape_differs_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 3)), np.zeros((3, 2)),
                "a blocked y_zero_point of shape (3, 2) for a y_scale of shape (2, 3): y_zero_point must have the "
                "same shape as y_scale", {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE,
                clause="In all cases, `y_zero_point` must have the same shape as `y_scale`")


@CATALOGUE
def negative_blocked_scale_rank_differs_opset21():
    return _neg(21, np.ones((2, 6)), np.ones(3), np.zeros(3),
                "a 1-D y_scale with block_size 2 for a rank-2 x: a blocked scale's shape is x's except along axis",
                {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE,
                clause="Blocked quantization: The scale's shape is identical to the input's shape, except for one "
                       "dimension, in which blocking is performed")


@CATALOGUE
def negative_scale_float8e8m0_opset23():
    """The model of scale_float8e8m0_precision_float32_opset24 one opset early: T2 gains float8e8m0 at 24."""
    return _neg(23, np.ones(4), 1.0, 0, "a float8e8m0 y_scale at opset 23 (T2: float, float16, bfloat16, int32)",
                {"precision": dtypes.get("float").onnx}, scale_type="float8e8m0",
                clause=f"T2 (QuantizeLinear-23): {', '.join(ref.scale_types(23))}: The type of the input 'y_scale'")


@CATALOGUE
def negative_int2_zero_point_opset24():
    return _neg(24, np.ones(4), 1.0, 0, "an int2 y_zero_point at opset 24 (T3 gains int2 / uint2 at 25)", zp_type="int2",
                clause=_t3(24))


@CATALOGUE
def negative_precision_attribute_opset21():
    return _neg(21, np.ones(4), 1.0, 0, "precision is no attribute of version 21 (it arrives at 23)",
                {"precision": dtypes.get("float").onnx},
                clause=f"QuantizeLinear-21 attributes: {', '.join(sorted(ref.attributes(21)))} (onnx.checker: "
                       "Unrecognized attribute)")


@CATALOGUE
def negative_zero_point_int32_opset25():
    return _neg(25, np.ones(4), 1.0, 0, "an int32 y_zero_point (T3 has no int32)", zp_type="int32",
                clause=_t3(25))


@CATALOGUE
def negative_per_axis_scale_opset12():
    """A 1-D y_scale one opset before per-axis quantization (QuantizeLinear-10: 'It's a scalar')."""
    return _neg(12, np.ones((2, 3)), np.ones(3), np.zeros(3), "a 1-D y_scale before QuantizeLinear-13",
                phase=SHAPE_PHASE, flags=("negative", "boundary"), reading=READING_SCALAR_SCALE_10)


@CATALOGUE
def negative_float8_zero_point_opset18():
    return _neg(18, np.ones(4), 1.0, 0.0, "a float8e4m3fn y_zero_point one opset before QuantizeLinear-19",
                zp_type="float8e4m3fn", clause=_t3(18), flags=("negative", "boundary"))


@CATALOGUE
def negative_block_size_attribute_opset20():
    return _neg(20, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "block_size is no attribute of version 19 "
                "(opset 20)", {"axis": 1, "block_size": 2}, flags=("negative", "boundary"))


@CATALOGUE
def negative_int4_zero_point_opset20():
    return _neg(20, np.ones(4), 1.0, 0, "an int4 y_zero_point one opset before QuantizeLinear-21", zp_type="int4",
                clause=_t3(20), flags=("negative", "boundary"))


@CATALOGUE
def negative_precision_attribute_opset22():
    return _neg(22, np.ones(4), 1.0, 0, "precision is no attribute of version 21 (opset 22; it arrives at 23)",
                {"precision": dtypes.get("float").onnx}, flags=("negative", "boundary"),
                clause=f"QuantizeLinear-21 attributes: {', '.join(sorted(ref.attributes(22)))}")


@CATALOGUE
def negative_float4_zero_point_opset22():
    return _neg(22, np.ones(4), 1.0, 0.0, "a float4e2m1 y_zero_point one opset before QuantizeLinear-23",
                zp_type="float4e2m1", clause=_t3(22), flags=("negative", "boundary"))


@CATALOGUE
def negative_float6_zero_point_opset27():
    return _neg(27, np.ones(4), 1.0, 0.0, "a float6e2m3 y_zero_point one opset before QuantizeLinear-28",
                zp_type="float6e2m3", clause=_t3(27), flags=("negative", "boundary"))


# ---------------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------------
def _dims(arrays: list, name: str) -> tuple | None:
    """An input's dims where its data sets differ in shape (the vector-tail axis): a symbolic dim (name + index)
    where they differ; None where they agree."""
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) < 2:
        return None
    first = np.shape(arrays[0])
    return tuple(f"{name}{i}" if len({sh[i] for sh in shapes}) > 1 else d for i, d in enumerate(first))


def _model(spec: Spec, inputs: tuple, x_shape: tuple | None = None):
    x, s, z = inputs
    s_shape = _dims([st[1] for st in spec.sets], "m") or s.shape
    x_shape = x_shape or _dims([st[0] for st in spec.sets], "n") or x.shape
    ins = [("x", dtypes.get(spec.x_type), x_shape), ("y_scale", dtypes.get(spec.scale_type), s_shape)]
    if z is not None:
        ins.append(("y_zero_point", dtypes.get(spec.zp_type), s_shape))
    out = spec.out
    return node_model(FAMILY.op, ins, [("y", out, x_shape)], dict(spec.attrs), spec.opset)


def params_of(spec: Spec, name: str) -> dict:
    """What case.json "params" says of a case (the fault groups are made of it)."""
    out = spec.out
    p = dtypes.get(int(spec.attrs["precision"])).name if spec.attrs.get("precision") else spec.scale_type
    return {"what": name, "version": ref.schema_version(spec.opset), "x": spec.x_type, "scale": spec.scale_type,
            "zero_point": spec.zp_type, "y": out.name, "precision": p,
            "saturate": int(spec.attrs.get("saturate", 1)) if out.name in dtypes.FLOAT8_SATURATE_TYPES else None,
            "granularity": _granularity(spec), "attrs": {k: int(v) for k, v in sorted(spec.attrs.items())}}


def _granularity(spec: Spec) -> str:
    x, s, _ = spec.sets[0]
    try:
        return ref.check_shapes(spec.opset, x.shape, s.shape, None, int(spec.attrs.get("axis", 1)),
                                int(spec.attrs.get("block_size", 0)))
    except ValueError:
        return "invalid"


def _explained(spec: Spec) -> Iterator[tuple[Outcome, tuple[str, ...]]]:
    """(Outcome, readings) of each data set (reference.quantize_linear_explained)."""
    for x, s, z in spec.sets:
        yield ref.quantize_linear_explained(x, s, z, x_type=spec.x_type, scale_type=spec.scale_type,
                                            zero_point_type=spec.zp_type if z is not None else None,
                                            opset=spec.opset, axis=int(spec.attrs.get("axis", 1)),
                                            saturate=int(spec.attrs.get("saturate", 1)),
                                            block_size=int(spec.attrs.get("block_size", 0)),
                                            output_dtype=int(spec.attrs.get("output_dtype", 0)),
                                            precision=int(spec.attrs.get("precision", 0)))


def spec_cases(name: str, spec: Spec, seed: int = 0, extra: dict | None = None) -> Iterator[Case]:
    """The node case (and probe) of a Spec, or its negative case."""
    full = f"{FAMILY.prefix}_{name}"
    params = params_of(spec, name)
    if spec.negative:
        inputs = [[v for v in spec.sets[0] if v is not None]]
        yield FAMILY.negative(full, _model(spec, spec.sets[0]), inputs, phase=spec.phase, opset=spec.opset,
                              clause=spec.clause, flags=list(spec.flags), seed=seed, params=params,
                              error=spec.negative, reading=spec.reading)
        return
    results = list(_explained(spec))
    readings = sorted({r for _, rs in results for r in rs})
    compare = COMPARE_FLOAT if spec.out.is_float else COMPARE_INT
    elementwise = spec.sets[0][0].ndim == 1 and spec.sets[0][1].ndim == 0
    datasets, outcomes = [], []
    for (x, sc, z), (outcome, _) in zip(spec.sets, results):
        if not elementwise:  # a data set as a whole: to the probe if any element is undefined
            datasets.append([v for v in (x, sc, z) if v is not None])
            outcomes.append(outcome)
            continue
        # per-tensor 1-D x: the defined elements to the node case, the others to the probe
        xd, kept, xu, reasons = split_elements(x, outcome)
        left = Outcome((outcome.outputs[0][outcome.mask()],), dict.fromkeys(reasons, np.True_))
        for part, part_outcome in ((xd, kept), (xu, left)):
            if part.size:
                datasets.append([v for v in (part, sc, z) if v is not None])
                outcomes.append(part_outcome)
    shape = ("n",) if elementwise else None
    meta = FAMILY.meta(opset=spec.opset, clause=spec.clause, compare=dict(compare), flags=list(spec.flags), seed=seed,
                       params=params, reading="; ".join(readings) or None, **(extra or {}))
    yield from split(full, datasets, outcomes, lambda _: _model(spec, spec.sets[0], shape), meta)


def catalogue_cases(max_opset: int) -> Iterator[Case]:
    for key, fn in CATALOGUE.items():
        spec = fn()
        if spec.opset <= max_opset:
            yield from spec_cases(key.removeprefix(FAMILY.prefix + "_"), spec)


def witness_cases(max_opset: int) -> Iterator[Case]:
    """One node case per (group, configuration) of the committed witness catalogue (generator/witness/
    catalogue/quantize_linear.json), expected outputs from the reference; case.json "witnesses" names the
    faults each data set was built for."""
    groups = witness.load(FAMILY.name)["groups"]
    if not groups:
        return
    from generator.witness import quantize_linear as W

    for key, group in sorted(groups.items()):
        if int(group["params"]["opset"]) > max_opset:
            continue
        for i, (spec, made_for) in enumerate(W.specs_of(group)):
            name = f"witness_{W.slug(key)}_{i}"
            yield from spec_cases(name, spec, extra={"witnesses": made_for})


def random_cases(n: int, seed: int, max_opset: int) -> Iterator[Case]:
    """Seeded random x over random per-axis scales and zero points, for the faults nobody modelled."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    for i in range(n):
        out = ("uint8", "int8", "int16", "uint4")[i % 4]
        opset = 21 if max_opset >= 21 else 13
        if dtypes.get(out).bits != 8 and opset < 21:
            out = "uint8"
        o = dtypes.get(out)
        shape = (3, 16)
        sets = []
        for _ in range(2):
            scale = s.octaves(-6, 6, 3)
            zp = s.integers(o.int_min, o.int_max, 3)
            x = s.uniform(-1.0, 1.0, 48).reshape(shape) * (o.int_max - o.int_min) * scale[:, None]
            sets.append((_arr(x, "float"), _arr(scale, "float"), _arr(zp, out)))
        spec = Spec(opset, sets, zp_type=out, attrs={"axis": 0}, flags=("random",), clause=CLAUSE_AXIS)
        yield from spec_cases(f"per_axis_{out}_{i}_random", spec, seed=int(s.integers(0, 2**31 - 1)))


def work(profile: str = "default", seed: int = 0, max_opset: int = 28) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the witnesses, the random cases."""
    if max_opset < MIN_OPSET:
        return []
    opts = PROFILES[profile]
    units = [lambda: catalogue_cases(max_opset), lambda: witness_cases(max_opset)]
    if opts["random"]:
        units.append(lambda: random_cases(opts["random"], seed, max_opset))
    return units


# ---------------------------------------------------------------------------------------------
# live hunting (generator/hunting.py): one model and one data set per example, drawn toward the fault models'
# boundaries (reference/quantize_linear_faults.py): ties j + 0.5 and their neighbours (rounding, the zero point's
# place, the division's precision, the reciprocal), quotients beyond the output's range (saturation, wrapping,
# int32 overflow), per-axis / blocked scales on every axis (an ignored axis, blocks from the end), float outputs'
# values, midpoints and overflow with saturate on / off (Cast's tables), non-zero float zero points.
# ---------------------------------------------------------------------------------------------
HUNT_SCALES = ("pow2", "simple", "bits", "tiny")
HUNT_ELEMENTS = ("tie", "near_tie", "integer", "beyond", "bits", "special")
_SIMPLE_SCALES = (1.0, 0.5, 3.0, 0.3, 7.0, 0.1, 1.5, 2.0, 0.25, 10.0)


def _hunt_types(draw, v: int) -> tuple[str, str, dict]:
    """(x type, y_scale type, attrs) a version allows, float types only (int32 is a probe at 19+)."""
    from hypothesis import strategies as st

    floats = ("float", "float16", "bfloat16")
    if v < 19:
        return "float", "float", {}
    if v < 23:
        t = draw(st.sampled_from(floats))
        return t, t, {}
    s_t = draw(st.sampled_from(floats))
    x_t = s_t if draw(st.booleans()) else draw(st.sampled_from(floats))  # often one type: fewer open elements
    p = draw(st.sampled_from((None, None, "float", "float16", "bfloat16")))
    return x_t, s_t, ({"precision": dtypes.get(p).onnx} if p else {})


def _hunt_layout(draw, v: int) -> tuple[tuple, tuple, dict]:
    """(x shape, scale shape, attrs): per-tensor 0-d / 1-d, per-axis (13+), blocked (21+)."""
    from hypothesis import strategies as st

    kinds = ["per-tensor"] + (["per-axis"] if v >= 13 else []) + (["blocked"] if v >= 21 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "per-tensor":
        n = draw(st.integers(1, 8))
        return (n,), (), {}
    rank = draw(st.integers(1, 3)) if kind == "per-axis" else draw(st.integers(2, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    axis = draw(st.integers(-rank, rank - 1))
    a = axis % rank
    if kind == "per-axis":
        return shape, (shape[a],), {"axis": axis}
    d = shape[a] + draw(st.integers(0, 3))  # blocked: a longer axis, a block size in the schema's range
    shape = tuple(d if i == a else s for i, s in enumerate(shape))
    block = draw(st.integers(1, d))
    s_a = -(-d // block)
    return shape, tuple(s_a if i == a else s for i, s in enumerate(shape)), {"axis": axis, "block_size": block}


def _hunt_scale(draw, t: str) -> float:
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(HUNT_SCALES))
    d = dtypes.get(t)
    if kind == "pow2":
        v = 2.0 ** draw(st.integers(-8, 8))
    elif kind == "simple":
        v = draw(st.sampled_from(_SIMPLE_SCALES))
    elif kind == "tiny":
        v = draw(st.sampled_from((d.smallest_normal, d.smallest_subnormal, d.smallest_normal * 3)))
    else:
        v = float(np.ldexp(1.0 + draw(st.integers(0, (1 << 23) - 1)) / 2.0**23, draw(st.integers(-10, 10))))
    return float(_arr(v, t).astype(np.float64))


def _hunt_element(draw, out: dtypes.DType, s: float, z: float, x_t: str) -> float:
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(HUNT_ELEMENTS))
    xd = dtypes.get(x_t)
    if out.is_float:
        vals = np.unique(out.all_values().astype(np.float64))
        vals = vals[np.isfinite(vals)]
        i = draw(st.integers(0, vals.size - 2))
        q = {"tie": (vals[i] + vals[i + 1]) / 2, "near_tie": (vals[i] + vals[i + 1]) / 2, "integer": vals[i],
             "beyond": out.finite_max * draw(st.sampled_from((1.03, 1.1, 2.0, 100.0)))}.get(kind, vals[i])
        if kind == "beyond" and draw(st.booleans()):
            q = -q
    else:
        j = draw(st.integers(int(out.int_min - z) - 3, int(out.int_max - z) + 3))
        q = {"tie": j + 0.5, "near_tie": j + 0.5, "integer": float(j), "beyond": draw(st.sampled_from(
            (1e10, -1e10, 3e9, -3e9, float(out.int_max - z) + 40, float(out.int_min - z) - 40)))}.get(kind, j + 0.25)
    if kind == "special":
        return draw(st.sampled_from((0.0, -0.0, np.nan, np.inf, -np.inf, xd.finite_max, -xd.finite_max)))
    if kind == "bits":
        b = draw(st.integers(0, (1 << xd.bits) - 1))
        return float(xd.from_bits(np.array([b], dtype=xd.bits_dtype)).astype(np.float64)[0])
    x = float(_arr(q * s, x_t).astype(np.float64))
    if kind == "near_tie":
        bits = xd.to_bits(_arr([x], x_t)).astype(np.int64) + draw(st.sampled_from((-1, 1, -2, 2)))
        x = float(xd.from_bits(np.clip(bits, 0, (1 << xd.bits) - 1).astype(xd.bits_dtype)).astype(np.float64)[0])
    return x


def _hunt_zero_point(draw, out: dtypes.DType) -> float:
    from hypothesis import strategies as st

    if out.is_float:
        vals = np.unique(out.all_values().astype(np.float64))
        vals = vals[np.isfinite(vals) & (np.abs(vals) <= 8)]
        return 0.0 if draw(st.booleans()) else float(draw(st.sampled_from(vals.tolist())))
    lo, hi = out.int_min, out.int_max
    return float(draw(st.sampled_from((0, 1, lo, hi, lo + 1, hi - 1)) | st.integers(lo, hi)))


def hunt_args(draw, kind: str, max_opset: int) -> dict:
    """One example's args (the witness format of generator/witness/quantize_linear.py, zero point optional)."""
    from hypothesis import strategies as st

    versions = [v for v in ref.VERSIONS if v <= max_opset and (kind == "integer" or v >= 19)]
    v = draw(st.sampled_from(versions))
    outs = [t for t in ref.output_types(v) if dtypes.get(t).is_float == (kind == "float")]
    out = dtypes.get(draw(st.sampled_from(outs)))
    x_t, s_t, attrs = _hunt_types(draw, v)
    shape, s_shape, layout = _hunt_layout(draw, v)
    attrs = dict(attrs, **layout)
    if out.name in dtypes.FLOAT8_SATURATE_TYPES:
        attrs["saturate"] = draw(st.sampled_from((1, 0)))
    # the zero point: required before 21 but for uint8 (the default); from 21 optional, output_dtype then says y
    with_zp = draw(st.booleans()) if (v >= 21 or out.name == "uint8") else True
    if v >= 21 and (not with_zp and out.name != "uint8" or draw(st.booleans())):
        attrs["output_dtype"] = out.onnx
    n_s = int(np.prod(s_shape, dtype=np.int64))
    scales = [_hunt_scale(draw, s_t) for _ in range(n_s)]
    zps = [_hunt_zero_point(draw, out) if with_zp else 0.0 for _ in range(n_s)]
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    s_full = expand(np.array(scales).reshape(s_shape), shape, axis, block)
    z_full = expand(np.array(zps).reshape(s_shape), shape, axis, block)
    x = [_hunt_element(draw, out, float(s), float(z), x_t) for s, z in zip(s_full.ravel(), z_full.ravel())]
    return {"opset": v, "x_type": x_t, "scale_type": s_t, "zp_type": out.name if with_zp else None, "attrs": attrs,
            "shape": list(shape), "x": [repr(float(e)) for e in x], "scale_shape": list(s_shape),
            "scale": [repr(s) for s in scales], "zp": [repr(z) for z in zps] if with_zp else None}


def hunt_example(args: dict):
    """The hunt Example of args: the node case test_quantizelinear_hunt of the defined elements (per-tensor 1-D
    x: element by element; else the data set as a whole) and the probe test_quantizelinear_hunt_probe of the
    others, built by spec_cases as every case here."""
    from generator.hunting import Example

    zp_t = args["zp_type"]
    x = _arr([float(v) for v in args["x"]], args["x_type"]).reshape(args["shape"])
    s = _arr([float(v) for v in args["scale"]], args["scale_type"]).reshape(args["scale_shape"])
    z = None if zp_t is None else _arr([float(v) for v in args["zp"]], zp_t).reshape(args["scale_shape"])
    spec = Spec(int(args["opset"]), [(x, s, z)], x_type=args["x_type"], scale_type=args["scale_type"], zp_type=zp_t,
                attrs=dict(args["attrs"]), flags=("hunt",))
    made = {c.kind: c for c in spec_cases("hunt", spec)}
    return Example(made.get("node"), made.get("probe"), args)


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same inputs, expected outputs from the reference."""
    return hunt_example(args)


def hunt(max_opset: int):
    """The hunt strategy: slices "integer" and "float" (float outputs from 19), or None below opset 10."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    def slice_of(kind):
        @st.composite
        def examples(draw):
            return hunt_example(hunt_args(draw, kind, max_opset))
        return examples()

    return {"integer": slice_of("integer")} | ({"float": slice_of("float")} if max_opset >= 19 else {})
