"""MatMulInteger reference (onnx.defs MatMulInteger-10, the only version).

The schema's text: "Matrix product that behaves like numpy.matmul. The production MUST never overflow. The
accumulation may overflow if and only if in 32 bits." A (T1) and B (T2) are int8 or uint8, Y is int32.
a_zero_point (T1): a scalar (per tensor) or per row of A: an M vector for a 2-D A [M, K], [D1, D2, M, 1] for
an N-D one; b_zero_point (T2): a scalar or per column of B: an N vector for a 2-D B [K, N], [D1, D2, 1, N].
Both default to 0. Y = matmul(A - a_zero_point, B - b_zero_point), each product exact, the sum in int32
(wrapping where it overflows: the one overflow the text allows).
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType

SPEC_FILE = "onnx.defs:MatMulInteger-10"
OPSET = 10
INPUT_TYPES = ("int8", "uint8")


def _zero_point(zp: np.ndarray | None, x: np.ndarray, per_row: bool) -> np.ndarray:
    """The zero point broadcast against x: a scalar, or a vector per row of A (an M vector, shaped [M, 1]) /
    per column of B (an N vector, broadcasting as [N] does); an N-D zero point is used as it is."""
    if zp is None:
        return np.zeros((), dtype=np.int64)
    zp = np.asarray(zp).astype(np.int64)
    if zp.ndim == 1 and zp.size > 1 and per_row:
        return zp.reshape(-1, 1)
    if zp.ndim == 1 and zp.size == 1:
        return zp.reshape(())
    return zp


def matmul_integer(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
                   b_zero_point: np.ndarray | None = None) -> np.ndarray:
    """Y = matmul(A - a_zero_point, B - b_zero_point) as int32 (MatMulInteger-10): the products and the sum
    are exact in int64 (|a - zp| <= 255, so K up to 2**47 fits), then wrapped to 32 bits ("the accumulation may
    overflow if and only if in 32 bits")."""
    a = np.asarray(a)
    b = np.asarray(b)
    for name, x in (("A", a), ("B", b)):
        if x.dtype not in (np.int8, np.uint8):
            raise TypeError(f"MatMulInteger: {name} must be int8 or uint8, not {x.dtype}")
    da = a.astype(np.int64) - _zero_point(a_zero_point, a, per_row=True)
    db = b.astype(np.int64) - _zero_point(b_zero_point, b, per_row=False)
    y = np.matmul(da, db)
    return np.asarray(y).astype(np.uint32).view(np.int32)


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """MatMulInteger-10's type constraints: A / a_zero_point int8 or uint8 alike, B / b_zero_point likewise."""
    names = ("A", "B", "a_zero_point", "b_zero_point")
    for i, t in enumerate(input_types):
        if t is not None and t.name not in INPUT_TYPES:
            raise ValueError(f"MatMulInteger: {names[i]} must be int8 or uint8, not {t.name}")
    for i, j in ((0, 2), (1, 3)):
        if len(input_types) > j and input_types[j] is not None and input_types[i] is not None \
                and input_types[j].name != input_types[i].name:
            raise ValueError(f"MatMulInteger: {names[j]} must have the type of {names[i]}")


def matmul_integer_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                        input_types: list[DType]) -> list[np.ndarray]:
    """ONNX MatMulInteger-10 as a graph node."""
    a, b = inputs[0], inputs[1]
    a_zp = inputs[2] if len(inputs) > 2 else None
    b_zp = inputs[3] if len(inputs) > 3 else None
    return [matmul_integer(a, b, a_zp, b_zp)]


matmul_integer_node.validate = validate
NODES = {("", "MatMulInteger"): matmul_integer_node}
