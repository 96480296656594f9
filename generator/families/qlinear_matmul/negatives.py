"""QLinearMatMul models the text rules out (negative/): the backend must refuse them. Each breaks one valid
configuration in one place (a type or a shape); the one data set has the declared types and shapes, for backends
that only look at run time."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.qlinear_matmul.mm import CLAUSE, FAMILY, MatMul, draw_dataset, model, spec_file
from generator.reference.qlinear_matmul import READING_PER_COLUMN

_BASE = MatMul("negative", a_shape=(3, 4), b_shape=(4, 5), types=("uint8", "int8", "uint8"))


def _retype(v: np.ndarray, t: str) -> np.ndarray:
    return np.asarray(v).astype(dtypes.get(t).np_dtype)


# what -> (opset, input index -> new type, input index -> new shape, why)
NEGATIVES: dict[str, tuple] = {
    "a_int16": (21, {0: "int16", 2: "int16"}, {}, "a is int16: T1 is int8 / uint8 / float8 [T1]"),
    "y_int32": (21, {7: "int32"}, {}, "y_zero_point is int32: T3 is int8 / uint8 / float8 [T3]"),
    "a_zero_point_type": (21, {2: "int8"}, {}, "a is uint8, a_zero_point int8: both are T1 [T1]"),
    "b_zero_point_type": (21, {5: "uint8"}, {}, "b is int8, b_zero_point uint8: both are T2 [T2]"),
    "scale_float16_opset10": (10, {1: "float16", 4: "float16", 6: "float16"}, {},
                              "float16 scales at opset 10: QLinearMatMul-10's scales are tensor(float) [a_scale]"),
    "scale_types_differ": (21, {4: "float16"}, {}, "a_scale float, b_scale float16: the scales share TS [TS]"),
    "scale_double": (21, {1: "double", 4: "double", 6: "double"}, {}, "double scales: TS is float / float16 / "
                                                                      "bfloat16 [TS]"),
    "float8_opset10": (10, {0: "float8e4m3fn", 2: "float8e4m3fn"}, {}, "a float8 at opset 10: T1 is int8 / uint8 "
                                                                      "[QLinearMatMul-10: T1]"),
    "a_scalar": (21, {}, {0: ()}, "a is 0-D: numpy.matmul takes no scalar operand [summary]"),
    "k_mismatch": (21, {}, {3: (5, 5)}, "a [3, 4] and b [5, 5]: K differs [summary: numpy.matmul]"),
    "batch_mismatch": (21, {}, {0: (2, 3, 4), 3: (3, 4, 5)}, "batch [2] and [3] do not broadcast [summary]"),
    "a_scale_per_column": (21, {}, {1: (4,), 2: (4,)}, "a_scale / a_zero_point of K = 4 elements: 'They must be "
                                                       "either scalar (per tensor) or N-D tensor (per row for 'a' "
                                                       "...)': a is per tensor or per row (M = 3); the next "
                                                       "sentence's 'K element vector ... for per column', read of a "
                                                       "[M, K] a, would allow it: read as b's columns "
                                                       "(READING_PER_COLUMN) [summary]"),
    "b_scale_per_row": (21, {}, {4: (4,), 5: (4,)}, "b_scale / b_zero_point of K = 4 elements: 'per column for "
                                                    "'b'': b [4, 5] has N = 5 columns; the text's 'K element vector "
                                                    "... for per column', read literally, is this K = 4: read as "
                                                    "b's column count N (READING_PER_COLUMN) [summary]"),
    "scale_zero_point_shapes": (21, {}, {1: (3,)}, "a_scale [3], a_zero_point a scalar: 'Scale and zero point must "
                                                   "have same shape' [summary]"),
    "b_scale_n_zero_point_1n": (21, {}, {4: (5,), 5: (1, 5)}, "b_scale [5] and b_zero_point [1, 5] (onnxruntime's "
                                                              "own per-column tests): one element per column each, "
                                                              "but 'Scale and zero point must have same shape' "
                                                              "[summary]"),
    "y_scale_vector": (21, {}, {6: (5,)}, "y_scale [5] and y_zero_point []: 'Scale and zero point must have same "
                                          "shape' [summary] (the text names no per-column y; only this sentence "
                                          "rules the model out)"),
}
# the negatives that rest on a reading, not on a sentence alone: case.json "reading"
READINGS = {"a_scale_per_column": READING_PER_COLUMN, "b_scale_per_row": READING_PER_COLUMN}


def negative_case(what: str, base: MatMul, inputs: list[np.ndarray], seed: int) -> Case:
    """The negative case `what` (NEGATIVES) built from a valid configuration and a data set of it."""
    opset, retype, reshape, why = NEGATIVES[what]
    mm = replace(base, what=f"negative_{what}", opset=opset)
    inputs = list(inputs)
    for j, t in retype.items():
        inputs[j] = _retype(inputs[j], t)
    for j, shape in reshape.items():
        inputs[j] = np.resize(inputs[j], shape)
    shapes = [np.shape(v) for v in inputs]
    types = [dtypes.from_numpy(np.asarray(v).dtype) for v in inputs]
    return FAMILY.negative(mm.name, model(mm, shapes, types), [inputs], phase="run", opset=opset, clause=CLAUSE,
                           spec_file=spec_file(opset),
                           seed=sampling.case_seed(seed, mm.name), flags=["negative"], params=mm.params(),
                           invalid=why, reading=READINGS.get(what))


def negative_cases(seed: int) -> Iterator[Case]:
    """Every NEGATIVES case on _BASE."""
    for what in NEGATIVES:
        name = f"{FAMILY.prefix}_negative_{what}"
        inputs = draw_dataset(_BASE, sampling.Stream(sampling.case_seed(seed, name)), 0)
        yield negative_case(what, _BASE, inputs, seed)
