"""MatMulInteger reference (onnx.defs MatMulInteger-10, the only version).

The schema's text: "Matrix product that behaves like numpy.matmul. The production MUST never overflow. The
accumulation may overflow if and only if in 32 bits." A (T1) and B (T2) are int8 or uint8 (each of the four
pairs), Y is int32.
a_zero_point (T1): "a scalar or N-D tensor. Scalar refers to per tensor quantization whereas N-D refers to per row
quantization": an M vector for a 2-D A [M, K], [D1, D2, M, 1] for an N-D one; b_zero_point (T2): a scalar or per
column of B: an N vector for a 2-D B [K, N], [D1, D2, 1, N] for an N-D one. Both default to 0.
Y = matmul(A - a_zero_point, B - b_zero_point) with numpy.matmul's shapes (batch dimensions broadcast, a 1-D A
is a row, a 1-D B a column, their added dimension removed from Y), each product exact.

Readings (case.json "reading" of the cases that rest on them):
  READING_EXACT      an element whose exact sum lies in int32 is that sum, whatever order the products are added
                     in (numpy.matmul's value; a 32-bit accumulator that overflows on the way wraps back to it)
  READING_ONE_ELEMENT  a zero point of shape [1] is per tensor (it is a scalar's one value; onnxruntime takes it)
Undefined (probe/): UNDEF_ACC_INT32, an element whose exact sum leaves int32: "the accumulation may overflow
if and only if in 32 bits" allows the overflow and names no result (onnxruntime and numpy wrap modulo 2**32; a
saturating accumulator would clip). The node function gives the wrapped value there as a placeholder.
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.requantize import INT32_MAX, INT32_MIN

SPEC_FILE = "onnx.defs:MatMulInteger-10"
OPSET = 10
INPUT_TYPES = ("int8", "uint8")
NAMES = ("A", "B", "a_zero_point", "b_zero_point")

UNDEF_ACC_INT32 = ("the exact sum leaves int32: \"The accumulation may overflow if and only if in 32 bits\" allows "
                   "the overflow and names no result")
READING_EXACT = ("an element whose exact sum lies in int32 is that sum (numpy.matmul's value), whatever order the "
                 "products are added in: a 32-bit accumulator that overflows on the way wraps back to it")
READING_ONE_ELEMENT = "a zero point of shape [1] is per tensor: a scalar's one value"


def _zero_point(zp: np.ndarray | None, per_row: bool) -> np.ndarray:
    """The zero point broadcast against its operand: a scalar (or one element), a vector per row of A (an M
    vector, shaped [M, 1]) / per column of B (an N vector, broadcasting as [N] does); an N-D one as it is."""
    if zp is None:
        return np.zeros((), dtype=np.int64)
    zp = np.asarray(zp).astype(np.int64)
    if zp.ndim == 1 and zp.size > 1 and per_row:
        return zp.reshape(-1, 1)
    if zp.ndim == 1 and zp.size == 1:
        return zp.reshape(())
    return zp


def check_shapes(a: tuple, b: tuple, a_zp: tuple | None = None, b_zp: tuple | None = None) -> None:
    """Raise ValueError for shapes the text rules out: numpy.matmul's (no 0-D operand, K agrees, batch dimensions
    broadcast) and the zero points' forms (a_zero_point: scalar, [M] for a 2-D A, A's shape with K replaced by 1;
    b_zero_point: scalar, [N] for a 2-D B, B's shape with K replaced by 1; one element: READING_ONE_ELEMENT)."""
    a, b = tuple(a), tuple(b)
    if not a or not b:
        raise ValueError(f"MatMulInteger: A {list(a)} and B {list(b)} must have rank 1 or more (numpy.matmul)")
    ka, kb = a[-1], (b[-2] if len(b) > 1 else b[0])
    if ka != kb:
        raise ValueError(f"MatMulInteger: A {list(a)} has K = {ka}, B {list(b)} has K = {kb}")
    try:
        np.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        raise ValueError(f"MatMulInteger: the batch dimensions of A {list(a)} and B {list(b)} do not broadcast") \
            from None
    m = a[-2] if len(a) > 1 else 1
    n = b[-1] if len(b) > 1 else 1
    a_forms = [(), (1,)] + ([a[:-1] + (1,)] + ([(m,)] if len(a) == 2 else []) if len(a) > 1 else [])
    b_forms = [(), (1,)] + ([b[:-2] + (1, n)] + ([(n,)] if len(b) == 2 else []) if len(b) > 1 else [])
    for name, zp, forms, what in (("a_zero_point", a_zp, a_forms, "per row of A: [M] or A's shape with K as 1"),
                                  ("b_zero_point", b_zp, b_forms, "per column of B: [N] or B's shape with K as 1")):
        if zp is not None and tuple(zp) not in forms:
            raise ValueError(f"MatMulInteger: {name} of shape {list(zp)} is no scalar and not {what} "
                             f"(A {list(a)}, B {list(b)})")


def exact(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
          b_zero_point: np.ndarray | None = None) -> np.ndarray:
    """matmul(A - a_zero_point, B - b_zero_point) exactly, in int64 (|a - zp| <= 255: K up to 2**47 fits)."""
    a, b = np.asarray(a), np.asarray(b)
    for name, x in (("A", a), ("B", b)):
        if x.dtype not in (np.int8, np.uint8):
            raise TypeError(f"MatMulInteger: {name} must be int8 or uint8, not {x.dtype}")
    da = a.astype(np.int64) - _zero_point(a_zero_point, per_row=True)
    db = b.astype(np.int64) - _zero_point(b_zero_point, per_row=False)
    return np.asarray(np.matmul(da, db), dtype=np.int64)


def matmul_integer(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
                   b_zero_point: np.ndarray | None = None) -> np.ndarray:
    """Y = matmul(A - a_zero_point, B - b_zero_point) as int32 (MatMulInteger-10): exact where the sum lies in
    int32, wrapped modulo 2**32 elsewhere (a placeholder there: UNDEF_ACC_INT32; matmul_integer_outcome says
    where)."""
    return exact(a, b, a_zero_point, b_zero_point).astype(np.uint32).view(np.int32)


def matmul_integer_outcome(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
                           b_zero_point: np.ndarray | None = None) -> Outcome:
    """MatMulInteger-10 [summary, inputs A, B, a_zero_point, b_zero_point]: Y, and the elements whose exact sum
    leaves int32 (UNDEF_ACC_INT32) undefined. Shapes are checked (check_shapes)."""
    check_shapes(np.shape(a), np.shape(b), None if a_zero_point is None else np.shape(a_zero_point),
                 None if b_zero_point is None else np.shape(b_zero_point))
    y = exact(a, b, a_zero_point, b_zero_point)
    why = np.where((y < INT32_MIN) | (y > INT32_MAX), UNDEF_ACC_INT32, "")
    return Outcome.by_element([y.astype(np.uint32).view(np.int32)], why)


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """MatMulInteger-10's type constraints: A / a_zero_point int8 or uint8 alike (T1), B / b_zero_point likewise
    (T2)."""
    for i, t in enumerate(input_types):
        if t is not None and t.name not in INPUT_TYPES:
            raise ValueError(f"MatMulInteger: {NAMES[i]} must be int8 or uint8, not {t.name}")
    for i, j in ((0, 2), (1, 3)):
        if len(input_types) > j and input_types[j] is not None and input_types[i] is not None \
                and input_types[j].name != input_types[i].name:
            raise ValueError(f"MatMulInteger: {NAMES[j]} must have the type of {NAMES[i]}")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """check_shapes, where every dimension is known."""
    known = [None if s is None else tuple(s) for s in shapes]
    if len(known) < 2 or any(s is not None and not all(isinstance(d, int) for d in s) for s in known):
        return
    if known[0] is None or known[1] is None:
        return
    check_shapes(known[0], known[1], known[2] if len(known) > 2 else None, known[3] if len(known) > 3 else None)


def matmul_integer_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                        input_types: list[DType]) -> list[np.ndarray]:
    """ONNX MatMulInteger-10 as a graph node; where an exact sum leaves int32, its wrapped value."""
    a, b = inputs[0], inputs[1]
    a_zp = inputs[2] if len(inputs) > 2 else None
    b_zp = inputs[3] if len(inputs) > 3 else None
    check_shapes(np.shape(a), np.shape(b), None if a_zp is None else np.shape(a_zp),
                 None if b_zp is None else np.shape(b_zp))
    return [matmul_integer(a, b, a_zp, b_zp)]


matmul_integer_node.validate = validate
matmul_integer_node.validate_shapes = validate_shapes
NODES = {("", "MatMulInteger"): matmul_integer_node}
