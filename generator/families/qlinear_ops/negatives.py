"""Models the QLinear operators' texts rule out (negative/): the backend must refuse them. Each is a valid
configuration's model with one attribute left out or one input's type or shape made invalid; its one data set has
those types and shapes, for backends that only look at run time."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import dtypes
from generator.case import Case
from generator.families.qlinear_ops.config import FAMILY, OPSET, Config, datasets, model, name, outcome
from generator.reference import qlinear_ops as ref

ADD = Config("negative", "QLinearAdd", "uint8", ((2, 3), (2, 3)), kinds=("random",))
POOL = Config("negative", "QLinearAveragePool", "uint8", ((1, 1, 4, 4),), {"kernel_shape": [2, 2]},
              kinds=("random",))
SOFTMAX = Config("negative", "QLinearSoftmax", "uint8", ((2, 4),), {"opset": 13}, kinds=("random",))
CONCAT = Config("negative", "QLinearConcat", "uint8", ((2, 3), (2, 3)), {"axis": 0}, kinds=("random",))
WHERE = Config("negative", "QLinearWhere", "uint8", ((2, 3), (2, 3), (2, 3)), kinds=("random",))

# what -> (configuration, the attribute left out, the text)
MISSING_ATTRIBUTES = {
    "averagepool_no_kernel_shape": (POOL, "kernel_shape", "QLinearAveragePool: kernel_shape is required"),
    "softmax_no_opset": (SOFTMAX, "opset", "QLinearSoftmax: opset is required ('The opset version of the "
                                           "corresponding Softmax')"),
    "concat_no_axis": (CONCAT, "axis", "QLinearConcat: axis is required"),
}
# what -> (configuration, input, its wrong type, phase, the text)
BAD_TYPES = {
    "add_mixed_types": (ADD, "B", "int8", "QLinearAdd: A, B and C are all T (uint8 or int8)"),
    "add_zero_point_type": (ADD, "A_zero_point", "int8", "QLinearAdd: A_zero_point is T, A's type"),
    "add_float_tensor": (ADD, "A", "float", "QLinearAdd: T is uint8 or int8"),
    "add_scale_float16": (ADD, "A_scale", "float16", "QLinearAdd: A_scale is tensor(float)"),
    "concat_mixed_types": (CONCAT, "X1", "int8", "QLinearConcat: every tensor and zero point is T8, Y's type"),
    "where_condition_uint8": (WHERE, "condition", "uint8", "QLinearWhere: condition is tensor(bool)"),
}
# what -> (configuration, input, its shape, the text)
BAD_SHAPES = {
    "add_scale_two_elements": (ADD, "A_scale", (2,), "QLinearAdd: A_scale 'It's a scalar' (one element)"),
    "add_zero_point_two_elements": (ADD, "C_zero_point", (2,), "QLinearAdd: C_zero_point 'It's a scalar'"),
    "where_shapes_do_not_broadcast": (WHERE, "Y", (2, 4), "QLinearWhere: condition, X and Y must broadcast"),
}


def _set_type(m, input_name: str, t: dtypes.DType):
    for vi in m.graph.input:
        if vi.name == input_name:
            vi.type.tensor_type.elem_type = t.onnx
    return m


def _with(cfg: Config, data: list, input_name: str, value: np.ndarray) -> list:
    return [value if s.name == input_name else d for s, d in zip(cfg.slots, data)]


def negative_cases(seed: int = 0) -> Iterator[Case]:
    for what, (cfg, attr, why) in MISSING_ATTRIBUTES.items():
        data = datasets(cfg, seed)[0]
        shape = np.shape(outcome(cfg, data).outputs[0])
        attrs = {k: v for k, v in cfg.attrs.items() if k != attr}
        yield _negative(cfg, what, model(cfg, shape, attrs), data, why, seed, "prepare")
    for what, (cfg, input_name, tname, why) in BAD_TYPES.items():
        data = datasets(cfg, seed)[0]
        shape = np.shape(outcome(cfg, data).outputs[0])
        t = dtypes.get(tname)
        i = [s.name for s in cfg.slots].index(input_name)
        data = _with(cfg, data, input_name, np.asarray(data[i]).astype(t.np_dtype))
        yield _negative(cfg, what, _set_type(model(cfg, shape), input_name, t), data, why, seed, "prepare")
    for what, (cfg, input_name, bad_shape, why) in BAD_SHAPES.items():
        data = datasets(cfg, seed)[0]
        i = [s.name for s in cfg.slots].index(input_name)
        data = _with(cfg, data, input_name, np.resize(data[i], bad_shape))
        bad = replace(cfg, shapes=tuple(bad_shape if s.name == input_name else shp
                                        for s, shp in zip([s for s in cfg.slots if s.kind in ("q", "cond")],
                                                          cfg.shapes)))
        m = model(bad, None)
        for vi in m.graph.input:
            if vi.name == input_name:
                del vi.type.tensor_type.shape.dim[:]
                for d in bad_shape:
                    vi.type.tensor_type.shape.dim.add().dim_value = d
        yield _negative(cfg, what, m, data, why, seed, "run")


def _negative(cfg: Config, what: str, m, data: list, why: str, seed: int, phase: str) -> Case:
    """phase: "prepare" for an attribute or a type the schema rules out; "run" for a shape (the texts give the
    shapes, not when they are checked: onnxruntime's kernels check them when they run)."""
    neg = replace(cfg, what=f"negative_{what}")
    return FAMILY.negative(name(neg),
                           m, [[x for x in data if x is not None]], phase=phase, opset=OPSET,
                           clause=ref.QOPS[cfg.op].clause, flags=["negative"], seed=seed, params=neg.params,
                           error=why, op=cfg.op)
