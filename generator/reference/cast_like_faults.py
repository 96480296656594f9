"""Fault models of ONNX CastLike: Cast's (generator/reference/cast_faults/), each run as a CastLike node, the
target type taken from target_type's element type as the reference does (generator/reference/cast_like.py).

CastLike-N is Cast-N with `to` read from its second input, so a plausible wrong CastLike is a plausible wrong
Cast: the same deviations, named cast_like.<what> after cast.<what>, with Cast's applicability and equivalence
proofs. One is CastLike's own: round_mode dropped, as the function body onnx gives CastLike-24 / 25 does
(`output = Cast <to, saturate: int = @saturate> (input)`, onnx 1.23.2), though the schema documents round_mode.
A group is Cast's (from, to, saturate, round_mode, opset), at CastLike's opsets.

A backend that expands CastLike by that function body runs its own Cast with round_mode dropped, so its
CastLike shows its Cast's deviations and the dropped round_mode together (onnxruntime 1.32.0: float64 / int64 /
uint64 -> float8e8m0 through float32, strings through strtof, with round_mode down / nearest read as up):
`round_mode_ignored_<what>` models each such pair (FUNCTION_BODY_OVER), Cast's fault under the dropped round_mode.
"""

from __future__ import annotations

import dataclasses

from generator import dtypes
from generator.faults import Fault
from generator.reference import cast_faults
from generator.reference.cast_like import cast_like_node

group_key = cast_faults.group_key


def _like(cast_fn):
    """A CastLike node function from a Cast one: input alone, `to` = target_type's element type."""
    def fn(inputs, attrs, opset, input_types):
        return cast_fn(inputs[:1], dict(attrs, to=dtypes.get(input_types[1]).onnx), opset, input_types[:1])
    return fn


def like(fault: Fault) -> Fault:
    """Cast's fault as CastLike's; seen_in says where Cast was seen doing it (CastLike-N is Cast-N: a backend
    that expands CastLike into its Cast, as onnxruntime does, shows its Cast's deviations)."""
    seen = (f"as Cast ({fault.name}): {fault.seen_in}" if fault.seen_in
            else f"not seen; modelled as Cast's {fault.name} (CastLike-N is Cast-N with `to` from target_type)")
    equivalent = fault.equivalent
    if "present" in fault.name:  # a fault of a written attribute: CastLike-15 has none to write
        def equivalent(p, inner=fault.equivalent):
            if int(p["opset"]) < 19:
                return f"CastLike-{p['opset']} has no saturate / round_mode attribute: a model cannot write one"
            return inner(p)
    return dataclasses.replace(fault, name="cast_like." + fault.name.split(".", 1)[1], fn=_like(fault.fn),
                               seen_in=seen, equivalent=equivalent)


def _round_mode_ignored(inputs, attrs, opset, input_types):
    return cast_like_node(inputs, {k: v for k, v in attrs.items() if k != "round_mode"}, opset, input_types)


def _same_as_up(p: dict) -> str | None:
    """Where the source has no positive value that round_mode maps otherwise than up does. A positive x = f * 2**k
    (f in [1, 2)) goes to 2**k with down where f > 1, to 2**k with nearest where 1 < f < 1.5 (Cast-24): a source
    whose f are only 1 (powers of two) agrees with up in every mode, one whose f are 1 or 1.5 in nearest."""
    src, mode = dtypes.get(p["from"]), p["round_mode"]
    if src.kind == "bool":
        return ("1 is a power of two; 0 gives E8M0_MIN (saturate=1) or NaN (saturate=0, down / nearest; where up "
                "leaves it undefined the reference's placeholder is NaN too)")
    if src.nan_style == dtypes.E8M0 or (src.is_integer and src.int_max <= 1):
        return f"every positive {src.name} value is a power of two, which every round_mode maps alike"
    if mode == "nearest" and (src.is_float and src.mantissa_bits <= 1 or src.is_integer and src.int_max <= 3):
        return (f"every positive {src.name} value is 2**k or 1.5 * 2**k, which nearest (ties up) maps as up does, "
                f"within E8M0's range")
    return None


ROUND_MODE_IGNORED = Fault(
    "cast_like.round_mode_ignored", "float8e8m0 targets: round_mode dropped (up), as onnx's CastLike-24 / 25 "
    "function body, Cast <to, saturate>, does", _round_mode_ignored,
    seen_in="onnxruntime 1.32.0 (CastLike-24 / 25 expanded by its function body; 103 failing items of the "
            "baseline of issue 21, measured here)",
    equivalent=_same_as_up, applies=lambda p: p.get("round_mode") in ("down", "nearest"))



def function_body_over(fault: Fault, seen_in: str) -> Fault:
    """round_mode dropped as the function body does, over a Cast with `fault`: the pair of deviations a backend
    that expands CastLike into its own (faulty) Cast shows."""
    inner = _like(fault.fn)
    what = fault.name.split(".", 1)[1]

    def fn(inputs, attrs, opset, input_types):
        return inner(inputs, {k: v for k, v in attrs.items() if k != "round_mode"}, opset, input_types)

    def equivalent(p: dict) -> str | None:
        up = fault.equivalent(dict(p, round_mode="up"))
        same = _same_as_up(p)
        if same and up:  # round_mode maps as up does, and the fault cannot differ under up
            return f"{same}; and under up: {up}"
        return None

    return Fault(f"cast_like.round_mode_ignored_{what}", f"round_mode dropped (up) as the function body does, over "
                 f"a Cast that {fault.what[:1].lower() + fault.what[1:]}", fn, seen_in=seen_in, equivalent=equivalent,
                 applies=lambda p: ROUND_MODE_IGNORED.applies(p) and fault.applies(dict(p, round_mode="up")))


_BY_NAME = {f.name: f for f in cast_faults.FAULTS}
ORT = "onnxruntime 1.32.0 (CastLike-24 / 25 expanded by its function body over its Cast; measured here, baseline of issue 21"
# Cast's fault -> where it was seen under the dropped round_mode
FUNCTION_BODY_OVER = {
    "cast.via_float": f"{ORT}: float64 / int64 / uint64 -> float8e8m0 down / nearest, 12 failing items)",
    "cast.string_via_float": f"{ORT}: string -> float8e8m0 down / nearest, 4 failing items)",
}

FAULTS: tuple[Fault, ...] = (*(like(f) for f in cast_faults.FAULTS), ROUND_MODE_IGNORED,
                             *(function_body_over(_BY_NAME[n], seen) for n, seen in FUNCTION_BODY_OVER.items()))
# TVM's float 8 path comes from Cast: like(cast.float8_bitwise)
