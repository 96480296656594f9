"""String faults: a decimal string parsed through float32 / float64 before it is converted."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.faults import Fault
from generator.reference.cast_faults.common import _cast, _node


# ---------------------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------------------
def _string_via(ft: str):
    t = dtypes.get(ft)

    def kernel(x, src, to, saturate, round_mode, opset):
        if src.kind != "string" or to.kind in ("string", "bool"):
            return _cast(x, src, to, saturate, round_mode, opset)
        y = _cast(x, src, t, True, "up", opset)  # strtof / strtod
        if to.is_integer:  # then truncated toward zero as float -> integer
            vals = y.astype(np.float64)
            vals = np.where(np.isfinite(vals), np.trunc(vals), 0.0)
            return np.array([int(v) for v in vals.ravel()], dtype=object).reshape(np.shape(x)).astype(to.np_dtype) \
                if all(to.int_min <= int(v) <= to.int_max for v in vals.ravel()) else \
                _cast(np.clip(vals, to.int_min, to.int_max), dtypes.get("double"), to, saturate, round_mode, opset)
        return _cast(y, t, to, saturate, round_mode, opset)

    def applies(p):
        return p["from"] == "string" and p["to"] not in ("string", "bool")

    def equivalent(p):
        to = dtypes.get(p["to"])
        if to.is_float and to.name != "double":
            return ("the reference leaves undefined every string that rounds differently when parsed to float32 "
                    "or float64 first (UNDEF_STRING_ROUNDING)")
        if to.name == "double" and ft == "double":
            return "parsing to float64 is the one correctly rounded result for a double target"
        if to.is_integer and max(-to.int_min, to.int_max).bit_length() <= t.mantissa_bits + 1:
            return f"every {to.name} integer string is exact in {ft}"
        return None

    seen = ("onnxruntime 1.32.0 parses with std::stod (its 'stod' errors on strings beyond double's range: "
            "measured here)" if ft == "double" else "not seen; modelled as strtof / std::stof used for a float target")
    return Fault(f"cast.string_via_{ft}", f"parses the string to {ft} first (strto{'f' if ft == 'float' else 'd'})",
                 _node(kernel), equivalent=equivalent, applies=applies, seen_in=seen)
