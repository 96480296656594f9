"""The axes of generation over DequantizeLinear (generator/axes.py): explicit defaults, vector tails, NaN payloads,
opset boundaries. Catalogue entries, registered after entries.py's."""

from __future__ import annotations

import numpy as np

from generator import axes, dtypes
from generator.families.dequantize_linear.spec import (CATALOGUE, READING_IEEE, READING_SCALAR_SCALE_10, Spec, arr,
                                                       ladder, _neg, patterns, per_tensor_sets)
from generator.reference import dequantize_linear as ref


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
