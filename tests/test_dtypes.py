"""generator/dtypes.py against onnx.defs, onnx.helper, numpy / ml_dtypes finfo and the bit layouts.

Out of scope here: what Cast does with the types (tests/test_cast_reference.py).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, defs, helper

from generator import dtypes

LATEST_OPSET = defs.onnx_opset_version()
# Cast-1..5 took `to` as a string; the registry starts at Cast-6, the first Cast with an integer
# `to`. Cast-1 accepts exactly the types of Cast-6 (checked below), so nothing is lost.
FIRST_OPSET = 6
OPSETS = range(FIRST_OPSET, LATEST_OPSET + 1)
FLOATS = [d for d in dtypes.all_dtypes() if d.is_float]
ENUMERABLE = [d for d in dtypes.all_dtypes() if d.is_numeric and d.bits <= 16 and d.kind != "bool"]


def schema_types(opset: int) -> set[str]:
    """Element types Cast accepts at `opset`: T1 and T2 of onnx.defs, "tensor(x)" -> "x"."""
    schema = defs.get_schema("Cast", opset)
    constraints = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    assert constraints["T1"] == constraints["T2"], f"Cast-{schema.since_version}: T1 != T2"
    names = set()
    for t in constraints["T1"]:
        assert t.startswith("tensor(") and t.endswith(")"), t
        names.add(t[len("tensor("):-1])
    return names


def ids(d):
    return d.name


# ---- the types Cast accepts -------------------------------------------------------------
# ---- ONNX enum <-> numpy dtype <-> name ---------------------------------------------------
# ---- float facts --------------------------------------------------------------------------
# ---- bit patterns -------------------------------------------------------------------------
@pytest.mark.parametrize("d", [d for d in dtypes.all_dtypes() if d.kind in ("int", "uint") and d.bits < 8], ids=ids)
def test_sub_byte_integers_use_ml_dtypes_storage(d):
    """from_bits must give the same bytes as ml_dtypes' own construction (byte-exact round trip):
    an int4 -8 is the byte ml_dtypes makes for -8, whatever that is."""
    values = np.arange(d.int_min, d.int_max + 1)
    canonical = values.astype(d.np_dtype)
    bits = d.to_bits(canonical)
    assert (bits.astype(np.int64) == values % (1 << d.bits)).all()
    assert d.from_bits(bits).tobytes() == canonical.tobytes()
    assert d.all_values().tobytes() == d.from_bits(np.arange(1 << d.bits)).tobytes()
    assert sorted(d.all_values().astype(np.int64).tolist()) == values.tolist()


