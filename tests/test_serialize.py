"""Case <-> directory round trip, hash checks, the IR version stamped on models, and reading damaged or
hostile cases safely (issue 11: field checks, confinement, special and oversized files, missing files)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import stat
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from generator import case_reader, dtypes
from generator.case import Case, ir_version_for, node_model
from generator.reference.cast import cast
from generator.case_fields import CASE_FIELDS, meta_problem
from generator.serialize import CaseError, LoadedCase, content_hash, is_suite, read_case, read_manifest, write_case

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


# ---------------------------------------------------------------------------------------
# hostile and damaged cases (issue 11): fields, escapes, special and oversized files, missing files
# ---------------------------------------------------------------------------------------
SUITE = Path(__file__).resolve().parents[1] / "cases"
CAST = SUITE / "node" / "test_cast_bfloat16_to_float8e4m3fn_edge"
DQL = SUITE / "node" / "test_dynamicquantizelinear_4d"  # 3 outputs
TWIN = SUITE / "graph" / "test_layout_add_broadcast_c"  # a TFLite twin


def _copy(src: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(src, tmp_path / src.name))


def _meta(d: Path) -> dict:
    return json.loads((d / "case.json").read_text())


def _write_meta(d: Path, meta: dict) -> None:
    (d / "case.json").write_text(json.dumps(meta))


def _rehash(d: Path, rel: str) -> None:
    meta = _meta(d)
    meta["sha256"][rel] = hashlib.sha256((d / rel).read_bytes()).hexdigest()
    _write_meta(d, meta)


# (field, bad value, what the message says after 'case.json: field "<where>": ')
BAD_FIELDS = [
    ("family", 17, 'field "family": expected a family name in lower snake case, got 17'),
    ("family", "../x", 'field "family": expected a family name'),
    ("kind", "banana", 'field "kind": expected one of "node", "graph", "negative", "probe", got "banana"'),
    ("kind", ["node"], 'field "kind": expected one of'),
    ("compare", "exact", 'field "compare": expected an object, got "exact"'),
    ("compare", {"mode": "banana"}, 'field "compare.mode": expected one of exact, ulp'),
    ("compare", {"mode": "ulp"}, "field \"compare\": output 'output', tier strict: no \"ulp\""),
    ("compare", {"mode": "ulp", "ulp": -1}, 'field "compare.ulp": expected an integer from 0'),
    # JSON has no Infinity: the bounded parser (generator/jsontext.py) refuses the file itself
    ("compare", {"mode": "abs", "abs": float("inf")}, "corrupt case.json (Infinity is not JSON)"),
    ("compare", {"mode": "abs", "abs": -1}, 'field "compare.abs": expected a finite number >= 0'),
    ("compare", {"mode": "exact", "nan_sign": "yes"}, 'field "compare.nan_sign": expected true or false'),
    ("compare", {"mode": "exact", "tolerant": "abs"}, 'field "compare.tolerant": expected an object'),
    ("compare", {"mode": "exact", "tolerant": {"mode": "abs"}}, "tier tolerant: no \"abs\""),
    ("compare", {"mode": "exact", "outputs": {"output": 3}}, 'field "compare.outputs.output": expected an object'),
    ("compare", {"mode": "parsed", "source_type": "float"}, 'mode "parsed" needs a string output'),
    ("compare", {"mode": "parsed", "source_type": "banana"}, 'field "compare.source_type": expected the name'),
    ("params", 3, 'field "params": expected an object, got 3'),
    ("spec", "Cast", 'field "spec": expected an object, got "Cast"'),
    ("spec", {"file": "onnx/Cast.md", "clause": 7}, 'field "spec.clause": expected a string, got 7'),
    ("opset", "x", 'field "opset": expected a positive integer, got "x"'),
    ("opset", True, 'field "opset": expected a positive integer, got true'),
    ("flags", "edge", 'field "flags": expected a list of strings, got "edge"'),
    ("name", 5, 'field "name": expected a non-empty string, got 5'),
    ("op", None, 'field "op": expected a string, got null'),
    ("domain", 1, 'field "domain": expected a string, got 1'),
    ("sha256", {"model.onnx": 5}, 'field "sha256[model.onnx]": expected a sha256 in lower-case hex, got 5'),
    ("sha256", {"../model.onnx": "0" * 64}, 'field "sha256": expected file paths relative to the case directory'),
    ("sha256", [], 'field "sha256": expected an object, got []'),
    ("negative", "prepare", 'field "negative": expected an object'),
    ("negative", {"phase": "compile"}, 'field "negative.phase": expected "prepare" or "run", got "compile"'),
    ("phase", 1, 'field "phase": expected "prepare" or "run", got 1'),
    ("native", {"ops": "Cast"}, 'field "native.ops": expected a list of strings'),
    ("twin", "model.tflite", 'field "twin": expected an object'),
    ("twin", {"format": "tflite", "inputs": [], "outputs": []}, 'field "twin.model": missing'),
    ("twin", {"format": "onnx", "model": "m", "inputs": [], "outputs": []}, 'field "twin.format": expected a'),
]


@pytest.mark.parametrize("field,value,problem", BAD_FIELDS, ids=[f"{f}={v!r}" for f, v, _ in BAD_FIELDS])
def test_a_wrongly_typed_field_is_refused_naming_it(tmp_path, field, value, problem):
    d = _copy(CAST, tmp_path)
    meta = _meta(d)
    meta[field] = value
    _write_meta(d, meta)
    with pytest.raises(CaseError) as info:
        read_case(d)
    assert str(info.value).startswith(f"{d / 'case.json'}: ") and problem in str(info.value), str(info.value)


def test_case_json_that_is_no_object_or_lacks_sha256_is_refused(tmp_path):
    d = _copy(CAST, tmp_path)
    (d / "case.json").write_text("[1]")
    with pytest.raises(CaseError, match="case.json: expected a JSON object, got \\[1\\]"):
        read_case(d)
    meta = _meta(CAST)
    del meta["sha256"]
    _write_meta(d, meta)
    with pytest.raises(CaseError, match='field "sha256": missing'):
        read_case(d)


def test_every_field_the_runners_read_is_checked():
    """The fields runner code reads from case.json (meta.get("x") / meta["x"]) all have a check."""
    root = Path(__file__).resolve().parents[1]
    sources = [*root.glob("runners/**/*.py"), root / "generator" / "faults.py",
               *root.glob("generator/reference/*_faults.py")]
    read = set()
    for path in sources:
        text = path.read_text()
        read |= set(re.findall(r"meta(?: or \{\}\))?(?:\.get\(|\[)\"(\w+)\"", text))
    assert {"family", "op", "params", "compare"} <= read  # the pattern still finds them
    assert read <= set(CASE_FIELDS), read - set(CASE_FIELDS)


def test_the_committed_suites_fields_and_compare_specs_pass():
    metas = [json.loads(p.read_text()) for p in sorted(SUITE.glob("*/*/case.json"))[::50]]
    assert len(metas) > 150
    assert [m["name"] for m in metas if meta_problem(m)] == []


@pytest.mark.parametrize("model", ["../../outside.tflite", "/etc/passwd", "sub/../../outside.tflite"])
def test_a_twin_model_outside_the_case_directory_is_refused(tmp_path, model):
    d = _copy(TWIN, tmp_path / "suite")
    (tmp_path / "outside.tflite").write_bytes((d / "model.tflite").read_bytes())
    meta = _meta(d)
    meta["twin"]["model"] = model
    _write_meta(d, meta)
    with pytest.raises(CaseError, match=f"case.json: twin model '{re.escape(model)}' points outside the case"):
        read_case(d)


def test_a_twin_model_behind_a_symlinked_directory_outside_is_refused(tmp_path):
    """The path is listed with its right sha256; only following the symlink leaves the case directory."""
    d = _copy(TWIN, tmp_path / "suite")
    (tmp_path / "elsewhere").mkdir()
    (d / "model.tflite").rename(tmp_path / "elsewhere" / "model.tflite")
    (d / "sub").symlink_to(tmp_path / "elsewhere")
    meta = _meta(d)
    meta["twin"]["model"] = "sub/model.tflite"
    meta["sha256"]["sub/model.tflite"] = meta["sha256"].pop("model.tflite")
    _write_meta(d, meta)
    with pytest.raises(CaseError, match="twin model 'sub/model.tflite' points outside the case directory"):
        read_case(d)


def test_a_twin_model_elsewhere_inside_the_case_directory_is_read(tmp_path):
    d = _copy(TWIN, tmp_path)
    (d / "sub").mkdir()
    (d / "model.tflite").rename(d / "sub" / "twin.tflite")
    meta = _meta(d)
    meta["twin"]["model"] = "sub/../sub/twin.tflite"
    meta["sha256"]["sub/twin.tflite"] = meta["sha256"].pop("model.tflite")
    _write_meta(d, meta)
    case = read_case(d)
    assert case.twin.model == (d / "sub" / "twin.tflite").read_bytes()


def _replace_input(d: Path, make) -> Path:
    """Replace test_data_set_0/input_0.pb by what make(path) creates there."""
    path = d / "test_data_set_0" / "input_0.pb"
    path.unlink()
    make(path)
    return path


def _read_in_thread(d: Path):
    """read_case(d) in a daemon thread: (finished, its outcome). A read that blocks (a FIFO opened
    without O_NONBLOCK) leaves the thread behind instead of hanging the test run."""
    outcome = []

    def run():
        try:
            outcome.append(read_case(d))
        except Exception as exc:  # noqa: BLE001
            outcome.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(120)
    return not t.is_alive(), outcome[0] if outcome else None


SPECIAL_FILES = [
    ("fifo", os.mkfifo, "a FIFO, not a regular file; refused"),
    ("device", lambda p: p.symlink_to("/dev/null"), "symlink 'test_data_set_0/input_0.pb' points outside"),
    ("directory", lambda p: p.mkdir(), "a directory, not a regular file; refused"),
]


@pytest.mark.parametrize("what,make,problem", SPECIAL_FILES, ids=[s[0] for s in SPECIAL_FILES])
def test_a_data_file_that_is_not_a_regular_file_is_refused_before_reading(tmp_path, what, make, problem):
    d = _copy(CAST, tmp_path)
    _replace_input(d, make)
    meta = _meta(d)
    meta["sha256"]["test_data_set_0/input_0.pb"] = hashlib.sha256(b"").hexdigest()  # what reading it gives
    _write_meta(d, meta)
    finished, outcome = _read_in_thread(d)
    assert finished, "reading the case blocked"
    assert isinstance(outcome, CaseError) and "input_0.pb" in str(outcome) and problem in str(outcome), outcome


def test_a_device_inside_the_case_directory_is_refused(tmp_path):
    d = _copy(CAST, tmp_path)
    dev = d / "test_data_set_0" / "dev"
    dev.symlink_to("/dev/null")
    assert _read_in_thread(d)[1].__class__ is LoadedCase  # an unread, unlisted name is no concern
    try:
        os.mknod(d / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's twin (harmless if read); needs root
    except PermissionError:
        pytest.skip("cannot make a device node")
    (d / "test_data_set_0" / "input_0.pb").unlink()
    (d / "test_data_set_0" / "input_0.pb").symlink_to("../null")
    with pytest.raises(CaseError, match="input_0.pb: a character device, not a regular file; refused"):
        read_case(d)


def test_symlinks_are_followed_only_inside_the_case_directory(tmp_path):
    d = _copy(CAST, tmp_path / "suite")
    data = d / "test_data_set_0" / "input_0.pb"
    (d / "test_data_set_0" / "real.pb").write_bytes(data.read_bytes())
    (tmp_path / "outside.pb").write_bytes(data.read_bytes())
    data.unlink()
    data.symlink_to("real.pb")
    assert read_case(d).inputs[0][0].size  # inside: read, checked against input_0.pb's sha256
    data.unlink()
    data.symlink_to(tmp_path / "outside.pb")
    with pytest.raises(CaseError, match="input_0.pb: symlink 'test_data_set_0/input_0.pb' points outside"):
        read_case(d)
    data.unlink()
    data.symlink_to(d / "test_data_set_0" / "real.pb")
    shutil.move(d / "test_data_set_0", tmp_path / "ds")  # a data set directory that is a symlink outside
    (d / "test_data_set_0").symlink_to(tmp_path / "ds")
    with pytest.raises(CaseError, match="symlink 'test_data_set_0' points outside the case directory"):
        read_case(d)


def test_a_data_file_larger_than_its_tensor_can_be_is_refused(tmp_path):
    """The model declares the input's static shape: 100000 elements cannot be in it, whatever the encoding."""
    d = _copy(CAST, tmp_path)
    [x] = onnx.load(d / "model.onnx").graph.input
    n = math.prod(dim.dim_value for dim in x.type.tensor_type.shape.dim)
    limit = n * case_reader.MAX_BYTES_PER_ELEMENT + case_reader.TENSOR_OVERHEAD
    big = numpy_helper.from_array(np.zeros(limit // 2 + 1, np.float32), x.name).SerializeToString()
    path = _replace_input(d, lambda p: p.write_bytes(big))
    _rehash(d, "test_data_set_0/input_0.pb")
    with pytest.raises(CaseError, match=f"input_0.pb: {len(big)} bytes, more than the {limit} it can take"):
        read_case(d)
    path.write_bytes(big[:limit])  # within the bound: read, then refused for what it holds
    _rehash(d, "test_data_set_0/input_0.pb")
    with pytest.raises(CaseError, match="input_0.pb: not a valid TensorProto"):
        read_case(d)


@pytest.mark.parametrize("rel,limit", [("model.onnx", "MAX_FILE_BYTES"), ("case.json", "MAX_CASE_JSON_BYTES")])
def test_an_oversized_model_or_case_json_is_refused_unread(tmp_path, rel, limit):
    d = _copy(CAST, tmp_path)
    with open(d / rel, "r+b") as f:  # sparse: nothing is written, nothing is read
        f.truncate(getattr(case_reader, limit) + 1)
    with pytest.raises(CaseError, match=f"{rel}: {getattr(case_reader, limit) + 1} bytes, more than the"):
        read_case(d)


def _drop(d: Path, *rels: str) -> None:
    meta = _meta(d)
    for rel in rels:
        (d / rel).unlink()
        del meta["sha256"][rel]
    _write_meta(d, meta)


def test_an_output_missing_from_disk_and_case_json_is_a_damaged_case(tmp_path):
    """Item 12: output_1.pb and output_2.pb of a 3-output model deleted and unlisted: the case names the
    first missing file, instead of the backend being blamed for returning 3 outputs."""
    d = _copy(DQL, tmp_path)
    _drop(d, *(f"test_data_set_{i}/output_{j}.pb" for i in range(3) for j in (1, 2)))
    with pytest.raises(CaseError, match=r"test_data_set_0/output_1.pb: missing file \(the model has 3 outputs: "
                                        r"every data set needs output_0.pb .. output_2.pb\)"):
        read_case(d)


def test_inputs_must_match_the_graph_inputs(tmp_path):
    d = _copy(DQL, tmp_path)
    _drop(d, "test_data_set_1/input_0.pb")
    with pytest.raises(CaseError, match=r"test_data_set_1/input_0.pb: missing file \(the model has 1 inputs"):
        read_case(d)
    d = _copy(CAST, tmp_path / "extra")
    extra = d / "test_data_set_0" / "input_1.pb"
    shutil.copy(d / "test_data_set_0" / "input_0.pb", extra)
    _rehash(d, "test_data_set_0/input_1.pb")
    with pytest.raises(CaseError, match=r"input_1.pb: one file too many \(the model has 1 inputs"):
        read_case(d)


def test_a_data_file_of_another_type_or_shape_than_declared_is_refused(tmp_path):
    d = _copy(DQL, tmp_path)
    y = d / "test_data_set_0" / "output_0.pb"
    y.write_bytes(numpy_helper.from_array(np.zeros(3, np.int8), "y").SerializeToString())
    _rehash(d, "test_data_set_0/output_0.pb")
    with pytest.raises(CaseError, match="output_0.pb: a int8 tensor, but the model declares uint8 for 'y'"):
        read_case(d)
    y.write_bytes(numpy_helper.from_array(np.zeros(3, np.uint8), "y").SerializeToString())
    _rehash(d, "test_data_set_0/output_0.pb")
    with pytest.raises(CaseError, match=r"output_0.pb: shape \[3\], but the model declares \[.*\] for 'y'"):
        read_case(d)


def test_the_optional_inputs_of_the_committed_suite_are_read():
    """QLinearConv without its optional bias and every other committed quantized case: an omitted optional
    input is no graph input, so no data file is expected for it."""
    dirs = sorted(SUITE.glob("node/test_qlinearconv_*")) + sorted(SUITE.glob("node/test_dynamicquantizelinear_*"))
    assert len(dirs) > 20
    no_bias = [d for d in dirs if len(onnx.load(d / "model.onnx").graph.node[0].input) == 8]
    assert no_bias
    for d in dirs:
        read_case(d)


def test_a_plain_onnx_node_test_directory_is_read_without_case_json(tmp_path):
    d = _copy(CAST, tmp_path)
    (d / "case.json").unlink()
    case = read_case(d)
    assert case.meta is None and case.content is None and case.kind == "node" and case.outputs


def test_the_content_hash_is_case_jsons_and_follows_every_listed_file(tmp_path):
    d = _copy(CAST, tmp_path)
    case = read_case(d)
    assert case.content == content_hash((d / "case.json").read_bytes())
    assert case.content == hashlib.sha256((d / "case.json").read_bytes()).hexdigest()
    x = d / "test_data_set_0" / "input_0.pb"
    x.write_bytes(numpy_helper.from_array(np.zeros_like(case.inputs[0][0]), "x").SerializeToString())
    _rehash(d, "test_data_set_0/input_0.pb")
    changed = read_case(d)
    assert changed.content != case.content


def test_a_record_carries_the_content_hash(tmp_path):
    from runners.backends.registry import get_backend
    from runners.execute import run_case_dataset

    d = _copy(CAST, tmp_path)
    result = run_case_dataset(get_backend("opconform"), read_case(d), 0, "strict", {})
    assert result.verdict == "pass"
    assert result.to_record()["content"] == hashlib.sha256((d / "case.json").read_bytes()).hexdigest()


def test_a_manifest_that_is_no_regular_file_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "manifest.json")
    outcome = []
    t = threading.Thread(target=lambda: outcome.append((is_suite(tmp_path), _raises(read_manifest, tmp_path))),
                         daemon=True)
    t.start()
    t.join(120)
    assert outcome == [(False, f"{tmp_path / 'manifest.json'}: a FIFO, not a regular file; refused")]


def _raises(fn, *args) -> str | None:
    try:
        fn(*args)
    except CaseError as exc:
        return str(exc)
    return None


def test_loaded_case_io_types_are_the_models(tmp_path):
    """LoadedCase.io_types: graph_io_types of its model, worked out once."""
    from generator.serialize import graph_io_types

    case = read_case(next(p for p in sorted((SUITE / "node").iterdir()) if p.name.startswith("test_qlinearconv")))
    ins, outs = graph_io_types(case.model)
    assert case.io_types == (tuple(ins), tuple(outs)) and case.io_types is case.io_types
