"""Witness search for Cast: for every group (from, to, saturate, round_mode, opset) of the suite and every
fault model that applies there (generator/reference/cast_faults.py), inputs on which the fault and the
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
from generator.dtypes import DType
from generator.faults import group_params, same_elements
from generator.hunting import ulp
from generator.families import cast as family
from generator.reference import cast_faults

MAX_WITNESSES = 2  # per (group, fault)
# faults that read an attribute only where the model writes it: their witnesses are searched on the model of the
# explicit-defaults axis (the defaults written, at the group's first opset that has them) and stored as
# "explicit_witnesses", which only that case reads (generator/families/cast.py, explicit_defaults)
PRESENT_ATTRIBUTE_FAULTS = ("cast.present_saturate_read_as_0", "cast.present_round_mode_as_nearest",
                            "cast.present_saturate_beyond_float8")
# faults that differ only at another opset of the group's semantics: the opset-boundary cases kill them with fixed
# inputs (+-Inf into FNUZ at Cast-23), so no search is run for them
BOUNDARY_FAULTS = {"cast.fnuz_inf_rule_at_23": "killed by the opset-boundary case <group>_inf_opset23 (+-Inf at Cast-23)"}
NAN_SIGN_FAULTS = ("cast.nan_sign_lost", "cast.input_nan_sign_lost")  # judged only where the sign of NaN is compared


def groups(max_opset: int, variants=family.variants) -> list[tuple[family.Variant, int]]:
    """(variant, opset) of every group the family writes node cases for (the Cast family's, or the variants of
    another family made of Cast's case functions: generator/families/cast_like.py)."""
    out = []
    for v in variants(max_opset):
        out.append((v, v.opset))
        if family._is_fnuz_sat_inf(v) and v.src.has_inf and max(24, v.opset) != v.opset and 24 <= max_opset:
            out.append((v, 24))
    return out


def params_of(v: family.Variant, opset: int) -> dict:
    return group_params({"params": v.params, "opset": opset})


def encode(x: np.ndarray, src: DType) -> list[str]:
    if src.kind == "string":
        return [str(s) for s in x]
    return [hex(int(b)) for b in src.to_bits(x).tolist()]


def decode(items: list[str], src: DType) -> np.ndarray:
    if src.kind == "string":
        return np.array(items, dtype=object)
    return src.from_bits(np.array([int(s, 16) for s in items], dtype=np.uint64))


# ---------------------------------------------------------------------------------------
# candidate pools
# ---------------------------------------------------------------------------------------
def _midpoints(to: DType) -> list[float]:
    """Positive midpoints between consecutive values of a rounding target, and the overflow midpoint; for a
    wide target, the midpoints of sampled binades."""
    if to.bits <= 16:
        with np.errstate(invalid="ignore"):
            vals = to.all_values().astype(np.float64)
        vals = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
        mids = list((vals[:-1] + vals[1:]) / 2)
    else:
        mids = []
        top = math.frexp(to.finite_max)[1] - 1
        exps = sorted({to.min_exponent - to.mantissa_bits, to.min_exponent - 1, to.min_exponent, to.min_exponent + 1,
                       -1, 0, 1, 2, 23, 24, 25, 31, 52, 53, 54, 62, 63, 64, top - 1, top} & set(range(
                           to.min_exponent - to.mantissa_bits, top + 1)))
        for e in exps:
            q = math.ldexp(1.0, max(e, to.min_exponent) - to.mantissa_bits)
            base = math.ldexp(1.0, e)
            for k in (0, 1, 2, 3, 5, (1 << to.mantissa_bits) - 1, (1 << to.mantissa_bits) - 2):
                mids.append(base + k * q + q / 2)
    ulp_top = ulp(to.finite_max, to)
    mids.append(to.finite_max + ulp_top / 2)
    return [m for m in mids if math.isfinite(m)]


def _float_candidates(to: DType) -> list[float]:
    out = []
    if not to.is_float:
        return out
    if to.nan_style == dtypes.E8M0:
        for k in range(-128, 129):
            p = math.ldexp(1.0, k)
            for f in (1.0, 1.5, math.sqrt(2)):
                for d in (0.0, 2.0**-10, -2.0**-10, 2.0**-23, -2.0**-24, 2.0**-52, -2.0**-53, 2.0**-7, -2.0**-8):
                    out.append(p * f * (1 + d))
        return out
    for m in _midpoints(to):
        out.append(m)
        for t in ("float16", "bfloat16", "float", "double"):
            u = ulp(m, dtypes.get(t))
            out += [m + u / 4, m - u / 4, m + u / 2, m - u / 2]
        out += [math.nextafter(m, math.inf), math.nextafter(m, -math.inf)]
    return out


def _int_candidates(to: DType) -> list[int]:
    out = []
    if to.nan_style == dtypes.E8M0:
        for k in range(0, 65):
            for base in (1 << k, 3 << max(k - 1, 0)):
                out += [base - 1, base, base + 1]
        return out
    if not _rounds(to):
        return out
    p = to.mantissa_bits + 1
    for e in range(p, 65):
        q = 1 << (e - to.mantissa_bits)  # spacing of `to` in [2**e, 2**(e+1))
        if q < 2:
            continue
        for k in (0, 1, 2, 3, (1 << to.mantissa_bits) - 2, (1 << to.mantissa_bits) - 1):
            m = (1 << e) + k * q + q // 2
            out.append(m)
            for t in ("float16", "bfloat16", "float", "double"):
                tt = dtypes.get(t)
                d = 1 << max(e - tt.mantissa_bits - 2, 0)
                out += [m + d, m - d]
            out += [m + 1, m - 1]
    return out


def _rounds(to: DType) -> bool:
    return to.is_float and to.nan_style != dtypes.E8M0


def _string_candidates() -> list[str]:
    out = ["0.1", "1.1", "0.3", "-0.1", "1e-320", "3.4028235677973366e38", "16777217.5"]
    for e in (24, 25, 31, 32, 53, 54, 62, 63, 64):
        for d in (-3, -1, 1, 3):
            out += [str((1 << e) + d), str(-((1 << e) + d))]
    return out


def pool(src: DType, to: DType) -> tuple[np.ndarray, bool]:
    """(candidate inputs as elements of src, exhaustive?)."""
    if src.kind != "string" and src.bits <= 16:
        return (src.all_values() if src.kind != "bool" else np.array([False, True])), True
    edge = family.edge_inputs(src, to)
    if src.kind == "string":
        extra = np.array(_string_candidates() + [family._decimal(v) for v in _float_candidates(to)[:4000]
                                                 if math.isfinite(v)], dtype=object)
        return family._unique(np.concatenate([edge, extra]), src), False
    if src.is_integer:
        cands = [c for c in _int_candidates(to) if src.int_min <= c <= src.int_max]
        cands += [-c for c in cands if src.int_min <= -c]
        x = family._to_src(cands, src)
    else:
        cands = [c for c in _float_candidates(to) if math.isfinite(c)]
        cands += [-c for c in cands]
        x = np.concatenate([family._to_src(cands, src), axes.nan_values(src)[1]])  # every NaN kind, from bits
    return family._unique(np.concatenate([edge, x]), src), False


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def _differs(fault, x: np.ndarray, v: family.Variant, opset: int, attrs: dict | None = None) -> np.ndarray:
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
    if not src.is_integer or not _rounds(to) or to.finite_max > 2.0**16:
        return None
    r = 1 << (math.ceil(math.log2(to.finite_max * 2)) + 1)
    if r > 1 << 17:
        return None
    lo, hi = max(src.int_min, -r), min(src.int_max, r)
    return np.arange(lo, hi + 1, dtype=np.int64).astype(src.np_dtype)


def _inf_ok(fault, v: family.Variant, opset: int) -> bool:
    """An intermediate type that overflows to Inf on some source value must convert Inf like an overflow."""
    mid = fault.name[len("cast.via_"):] if fault.name.startswith("cast.via_") else None
    if mid is None or max(-v.src.int_min, v.src.int_max) <= dtypes.get(mid).finite_max:
        return True
    return cast_faults._inf_like_overflow(v.to, v.saturate is not False, opset)


def _pick(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    idx = np.flatnonzero(mask)
    return x[idx[:MAX_WITNESSES]]


def _search(fault, v: family.Variant, opset: int, examples: int) -> np.ndarray | None:
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


def find_group(v: family.Variant, opset: int, search_examples: int) -> dict:
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


def _explicit_witnesses(fault, v: family.Variant, opset: int, x: np.ndarray, exhaustive: bool) -> dict:
    """A present-attribute fault, tried on the explicit-defaults model of the group (family.explicit_defaults)."""
    at = family.explicit_opset(v, opset)
    mask = _differs(fault, x, v, at, family.explicit_attrs(v, at)) if x.size else np.zeros(0, dtype=bool)
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
