"""What the chains family's modules share (generator/families/chains.py, _chains_qops.py): the family, its opsets,
its catalogue, the comparisons and the case builder (a graph case per inputs mode)."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import onnx
from onnx import helper, numpy_helper

from generator import dtypes
from generator.case import Case, finish_model, value_info
from generator.family import Catalogue, Family, split
from generator.outcome import Outcome

FAMILY = Family("chains", "Chain", "Cast.txt", name_prefix="test_chain")
# each chain at the lowest opset its operators need (older runtimes run them too): float8 Casts with saturate 19,
# int8 / uint8 QuantizeLinear / DequantizeLinear 13 (per-tensor, as at 10), DynamicQuantizeLinear 11
CAST_OPSET, FLOAT8_OPSET, QUANT_OPSET, DQL_OPSET = 13, 19, 13, 11
MIN_OPSET = DQL_OPSET
PROFILES = ("quick", "default", "exhaustive")  # one data set per case whatever the profile: the chains are edges
EXACT = {"mode": "exact", "reason": "each step of the chain has one result (its operator's reference); a rewrite "
                                    "must keep it"}
QUANT_COMPARE = {"mode": "exact", "reason": "integer sums requantized once: QuantizeLinear rounds half to even",
                 "tolerant": {"mode": "abs", "abs": 1,
                              "reason": "fixed-point requantization is common practice: +-1"}}
CATALOGUE = Catalogue()
F32 = np.float32


def _model(name: str, nodes: list[onnx.NodeProto], tensors: dict[str, np.ndarray], constant: set[str],
           outputs: list[tuple[str, np.ndarray]], opset: int) -> onnx.ModelProto:
    """Graph inputs: the tensors not in `constant` (static shapes); initializers: the others."""
    ins = [value_info(n, dtypes.from_numpy(a.dtype), a.shape) for n, a in tensors.items() if n not in constant]
    inits = [numpy_helper.from_array(np.asarray(a), n) for n, a in tensors.items() if n in constant]
    outs = [value_info(n, dtypes.from_numpy(np.asarray(a).dtype), np.shape(a)) for n, a in outputs]
    return finish_model(helper.make_graph(nodes, name, ins, outs, initializer=inits), opset)


def cases(name: str, *, opset: int, mode: str, rewrite: str, pattern: str, op: str, spec_file: str, clause: str,
           nodes: list[onnx.NodeProto], tensors: dict[str, np.ndarray], constant: set[str], outcome: Outcome,
           output_names: list[str], params: dict, compare: dict = EXACT, seed: int = 0,
           readings: list[str] = ()) -> Iterator[Case]:
    """The chain's graph case in one inputs mode (constant: the tensors written as initializers), its params the
    rewrite, pattern and mode, then `params`."""
    fed = [np.asarray(a) for n, a in tensors.items() if n not in constant]
    model = _model(name, nodes, tensors, constant, list(zip(output_names, outcome.outputs)), opset)
    meta = FAMILY.meta(opset=opset, clause=clause, compare=compare, flags=["edge", "optimizer"], seed=seed,
                       spec_file=spec_file, op=op, reading="; ".join(readings) or None,
                       params={"rewrite": rewrite, "pattern": pattern, "inputs": mode, **params})
    yield from split(name, [fed], [outcome], lambda _: model, meta, kind="graph")


MATMUL_CLAUSE = ("DynamicQuantizeLinear-11 (function body: scale, zero point, y) then MatMulInteger-10: "
                 "Y = matmul(A - a_zero_point, B - b_zero_point) in int32")
SCALED_CLAUSE = MATMUL_CLAUSE + ("; Cast int32 -> float (exact below 2**24) and Mul by a_scale * b_scale (b_scale a "
                                 "power of two: both orders of the two products give the same float32)")
