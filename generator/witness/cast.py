"""Witness search for Cast: for every group (from, to, saturate, round_mode, opset) of the suite and every
fault model that applies there (generator/reference/cast_faults/), inputs on which the fault and the
reference give different defined results.

How, in order:
  exhaustive    a source of <= 16 bits: every bit pattern is tried; when none differs, the fault is
                equivalent in the group, shown by exhaustion.
  construction  wider sources (32 / 64-bit, strings): the target's rounding midpoints and overflow
                boundary, each with neighbours that a wider intermediate type rounds onto the midpoint
                (m +- ulp_T(m) / 4 for T in float16 / bfloat16 / float32 / float64), the next values of the
                source, powers of two (float8e8m0), integer strings at 2**24 / 2**53 / 2**63, plus the
                family's edge catalogue.
  search        what construction leaves: hypothesis over the source type, with target() pushing toward
                the target's midpoints.
A witness is stored as the source element's bit pattern in hex (a string source: the string itself).
"""

from __future__ import annotations

import math

import numpy as np

from generator import axes, dtypes
from generator.catalogue.cast import NAN_SIGN_FAULTS, PRESENT_ATTRIBUTE_FAULTS, decode, encode
from generator.dtypes import DType
from generator.faults import group_params, same_elements
from generator.families.cast.axes_cases import explicit_attrs, explicit_opset
from generator.families.cast.cases import _is_fnuz_sat_inf
from generator.families.cast.constructions import float_candidates, int_candidates, rounds, string_candidates
from generator.families.cast.inputs import _decimal, _to_src, _unique, edge_inputs
from generator.families.cast.variant import Variant, variants as cast_variants
from generator.reference import cast_faults
from generator.reference.cast_faults.rounding import _inf_like_overflow

MAX_WITNESSES = 2  # per (group, fault)
# faults that differ only at another opset of the group's semantics: the opset-boundary cases kill them with fixed
# inputs (+-Inf into FNUZ at Cast-23), so no search is run for them
BOUNDARY_FAULTS = {"cast.fnuz_inf_rule_at_23": "killed by the opset-boundary case <group>_inf_opset23 (+-Inf at Cast-23)"}


def groups(max_opset: int, variants=cast_variants) -> list[tuple[Variant, int]]:
    """(variant, opset) of every group the family writes node cases for (the Cast family's, or the variants of
    another family made of Cast's case functions: generator/families/cast_like.py)."""
    out = []
    for v in variants(max_opset):
        out.append((v, v.opset))
        if _is_fnuz_sat_inf(v) and v.src.has_inf and max(24, v.opset) != v.opset and 24 <= max_opset:
            out.append((v, 24))
    return out


def params_of(v: Variant, opset: int) -> dict:
    return group_params({"params": v.params, "opset": opset})


def pool(src: DType, to: DType) -> tuple[np.ndarray, bool]:
    """(candidate inputs as elements of src, exhaustive?)."""
    if src.kind != "string" and src.bits <= 16:
        return (src.all_values() if src.kind != "bool" else np.array([False, True])), True
    edge = edge_inputs(src, to)
    if src.kind == "string":
        extra = np.array(string_candidates() + [_decimal(v) for v in float_candidates(to)[:4000]
                                                 if math.isfinite(v)], dtype=object)
        return _unique(np.concatenate([edge, extra]), src), False
    if src.is_integer:
        cands = [c for c in int_candidates(to) if src.int_min <= c <= src.int_max]
        cands += [-c for c in cands if src.int_min <= -c]
        x = _to_src(cands, src)
    else:
        cands = [c for c in float_candidates(to) if math.isfinite(c)]
        cands += [-c for c in cands]
        x = np.concatenate([_to_src(cands, src), axes.nan_values(src)[1]])  # every NaN kind, from bits
    return _unique(np.concatenate([edge, x]), src), False


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def _differs(fault, x: np.ndarray, v: Variant, opset: int, attrs: dict | None = None) -> np.ndarray:
    """Element-wise: defined by the spec and the fault gives another result (on a node with `attrs`, default
    the variant's own)."""
    outcome = v.outcome(x, opset)
    try:
        z = fault.fn([x], attrs or v.attrs, opset, [v.src])[0]
    except Exception as exc:  # a fault model must give a result wherever the reference does
        raise RuntimeError(f"{fault.name} raised on {v.base_name}: {exc}") from exc
    return ~outcome.mask() & ~same_elements(outcome.outputs[0], z, v.to, nan_sign=fault.name in NAN_SIGN_FAULTS)


# faults that round monotonically onto the target: past an exactly representable R above the overflow
# threshold they overflow as the reference does, so trying every integer in [-R, R] decides them
RANGE_FAULTS = ("cast.via_float16", "cast.via_bfloat16", "cast.via_float", "cast.via_double",
                "cast.round_half_away", "cast.round_half_up", "cast.round_toward_zero")
_EVERY = {
    True: "exhaustive: all {n} subnormal {src} inputs (the only ones it changes) give the reference's result",
    False: ("exhaustive: all {n} {src} integers in [-R, R], R a power of two beyond {to}'s overflow threshold; past R "
            "the fault rounds monotonically onto values that overflow, as the reference does"),
}


def _subnormals(src: DType) -> np.ndarray:
    mags = np.arange(1, 1 << src.mantissa_bits, dtype=np.uint64)
    return src.from_bits(np.concatenate([mags, mags | np.uint64(src.sign_mask)]))


def _int_range(src: DType, to: DType) -> np.ndarray | None:
    """Every integer of src in [-R, R] when that range is small (<= 2**18 values), else None."""
    if not src.is_integer or not rounds(to) or to.finite_max > 2.0**16:
        return None
    r = 1 << (math.ceil(math.log2(to.finite_max * 2)) + 1)
    if r > 1 << 17:
        return None
    lo, hi = max(src.int_min, -r), min(src.int_max, r)
    return np.arange(lo, hi + 1, dtype=np.int64).astype(src.np_dtype)


def _inf_ok(fault, v: Variant, opset: int) -> bool:
    """An intermediate type that overflows to Inf on some source value must convert Inf like an overflow."""
    mid = fault.name[len("cast.via_"):] if fault.name.startswith("cast.via_") else None
    if mid is None or max(-v.src.int_min, v.src.int_max) <= dtypes.get(mid).finite_max:
        return True
    return _inf_like_overflow(v.to, v.saturate is not False, opset)


def _pick(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    idx = np.flatnonzero(mask)
    return x[idx[:MAX_WITNESSES]]


def _search(fault, v: Variant, opset: int, examples: int) -> np.ndarray | None:
    """hypothesis over the source type; None if it finds nothing in `examples` tries."""
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    src = v.src
    if src.kind == "string":
        strat = st.one_of(st.integers(-(2**70), 2**70).map(str), st.floats(allow_nan=False).map(repr),
                          st.from_regex(r"[+-]?\d{1,20}(\.\d{0,20})?([eE][+-]?\d{1,3})?", fullmatch=True))
        to_x = lambda s: np.array([s], dtype=object)  # noqa: E731
    elif src.is_integer:
        strat = st.integers(src.int_min, src.int_max)
        to_x = lambda i: np.array([i], dtype=object).astype(src.np_dtype)  # noqa: E731
    else:
        strat = st.integers(0, (1 << src.bits) - 1)
        to_x = lambda b: src.from_bits(np.array([b], dtype=np.uint64))  # noqa: E731
    try:
        found = find(strat, lambda e: bool(_differs(fault, to_x(e), v, opset).any()),
                     settings=settings(max_examples=examples, database=None, deadline=None, derandomize=True,
                                       suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None
    return to_x(found)


def find_group(v: Variant, opset: int, search_examples: int) -> dict:
    params = params_of(v, opset)
    x, exhaustive = pool(v.src, v.to)
    out: dict = {}
    for fault in cast_faults.FAULTS:
        if not fault.applies(params):
            continue
        reason = fault.equivalent(params)
        if reason is not None:
            out[fault.name] = {"equivalent": reason}
            continue
        if fault.name in BOUNDARY_FAULTS:
            out[fault.name] = {"how": BOUNDARY_FAULTS[fault.name]}
            continue
        if fault.name in PRESENT_ATTRIBUTE_FAULTS:
            out[fault.name] = _explicit_witnesses(fault, v, opset, x, exhaustive)
            continue
        xs, every = x, exhaustive
        if fault.name == "cast.ftz_source" and v.src.bits == 32:  # it changes subnormal inputs only: try them all
            xs, every = _subnormals(v.src), True
        elif fault.name in RANGE_FAULTS and _int_range(v.src, v.to) is not None and _inf_ok(fault, v, opset):
            xs, every = _int_range(v.src, v.to), True
        mask = _differs(fault, xs, v, opset) if xs.size else np.zeros(0, dtype=bool)
        if mask.any():
            out[fault.name] = {"how": "exhaustive" if every else "construction", "witnesses": encode(_pick(xs, mask), v.src)}
        elif every and xs is not x:
            out[fault.name] = {"equivalent": _EVERY[fault.name.startswith("cast.ftz")].format(
                n=xs.size, src=v.src.name, to=v.to.name)}
        elif exhaustive:
            out[fault.name] = {"equivalent": f"exhaustive: all {x.size} {v.src.name} inputs give the reference's "
                                             f"result"}
        else:
            w = _search(fault, v, opset, search_examples) if search_examples else None
            if w is not None:
                out[fault.name] = {"how": "search", "witnesses": encode(w, v.src)}
            else:
                out[fault.name] = {"unresolved": f"no witness among {x.size} constructed and {search_examples} "
                                                 f"searched inputs"}
    return out


def _explicit_witnesses(fault, v: Variant, opset: int, x: np.ndarray, exhaustive: bool) -> dict:
    """A present-attribute fault, tried on the explicit-defaults model of the group (generator/families/cast/axes_cases.py, explicit_defaults)."""
    at = explicit_opset(v, opset)
    mask = _differs(fault, x, v, at, explicit_attrs(v, at)) if x.size else np.zeros(0, dtype=bool)
    if mask.any():
        return {"how": "exhaustive" if exhaustive else "construction", "explicit_witnesses": encode(_pick(x, mask), v.src)}
    if exhaustive:
        return {"equivalent": f"exhaustive: all {x.size} {v.src.name} inputs give the reference's result with the "
                              f"defaults written"}
    return {"unresolved": f"no witness among {x.size} constructed inputs with the defaults written"}


def find(max_opset: int, budget: int) -> dict:
    """The catalogue's groups. budget: hypothesis examples for each search (a fault that neither construction
    nor enumeration decides): a count, not a time, so that the catalogue does not depend on the machine's load."""
    result = {}
    for v, opset in groups(max_opset):
        params = params_of(v, opset)
        key = cast_faults.group_key({"params": v.params, "opset": opset})
        result[key] = {"params": {k: params[k] for k in sorted(params)}, "faults": find_group(v, opset, budget)}
    return result


def witness_inputs(entry: dict, src: DType) -> np.ndarray:
    """Every witness of a group (deduplicated, in fault-name order)."""
    items: list[str] = []
    for name in sorted(entry["faults"]):
        for w in entry["faults"][name].get("witnesses", []):
            if w not in items:
                items.append(w)
    return decode(items, src)
