"""The JSON form of DynamicQuantizeLinear's witnesses (generator/witness/catalogue/dynamic_quantize_linear.json):
{"what": how it was built, "x": the values, space-separated, each the shortest decimal that reads back as exactly
that float32 value}.

Written by the witness search (generator/witness/dynamic_quantize_linear.py), read by the family's witness cases
(generator/families/dynamic_quantize_linear/cases.py).
"""

from __future__ import annotations

import numpy as np


def encode(x: np.ndarray, what: str) -> dict:
    """A witness: one x (float32)."""
    return {"what": what, "x": " ".join(repr(float(v)) for v in np.asarray(x, dtype=np.float32))}


def decode(wit: dict) -> np.ndarray:
    """A witness's x (float32)."""
    return np.array([float(v) for v in wit["x"].split()], dtype=np.float64).astype(np.float32)
