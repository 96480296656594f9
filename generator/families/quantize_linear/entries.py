"""The QuantizeLinear catalogue: each function returns the Spec(s) of the case it names (test_quantizelinear_<name>),
a case per semantics at an opset where it holds."""

from __future__ import annotations

from functools import partial

import numpy as np

from generator import dtypes, sampling
from generator.catalogue.quantize_linear import as_type
from generator.families.quantize_linear.spec import (CATALOGUE, CLAUSE_AXIS, CLAUSE_BLOCKED, CLAUSE_FLOAT8,
                                                     CLAUSE_FORMULA, CLAUSE_OUTPUT_DTYPE, CLAUSE_PRECISION, F32,
                                                     NEWEST_RUNNABLE, Spec, _float_sets, _int_sets, int_values, _pad,
                                                     _per_tensor)
from generator.reference import quantize_linear as ref
from generator.reference.quant_axes import expand


@CATALOGUE
def example_opset10():
    """The schema's own example (QuantizeLinear-10)."""
    x = as_type([0, 2, 3, 1000, -254, -1000], "float")
    return Spec(10, [(x, as_type(2, "float"), as_type(128, "uint8"))])


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
    return Spec(10, [(as_type(x, "int32"), as_type(s, "float"), as_type(z, "uint8"))
                     for s, z in ((2.0, 128), (0.3, 7))], x_type="int32")


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
        sets.append((as_type(x, "float"), as_type(scales, "float"), as_type(zps, out)))
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
    sets = [(as_type(np.array([0, 1, 2, 3, 5, 64, 127, 128, 250, -1, -3]) * s * 0.5, "float"), as_type(s, "float"),
             as_type(3, "uint8")) for s in (tiny * 2, tiny * 8, tiny * 1000, float(np.finfo(F32).tiny) / 2)]
    return Spec(13, sets)


@CATALOGUE
def scalar_x_opset13():
    """A 0-d x (per-tensor): ties and saturation, one element per data set."""
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, 300.0, -300.0, 127.5, 254.5]
    return Spec(13, [(as_type(v, "float").reshape(()), as_type(1.0, "float"), as_type(z, "uint8")) for v in vals
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
    x = as_type([np.inf, -np.inf, 1e30, -1e30, 1.0, -2.0], "float")
    return Spec(opset, [(x, as_type(1.0, "float"), as_type(0.0, t))], zp_type=t, attrs={"saturate": 1},
                clause=CLAUSE_FLOAT8)


for _t in ("float8e4m3fnuz", "float8e5m2fnuz"):
    for _op in (23, 24):
        CATALOGUE.add(f"{_t}_inf_saturate_opset{_op}", partial(_fnuz_inf, _t, _op))


@CATALOGUE
def float8_zero_point_added_opset19():
    """A non-zero float8 zero point is added ('the quantization formula remains the same')."""
    x = as_type(np.arange(-16, 17) * 0.75, "float")
    return Spec(19, [(x, as_type(0.5, "float"), as_type(z, "float8e4m3fn")) for z in (1.0, -3.0, 0.5)],
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
        s_p = float(as_type(s, p).astype(np.float64))
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
    return Spec(23, [(as_type(x, "float"), as_type(s, scale_type), as_type(128, "uint8"))], scale_type=scale_type,
                attrs=attrs, clause=CLAUSE_PRECISION)


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
    return Spec(23, [(as_type(np.concatenate([x, -x]), "float"), as_type(s, "float16"), as_type(128, "uint8"))],
                scale_type="float16", attrs={"precision": dtypes.get("float").onnx}, clause=CLAUSE_PRECISION)


@CATALOGUE
def x_float32_scale_float16_operands_opset23():
    """float32 x not exact in float16 over a float16 scale: the division in float16; elements where rounding x
    first or the quotient once differ go to the probe."""
    x = np.arange(2040, 2100) + 0.25
    return Spec(23, [(as_type(x, "float"), as_type(3.0, "float16"), as_type(0, "uint16"))], scale_type="float16",
                zp_type="uint16", clause=CLAUSE_PRECISION)


@CATALOGUE
def x_int32_scale_float32_opset23():
    """int32 x over a float32 y_scale (T1 and T2 apart from 23): the division in float32."""
    x = np.concatenate([np.arange(-300, 301, 3), [2**24 + 1, 2**24 + 3, -(2**31), 2**31 - 1, 2**25 + 7]])
    return Spec(23, [(as_type(x, "int32"), as_type(s, "float"), as_type(z, "uint8"))
                     for s, z in ((2.0, 128), (0.3, 7))], x_type="int32", clause=CLAUSE_PRECISION)


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
    sets = [(as_type(int_values(o, 128, s), "float"), as_type(s, "float8e8m0"), as_type(128, "uint8"))
            for s in (1.0, 0.25, 8.0)]
    return Spec(24, _pad(sets), scale_type="float8e8m0", attrs={"precision": dtypes.get("float").onnx},
                clause=CLAUSE_PRECISION)


@CATALOGUE
def scale_float8e8m0_division_opset24():
    """Without precision, the division 'in float8e8m0' (probe)."""
    return Spec(24, [(as_type([1.0, 2.5, -3.0, 100.0], "float"), as_type(2.0, "float8e8m0"), as_type(0, "uint8"))],
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
        sets.append((as_type(x, "float"), as_type(scales, "float8e8m0"), None))
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
