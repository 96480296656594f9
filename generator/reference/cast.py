"""ONNX Cast, written from the ONNX Cast specification (Cast.txt, docs/specs.md) and the ONNX technical notes it
refers to.

Sources of each rule (cited in the docstrings below as [Cast] and [note]):
  [Cast]     Cast.txt (Cast-19's text) and onnx.defs Cast-19..28: the general rules ("Casting from
             floating point to: ..."), the string rules, the two float8 tables (saturate = 1 / 0),
             the float8e8m0 table and round_mode (Cast-24).
  [Cast-24]  from Cast-24 on, saturate=1 maps +-Inf to +-FLT_MAX for the FNUZ types too
             (Cast-19..23: NaN). See docs/specs.md, "Reading notes".
  [float4]   ONNX docs/technical/float4.md, "Cast": RNE, saturating at +-6; +-Inf -> +-6; "x=+/-0 ->
             +/-0". Its "NaN -> 6" is contradicted by ONNX's own Cast tests (-0): NaN is undefined.
  [float6]   ONNX docs/technical/float6.md, "Cast" (Cast-28), revision of onnx PR #8349 (c93be5d,
             2026-08-22; the text onnx.ai publishes, the one onnx 1.23.2's FLOAT6 code goes with):
             "Downcasting RNE with saturation"; its table: "-0.0 -> -0.0", "inf -> 7.5 / 28.0 (sat)",
             "nan -> -0.0 (unspecified ...)". (Its first revisions, PR #7145 939b180..3af4e06, gave
             -0.0 -> 0.0.)
  [int4]     ONNX docs/technical/int4.md / int2.md, "Cast": "Cast to a 4 bit type [2 bit type] is done
             by rounding to the nearest-integer (with ties to even) nearest-even integer and
             truncating." Cast itself states no rounding for floating point -> fixed point, so this is
             the one text that does: fractions -> int4/uint4/int2/uint2 round to nearest even. Out of
             range stays undefined ([Cast]: "fixed point: undefined if OOR"; the note's "and
             truncating" does not settle it: see UNDEF_FLOAT_TO_SUBBYTE_OOR).

cast_outcome() is the operator under the reference contract (generator/outcome.py): the output, and the
elements the spec leaves undefined by reason (they go to probe cases); explain() adds `reading`: per
element, "" where a sentence of the texts gives the result, else the READING_* that the result rests on
(docs/readings.md lists them). Every module of generator/ and runners/ reads Cast that way. cast() /
cast_explained() give the same as arrays (y, why[, reading]), why "" where the spec defines the element:
only tests use them (element-wise assertions on why), and new code should not.

Vectorized path: every float value of every supported source is exact in float64, so a float
source is widened to float64 and rounded once (round-to-nearest-even with an unbounded exponent,
so "[x] > FLT_MAX" is decided on the rounded value as the tables say). Values that float64 cannot
hold exactly (int64 / uint64 beyond 2**53, decimal strings) go through exact Fraction arithmetic
and are mapped to a float64 "representative" that the vectorized path treats identically.

Beside it, by concern: cast_reasons.py (UNDEF_* reasons, READING_* readings), cast_rounding.py, cast_targets.py
(float, integer and bool targets), cast_strings.py; this module is the operator (cast_outcome, explain, NODES).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.cast_reasons import READING_IEEE_RNE, READING_SAME_TYPE_SATURATE, READINGS
from generator.reference.cast_rounding import representative, round_fraction, round_to_precision
from generator.reference.cast_strings import _from_strings, _to_strings, parse_number
from generator.reference.cast_targets import _float_to_int, _to_float, _wrap


def _int_values(x: np.ndarray, src: DType) -> np.ndarray:
    if src.kind == "bool":
        return np.asarray(x).astype(np.int64)
    a = np.asarray(x, dtype=src.np_dtype)
    return a.astype(np.uint64) if src.kind == "uint" else a.astype(np.int64)


def _ints_as_float64(ints: np.ndarray, to: DType, round_mode: str) -> np.ndarray:
    """Integers -> float64 values the float path rounds exactly as it would the integers."""
    with np.errstate(all="ignore"):
        v = ints.astype(np.float64)
    big = np.abs(v) >= 2.0**53
    if big.any():
        v = v.copy()
        for i in np.flatnonzero(big):
            v[i] = representative(Fraction(int(ints[i])), to, round_mode)
    return v


def cast(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True,
         round_mode: str = "up", opset: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """ONNX Cast of `x` (elements of `src`) to `to`, at `opset`. [Cast], [Cast-24], [float4], [float6], [int4]

    Returns (y, why): y of dtype to.np_dtype (an object array of str for strings) with x's
    shape; why an object array of str, "" where the spec defines y, else the reason it does not
    (y then holds a placeholder). `saturate` and `round_mode` have the meaning of Cast-19 / 24;
    they change nothing where the spec says they do not apply."""
    y, why, _ = cast_explained(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    return y, why


def cast_explained(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True,
                   round_mode: str = "up", opset: int = 25) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cast(), plus `reading`: per element, "" where a sentence of the texts gives y (or y is
    undefined), else the READING_* its result rests on."""
    src, to = dtypes.get(src), dtypes.get(to)
    x = np.asarray(x, dtype=object if src.kind == "string" else src.np_dtype)
    y, why, reading = _cast_flat(x.reshape(-1), src, to, saturate, round_mode, opset)
    return y.reshape(x.shape), why.reshape(x.shape), reading.reshape(x.shape)


def explain(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True, round_mode: str = "up",
            opset: int = 25) -> tuple[Outcome, np.ndarray]:
    """Cast under the reference contract: (Outcome (y,) with the undefined elements by reason, reading per
    element as in cast_explained)."""
    y, why, reading = cast_explained(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    return Outcome.by_element([y], why), reading


def cast_outcome(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True, round_mode: str = "up",
                 opset: int = 25) -> Outcome:
    """Cast under the reference contract (generator/outcome.py): Outcome (y,), the undefined elements by
    reason. [Cast], [Cast-24], [float4], [float6], [int4]"""
    return explain(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)[0]


def readings(reading: np.ndarray) -> list[str]:
    """The readings a set of elements rests on, in the order of READINGS."""
    present = set(np.asarray(reading, dtype=object).ravel().tolist())  # an element may join several with "; "
    return [r for r in READINGS if any(r in e for e in present if e)]


def _cast_flat(x: np.ndarray, src: DType, to: DType, saturate: bool, round_mode: str, opset: int):
    if src.kind == "string":
        return _from_strings(x, to, saturate, round_mode, opset)
    if to.kind == "string":
        return _to_strings(x, src)
    why = np.full(x.shape, "", dtype=object)
    reading = np.full(x.shape, "", dtype=object)
    if src.is_float:
        with np.errstate(invalid="ignore"):  # ml_dtypes flags NaN conversions; they are exact
            v = x.astype(np.float64)  # exact for every float type here
        if to.kind == "bool":  # +/- 0.0 -> False, all else (NaN too) -> True
            return v != 0, why, reading
        if to.is_integer:
            return _float_to_int(v, to)
        y, why, reading = _to_float(v, to, saturate, round_mode, opset)
        if src.name == to.name and to.is_float8 and saturate:
            reading[np.isinf(v)] = READING_SAME_TYPE_SATURATE
        return y, why, reading
    ints = _int_values(x, src)  # bool -> {0, 1}
    if to.kind == "bool":
        return ints != 0, why, reading
    if to.is_integer:
        return _wrap(ints, to), why, reading
    y, why, reading = _to_float(_ints_as_float64(ints, to, round_mode), to, saturate, round_mode, opset)
    if to.nan_style == dtypes.IEEE and not to.is_float8:  # big integers arrive rounded: compare exactly
        reading[:] = ""
        with np.errstate(all="ignore"):
            finite = np.isfinite(y.astype(np.float64))
        reading[(why == "") & finite & ~_exact_ints(ints, y)] = READING_IEEE_RNE
    return y, why, reading


def _exact_ints(ints: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Element-wise: the float result y holds the integer exactly."""
    with np.errstate(all="ignore"):
        yv = np.asarray(y).astype(np.float64)
        same = np.isfinite(yv) & (yv == ints.astype(np.float64))
    for i in np.flatnonzero(same & (np.abs(yv) >= 2.0**53)):
        same[i] = int(yv[i]) == int(ints[i])
    return same


def node_attributes(attrs: dict, opset: int) -> dict:
    """saturate and round_mode of a Cast (or CastLike) node at `opset`, by ONNX name: the defaults where absent
    or not yet defined (saturate from opset 19, round_mode from 24)."""
    round_mode = attrs.get("round_mode", "up") if opset >= 24 else "up"
    return {"saturate": bool(attrs.get("saturate", 1)) if opset >= 19 else True,
            "round_mode": round_mode.decode() if isinstance(round_mode, bytes) else round_mode}


def cast_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
    """Cast as a graph node, for the opconform backend: attributes by ONNX name."""
    to = dtypes.get(int(attrs["to"]))
    return list(cast_outcome(inputs[0], input_types[0], to, opset=opset, **node_attributes(attrs, opset)).outputs)


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "Cast"): cast_node}


# parse_number: imported from here by runners/compare.py; round_fraction, round_to_precision: by
# generator/reference/dequantize_linear.py
__all__ = ["NODES", "cast", "cast_explained", "cast_node", "cast_outcome", "explain", "node_attributes", "parse_number",
           "readings", "round_fraction", "round_to_precision"]
