"""DynamicQuantizeLinear's cases: the node and probe cases of data sets (one x each), the seeded random inputs,
the witnesses' cases (the committed catalogue, generator/catalogue/dynamic_quantize_linear.py's form) and the
opset-boundary axis."""

from __future__ import annotations

from typing import Iterator

import numpy as np

import onnx

from generator import axes, dtypes, sampling, witness
from generator.case import Case, node_model
from generator.catalogue.dynamic_quantize_linear import decode
from generator.family import split
from generator.families.dynamic_quantize_linear.entries import CATALOGUE
from generator.families.dynamic_quantize_linear.values import (CLAUSE, COMPARE, DENORM, F32, FAMILY, FLT_MAX, OPSET,
                                                               TINY, _f32)
from generator.reference import dynamic_quantize_linear as ref


_FINITE_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, FLT_MAX, -FLT_MAX, TINY, -TINY, DENORM, -DENORM]
_NON_FINITE = [np.nan, -np.nan, np.inf, -np.inf]


def _elements(s: sampling.Stream, kind: int, n: int) -> np.ndarray:
    """n float64 values exact in float32 or rounded to it by _f32: 0 any finite float32 (sign, exponent field
    0..254 and mantissa uniform: every magnitude), 1 uniform in [-10, 10], 2 tiny magnitudes (octaves 2**-150
    to 2**-99: subnormals, and zeros once rounded), 3 finite specials (zeros, +-1, 0.5, +-FLT_MAX, smallest
    normal and subnormal)."""
    if kind == 0:
        bits = (s.bits(1, n) << np.uint64(31)) | (s.integers(0, 254, n).astype(np.uint64) << np.uint64(23)) \
            | s.bits(23, n)
        return bits.astype(np.uint32).view(F32).astype(np.float64)
    if kind == 1:
        return s.uniform(-10.0, 10.0, n)
    if kind == 2:
        return np.where(s.booleans(n), -1.0, 1.0) * s.octaves(-150, -99, n)
    return np.array(s.choices(_FINITE_SPECIALS, n), dtype=np.float64)


def random_inputs(n_elements: int, n_draws: int, seed: int) -> list[np.ndarray]:
    """n_draws lists of n_elements float32 values. Each list takes all its elements from one kind of
    _elements (4 in 5, each kind alike) or each element from a kind of its own (1 in 5); then 1 list in 4
    gets NaN or infinities at 1 to max(1, n_elements // 16) places: those draws become probes."""
    s = sampling.Stream(seed)
    out = []
    for _ in range(n_draws):
        mode = s.integers(0, 4)
        kinds = s.integers(0, 3, n_elements) if mode == 4 else np.full(n_elements, mode)
        x = np.zeros(n_elements, dtype=np.float64)
        for kind in range(4):  # every kind draws its elements, in kind order, even when none is used
            x = np.where(kinds == kind, _elements(s, kind, n_elements), x)
        if s.integers(0, 3) == 0:
            places = s.sample(range(n_elements), s.integers(1, max(1, n_elements // 16)))
            x[places] = s.choices(_NON_FINITE, len(places))
        out.append(_f32(x))
    return out


def large_input(n: int, seed: int) -> np.ndarray:
    """n float32 values, bell-shaped around a shift: (u1 + u2 + u3 + u4 - 2) * sqrt(3) with u uniform in
    [0, 1) (mean 0, variance 1), times a scale 2**[-10, 10) (octaves), plus a shift uniform in [-1, 1];
    float64 arithmetic only (no pow / exp / log), so the values are the same on every machine."""
    s = sampling.Stream(seed)
    scale, shift = s.octaves(-10, 10), s.uniform(-1.0, 1.0)
    u = s.random((4, n))
    bell = (((u[0] + u[1]) + u[2]) + u[3] - 2.0) * 1.7320508075688772
    return _f32(bell * scale + shift)


def _model(shape: tuple, opset: int = OPSET):
    """The one-node model of an x of this shape (a str dim is symbolic)."""
    f32, u8 = dtypes.get("float"), dtypes.get("uint8")
    return node_model(FAMILY.op, [("x", f32, shape)],
                      [("y", u8, shape), ("y_scale", f32, ()), ("y_zero_point", u8, ())], {}, opset)


def _shape_of(sets: list[np.ndarray]) -> tuple:
    """The declared shape of x for these data sets: theirs if they share it, else 1-D of symbolic length n."""
    shapes = {x.shape for x in sets}
    if len(shapes) == 1:
        return next(iter(shapes))
    if any(len(s) != 1 for s in shapes):
        raise ValueError("data sets of different shapes must all be 1-D (one symbolic length)")
    return ("n",)


def _readings(datasets: list[np.ndarray]) -> str | None:
    found = {r for x in datasets for r in ref.readings(x)}
    return "; ".join(sorted(found)) or None


def cases_of(what: str, datasets: list[np.ndarray], flags: list[str], seed: int, opset: int = OPSET,
             **extra) -> Iterator[Case]:
    """The node case test_dynamicquantizelinear_<what> of the defined data sets (one x each) and the probe case
    of the others (generator.family.split); `extra` goes into case.json. Data sets of different lengths share one
    model of symbolic length; the node case's "reading" names what its defined data sets rest on."""
    outcomes = [ref.dynamic_quantize_linear(x) for x in datasets]
    defined = [x for x, o in zip(datasets, outcomes) if o.defined]
    undefined = [x for x, o in zip(datasets, outcomes) if not o.defined]
    meta = FAMILY.meta(opset=opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=seed, params={"what": what},
                       reading=_readings(defined), **extra)
    shapes = {True: _shape_of(defined) if defined else None, False: _shape_of(undefined) if undefined else None}
    yield from split(f"{FAMILY.prefix}_{what}", [[x] for x in datasets], outcomes,
                     lambda inputs: _model(shapes[any(inputs[0] is x for x in defined)], opset), meta)


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed witness catalogue (generator/witness/catalogue/
    dynamic_quantize_linear.json): test_dynamicquantizelinear_witness_<group>, one data set per distinct
    witness x, expected outputs from the reference;
    case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        sets, made_for, seen = [], [], {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                x = decode(wit)
                if x.tobytes() in seen:
                    made_for[seen[x.tobytes()]].append(name)
                    continue
                reasons = ref.dynamic_quantize_linear(x).reasons
                if reasons:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} is undefined: {reasons[0]}")
                seen[x.tobytes()] = len(sets)
                sets.append(x)
                made_for.append([name])
        if sets:
            what = "witness_" + key.replace("=", "").replace(" ", "_")
            yield from cases_of(what, sets, ["witness"], 0, witnesses=made_for)


def boundary_opsets(max_opset: int) -> list[int]:
    """The opset-boundary axis: opset 12, just above the one version (11), and the newest opset this run
    allows that onnx knows, both resolving to DynamicQuantizeLinear-11."""
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int) -> Iterator[Case]:
    """`mixed` (ONNX's own example among them) at each boundary opset: test_dynamicquantizelinear_mixed_opset<n>."""
    _, sets = CATALOGUE["mixed"]()
    for opset in boundary_opsets(max_opset):
        yield from cases_of(f"mixed_opset{opset}", sets, ["edge", "opset_boundary"], 0, opset=opset)
