"""runners/backends/torch_jax_nodes.py without torch or jax: reading the node under test, and the probes that
find what a runtime's float8 conversions do, run against the project's Cast reference standing in for a
runtime of each behaviour (so the expected answers are the spec's, not written here)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from generator import dtypes
from generator.reference.cast import cast
from runners.backends.base import Unsupported
from runners.backends.torch_jax_nodes import (cast_semantics_problem, e8m0_rounding, overflow_behaviour,
                                              read_node)

FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0")


def cast_model(src: str, dst: str, opset: int = 25, **attrs) -> onnx.ModelProto:
    s, d = dtypes.get(src), dtypes.get(dst)
    node = helper.make_node("Cast", ["x"], ["y"], to=d.onnx, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", s.onnx, [3])],
                              [helper.make_tensor_value_info("y", d.onnx, [3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def q_model(op: str, x_type: str, y_type: str, scale_shape, opset: int = 21, zero_point: bool = True, **attrs):
    xt, yt = dtypes.get(x_type), dtypes.get(y_type)
    scale_t = xt if op == "QuantizeLinear" else yt
    zp_t = yt if op == "QuantizeLinear" else xt
    inputs = [helper.make_tensor_value_info("x", xt.onnx, [2, 3]),
              helper.make_tensor_value_info("s", scale_t.onnx, scale_shape)]
    if zero_point:
        inputs.append(helper.make_tensor_value_info("z", zp_t.onnx, scale_shape))
    node = helper.make_node(op, [i.name for i in inputs], ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", yt.onnx, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def reference_runtime(src: str, dst: str, saturate: bool = True, round_mode: str = "up"):
    """A 'runtime' converting exactly as the spec says with these attributes."""
    return lambda a: cast(a, src, dst, saturate=saturate, round_mode=round_mode, opset=24)[0]


@pytest.mark.parametrize("src", ["float", "double", "bfloat16", "float16", "int32", "float8e5m2", "bool", "uint8"])
@pytest.mark.parametrize("dst", FLOAT8)
def test_overflow_behaviour_tells_saturating_from_overflowing(src, dst):
    s, d = dtypes.get(src), dtypes.get(dst)
    sat = overflow_behaviour(reference_runtime(src, dst, True), s, d)
    nosat = overflow_behaviour(reference_runtime(src, dst, False), s, d)
    if sat is None:  # no finite source value overflows: then saturate changes nothing in the spec either
        assert nosat is None
        x = np.array([s.finite_max if s.is_float else s.int_max], dtype=np.float64).astype(s.np_dtype)
        assert cast(x, s, d, saturate=True)[0].tobytes() == cast(x, s, d, saturate=False)[0].tobytes()
    else:
        assert (sat, nosat) == ("saturates", "overflows")


def test_overflow_behaviour_sees_an_overflow_by_rounding():
    # float16's max 65504 lies beyond float8e5m2's max 57344 by more than half its last step: it rounds to
    # Inf without saturation, so the probe must not call the pair overflow-free
    s, d = dtypes.get("float16"), dtypes.get("float8e5m2")
    assert overflow_behaviour(reference_runtime("float16", "float8e5m2", False), s, d) == "overflows"


def test_float8e8m0_from_bool_is_probed_with_false():
    # bool holds neither an overflow nor Inf; False -> float8e8m0 is what saturate decides (Cast-24's table)
    s, d = dtypes.get("bool"), dtypes.get("float8e8m0")
    assert overflow_behaviour(reference_runtime("bool", "float8e8m0", True), s, d) == "saturates"
    assert overflow_behaviour(reference_runtime("bool", "float8e8m0", False), s, d) == "overflows"


def test_overflow_behaviour_names_anything_else():
    s, d = dtypes.get("float"), dtypes.get("float8e4m3fn")
    zero = overflow_behaviour(lambda a: np.zeros(a.shape, dtype=d.np_dtype), s, d)
    assert zero == "other: 0x00"


@pytest.mark.parametrize("src", ["float", "float16", "int32", "uint8"])
@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
def test_e8m0_rounding_names_the_runtimes_mode(src, mode):
    assert e8m0_rounding(reference_runtime(src, "float8e8m0", round_mode=mode), dtypes.get(src)) == mode


@pytest.mark.parametrize("mode,read", [("up", "up|nearest"), ("nearest", "up|nearest"), ("down", "down")])
def test_e8m0_rounding_from_float4_tells_what_its_ties_can(mode, read):
    # float4e2m1 holds only ties between powers of two (1.5, 3, 6): up and nearest (ties up) agree on all of them
    assert e8m0_rounding(reference_runtime("float4e2m1", "float8e8m0", round_mode=mode), dtypes.get("float4e2m1")) == read


def test_cast_semantics_problem_names_the_attribute():
    model = cast_model("float", "float8e4m3fn", saturate=0)
    node = read_node(model, "rt")
    assert cast_semantics_problem(node, reference_runtime("float", "float8e4m3fn", False), "rt") is None
    why = cast_semantics_problem(node, reference_runtime("float", "float8e4m3fn", True), "rt")
    assert "saturates" in why and "saturate=0" in why
    e8 = read_node(cast_model("float", "float8e8m0", round_mode="down"), "rt")
    assert cast_semantics_problem(e8, reference_runtime("float", "float8e8m0", round_mode="down"), "rt") is None
    assert "round_mode=down" in cast_semantics_problem(e8, reference_runtime("float", "float8e8m0"), "rt")


def test_read_node_maps_one_fed_node_and_refuses_invalid_models():
    node = read_node(cast_model("float", "float16"), "rt")
    assert (node.op, node.inputs[0].name, node.outputs[0].name, node.opset) == ("Cast", "float", "float16", 25)
    add = helper.make_model(helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in "ab"],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])]), opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(Unsupported, match="no mapping for ai.onnx.Add"):
        read_node(add, "rt")
    bad = cast_model("float", "float16")
    bad.graph.node[0].attribute[0].i = 12345  # no such type: onnx.checker refuses the model
    with pytest.raises(Unsupported, match="reads no ONNX model; the adapter's onnx.checker refuses"):
        read_node(bad, "rt")
