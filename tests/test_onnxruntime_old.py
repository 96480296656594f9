"""onnxruntime releases before 1.23 (issue 20, item 6): their Python binding has no
OrtValue.tensor_size_in_bytes, which the adapter used to copy float8 / bfloat16 / int4 / int2 buffers, so every
item of those types was an `error` there. The adapter now computes the buffer size from the element type. These
tests take the method away from this onnxruntime's binding (what an old release looks like) and check the size the
adapter computes against onnxruntime's own count, and that tensors of those types still cross bit for bit."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from generator import dtypes
from generator.reference.cast import cast
from runners.backends import registry

ort = pytest.importorskip("onnxruntime")
if not hasattr(ort.OrtValue, "tensor_size_in_bytes"):
    pytest.skip("this onnxruntime has no tensor_size_in_bytes to check against", allow_module_level=True)
from runners.backends import onnxruntime as ort_adapter  # noqa: E402 - after the skip
from runners.backends.onnxruntime import _size_in_bytes  # noqa: E402

F32 = dtypes.get("float32")
NON_NUMPY = [t for t in dtypes.all_dtypes() if t.is_numeric and not t.is_numpy_native]
SHAPES = [(), (0,), (1,), (3,), (2, 3), (7,)]  # odd counts: a sub-byte tensor's last byte half used


def _makeable(t) -> bool:
    try:
        ort.OrtValue.ortvalue_from_shape_and_type([1], t.onnx)
    except Exception:  # noqa: BLE001 - a type this onnxruntime does not know
        return False
    return True


@pytest.mark.parametrize("t", [t for t in NON_NUMPY if _makeable(t)], ids=lambda t: t.name)
def test_computed_size_is_onnxruntimes_own(t):
    for shape in SHAPES:
        value = ort.OrtValue.ortvalue_from_shape_and_type(list(shape), t.onnx)
        own = value.tensor_size_in_bytes()

        class Old:  # the same OrtValue as a binding without the method shows it
            def __getattr__(self, name):
                if name == "tensor_size_in_bytes":
                    raise AttributeError(name)
                return getattr(value, name)

        assert _size_in_bytes(Old(), t, shape) == own, (t.name, shape)


def _cast_model(to) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [5])
    y = helper.make_tensor_value_info("y", to.onnx, [5])
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=to.onnx)], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


@pytest.mark.parametrize("typed", [True, False], ids=["1.20-1.22", "1.18"])
@pytest.mark.parametrize("name", ["bfloat16", "float8e4m3fn", "float8e5m2fnuz", "int4", "uint4"])
def test_cast_to_types_outside_numpy_without_tensor_size_in_bytes(monkeypatch, name, typed):
    """Out through the OrtValue path as in onnxruntime < 1.23, then back in (a second Cast from that type); an
    input built as 1.20-1.22 build it (ortvalue_from_shape_and_type of the ONNX type) or as 1.18 must (its
    binding takes numpy types only: a one-Constant helper session makes the OrtValue)."""
    monkeypatch.delattr(ort.OrtValue, "tensor_size_in_bytes")
    monkeypatch.setattr(ort_adapter, "_TYPED_ORTVALUES", typed)
    t = dtypes.get(name)
    x = np.array([1.0, 3.0, 7.0, -2.0 if t.kind == "int" else 15.0, 0.0] if t.is_integer
                 else [0.5, -3.0, 7.25, 100.0, -0.0], np.float32)  # where Cast defines the result
    assert not cast(x, F32, t)[1].any()
    b = registry.get_backend("onnxruntime", {})
    got = b.run(b.prepare(_cast_model(t), None), [x])[0]
    want = cast(x, F32, t)[0]
    assert t.to_bits(got).tolist() == t.to_bits(want).tolist()
    back = helper.make_model(helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=onnx.TensorProto.FLOAT)], "g",
        [helper.make_tensor_value_info("x", t.onnx, [5])], [helper.make_tensor_value_info("y", 1, [5])]),
        opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    got_back = b.run(b.prepare(back, None), [want])[0]
    assert got_back.view(np.uint32).tolist() == cast(want, t, F32)[0].view(np.uint32).tolist()
