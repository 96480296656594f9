"""IREE 3.13 llvm-cpu's Cast, as measured here on the committed suite (docs/discrepancies.md, "IREE")."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.reference.cast_faults.common import _cast

IREE = "IREE 3.13.0 llvm-cpu (measured here on the committed suite)"


def _e4m3fn_negative_nan(x, src, to, saturate, round_mode, opset):
    """float8e4m3fn's negative NaN 0xFF decoded by the exponent rule, as -480 (1.875 * 2**8), then converted;
    0x7F, the positive NaN, stays NaN: a decoder that tests the NaN pattern without its sign bit."""
    if src.name != "float8e4m3fn":
        return _cast(x, src, to, saturate, round_mode, opset)
    bits = src.to_bits(np.asarray(x))
    f32 = dtypes.get("float")
    v = np.where(bits == 0xFF, np.float32(-480.0), np.asarray(x).astype(np.float32))
    return _cast(v.astype(np.float32), f32, to, saturate, round_mode, opset)
