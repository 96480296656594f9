"""Where a value fault of ConvertPromoteTypes may show, by construction: values of a source type just beside a
midpoint of the common type that an intermediate type turns into a tie, 2**24 + 1, 2**31, +-Inf. The witness
search (generator/witness/convert_promote_types.py) checks them against the reference; the hunt draws on them."""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.reference.convert_promote_types_faults.decisions import F16, F32, F64


def in_range(t: DType, v: int) -> bool:
    return t.int_min <= v <= t.int_max


def constructed(name: str, src: DType, to: DType) -> list:
    """Candidate values of src on which value fault `name` may differ (checked by the caller)."""
    out: list = []
    if name in ("via_float64", "via_float32", "via_float16"):
        inter = {"via_float64": F64, "via_float32": F32, "via_float16": F16}[name]
        if src.is_integer:
            e = inter.mantissa_bits + 2  # 2**e: the first power of two whose neighbours are 4 apart in inter
            h = (1 << e) + (1 << (e - to.mantissa_bits - 1))  # a midpoint of `to` just above 2**e (even)
            out += [h + 1, -(h + 1), h + 3]
        else:
            h = 1.0 + 2.0 ** -(to.mantissa_bits + 1)  # midpoint of `to` above 1.0, exact in inter
            x = np.nextafter(np.array(h, dtype=src.np_dtype), np.array(2.0, dtype=src.np_dtype))
            out += [float(x), -float(x)]
    elif name == "f64_held_in_f32":
        out += [(1 << 24) + 1, -((1 << 24) + 1)] if src.is_integer else [1 / 3, float("inf"), float("-inf")]
    elif name == "int64_held_in_32_bits":
        out += [1 << 31, (1 << 32) + 5, -(1 << 31) - 1]
    elif name == "float8_saturated":
        out += [float("inf"), float("-inf")]
    if src.is_integer:
        return [v for v in out if isinstance(v, int) and in_range(src, v)]
    return [float(v) for v in out]
