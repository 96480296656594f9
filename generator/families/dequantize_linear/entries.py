"""The DequantizeLinear catalogue: each entry is a short function named for what it checks; it yields (variant,
Spec) pairs, each one model (test_dequantizelinear_<function>_<variant>) with its data sets."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes
from generator.families.dequantize_linear.spec import (CATALOGUE, READING_IEEE, SCALES, Spec, arr, ladder, patterns,
                                                       per_tensor_sets)
from generator.reference import dequantize_linear as ref


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
