"""QGemm models the text rules out (negative/): the backend must refuse them. Each breaks one valid configuration
in one place (a type, a shape, an input count); the one data set has the declared types and shapes, for backends
that only look at run time."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.qgemm.config import CLAUSE, FAMILY, OPSET, Gemm, draw_dataset, model
from generator.reference.qgemm import READING_OUTPUT_PAIR, READING_PER_COLUMN

_BASE = Gemm("negative", m=3, k=4, n=5, types=("uint8", "int8", "uint8"), c_shape=(5,))

# what -> (name -> new type, name -> new shape, why)
NEGATIVES: dict[str, tuple] = {
    "a_int16": ({"A": "int16", "a_zero_point": "int16"}, {}, "A is int16: TA is uint8 / int8 [TA]"),
    "b_int32": ({"B": "int32", "b_zero_point": "int32"}, {}, "B is int32: TB is uint8 / int8 [TB]"),
    "a_zero_point_type": ({"a_zero_point": "int8"}, {}, "A is uint8, a_zero_point int8: both are TA [TA]"),
    "b_zero_point_type": ({"b_zero_point": "uint8"}, {}, "B is int8, b_zero_point uint8: both are TB [TB]"),
    "c_int8": ({"C": "int8"}, {}, "C is int8: TC is int32 [TC; C: 'Its type is int32_t']"),
    "c_float": ({"C": "float"}, {}, "C is float: TC is int32 [TC]"),
    "y_zero_point_int32": ({"y_zero_point": "int32"}, {}, "y_zero_point is int32: TYZ is uint8 / int8 [TYZ]"),
    "scale_double": ({"a_scale": "double", "b_scale": "double", "y_scale": "double"}, {},
                     "double scales: T is float [T]"),
    "a_rank_3": ({}, {"A": (1, 3, 4)}, "A is 3-D: 'The shape of A should be (M, K)' [A]"),
    "b_rank_1": ({}, {"B": (4,)}, "B is 1-D: 'The shape of B should be (K, N)' [B]"),
    "k_mismatch": ({}, {"B": (5, 5)}, "A (3, 4) and B (5, 5): K differs [A, B]"),
    "a_scale_vector": ({}, {"a_scale": (3,)}, "a_scale of 3 elements: 'It is a scalar, which means a per-tensor "
                                               "quantization' [a_scale]"),
    "a_zero_point_vector": ({}, {"a_zero_point": (3,)}, "a_zero_point of 3 elements: 'It is a scalar' "
                                                         "[a_zero_point]"),
    "b_scale_k": ({}, {"b_scale": (4,)}, "b_scale of K = 4 elements: 'its number of elements should be equal to the "
                                          "number of columns of input B' (N = 5) [b_scale; READING_PER_COLUMN]"),
    "b_zero_point_2d": ({}, {"b_zero_point": (1, 5)}, "b_zero_point [1, 5]: 'a scalar or a 1-D tensor' "
                                                      "[b_zero_point]"),
    "c_not_broadcastable": ({}, {"C": (3,)}, "C [3] against (M, N) = (3, 5): not unidirectionally broadcastable "
                                             "[C]"),
    "c_rank_3": ({}, {"C": (1, 3, 5)}, "C [1, 3, 5]: a 3-D C does not broadcast unidirectionally to (M, N) [C]"),
    "y_scale_vector": ({}, {"y_scale": (5,)}, "y_scale of 5 elements: 'It is a scalar, which means a per-tensor "
                                              "quantization' [y_scale]"),
}
READINGS = {"b_scale_k": READING_PER_COLUMN}
# negatives of another input list: what -> (configuration, why)
OTHERS: dict[str, tuple] = {
    "y_scale_only": ("y_scale without y_zero_point: the output type is not named (READING_OUTPUT_PAIR) [y_scale, "
                     "y_zero_point]"),
    "five_inputs": "five inputs: QGemm takes 6 - 9 [Inputs (6 - 9)]",
}


def _retype(v: np.ndarray, t: str) -> np.ndarray:
    return np.asarray(v).astype(dtypes.get(t).np_dtype)


def negative_case(what: str, base: Gemm, inputs: list[np.ndarray], seed: int) -> Case:
    """The negative case `what` (NEGATIVES) built from a valid configuration with C and a data set of it."""
    retype, reshape, why = NEGATIVES[what]
    g = replace(base, what=f"negative_{what}")
    data = dict(zip(g.slots, inputs))
    for name, t in retype.items():
        data[name] = _retype(data[name], t)
    for name, shape in reshape.items():
        data[name] = np.resize(data[name], shape)
    shapes = {n: np.shape(v) for n, v in data.items()}
    types = {n: dtypes.from_numpy(np.asarray(v).dtype).name for n, v in data.items()}
    return FAMILY.negative(g.name, model(g, shapes, types, y_shape=(g.m, g.n)), [[data[n] for n in g.slots]],
                           phase="run", opset=OPSET, clause=CLAUSE, seed=sampling.case_seed(seed, g.name),
                           flags=["negative"], params=g.params(), invalid=why, reading=READINGS.get(what))


def _other_case(what: str, seed: int) -> Case:
    from onnx import helper

    from generator.case import finish_model, value_info
    from generator.reference.qgemm import DOMAIN, DOMAIN_OPSET, INPUTS

    g = replace(_BASE, what=f"negative_{what}", c_shape=None)
    inputs = draw_dataset(g, sampling.Stream(sampling.case_seed(seed, g.name)), 0)
    data = dict(zip(g.slots, inputs))
    names = list(INPUTS[:6]) + ["", "y_scale"] if what == "y_scale_only" else list(INPUTS[:5])
    given = [n for n in names if n]
    node = helper.make_node("QGemm", names, ["Y"], domain=DOMAIN)
    types, shapes = g.input_types(), g.shapes()
    out_type = dtypes.get("uint8" if what == "y_scale_only" else "float")
    graph = helper.make_graph([node], "qgemm", [value_info(n, dtypes.get(types[n]), shapes[n]) for n in given],
                              [value_info("Y", out_type, (g.m, g.n))])
    m = finish_model(graph, OPSET, {DOMAIN: DOMAIN_OPSET})
    return FAMILY.negative(g.name, m, [[data[n] for n in given]], phase="run", opset=OPSET, clause=CLAUSE,
                           seed=sampling.case_seed(seed, g.name), flags=["negative"], params=g.params(),
                           invalid=OTHERS[what], reading=READING_OUTPUT_PAIR if what == "y_scale_only" else None)


def negative_cases(seed: int) -> Iterator[Case]:
    """Every NEGATIVES case on _BASE, then OTHERS."""
    for what in NEGATIVES:
        inputs = draw_dataset(_BASE, sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_negative_{what}")), 0)
        yield negative_case(what, _BASE, inputs, seed)
    for what in OTHERS:
        yield _other_case(what, seed)
