"""Fault models of ONNX CastLike: Cast's (generator/reference/cast_faults.py), each run as a CastLike node, the
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
import functools

import numpy as np

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

# ---------------------------------------------------------------------------------------
# float 8 decoded without special cases (TVM 0.27)
# ---------------------------------------------------------------------------------------
F8_DECODED = ("float8e4m3fn", "float8e5m2", "float8e4m3fnuz", "float8e5m2fnuz")


def float8_as_normals(x: np.ndarray, src: dtypes.DType) -> np.ndarray:
    """What a float 8 decoder without special cases reads (float64): every encoding as a normal number,
    (-1)**s * 2**(e - bias) * (1 + m / 2**M) whatever e is (0 -> 2**-bias, subnormals gain the implicit 1, the
    all-ones exponent is a number: float8e5m2 Inf -> 65536, float8e4m3fn NaN 0x7F -> 480)."""
    m_bits, e_bits = src.mantissa_bits, src.bits - 1 - src.mantissa_bits
    bias = 1 - int(np.log2(src.smallest_normal))  # smallest normal = 2**(1 - bias)
    b = src.to_bits(np.asarray(x, dtype=src.np_dtype)).astype(np.int64)
    sign = np.where(b >> (src.bits - 1), -1.0, 1.0)
    e, m = (b >> m_bits) & ((1 << e_bits) - 1), b & ((1 << m_bits) - 1)
    return sign * np.ldexp(1.0 + m / float(1 << m_bits), (e - bias).astype(np.int32))


def _float8_decoded_as_normals(inputs, attrs, opset, input_types):
    src = dtypes.get(input_types[0])
    if src.name not in F8_DECODED:
        return cast_like_node(inputs, attrs, opset, input_types)
    x = float8_as_normals(np.asarray(inputs[0]), src)
    return cast_like_node([x, inputs[1]], attrs, opset, [dtypes.get("double"), input_types[1]])


@functools.lru_cache(maxsize=None)
def _decoded_equivalent(src: str, to: str, saturate: int, round_mode: str, opset: int) -> str | None:
    """Every value of the 8-bit source enumerated: None where some defined result differs."""
    from generator.faults import same_elements
    from generator.reference import cast as cast_ref

    s, t = dtypes.get(src), dtypes.get(to)
    x = s.all_values()
    o = cast_ref.cast_outcome(x, s, t, saturate=bool(saturate), round_mode=round_mode, opset=opset)
    attrs = {"saturate": saturate, "round_mode": round_mode}
    z = _float8_decoded_as_normals([x, np.zeros(0, t.np_dtype) if t.kind != "string" else np.zeros(0, object)],
                                   attrs, opset, [s, t])[0]
    same = same_elements(o.outputs[0], z, t) | o.mask()
    return None if not same.all() else f"every {src} value enumerated: the defined results agree ({to})"


FLOAT8_DECODED_AS_NORMALS = Fault(
    "cast_like.float8_decoded_as_normals", "float 8 sources (E4M3FN, E5M2, the FNUZ types) decoded as normal numbers "
    "whatever the exponent (0 -> 2**-bias, subnormals gain the implicit 1, E5M2 Inf -> 65536, NaN -> 480 / 98304)",
    _float8_decoded_as_normals,
    seen_in="TVM 0.27 (measured here: CastLike from float 8 in the issue 21 baseline, and ConvertPromoteTypes' float 8 "
            "inputs, convert_promote_types.float8_decoded_as_normals)",
    applies=lambda p: p["from"] in F8_DECODED and p["to"] != p["from"],
    equivalent=lambda p: _decoded_equivalent(p["from"], p["to"], int(p.get("saturate", 1)), p.get("round_mode", "up"),
                                             int(p["opset"])))

FAULTS: tuple[Fault, ...] = (*(like(f) for f in cast_faults.FAULTS), ROUND_MODE_IGNORED,
                             *(function_body_over(_BY_NAME[n], seen) for n, seen in FUNCTION_BODY_OVER.items()),
                             FLOAT8_DECODED_AS_NORMALS)
