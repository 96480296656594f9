"""Axes of generation: structural variations every family applies to its own catalogue (docs/design.md, "Axes of
generation"; issue 21). A family's catalogue names the values and configurations a clause or a fault singles
out; these axes vary how those inputs reach the kernel, which is where real implementations break without any
value being special:

  explicit defaults   the model writes an attribute with its default value (an implementation that reads a
                      *present* attribute wrongly passes every model that leaves it out)
  vector tails        tensor lengths around SIMD vector widths, the decisive element in the partial last vector
                      (a vectorized loop whose scalar tail is wrong, a reduction that skips n % 8 elements)
  NaN payloads        every kind of NaN encoding of a source type, signalling ones included (an add-and-shift
                      rounding turns a low-payload NaN into Inf), from dtypes.DType.nan_encodings
  opset boundaries    the opsets just below, at and just above each semantic change of an operator (a rule
                      switched on one opset early or late)

Each helper here is small and pure; the family decides which of its groups an axis applies to and keeps the
suite's size in check (one model per group, the lengths as data sets of one model with a symbolic length).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import onnx
from onnx import defs, helper

from generator import dtypes

# SIMD widths in elements that kernels are written for (SSE / NEON 128-bit, AVX2 256-bit, AVX-512 512-bit at 8-,
# 16- and 32-bit elements): 4, 8, 16, 32, 64. Every length 1..65 crosses each of them with every remainder; the large
# ones put a tail after several whole blocks of the unrolled loops (x4 unrolled AVX-512 on bytes: 256).
VECTOR_LENGTHS: tuple[int, ...] = tuple(range(1, 66)) + (127, 128, 129, 255, 256, 257, 1023, 1025)
# The short form for groups that multiply (hundreds of type pairs): every remainder of 8 and of 16, lengths past
# one and two whole vectors of 16 and 32 elements, and one long run with a tail.
VECTOR_LENGTHS_SHORT: tuple[int, ...] = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 257)


def tail_lengths(short: bool = False, limit: int | None = None) -> tuple[int, ...]:
    """The lengths of the vector-tail axis (at most `limit` elements each)."""
    lengths = VECTOR_LENGTHS_SHORT if short else VECTOR_LENGTHS
    return tuple(n for n in lengths if limit is None or n <= limit)


def with_tail(filler: np.ndarray, decisive: np.ndarray | Sequence, n: int) -> np.ndarray:
    """A length-n tensor: `filler` repeated (values that decide nothing), with the `decisive` elements last, so
    they sit in the partial last vector of every width that does not divide n (and are the whole tensor when n
    is smaller than them: the decisive elements' own tail is kept)."""
    filler = np.asarray(filler).ravel()
    decisive = np.asarray(decisive, dtype=filler.dtype).ravel()
    k = min(n, decisive.size)
    out = np.resize(filler, n) if n > k else np.empty(0, filler.dtype)
    return np.concatenate([out[:n - k], decisive[decisive.size - k:]]).astype(filler.dtype)


def tail_datasets(filler: np.ndarray, decisive: np.ndarray | Sequence, lengths: Iterable[int]) -> list[np.ndarray]:
    """with_tail for each length: one data set per length (a model with a symbolic length takes them all)."""
    return [with_tail(filler, decisive, n) for n in lengths]


def nan_values(t: dtypes.DType | str) -> tuple[list[str], np.ndarray]:
    """The NaN-payload axis of a source type: (labels, elements of type t), every NaN encoding kind of t
    (DType.nan_encodings), built from bits so that no float arithmetic quiets a signalling NaN; ([], empty) for a
    type without NaN. Keep the array in t's own dtype: astype to another float type can change a payload."""
    t = dtypes.get(t)
    if not t.has_nan:  # integers, bool, strings, float4e2m1: no NaN to vary
        return [], np.empty(0, dtype=t.np_dtype)
    enc = t.nan_encodings
    bits = np.array([b for _, b in enc], dtype=t.bits_dtype)
    return [label for label, _ in enc], t.from_bits(bits)


def attribute_defaults(op: str, opset: int, domain: str = "") -> dict[str, object]:
    """The attributes of `op` at `opset` that the schema (onnx.defs, the machine form of the spec's attribute
    list) gives a default value, as Python values (int, float, str, list): what the explicit-defaults axis writes.
    {} where the schema is unknown to the installed onnx."""
    try:
        schema = defs.get_schema(op, opset, domain)
    except Exception:  # noqa: BLE001 - onnx raises its own SchemaError; an unknown op has no defaults to write
        return {}
    out = {}
    for name, attr in schema.attributes.items():
        if attr.default_value is not None and attr.default_value.name:
            out[name] = helper.get_attribute_value(attr.default_value)
    return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in sorted(out.items())}


def with_defaults(node: onnx.NodeProto, defaults: dict[str, object], names: Iterable[str] | None = None
                  ) -> onnx.NodeProto:
    """A copy of `node` with each default attribute (all of `defaults`, or those `names`) written explicitly
    where the node leaves it out; attributes the node sets stay as they are."""
    out = onnx.NodeProto()
    out.CopyFrom(node)
    have = {a.name for a in node.attribute}
    for name in (names if names is not None else defaults):
        if name not in have:
            out.attribute.append(helper.make_attribute(name, defaults[name]))
    return out


def boundary_opsets(changes: Iterable[int], lowest: int, highest: int) -> list[int]:
    """The opsets the opset-boundary axis gives an operator whose semantics changed at each of `changes`: for
    each change c, c - 1 (the old rule's last opset), c and c + 1, kept within [lowest, highest] (the family's
    first opset and the run's --max-opset), sorted, without repeats."""
    out = {o for c in changes for o in (c - 1, c, c + 1) if lowest <= o <= highest}
    return sorted(out)
