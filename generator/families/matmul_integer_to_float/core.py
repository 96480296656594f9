"""What the MatMulIntegerToFloat and DynamicQuantizeMatMul families share (the DynamicQuantizeMatMul package imports
this module): the one-node com.microsoft model of the given inputs, the compare spec of mode "dot" with its bound
stated, and the draws of B's side (zero points, scales exact in float32 but off float16's grid, bias).

Scales are (1 + j / 8 + 3 * 2**-13) * 2**-e in float32 (exact there; float16 drops the 3 * 2**-13: a relative
2**-11.4 that the float32 bound never allows), dyadic (1 + j / 8) * 2**-e in float16. Distinct per column.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from generator import dtypes, sampling
from generator.case import finish_model, value_info

OPSET = 21  # the ai.onnx import beside com.microsoft 1 (the model has no ai.onnx node)
DOMAIN, DOMAIN_OPSET = "com.microsoft", 1
OFF_GRID = 3 * 2.0 ** -13


def node_model(op: str, names: list[str], inputs: list[tuple], y_type: str, y_shape) -> onnx.ModelProto:
    """One `op` node of the node inputs `names` ("" for an omitted optional one); `inputs`: (name, type, shape) of
    each graph input, in order; Y of y_type and y_shape (None: unknown)."""
    while names and not names[-1]:
        names = names[:-1]
    node = helper.make_node(op, names, ["Y"], domain=DOMAIN)
    graph = helper.make_graph([node], op.lower(), [value_info(n, dtypes.get(t), s) for n, t, s in inputs],
                              [value_info("Y", dtypes.get(y_type), y_shape)])
    return finish_model(graph, OPSET, {DOMAIN: DOMAIN_OPSET})


def dot_spec(operands: str, slots: list[str], accumulation: str, terms: int, reason: str) -> dict:
    """Compare mode "dot" (generator/dot_bound.py): abs_bound = 2 * terms (TOSA's 2 * KS, KS the roundings a sum of
    the case may make: the case states it)."""
    return {"mode": "dot", "operands": operands, "node": {}, "slots": list(slots), "accumulation": accumulation,
            "abs_bound": 2 * int(terms), "reason": reason}


def scales(s: sampling.Stream, n: int, t3: str, lo: int, hi: int, distinct: bool = True,
           off_grid: bool = True) -> np.ndarray:
    """n positive scales (1 + j / 8 [+ OFF_GRID in float32]) * 2**-e, e in [lo, hi]; distinct j per element where
    possible."""
    j = np.array(s.sample(range(8), min(n, 8)) * (n // 8 + 1), dtype=np.float64)[:n] if distinct else \
        np.full(n, float(s.integers(0, 7)))
    e = s.integers(lo, hi, (n,)).astype(np.float64)
    extra = OFF_GRID if off_grid and t3 == "float" else 0.0
    return ((1 + j / 8 + extra) * 2.0 ** -e).astype(dtypes.get(t3).np_dtype)


def zero_points(s: sampling.Stream, t: str, n: int, how: str, corner: int = 0) -> np.ndarray:
    """n zero points of type t: "random" (nonzero, distinct), "ends" (the type's end `corner`: 0 low, 1 high)."""
    d = dtypes.get(t)
    if how == "ends":
        return np.full(n, (d.int_min, d.int_max)[corner % 2], d.np_dtype)
    pool = [v for v in range(d.int_min, d.int_max + 1) if v != 0]
    return np.array(s.sample(pool, n), d.np_dtype)


def shaped(v: np.ndarray, form: str) -> np.ndarray:
    """A drawn vector in its form: "tensor" a scalar, "one" [1], a vector as it is."""
    return v.reshape(-1)[0].reshape(()) if form == "tensor" else v.reshape(-1)[:1] if form == "one" else v


def bias(s: sampling.Stream, n: int, t3: str, magnitude: float) -> np.ndarray:
    """n bias values: integers -64 .. 64 times magnitude / 64, rounded to t3 (a bias the size of the product)."""
    return (s.integers(-64, 64, (n,)).astype(np.float64) * magnitude / 64).astype(dtypes.get(t3).np_dtype)


def far(t: str, zp) -> np.ndarray:
    """The end of t farthest from each zero point (0 where absent), broadcast as zp is."""
    d = dtypes.get(t)
    z = np.zeros(()) if zp is None else np.asarray(zp, np.int64)
    return np.where(d.int_max - z >= z - d.int_min, d.int_max, d.int_min)


def pair_blocks(t: str, k: int, n: int) -> np.ndarray:
    """B [k, n] of raw int8 extremes in blocks of 4 along K (matmul_integer's "pairs": 127 x 4, then (-128, -128,
    127, 127), then (127, -128, -128, 127)): with a = 255 the int16 pairs of K indices 2j, 2j + 1 saturate."""
    d = dtypes.get(t)
    lo, hi = d.int_min, d.int_max
    blocks = np.array([[hi, hi, hi, hi], [lo, lo, hi, hi], [hi, lo, lo, hi]], np.int64)
    return np.resize(blocks, (n, 4))[:, np.arange(k) % 4].T.astype(d.np_dtype)


def random_input(s: sampling.Stream, t: str, shape) -> np.ndarray:
    """Random values of type t and shape (negatives' data sets): integers uniform, floats in [-4, 4]."""
    d = dtypes.get(t)
    if d.is_float:
        return np.asarray((s.integers(-32, 32, shape).astype(np.float64) / 8)).astype(d.np_dtype)
    return s.integers(d.int_min, d.int_max, shape, dtype=d.np_dtype)


def negative(family, name: str, model: onnx.ModelProto, inputs: list[tuple], why: str, seed: int, params: dict,
             clause: str):
    """The negative case `name` (must be refused, when preparing or running): one data set of the graph inputs'
    declared (name, type, shape)."""
    s = sampling.case_seed(seed, name)
    stream = sampling.Stream(s)
    data = [random_input(stream, t, shape) for _, t, shape in inputs]
    return family.negative(name, model, [data], phase="run", opset=OPSET, clause=clause, seed=s,
                           flags=["negative"], params=params, invalid=why)
