"""The parameter groups of the fault models (group_key) and the proofs that a decision fault cannot differ in one."""

from __future__ import annotations

from typing import Callable

from generator import dtypes
from generator.dtypes import DType
from generator.reference import convert_promote_types as ref
from generator.reference.convert_promote_types_faults.decisions import Decide, decide_reference, Shape


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def group_key(meta: dict) -> str:
    """The parameter group of a case: "<input_0>,<input_1>|<shapes>|<safe|unsafe>[|pytorch][|target=<t>]"
    (the target only where it can matter: u64 with a signed integer)."""
    return key_of(meta.get("params") or {})


def key_of(p: dict) -> str:
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    parts = [f"{t0.name},{t1.name}", p["shapes"], "unsafe" if p["promote_unsafe"] else "safe"]
    if p["pytorch_scalar_promotion"]:
        parts.append("pytorch")
    if {t0.kind, t1.kind} == {"uint", "int"} and 64 in (t.bits for t in (t0, t1) if t.kind == "uint"):
        parts.append(f"target={p.get('u64_integer_promotion_target', ref.DEFAULT_TARGET)}")
    return "|".join(parts)


def params_of(p: dict) -> tuple[DType, DType, tuple[int, int], dict]:
    """(t0, t1, ranks, decide's keyword arguments) of a group's params."""
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    ranks = tuple(0 if s == "scalar" else 1 for s in p["shapes"].split("_"))
    attrs = {"promote_unsafe": bool(p["promote_unsafe"]),
             "pytorch_scalar_promotion": bool(p["pytorch_scalar_promotion"]),
             "u64_integer_promotion_target": p.get("u64_integer_promotion_target", ref.DEFAULT_TARGET)}
    return t0, t1, ranks, attrs


def shape_choices(rank: int) -> list[Shape]:
    """The shapes a group's input can have, as far as any decision here can tell: a scalar, or a dimensioned
    tensor of one element or of several."""
    return [()] if rank == 0 else [(1,), (2,)]


def _describe(d: ref.Decision) -> str:
    return ref.element_name(d.common) if d.common is not None else "a refusal"


def _decision_equivalent(decide: Decide) -> Callable[[dict], str | None]:
    def equivalent(params: dict) -> str | None:
        t0, t1, ranks, a = params_of(params)
        seen = set()
        for s0 in shape_choices(ranks[0]):
            for s1 in shape_choices(ranks[1]):
                r, f = decide_reference(t0, t1, s0, s1, a), decide(t0, t1, s0, s1, a)
                if (r.common is None) != (f.common is None) or r.common != f.common:
                    return None
                seen.add(_describe(r))
        both = " / ".join(sorted(seen))
        if seen == {"a refusal"}:
            return ("decision: the fault and the reference both refuse this pair (types, ranks, attributes of the "
                    "group); a refused model has no values")
        return (f"decision: the fault decides {both} like the reference for the types, ranks and attributes of the "
                f"group (every dimensioned input of one element or more); the values are then the same Cast")
    return equivalent
