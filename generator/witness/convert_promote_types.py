"""Witnesses of the ConvertPromoteTypes fault models (generator/reference/convert_promote_types_faults/).

For every parameter group of the family (each variant of generator.families.convert_promote_types: pair,
attributes, ranks) and every fault that can differ there (`fault.equivalent(params)` is None), inputs on
which the fault and the reference disagree:

  decision faults  by construction: the shapes (a one-element dimensioned input where the element-count
                   fault needs one) on which the two decisions differ, with the value 1 in every input (any
                   value shows a different output type); {"negative": true} where the reference refuses the
                   pair and the fault accepts it (a negative case with those shapes kills it)
  value faults     an input type of <= 16 bits: exhaustive (every value enumerated, the first and last that
                   differ); a wider one: by construction (values just above a midpoint of the common type that
                   the intermediate type turns into a tie; 2**24 + 1; 2**31; +-Inf), each checked against the
                   reference; a hypothesis search (values a few steps from a midpoint of two neighbours of
                   the common type, shrunk) only where construction finds nothing

A witness (JSON): {"shapes": [shape_0, shape_1], "input_0": [values], "input_1": [values]} (values flattened;
integers as JSON numbers, booleans as JSON booleans, floats as float.hex strings, exact), or
{"shapes": [...], "negative": true}.
"""

from __future__ import annotations

import numpy as np

from generator import sampling
from generator.catalogue.convert_promote_types import FILLER, encode
from generator.dtypes import DType
from generator.families.convert_promote_types.constructions import constructed, in_range
from generator.families.convert_promote_types.groups import group_params, group_variants
from generator.reference import convert_promote_types_faults as F
from generator.reference.convert_promote_types_faults.decisions import rdecide
from generator.reference.convert_promote_types_faults.groups import params_of
from generator.reference.convert_promote_types_faults.values import differing, value_can_differ, value_witnesses


# ---------------------------------------------------------------------------------------
# decision faults
# ---------------------------------------------------------------------------------------
def _preferred_shapes(rank: int, k: int) -> list[tuple]:
    """Shapes to try, ordinary ones first: a scalar; else several elements, then one."""
    if rank == 0:
        return [()]
    return [(2,) if k == 0 else (1, 2), (1,)]


def decision_witness(fault, t0: DType, t1: DType, ranks, a: dict) -> dict | None:
    decide = fault.fn.decide
    for s0 in _preferred_shapes(ranks[0], 0):
        for s1 in _preferred_shapes(ranks[1], 1):
            r, f = F.decide_reference(t0, t1, s0, s1, a), decide(t0, t1, s0, s1, a)
            if r.common == f.common and (r.common is None) == (f.common is None):
                continue
            shapes = [list(s0), list(s1)]
            if r.common is None:
                return {"shapes": shapes, "negative": True}
            return {"shapes": shapes,
                    "input_0": [encode(FILLER, t0)] * int(np.prod(s0, dtype=np.int64)),
                    "input_1": [encode(FILLER, t1)] * int(np.prod(s1, dtype=np.int64))}
    return None


class _Found(Exception):
    pass


def _search(name: str, src: DType, to: DType, examples: int) -> list:
    """hypothesis: values of src near a midpoint of two neighbours of `to` (where rounding twice can go the
    other way), a few steps either side of it; the first on which the fault differs, shrunk; [] if none among
    `examples` examples.

    Deterministic: the search stops after a number of examples, never at a time (a clock read inside the test
    function made a witness found just before a time limit fail to reproduce on hypothesis's replay:
    FlakyFailure under load); derandomized, no database, no deadline, one bug reported. What it returns is
    checked against the reference here, not by a hypothesis replay."""
    if examples < 1:
        return []
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st

    vals = None
    if to.bits <= 16:
        with np.errstate(invalid="ignore"):
            every = to.from_bits(np.arange(1 << to.bits, dtype=np.uint64)).astype(np.float64)
        vals = sampling.distinct(every[np.isfinite(every)])  # np.unique's zero depends on the CPU

    def candidate(k: int, steps: int) -> np.ndarray | None:
        if vals is not None:
            k %= len(vals) - 1
            lo, hi = vals[k], vals[k + 1]
        else:  # a wide target: neighbours of a power of two
            e = k % 120 - 20
            lo = 2.0 ** e
            hi = float(np.nextafter(np.array(lo, dtype=to.np_dtype), np.array(np.inf, dtype=to.np_dtype)))
        if src.is_integer:
            h = (int(lo) + int(hi)) // 2 if lo == int(lo) and hi == int(hi) else None
            if h is None or not in_range(src, h + steps):
                return None
            return np.array([h + steps], dtype=object).astype(src.np_dtype)
        x = np.array((lo + hi) / 2, dtype=src.np_dtype)
        for _ in range(abs(steps)):
            x = np.nextafter(x, np.array(np.sign(steps) * np.inf, dtype=src.np_dtype))
        return x.reshape(1)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True, report_multiple_bugs=False,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 1 << 16), st.integers(-4, 4))
    def probe(k, steps):
        x = candidate(k, steps)
        if x is not None and differing(F.VALUE_CONVERTS[name], x, src, to).size:
            raise _Found(x[0].item() if hasattr(x[0], "item") else x[0])

    try:
        probe()
    except _Found as found:
        value = found.args[0]
    else:
        return []
    x = np.array([value], dtype=object if src.is_integer else np.float64).astype(src.np_dtype)
    if not differing(F.VALUE_CONVERTS[name], x, src, to).size:  # the reference decides, not a replay
        raise AssertionError(f"{name}: the search's witness {value!r} ({src.name} -> {to.name}) does not differ")
    return [value]


SIGNED_NAN_FAULTS = ("float8e4m3fn_negative_nan_as_number",)  # their witness is a negative NaN


def _encode(x, t: DType, name: str):
    """encode; for the faults of SIGNED_NAN_FAULTS a negative NaN is written "-nan" (float.fromhex reads it back
    with its sign: f8e4m3fn 0xFF), where encode writes every NaN "nan" (+NaN)."""
    e = encode(x, t)
    return "-nan" if name in SIGNED_NAN_FAULTS and e == "nan" and np.signbit(np.float64(x)) else e


def _constructed_here(name: str, src: DType) -> list:
    """Candidates for the value faults generator.families.convert_promote_types.constructions has none for: the
    smallest subnormal of a float input and its negative (denormals_flushed_to_f64)."""
    if name == "denormals_flushed_to_f64" and src.is_float:
        return [float(src.smallest_subnormal), -float(src.smallest_subnormal)]
    return []


def value_witness_values(name: str, src: DType, to: DType, examples: int) -> tuple[str, list]:
    """(how, values of src) on which value fault `name` differs converting to `to`."""
    if src.bits <= 16 or src.kind == "bool":
        return "exhaustive", list(value_witnesses(name, src.name, to.name))
    cand = constructed(name, src, to) + _constructed_here(name, src)
    x = np.array(cand, dtype=object if src.is_integer else np.float64).astype(src.np_dtype) if cand else \
        np.array([], dtype=src.np_dtype)
    bad = differing(F.VALUE_CONVERTS[name], x, src, to) if x.size else x
    if bad.size:
        return "construction", bad.tolist()
    return "search", _search(name, src, to, examples)


def value_witnesses_of_group(fault, v, examples: int) -> tuple[str, list[dict]]:
    t0, t1, ranks, a = params_of(group_params(v))
    common = rdecide(t0, t1, *ranks, a).common
    hows, out = [], []
    for k, (t, r) in enumerate(zip((t0, t1), ranks)):
        if value_can_differ(F.short_name(fault), t, common) is not None:
            continue
        how, vals = value_witness_values(F.short_name(fault), t, common, examples)
        if not vals:
            continue
        hows.append(how)
        other = (t1, t0)[k]
        per_set = [[x] for x in vals] if r == 0 else [vals]
        for xs in per_set:
            shape = [] if r == 0 else ([len(xs)] if k == 0 else [1, len(xs)])
            n_other = 1 if ranks[1 - k] == 0 else 2
            other_shape = [] if n_other == 1 else ([2] if k == 1 else [1, 2])
            w = {f"input_{k}": [_encode(x, t, F.short_name(fault)) for x in xs], f"input_{1 - k}": [encode(FILLER, other)] * n_other}
            w["shapes"] = [shape, other_shape] if k == 0 else [other_shape, shape]
            out.append(w)
    how = "exhaustive" if hows and all(h == "exhaustive" for h in hows) else (
        "search" if "search" in hows else "construction")
    return how, out


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def find(max_opset: int, budget: int) -> dict:
    """The catalogue's groups: per group, its params and, per fault that can differ there, how the witnesses
    were found and the witnesses. Equivalent faults are left out (their proofs are `fault.equivalent`).
    budget: hypothesis examples for each search (a value fault that construction leaves open)."""
    groups = group_variants(max_opset)
    out: dict = {}
    for key, v in sorted(groups.items()):
        params = group_params(v)
        t0, t1, ranks, a = params_of(params)
        faults: dict = {}
        for fault in F.FAULTS:
            if fault.equivalent(params) is not None:
                continue
            if fault in F.DECISION_FAULTS:
                w = decision_witness(fault, t0, t1, ranks, a)
                if w is None:
                    raise AssertionError(f"{key}: {fault.name} is not equivalent but no shapes tell it apart")
                faults[fault.name] = {"how": "construction", "witnesses": [w]}
            else:
                how, ws = value_witnesses_of_group(fault, v, budget)
                if not ws:
                    raise AssertionError(f"{key}: {fault.name} is not equivalent but no witness was found")
                faults[fault.name] = {"how": how, "witnesses": ws}
        if faults:
            out[key] = {"params": params, "faults": faults}
    return out
