"""Witnesses of the DynamicQuantizeLinear fault models (generator/reference/dynamic_quantize_linear_faults.py).

One group ("opset=11"). Every witness is an x of LENGTH float32 values (the vector-tail faults' of a length
with a partial last vector), built by construction or by enumeration of float32 candidates, and kept only where
the fault's outputs differ from the reference's (every step defined):
  round_half_away       min -2.5, max 252.5: y_scale = 1 exactly, the zero point 2.5 and elements j + 0.5
                        are ties (the reference rounds them to even)
  range_not_widened     all positive (and all negative) x: the unwidened range gives another y_scale
  scale_reciprocal (and every fault that computes y_scale so: scale_reciprocal_y_from_range,
  zero_point_reciprocal_y_from_range, fake_quantize_fma, divide_by_range_then_255)   ranges 1, 2, 3 ... (max with min 0) until
                        range * float32(1/255) != range / 255
  zero_point_unclipped  a subnormal y_scale: range 300 * 2**-149 gives y_scale 2**-149, so
                        -min / y_scale = 299 > 255
  y_reciprocal, y_from_range   y_scale = float32(1 / 255) (range 1): the float32 x nearest to (j + 0.5) *
                        y_scale whose quotient x / y_scale is exactly the tie, enumerated over j and the
                        neighbouring float32 values, kept where the other formula lands on the other side
  min_max_skip_tail<W>  W + 1 elements, the minimum last (and, apart, the maximum last): the one element of
                        the partial last vector holds the extreme the fault leaves out
  y_tail_round_half_away   9 elements, y_scale 1, the last element 100.5: a tie in the scalar remainder
  flush_subnormals      every x subnormal, range 510 * 2**-149: y_scale 2**-148 (subnormal), flushed to 0

Witness data (JSON): generator/catalogue/dynamic_quantize_linear.py's form. The family
(generator/families/dynamic_quantize_linear/cases.py) turns them into the group's witness case.
"""

from __future__ import annotations

import numpy as np

from generator.catalogue.dynamic_quantize_linear import encode
from generator.reference import dynamic_quantize_linear as ref
from generator.reference import dynamic_quantize_linear_faults as F
from generator.witness import group_faults

OPSET = 11
LENGTH = 8
F32 = np.float32
DENORM = float(np.finfo(F32).smallest_subnormal)


def differs(fault, x: np.ndarray) -> bool:
    """Do the fault's three outputs differ from the reference's (every step defined) on x?"""
    reference = ref.dynamic_quantize_linear(x)
    if not reference.defined:
        return False
    y, scale, zp = reference.outputs
    fy, fscale, fzp = fault.fn([x], {}, OPSET, [])
    return not (np.array_equal(y, fy) and np.array_equal(scale.view(np.uint32), np.asarray(fscale, F32).view(np.uint32))
                and np.array_equal(zp, fzp))


def _fill(values: list[float]) -> np.ndarray:
    """LENGTH values: `values`, then repeated (min and max unchanged)."""
    return np.resize(np.array(values, dtype=np.float64).astype(F32), LENGTH)


def _half_away() -> list[tuple[np.ndarray, str]]:
    return [(_fill([-2.5, 252.5, 0.5, 2.5, -1.5, 4.5, 100.5, 0.0]), "y_scale 1, zero point 2.5, y ties")]


def _not_widened() -> list[tuple[np.ndarray, str]]:
    return [(_fill([1.0, 256.0, 3.0, 100.0]), "all positive"), (_fill([-1.0, -256.0, -3.0, -100.0]), "all negative")]


def _scale_reciprocal() -> list[tuple[np.ndarray, str]]:
    out = []
    for r in range(1, 1000):
        x = _fill([0.0, float(r), r / 2, r / 3])
        if len(out) < 2 and F32(F32(r) * F32(F32(1) / F32(255))) != F32(F32(r) / F32(255)):
            out.append((x, f"range {r}"))
    return out


def _zero_point_unclipped() -> list[tuple[np.ndarray, str]]:
    return [(_fill([DENORM, -299 * DENORM, -100 * DENORM, 0.0, -200 * DENORM]),
             "range 300 * 2**-149: y_scale 2**-149, -min / y_scale = 299")]


def _quotient_ties(fault) -> list[tuple[np.ndarray, str]]:
    """x with x / y_scale exactly j + 0.5 (y_scale = float32(1/255)) where the fault's formula rounds the
    other way: the elements of several j, in one x with min 0 and max 1."""
    scale = F32(1) / F32(255)
    hits = []
    for j in range(0, 255):
        t = F32(j + 0.5)
        centre = np.array(float(t) * float(scale), dtype=F32).view(np.uint32)
        cand = (centre + np.arange(-64, 65, dtype=np.int64)).astype(np.uint32).view(F32)
        cand = cand[(cand > 0) & (cand < 1)]
        cand = cand[cand / scale == t]
        for v in cand:
            x = _fill([0.0, 1.0, float(v)])
            if differs(fault, x):
                hits.append(float(v))
                break
        if len(hits) == LENGTH - 2:
            break
    return [(_fill([0.0, 1.0] + hits), f"y_scale float32(1/255), {len(hits)} elements with x / y_scale a tie")] \
        if hits else []


def _extreme_last(width: int) -> list[tuple[np.ndarray, str]]:
    """width + 1 elements with the minimum last, and with the maximum last (the rest strictly inside)."""
    inner = np.resize(np.array([0.5, 1.0, 1.5, 0.25], dtype=F32), width)
    return [(np.concatenate([np.array([3.0], F32), inner[1:], np.array([-2.0], F32)]), f"n {width + 1}, min last"),
            (np.concatenate([np.array([-2.0], F32), inner[1:], np.array([3.0], F32)]), f"n {width + 1}, max last")]


def _subnormal_range() -> list[tuple[np.ndarray, str]]:
    return [(_fill([0.0, 255 * 2.0 * DENORM, 100 * DENORM, 37 * DENORM]),
             "range 510 * 2**-149: y_scale 2**-148 and every x subnormal (flushed: all 0)")]


def _tail_tie() -> list[tuple[np.ndarray, str]]:
    x = np.array([-2.5, 252.5, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 100.5], dtype=F32)
    return [(x, "n 9, y_scale 1, the last element 100.5: a tie in the partial last vector")]


def construct(fault) -> list[tuple[np.ndarray, str]]:
    name = fault.name.split(".", 1)[1]
    if name.startswith("min_max_skip_tail"):
        return _extreme_last(int(name.removeprefix("min_max_skip_tail")))
    if name == "y_tail_round_half_away":
        return _tail_tie()
    return {"round_half_away": _half_away, "range_not_widened": _not_widened, "scale_reciprocal": _scale_reciprocal,
            "zero_point_unclipped": _zero_point_unclipped, "flush_subnormals": _subnormal_range,
            "scale_reciprocal_y_from_range": _scale_reciprocal,
            "zero_point_reciprocal_y_from_range": _scale_reciprocal, "fake_quantize_fma": _scale_reciprocal,
            "divide_by_range_then_255": _scale_reciprocal,
            "y_reciprocal": lambda: _quotient_ties(fault), "y_from_range": lambda: _quotient_ties(fault)}[name]()


def find(max_opset: int, budget: float) -> dict:
    """The catalogue's groups: one, opset 11, with every fault's witnesses (or its equivalence proof)."""
    if max_opset < OPSET:
        return {}
    params = {"what": "witness"}
    faults = group_faults(F.FAULTS, dict(params, opset=OPSET), lambda fault: (
        "construction", [encode(x, what) for x, what in construct(fault) if differs(fault, x)]))
    return {F.group_key({"opset": OPSET, "params": params}): {"params": params, "faults": faults}}
