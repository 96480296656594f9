"""The chains family: graph cases whose graph is the model, short operator chains that graph optimizers rewrite
(issue 20, "Through the optimizer"). Each names the rewrite it targets (case.json params "rewrite") and the
inputs mode (params "inputs"):

  fed           every tensor is a graph input, fed at run time: an optimizer sees no constant
  initializers  what a deployed model carries as weights (scales, zero points, conv / matmul weights) are
                initializers; the activations are fed (fusers such as onnxruntime's QDQ selectors need this)
  constant      every tensor is an initializer: the whole chain is folded at session creation (the runtime's
                constant folder computes it, which is code apart from the kernels)

The expectation of a chain is each operator's reference in turn (generator/reference/chains.py); a rewrite is
allowed only where it keeps that result. Lossy Cast pairs, QDQ pairs off the grid and ties of requantization are
where a wrong rewrite shows. One data set per case: a constant model holds its data.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import onnx
from onnx import helper

from generator import dtypes
from generator.case import Case
from generator.reference import chains as ref

from generator.families._chains_common import (  # noqa: F401  (the family's names, shared with _chains_qops)
    CAST_OPSET, CATALOGUE, DQL_OPSET, EXACT, F32, FAMILY, FLOAT8_OPSET, MATMUL_CLAUSE, MIN_OPSET, PROFILES,
    QUANT_COMPARE, QUANT_OPSET, SCALED_CLAUSE)
from generator.families._chains_common import cases as _cases


# ---------------------------------------------------------------------------------------
# Cast chains
# ---------------------------------------------------------------------------------------
CAST_MODES = ("fed", "constant")
CAST_CLAUSE = ("Cast.txt: conversion to a float type rounds to nearest even, out of range gives +-Inf; float8 with "
               "saturate (Cast-19 table); float -> integer truncates toward zero; a Cast to the input's type is the "
               "identity. A chain of Casts is their composition")


def _cast_chain(stem: str, types: list[str], values, *, rewrite: str, saturate: bool | None = None,
                modes=CAST_MODES, what: str = "") -> Callable[[], Iterator[Case]]:
    """A catalogue entry: Cast types[0] -> types[1] -> ... on values, once per inputs mode."""
    def fn() -> Iterator[Case]:
        x = np.asarray(values, dtype=dtypes.get(types[0]).np_dtype)
        sat = True if saturate is None else saturate
        outcome = ref.cast_chain(x, types, saturate=sat, opset=opset)
        readings = ref.cast_chain_readings(x, types, saturate=sat, opset=opset)
        attrs = {} if saturate is None else {"saturate": int(saturate)}
        names = ["x"] + [f"c{i}" for i in range(1, len(types) - 1)] + ["y"]
        # saturate on the Casts to float8 alone: the text says it is used there only (onnxruntime refuses it
        # elsewhere)
        nodes = [helper.make_node("Cast", [a], [b], to=dtypes.get(t).onnx,
                                  **(attrs if dtypes.get(t).is_float8 else {}))
                 for a, b, t in zip(names, names[1:], types[1:])]
        for mode in modes:
            yield from _cases(f"{FAMILY.prefix}_cast_{stem}_{mode}", opset=opset, mode=mode, rewrite=rewrite,
                              pattern="cast", op="Cast", spec_file="Cast.txt", clause=CAST_CLAUSE, nodes=nodes, tensors={"x": x},
                              constant={"x"} if mode == "constant" else set(), outcome=outcome, output_names=["y"],
                              params={"types": types, "saturate": saturate, "what": what}, readings=readings)
    opset = FLOAT8_OPSET if any(dtypes.get(t).is_float8 for t in types) else CAST_OPSET
    fn.__name__, fn.opset = f"cast_{stem}", opset
    return fn


F16_VALUES = [0.1, 1 / 3, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2049.0, 65504.0, 65519.0, 65520.0, 70000.0, -70000.0,
              1e-8, 6e-8, 3e-5, -0.0, np.inf, -np.inf, np.nan]
F8_VALUES = [0.1, 1 / 3, 1.0625, 1.1875, 2 ** -9, 2 ** -10, 2 ** -20, 240.0, 448.0, 464.0, 500.0, 57344.0, 61440.0,
             1e6, -1e6, -0.0, np.inf, -np.inf, np.nan]
CAST_CHAINS = [
    _cast_chain("float_float16_float", ["float", "float16", "float"], F16_VALUES, rewrite="cast_chain_elimination",
                what="float16 rounds and overflows: the pair is lossy"),
    _cast_chain("int32_float16_float", ["int32", "float16", "float"],
                [0, 2049, -2049, 4097, 65504, 65519, 65520, 70000, -70000, 2 ** 31 - 1],
                rewrite="constant_folding",
                what="int32 -> float16 of 70000 is +Inf (Cast.txt: out of range gives Inf); OpenVINO's folder gave "
                     "65504"),
    _cast_chain("int32_float16_int32", ["int32", "float16", "int32"], [0, 2047, 2049, -2049, 4097, 65504, 65519, -3],
                rewrite="cast_chain_elimination", what="integers above 2048 do not survive float16"),
    _cast_chain("int64_float_int64", ["int64", "float", "int64"],
                [1, -7, 2 ** 24 + 1, -(2 ** 24 + 1), 2 ** 31 + 1, 2 ** 40 + 1, 2 ** 53 + 1, 2 ** 62 + 2 ** 30],
                rewrite="cast_chain_elimination", what="integers above 2**24 do not survive float32"),
    _cast_chain("float_int32_float", ["float", "int32", "float"],
                [2.5, -2.5, 3.99, -3.99, 0.5, -0.0, 1e9 + 64, 2 ** 30 + 0.0, -(2 ** 31)],
                rewrite="cast_chain_elimination", what="truncation toward zero; -0.0 comes back as +0"),
    _cast_chain("float_float", ["float", "float"], [0.0, -0.0, 1e-45, -1e-40, 1.5, np.inf, -np.inf, np.nan,
                                                    3.4028235e38],
                rewrite="cast_elimination", what="a Cast to the same type is the identity and may be removed"),
    _cast_chain("float16_float_float16", ["float16", "float", "float16"], [0.0, -0.0, 6e-8, 0.1, 65504.0, np.inf,
                                                                           np.nan],
                rewrite="cast_chain_elimination", what="float16 -> float32 is exact: this pair may be removed"),
]
for _sat in (True, False):
    for _f8 in ("float8e4m3fn", "float8e5m2"):
        CAST_CHAINS.append(_cast_chain(f"float_{_f8}_float_{'sat' if _sat else 'nosat'}", ["float", _f8, "float"],
                                       F8_VALUES, rewrite="cast_chain_elimination", saturate=_sat,
                                       what=f"{_f8} rounds and {'saturates' if _sat else 'overflows to NaN / Inf'}"))
for _fn in CAST_CHAINS:
    CATALOGUE(_fn)


# ---------------------------------------------------------------------------------------
# QuantizeLinear -> DequantizeLinear
# ---------------------------------------------------------------------------------------
QUANT_MODES = ("fed", "initializers", "constant")
QDQ_CLAUSE = ("QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point), rounding half to even; "
              "DequantizeLinear: y = (x - x_zero_point) * x_scale. A Q -> DQ pair is the quantize-dequantize "
              "rounding, not the identity")
QDQ_VALUES = [0.0, 0.3, -0.3, 0.125, 0.375, -0.125, -0.375, 1.0, 31.875, 32.125, 100.0, -100.0, 1e-3]


def _qdq(zp_type: str) -> Callable[[], Iterator[Case]]:
    def fn() -> Iterator[Case]:
        x = np.asarray(QDQ_VALUES, dtype=F32)
        scale = np.asarray(0.25, dtype=F32)
        zp = np.asarray(128 if zp_type == "uint8" else -3, dtype=dtypes.get(zp_type).np_dtype)
        outcome = ref.qdq(x, scale, zp, opset=QUANT_OPSET)
        nodes = [helper.make_node("QuantizeLinear", ["x", "scale", "zero_point"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"])]
        tensors = {"x": x, "scale": scale, "zero_point": zp}
        for mode in QUANT_MODES:
            constant = {"fed": set(), "initializers": {"scale", "zero_point"}, "constant": set(tensors)}[mode]
            yield from _cases(f"{FAMILY.prefix}_qdq_{zp_type}_{mode}", opset=QUANT_OPSET, mode=mode,
                              rewrite="qdq_pair_removal", pattern="qdq", op="QuantizeLinear",
                              spec_file="onnx.defs:QuantizeLinear-13",
                              clause=QDQ_CLAUSE, nodes=nodes, tensors=tensors, constant=constant, outcome=outcome,
                              output_names=["y"], params={"zero_point_type": zp_type, "zero_point": int(zp)},
                              readings=ref.quantize_readings(x, scale, zp, opset=QUANT_OPSET))
    fn.__name__, fn.opset = f"qdq_{zp_type}", QUANT_OPSET
    return fn


for _t in ("uint8", "int8"):
    CATALOGUE(_qdq(_t))


# ---------------------------------------------------------------------------------------
# DequantizeLinear -> Conv -> QuantizeLinear (onnxruntime: QLinearConv)
# ---------------------------------------------------------------------------------------
CONV_CLAUSE = ("DequantizeLinear of x and w, Conv (onnx.defs Conv-11), QuantizeLinear (round half to even): power-of-"
               "two scales and small integers make the float32 Conv exact in any order of sums "
               "(generator/reference/chains.py conv_is_exact), so a fused QLinearConv must give the same bytes; "
               "y_scale = 2 * x_scale * w_scale puts every odd sum on a tie; an odd y_zero_point moves a tie where "
               "the zero point is added before rounding")


@CATALOGUE
def dq_conv_q() -> Iterator[Case]:
    """DequantizeLinear -> Conv -> QuantizeLinear, weights fed or initializers."""
    rng = np.random.Generator(np.random.PCG64(20))
    x = (128 + rng.integers(-4, 5, size=(1, 2, 5, 5))).astype(np.uint8)
    w = rng.integers(-2, 3, size=(3, 2, 3, 3)).astype(np.int8)
    x_scale, w_scale, y_scale = np.asarray(2 ** -4, F32), np.asarray(2 ** -3, F32), np.asarray(2 ** -6, F32)
    x_zp, w_zp, y_zp = np.asarray(128, np.uint8), np.asarray(0, np.int8), np.asarray(127, np.uint8)
    strides, pads = [1, 1], [1, 1, 1, 1]
    outcome = ref.dq_conv_q(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, strides=strides, pads=pads,
                            opset=QUANT_OPSET)
    conv_readings = ref.dq_conv_q_readings(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, strides=strides,
                                           pads=pads, opset=QUANT_OPSET)
    nodes = [helper.make_node("DequantizeLinear", ["x", "x_scale", "x_zero_point"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero_point"], ["wf"]),
             helper.make_node("Conv", ["xf", "wf"], ["c"], kernel_shape=[3, 3], strides=strides, pads=pads),
             helper.make_node("QuantizeLinear", ["c", "y_scale", "y_zero_point"], ["y"])]
    tensors = {"x": x, "x_scale": x_scale, "x_zero_point": x_zp, "w": w, "w_scale": w_scale, "w_zero_point": w_zp,
               "y_scale": y_scale, "y_zero_point": y_zp}
    for mode in ("fed", "initializers"):
        constant = set() if mode == "fed" else set(tensors) - {"x"}
        yield from _cases(f"{FAMILY.prefix}_dq_conv_q_{mode}", opset=QUANT_OPSET, mode=mode,
                          rewrite="qdq_conv_fusion",
                          pattern="dq_conv_q", op="Conv", spec_file="onnx.defs:Conv-11", clause=CONV_CLAUSE,
                          nodes=nodes, tensors=tensors, constant=constant, outcome=outcome, output_names=["y"],
                          params={"zero_point": int(y_zp)}, compare=QUANT_COMPARE, seed=20, readings=conv_readings)


PAIRS_CLAUSE = CONV_CLAUSE + ("; raw uint8 x near 255 times int8 w of +-127 / -128: a fused u8 x s8 kernel that adds "
                              "the products in int16 pairs saturates; one product (x - 128) * w of 64 * 2 puts an "
                              "output on the tie 0.5")


@CATALOGUE
def dq_conv_q_u8s8_pairs() -> Iterator[Case]:
    """DequantizeLinear -> Conv -> QuantizeLinear whose fused u8 x s8 kernel would saturate int16 pairs (x86
    VPMADDUBSW; chains.fused_int16_pair_saturation), with a tie for the requantization's rounding."""
    x = np.full((1, 2, 3, 3), 255, np.uint8)
    x[0, 0, 1, 1] = 192
    w = np.zeros((3, 2, 3, 3), np.int8)
    w[0], w[1], w[2, 0, 1, 1] = 127, -128, 2
    x_scale, w_scale, y_scale = np.asarray(2 ** -3, F32), np.asarray(2 ** -7, F32), np.asarray(2 ** -2, F32)
    x_zp, w_zp, y_zp = np.asarray(128, np.uint8), np.asarray(0, np.int8), np.asarray(128, np.uint8)
    strides, pads = [1, 1], [0, 0, 0, 0]
    outcome = ref.dq_conv_q(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, strides=strides, pads=pads,
                            opset=QUANT_OPSET)
    readings = ref.dq_conv_q_readings(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, strides=strides, pads=pads,
                                      opset=QUANT_OPSET)
    nodes = [helper.make_node("DequantizeLinear", ["x", "x_scale", "x_zero_point"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero_point"], ["wf"]),
             helper.make_node("Conv", ["xf", "wf"], ["c"], kernel_shape=[3, 3]),
             helper.make_node("QuantizeLinear", ["c", "y_scale", "y_zero_point"], ["y"])]
    tensors = {"x": x, "x_scale": x_scale, "x_zero_point": x_zp, "w": w, "w_scale": w_scale, "w_zero_point": w_zp,
               "y_scale": y_scale, "y_zero_point": y_zp}
    for mode in ("fed", "initializers"):
        constant = set() if mode == "fed" else set(tensors) - {"x"}
        yield from _cases(f"{FAMILY.prefix}_dq_conv_q_u8s8_pairs_{mode}", opset=QUANT_OPSET, mode=mode,
                          rewrite="qdq_conv_fusion", pattern="dq_conv_q", op="Conv", spec_file="onnx.defs:Conv-11",
                          clause=PAIRS_CLAUSE, nodes=nodes, tensors=tensors, constant=constant, outcome=outcome,
                          output_names=["y"], params={"zero_point": int(y_zp), "zero_point_type": "uint8",
                                                      "x_type": "uint8", "w_type": "int8"},
                          compare=QUANT_COMPARE, seed=0, readings=readings)


# ---------------------------------------------------------------------------------------
# DynamicQuantizeLinear -> MatMulInteger
# ---------------------------------------------------------------------------------------
def _matmul_inputs():
    rng = np.random.Generator(np.random.PCG64(21))
    a = (rng.integers(-40, 88, size=(4, 8)) / 8).astype(F32)  # min < 0 < max: a nonzero a_zero_point
    b = rng.integers(0, 256, size=(8, 3)).astype(np.uint8)
    return a, b, np.asarray(117, np.uint8)


@CATALOGUE
def dql_matmul_integer() -> Iterator[Case]:
    a, b, b_zp = _matmul_inputs()
    outcome = ref.dql_matmul_integer(a, b, b_zp)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["a"], ["a_q", "a_scale", "a_zero_point"]),
             helper.make_node("MatMulInteger", ["a_q", "b", "a_zero_point", "b_zero_point"], ["y"])]
    tensors = {"a": a, "b": b, "b_zero_point": b_zp}
    for mode in ("fed", "initializers"):
        constant = set() if mode == "fed" else {"b", "b_zero_point"}
        yield from _cases(f"{FAMILY.prefix}_dql_matmulinteger_{mode}", opset=DQL_OPSET, mode=mode,
                          rewrite="matmul_integer_fusion",
                          pattern="dql_matmul", op="MatMulInteger", spec_file="onnx.defs:MatMulInteger-10",
                          clause=MATMUL_CLAUSE, nodes=nodes, tensors=tensors, constant=constant, outcome=outcome,
                          output_names=["y", "a_scale", "a_zero_point"], params={}, seed=21,
                          readings=ref.dql_readings(a))


@CATALOGUE
def dql_matmul_integer_scaled() -> Iterator[Case]:
    a, b, b_zp = _matmul_inputs()
    b_scale = np.asarray(2 ** -5, F32)
    outcome = ref.dql_matmul_integer_scaled(a, b, b_zp, b_scale)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["a"], ["a_q", "a_scale", "a_zero_point"]),
             helper.make_node("MatMulInteger", ["a_q", "b", "a_zero_point", "b_zero_point"], ["y_int"]),
             helper.make_node("Cast", ["y_int"], ["y_f"], to=onnx.TensorProto.FLOAT),
             helper.make_node("Mul", ["a_scale", "b_scale"], ["s"]),
             helper.make_node("Mul", ["y_f", "s"], ["y"])]
    tensors = {"a": a, "b": b, "b_zero_point": b_zp, "b_scale": b_scale}
    for mode in QUANT_MODES:
        constant = {"fed": set(), "initializers": {"b", "b_zero_point", "b_scale"}, "constant": set(tensors)}[mode]
        yield from _cases(f"{FAMILY.prefix}_dql_matmulinteger_scaled_{mode}", opset=DQL_OPSET, mode=mode,
                          rewrite="dynamic_quantize_matmul_fusion", pattern="dql_matmul_scaled", op="MatMulInteger",
                          spec_file="onnx.defs:MatMulInteger-10", clause=SCALED_CLAUSE, nodes=nodes, tensors=tensors,
                          constant=constant, outcome=outcome, output_names=["y"], params={}, seed=21,
                          readings=ref.dql_readings(a) + ref.cast_chain_readings(
                              ref.dql_matmul_integer(a, b, b_zp).outputs[0], ["int32", "float"]))


TAIL_CLAUSE = MATMUL_CLAUSE + ("; the vector-tail axis (generator/axes.py): a of 3 x 11 = 33 elements, its minimum "
                               "the last element, in the partial last vector of every width 4 .. 32")


@CATALOGUE
def dql_matmul_integer_tail() -> Iterator[Case]:
    """DynamicQuantizeLinear -> MatMulInteger with a of 33 elements and its minimum last: a fused
    DynamicQuantizeMatMul whose min / max reduction skips the remainder loop reads another range."""
    rng = np.random.Generator(np.random.PCG64(22))
    a = (rng.integers(-16, 88, size=(3, 11)) / 8).astype(F32)
    a[-1, -1] = F32(-3.5)  # the minimum, alone, last
    b = rng.integers(0, 256, size=(11, 3)).astype(np.uint8)
    b_zp = np.asarray(117, np.uint8)
    outcome = ref.dql_matmul_integer(a, b, b_zp)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["a"], ["a_q", "a_scale", "a_zero_point"]),
             helper.make_node("MatMulInteger", ["a_q", "b", "a_zero_point", "b_zero_point"], ["y"])]
    tensors = {"a": a, "b": b, "b_zero_point": b_zp}
    for mode in ("fed", "initializers"):
        constant = set() if mode == "fed" else {"b", "b_zero_point"}
        yield from _cases(f"{FAMILY.prefix}_dql_matmulinteger_tail_{mode}", opset=DQL_OPSET, mode=mode,
                          rewrite="matmul_integer_fusion", pattern="dql_matmul_tail", op="MatMulInteger",
                          spec_file="onnx.defs:MatMulInteger-10", clause=TAIL_CLAUSE, nodes=nodes, tensors=tensors,
                          constant=constant, outcome=outcome, output_names=["y", "a_scale", "a_zero_point"],
                          params={"length": int(a.size)}, seed=22, readings=ref.dql_readings(a))


dq_conv_q.opset = dq_conv_q_u8s8_pairs.opset = QUANT_OPSET
dql_matmul_integer.opset = dql_matmul_integer_scaled.opset = dql_matmul_integer_tail.opset = DQL_OPSET

# the QDQ patterns onnxruntime fuses into com.microsoft QOperators (QLinearAdd, ..., QGemm, DynamicQuantizeMatMul)
from generator.families import _chains_qops  # noqa: E402,F401  (registers its entries in CATALOGUE)


def work(profile: str = "default", seed: int = 0,
         max_opset: int = FLOAT8_OPSET) -> list[Callable[[], Iterator[Case]]]:
    """One unit per catalogue entry whose opset is at most max_opset. The cases are fixed edges: profile and seed
    change nothing."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}")
    return [fn for fn in CATALOGUE.values() if fn.opset <= max_opset]
