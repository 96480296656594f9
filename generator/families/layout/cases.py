"""A pattern made into its case: both forms, the data sets, and the expected outputs from the TFLite form."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from generator import sampling
from generator.case import Case, Twin
from generator.family import split
from generator.families.layout.onnx_form import onnx_model
from generator.families.layout.pattern import FAMILY, OPSET, Pattern, compare_spec
from generator.outcome import Outcome
from generator.reference import layout as L
from generator.tflite_writer import write_tflite


def _uniform(rng: sampling.Stream, shape) -> np.ndarray:
    return rng.uniform(-1.0, 2.0, size=shape).astype(np.float32)



def build(make: Callable[..., Pattern], name: str, seed: int, datasets: int) -> list[Case]:
    """Both forms of a pattern, the data sets, and the expected outputs from the TFLite form (assemble)."""
    cseed = sampling.case_seed(seed, name)
    rng = sampling.Stream(cseed)
    p = make(rng)  # draws the weights first
    data = [[p.fill.get(n, _uniform)(rng, p.graph.tensors[n].shape) for n in p.graph.inputs]
            for _ in range(datasets)]
    return assemble(p, name, cseed, data)


def build_case(make: Callable[..., Pattern], name: str, seed: int, datasets: int) -> Case:
    """The graph case of a pattern (build), whose seeded finite data sets are all defined."""
    cases = build(make, name, seed, datasets)
    if [c.kind for c in cases] != ["graph"]:
        raise ValueError(f"{name}: a data set's result is undefined ({cases[-1].meta.get('undefined')})")
    return cases[0]


def assemble(p: Pattern, name: str, seed: int, data: list[list[np.ndarray]],
             params: dict | None = None) -> list[Case]:
    """The graph case of a pattern, and the probe of its undefined data sets if any (generator.family.split):
    data holds the TFLite-form inputs of each data set; the expected outputs come from the TFLite form, the
    ONNX form's inputs and outputs are the same arrays with the converter's layout map applied. The graph
    case carries the TFLite form as its twin; a probe has none (a twin's data sets hold expected outputs).
    seed: case.json "seed" (the pattern's weights were drawn from a Stream of it); params: fields added to
    case.json "params"."""
    cv = L.convert(p.graph, p.explicit)
    tfl = p.graph

    def onnx_form(names: list[str], arrays) -> list[np.ndarray]:
        return [np.ascontiguousarray(a.transpose(cv.perm(n))) for n, a in zip(names, arrays)]

    outcomes = [L.run(tfl, xs) for xs in data]
    defined = [(xs, list(o.outputs)) for xs, o in zip(data, outcomes) if o.defined]

    meta = FAMILY.meta(
        op=p.op, opset=OPSET, clause=p.clause, compare=compare_spec(list(tfl.outputs), [y for _, y in defined]),
        flags=["random", "layout"], seed=seed,
        params={"what": p.what, "explicit_layouts": {k: list(v) for k, v in sorted(p.explicit.items())},
                "ops": [op.type for op in tfl.ops], **(params or {})})

    def with_twin(case: Case) -> Case:
        if case.kind != "graph":
            return case
        return replace(case, twin=Twin(
            format="tflite", model=write_tflite(tfl, description=name),
            input_names=list(tfl.inputs), output_names=list(tfl.outputs),
            input_perms=[list(L.inverse(cv.perm(n))) for n in tfl.inputs],
            output_perms=[list(L.inverse(cv.perm(n))) for n in tfl.outputs],
            inputs=[xs for xs, _ in defined], outputs=[ys for _, ys in defined]))

    return [with_twin(c) for c in split(name, [onnx_form(tfl.inputs, xs) for xs in data],
                                        [Outcome(tuple(onnx_form(tfl.outputs, o.outputs)), o.undefined)
                                         for o in outcomes],
                                        lambda _: onnx_model(cv.graph, name, p.defaults), meta, kind="graph")]
