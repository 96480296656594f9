"""ConvertPromoteTypes' witness catalogue (generator/witness/catalogue/convert_promote_types.json): the JSON form of
a witness's values, read by the family (generator/families/convert_promote_types/witnesses.py) and written by
the search (generator/witness/convert_promote_types.py).

A witness: {"shapes": [shape_0, shape_1], "input_0": [values], "input_1": [values]} (values flattened; integers as
JSON numbers, booleans as JSON booleans, floats as float.hex strings, exact), or {"shapes": [...], "negative": true}.
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType

FILLER = 1  # a value every type holds and every conversion keeps: the other input's, and the padding of one


def encode(v, t: DType):
    if t.kind == "bool":
        return bool(v)
    if t.is_integer:
        return int(v)
    return float(np.float64(v)).hex()


def decode(values: list, t: DType) -> np.ndarray:
    """Witness values as an array of type t (exact: every value was an element of t)."""
    if t.kind == "bool":
        return np.array([bool(v) for v in values], dtype=bool)
    if t.is_integer:
        return np.array([int(v) for v in values], dtype=object).astype(t.np_dtype)
    return np.array([float.fromhex(v) for v in values], dtype=np.float64).astype(t.np_dtype)
