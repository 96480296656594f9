"""Case <-> directory round trip, hash checks, and the IR version stamped on models."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from generator import dtypes
from generator.case import Case, ir_version_for, node_model
from generator.reference.cast import cast
from generator.serialize import CaseError, read_case, write_case

ROUND_TRIP_TYPES = ["float", "double", "float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                    "float8e5m2fnuz", "float8e8m0", "float4e2m1", "int4", "uint4", "int2", "uint2", "int8",
                    "uint64", "int64", "bool", "string"]


def _case(name, src, to, x, opset=25, kind="node"):
    src, to = dtypes.get(src), dtypes.get(to)
    y, why = cast(x, src, to, opset=opset)
    assert (why == "").all()
    model = node_model("Cast", [("input", src, x.shape)], [("output", to, x.shape)], {"to": to.onnx}, opset)
    meta = {"op": "Cast", "domain": "", "opset": opset, "family": "cast", "spec": {"file": "Cast.txt"},
            "compare": {"mode": "exact"}, "flags": ["edge"], "seed": 0}
    return Case(name, kind, model, [[x]], [[y]] if kind == "node" else None, meta)


def _all_values(d: dtypes.DType) -> np.ndarray:
    if d.kind == "string":
        return np.array(["1", "-2.5", "NaN", "héllo"], dtype=object)
    if d.kind == "bool":
        return np.array([True, False, True])
    if d.bits <= 16:
        return d.all_values()
    return np.array([0, 1, -1, 3.5, np.inf, np.nan] if d.is_float else [0, 1, d.int_max, d.int_min],
                    dtype=np.float64 if d.is_float else object).astype(d.np_dtype)


@pytest.mark.parametrize("name", ROUND_TRIP_TYPES)
def test_round_trip_every_type_bit_exact(tmp_path, name):
    d = dtypes.get(name)
    x = _all_values(d)
    # odd element counts exercise the padding of packed 4- and 2-bit storage
    x = x[: len(x) - 1] if len(x) % 2 == 0 else x
    case = _case(f"test_cast_rt_{name}", d, d, x)
    write_case(case, tmp_path)
    back = read_case(tmp_path / "node" / case.name)
    got_x, got_y = back.inputs[0][0], back.outputs[0][0]
    if d.kind == "string":
        assert list(got_x) == list(x) and list(got_y) == list(x)
    else:
        assert got_x.dtype == d.np_dtype and got_y.dtype == d.np_dtype
        assert np.array_equal(d.to_bits(got_x), d.to_bits(x))
    assert back.meta["sha256"].keys() == {"model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"}


def test_shapes_round_trip(tmp_path):
    for i, shape in enumerate([(), (0,), (2, 3, 4)]):
        x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        case = _case(f"test_cast_shape_{i}", "float", "float16", x)
        write_case(case, tmp_path)
        back = read_case(tmp_path / "node" / case.name)
        assert back.inputs[0][0].shape == shape and back.outputs[0][0].shape == shape


def test_reading_detects_corruption_and_names_the_file(tmp_path):
    case = _case("test_cast_corrupt", "float", "float16", np.array([1.0, 2.0], dtype=np.float32))
    write_case(case, tmp_path)
    d = tmp_path / "node" / case.name
    out = d / "test_data_set_0" / "output_0.pb"
    data = bytearray(out.read_bytes())
    data[-1] ^= 1
    out.write_bytes(bytes(data))
    with pytest.raises(CaseError, match="output_0.pb: sha256 mismatch"):
        read_case(d)
    out.unlink()
    with pytest.raises(CaseError, match="output_0.pb.*missing"):
        read_case(d)


def test_truncated_model_and_corrupt_case_json(tmp_path):
    case = _case("test_cast_trunc", "float", "float16", np.array([1.0], dtype=np.float32))
    write_case(case, tmp_path)
    d = tmp_path / "node" / case.name
    meta = json.loads((d / "case.json").read_text())
    model = d / "model.onnx"
    model.write_bytes(model.read_bytes()[:10])
    meta["sha256"]["model.onnx"] = __import__("hashlib").sha256(model.read_bytes()).hexdigest()
    (d / "case.json").write_text(json.dumps(meta))
    with pytest.raises(CaseError, match="model.onnx"):
        read_case(d)
    (d / "case.json").write_text("{not json")
    with pytest.raises(CaseError, match="case.json: corrupt"):
        read_case(d)


def test_models_carry_the_lowest_ir_version_of_their_opset():
    assert ir_version_for(13) == 7
    assert ir_version_for(19) == 9
    assert ir_version_for(21) == 10
    for opset in (13, 19, 21, 23, 24, 25):
        model = node_model("Cast", [("x", dtypes.get("float"), (1,))], [("y", dtypes.get("float16"), (1,))],
                           {"to": onnx.TensorProto.FLOAT16}, opset)
        onnx.checker.check_model(model, full_check=True)
        assert model.ir_version == ir_version_for(opset)
        # one IR version lower must not be enough, or we are not stamping the lowest
        lower = [ir for _, ir, ai, *_ in onnx.helper.VERSION_TABLE if ai >= opset]
        assert model.ir_version == min(lower)


def test_case_rejects_bad_names_and_missing_metadata():
    model = node_model("Cast", [("x", dtypes.get("float"), (1,))], [("y", dtypes.get("float"), (1,))], {"to": 1}, 13)
    with pytest.raises(ValueError, match="lower snake case"):
        Case("Cast_bad", "node", model, [[np.zeros(1, np.float32)]], [[np.zeros(1, np.float32)]], {})
    with pytest.raises(ValueError, match="lacks"):
        Case("test_cast_x", "node", model, [[np.zeros(1, np.float32)]], [[np.zeros(1, np.float32)]], {"op": "Cast"})


def _model_with_external_initializer(location: str) -> onnx.ModelProto:
    from onnx import TensorProto, helper

    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [0.0, 0.0])
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", "8")):
        entry = w.external_data.add()
        entry.key, entry.value = k, v
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


@pytest.mark.parametrize("location", ["../outside.bin", "/etc/passwd", "sub/../../outside.bin"])
def test_external_data_outside_the_case_directory_is_refused(tmp_path, location):
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    (tmp_path / "outside.bin").write_bytes(np.array([1.0, 2.0], np.float32).tobytes())
    (case_dir / "model.onnx").write_bytes(_model_with_external_initializer(location).SerializeToString())
    with pytest.raises(CaseError, match="outside the case directory"):
        read_case(case_dir)


def test_external_data_inside_the_case_directory_is_loaded(tmp_path):
    case_dir = tmp_path / "case"
    (case_dir / "test_data_set_0").mkdir(parents=True)
    (case_dir / "w.bin").write_bytes(np.array([1.5, -2.0], np.float32).tobytes())
    (case_dir / "model.onnx").write_bytes(_model_with_external_initializer("w.bin").SerializeToString())
    x = np.array([1.0, 1.0], np.float32)
    from onnx import numpy_helper
    (case_dir / "test_data_set_0" / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (case_dir / "test_data_set_0" / "output_0.pb").write_bytes(
        numpy_helper.from_array(np.array([2.5, -1.0], np.float32), "y").SerializeToString())
    case = read_case(case_dir)
    [w] = case.model.graph.initializer
    assert numpy_helper.to_array(w).tolist() == [1.5, -2.0]
