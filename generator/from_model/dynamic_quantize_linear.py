"""A model's DynamicQuantizeLinear node as a case (generator/from_model/plan.py). The node has no attribute and no
constant: what the model fixes is x's shape (its length decides which elements fall in a SIMD loop's partial last
vector) and the opset. Expected values from generator/reference/dynamic_quantize_linear.py; params, clause and
compare the family's (generator/families/dynamic_quantize_linear).

x's data, at the model's shape (flattened, a data set's values cycled to fill it; where the shape holds fewer
elements than a set, its minimum and maximum are kept first, as they decide y_scale and the zero point):
  edges   the family's edge sets (EDGE_ENTRIES, in that order of priority), taken round robin so that each entry
          is met before any gives a second set, at most max(len(EDGE_ENTRIES), ELEMENT_BUDGET // n) sets; the
          family's committed witnesses (each fault's, found by its search); then the vector-tail sets at the model's own length: the minimum last, the maximum last, a tie x / y_scale = j +
          0.5 last (the family's tail values); and the family's probe sets (y_scale 0, NaN, Inf: no value)
  draw    a tie data set (x / y_scale = j + 0.5, or one ulp off) of a random range, a zero point tie k + 0.5 of a
          random k, one of the family's random draws (any float32, [-10, 10], tiny magnitudes, specials), or a
          decisive value at a random place of the last 32 elements
  random  uniform in x's calibration range (--calibration), else the family's large-input construction (a bell
          around a shift, scale 2**[-10, 10)), seeded
"""

from __future__ import annotations

import numpy as np

from generator import witness
from generator.catalogue.dynamic_quantize_linear import decode
from generator.families.dynamic_quantize_linear.cases import random_inputs, large_input
from generator.families.dynamic_quantize_linear.entries import CATALOGUE, TAIL_INNER, TAIL_MAX, TAIL_MIN, tail_tie
from generator.families.dynamic_quantize_linear.values import CLAUSE, COMPARE, F32, FAMILY, OPSET, _tie_dataset, \
    zero_point_input
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.reference import dynamic_quantize_linear as ref
from generator.sampling import Stream

OPS = (("", "DynamicQuantizeLinear"),)
EDGE_ENTRIES = ("mixed", "zero_point_ties", "y_ties", "range_overflow", "scale_subnormal", "zero_point_near_ties",
                "y_near_ties", "range_near_flt_max", "range_smallest_normal", "all_positive", "all_negative")
PROBE_SETS = (0, 4, 6)  # of the family's `probe` entry: all zeros (y_scale 0), a NaN, +Inf
ELEMENT_BUDGET = 1 << 17  # edge elements per node past one set per entry


def plan(site: Site, ctx: Context) -> Plan | str:
    """The node's case, or why the family cannot take it."""
    if site.opset is None or site.opset < OPSET:
        return f"DynamicQuantizeLinear needs ai.onnx opset >= {OPSET}; the model imports {site.opset}"
    if len(site.inputs) != 1 or site.inputs[0].origin == "absent":
        return "the model's node is invalid: DynamicQuantizeLinear takes one input x"
    x = site.inputs[0]
    if x.type is None or x.shape is None:
        return f"x ({x.name!r}): the model leaves its element type or shape unknown"
    if x.type.name != "float":
        return f"the model's node is invalid: x is {x.type.name}; DynamicQuantizeLinear-11 takes float32 only"
    shape = tuple(x.shape)
    n = int(np.prod(shape, dtype=np.int64))

    def outcome(args):
        return ref.dynamic_quantize_linear(args[0]), tuple(ref.readings(args[0]))

    meta = dict(family=FAMILY.name, params={"what": "model"}, clause=CLAUSE, compare=COMPARE)
    if x.constant:  # a model that quantizes a constant at run time: its own value, no generated data
        return Plan(generated=[], edges=[[]], draw=None, random=None, outcome=outcome, **meta)
    edges = [[fit(s, shape)] for s in edge_sets(n)]
    given = ctx.range(x.name)

    def random(stream: Stream) -> list:
        if given is not None:
            lo, hi = float(given[0]), float(given[1])
            return [fit(np.asarray(stream.uniform(lo, hi, max(n, 1)), F32), shape)]
        return [fit(large_input(max(n, 1), stream.integers(0, 2**31 - 1)), shape)]

    def draw(stream: Stream) -> list:
        return [fit(_candidate(stream, n), shape)]

    note = "calibration" if given is not None else "the family's large input: a bell around a shift, scale 2**[-10, 10)"
    return Plan(generated=[0], edges=edges, draw=draw, random=random, outcome=outcome, range_note=note, **meta)


def fit(x: np.ndarray, shape: tuple) -> np.ndarray:
    """x's values as a tensor of shape: cycled to fill it, or cut to it with the minimum and maximum kept first
    (NaN kept too: a probe's NaN decides it)."""
    flat = np.asarray(x, F32).ravel()
    n = int(np.prod(shape, dtype=np.int64))
    if n >= flat.size or flat.size == 0:
        return np.resize(flat, n).reshape(shape).astype(F32)
    with np.errstate(invalid="ignore"):
        first = [int(np.argmin(flat)), int(np.argmax(flat))] + list(np.flatnonzero(np.isnan(flat)))
    order = list(dict.fromkeys(first + list(range(flat.size))))
    return flat[order[:n]].reshape(shape).astype(F32)


def edge_sets(n: int) -> list[np.ndarray]:
    """The edge data sets for an x of n elements (module docstring)."""
    lists = [list(CATALOGUE[name]()[1]) for name in EDGE_ENTRIES]
    most = max(len(lists), ELEMENT_BUDGET // max(n, 1))
    out = []
    for i in range(max(len(s) for s in lists)):
        out += [s[i] for s in lists if i < len(s)]
    out = out[:most] + witnesses()
    inner = np.array(TAIL_INNER, F32)
    out += [_tail(np.concatenate([[TAIL_MAX], inner]), TAIL_MIN, n),  # the minimum last: no other reaches it
            _tail(np.concatenate([[TAIL_MIN], inner]), TAIL_MAX, n),
            _tail(np.concatenate([[TAIL_MIN, TAIL_MAX], inner]), tail_tie(), n)]
    probes = CATALOGUE["probe"]()[1]
    return out + [probes[i] for i in PROBE_SETS]


def witnesses() -> list[np.ndarray]:
    """The family's committed witnesses (generator/witness/catalogue/dynamic_quantize_linear.json), each x once:
    what its search found to tell each fault apart (a zero point past 255 before the Clip, for one)."""
    seen: dict[bytes, np.ndarray] = {}
    for group in witness.load(FAMILY.name)["groups"].values():
        for entry in group["faults"].values():
            for wit in entry.get("witnesses", []):
                x = decode(wit)
                seen.setdefault(x.tobytes(), x)
    return list(seen.values())


def _tail(filler: np.ndarray, decisive: float, n: int) -> np.ndarray:
    """n elements: filler cycled, decisive last (the family's vector-tail sets at the model's length)."""
    if n <= 1:
        return np.array([decisive], F32)[:n] if n else np.zeros(0, F32)
    return np.concatenate([np.resize(filler, n - 1), np.array([decisive], F32)])


def _candidate(stream: Stream, n: int) -> np.ndarray:
    """One candidate x for the witness search (module docstring)."""
    kind = stream.integers(0, 3)
    if kind == 0:
        lo = -float(stream.octaves(-10, 10)) * float(stream.integers(0, 1))
        hi = float(stream.octaves(-10, 10))
        try:
            return _tie_dataset(lo, hi, max(2, min(n, 64)), stream.booleans())
        except ValueError:
            pass
    if kind == 1:
        k = stream.integers(0, 254)
        try:
            return zero_point_input(k + 0.5, float(stream.octaves(-6, 6)))
        except ValueError:
            pass
    if kind == 3 and n > 1:
        x = _tail(np.array([TAIL_MIN, TAIL_MAX] + TAIL_INNER, F32), 0.0, n)
        place = n - 1 - stream.integers(0, min(n - 1, 31))
        x[place] = [TAIL_MIN - 0.75, TAIL_MAX + 0.5, tail_tie()][stream.integers(0, 2)]
        return x
    return random_inputs(max(n, 1), 1, stream.integers(0, 2**31 - 1))[0]
