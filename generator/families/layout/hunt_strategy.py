"""Layout's live hunt (opconform hunt; generator/hunting.py): the patterns with drawn sizes, windows, attribute values
and data; rebuild(args) remakes a finding's example."""

from __future__ import annotations

import json
from typing import Callable, Sequence

import numpy as np

from generator import sampling
from generator.case import Case
from generator.families.layout.cases import _uniform, assemble
from generator.families.layout.dims import Dims
from generator.families.layout.pattern import OPSET
from generator.families.layout.patterns import CATALOGUE
from generator.hunting import Example

HUNT_DATA: dict[str, Callable[[sampling.Stream, tuple], np.ndarray]] = {
    # asymmetric ranges: a sign error or a reversed order cannot pass
    "uniform [-1, 2)": _uniform,
    "integers [-2, 3]": lambda rng, shape: rng.integers(-2, 3, size=shape).astype(np.float32),
    "uniform [-24, 40)": lambda rng, shape: rng.uniform(-24.0, 40.0, size=shape).astype(np.float32),
}


def hunted_cases(pattern: str, seed: int, d: Dims, data: str = "uniform [-1, 2)") -> list[Case]:
    """The graph case (or probe: assemble) of CATALOGUE[pattern] with the sizes d gives (drawn, or replayed
    from params "sizes"), its weights and then one data set drawn from a Stream of `seed` (values:
    HUNT_DATA[data]). case.json params carry "pattern", "sizes" and "data", from which source_pattern
    rebuilds it."""
    rng = sampling.Stream(seed)
    p = CATALOGUE[pattern](rng, d)
    xs = [HUNT_DATA[data](rng, p.graph.tensors[n].shape) for n in p.graph.inputs]
    params = {"pattern": pattern, "sizes": dict(sorted(d.values.items())), "data": data}
    return assemble(p, pattern, seed, [xs], params)


def hunt_order() -> list[str]:
    """The patterns, simplest first (fewest ops, then fewest input elements): where a hunt shrinks to."""
    def weight(name: str):
        g = CATALOGUE[name](sampling.Stream(0)).graph
        return len(g.ops), sum(int(np.prod(g.tensors[n].shape)) for n in g.inputs), name

    return sorted(CATALOGUE, key=weight)


def hunt(max_opset: int, patterns: Sequence[str] | None = None):
    """Graph cases for opconform hunt (generator/hunting.py), None below OPSET: one slice per pattern of the
    catalogue (simplest first); with `patterns` (names of CATALOGUE), one strategy over those, its sizes and
    attribute values (Dims: sizes from 1 up, equal sizes often; conv / pool windows with either padding, kernels
    1 to 3 and strides 1 or 2, so that SAME's odd pixel moves; the pattern's pads, slices, split, perm, slope
    shape, reduced axis), its weights and one data set from a drawn seed (shrinks toward 0), and the range of
    the data (HUNT_DATA). Every result is defined (finite float32 data, no empty tensor), so no example has a
    probe. Example.args: pattern, seed, sizes, data (rebuild)."""
    from hypothesis import strategies as st

    if max_opset < OPSET:
        return None
    if patterns is None:  # one slice per pattern: the hunter gives each its turn (generator/hunting.py)
        return {name.removeprefix("test_layout_"): hunt(max_opset, [name]) for name in hunt_order()}
    order = [n for n in hunt_order() if n in patterns]
    if patterns is not None and len(order) != len(set(patterns)):
        raise ValueError(f"no layout pattern {sorted(set(patterns) - set(order))}")

    @st.composite
    def examples(draw):
        pattern = draw(st.sampled_from(order))
        seed = draw(st.integers(0, 2**32 - 1))
        data = draw(st.sampled_from(list(HUNT_DATA)))
        d = Dims(draw=draw)
        cases = hunted_cases(pattern, seed, d, data)
        return _example(cases, {"pattern": pattern, "seed": seed, "sizes": d.values, "data": data})

    return examples()


def rebuild(args: dict) -> Example:
    """The hunted example args describe (generator/hunting.py), built again: same sizes, weights and data."""
    return _example(hunted_cases(args["pattern"], args["seed"], Dims(args["sizes"]), args["data"]), args)


def _example(cases: list[Case], args: dict) -> Example:
    kinds = {c.kind: c for c in cases}
    return Example(kinds.get("graph"), kinds.get("probe"), json.loads(json.dumps(args, sort_keys=True)))
