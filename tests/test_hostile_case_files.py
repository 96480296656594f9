"""Hostile case files (issue 19, items 3, 4b and 4d): nothing is read outside the case directory, whatever
tensor of the case names the file (data files, initializers, sparse initializers, attributes, subgraphs, local
functions); case.json and manifest.json nested absurdly deep, and protobuf files nested past protobuf's
recursion limit, are one clear line each; a case.json whose "name" is not its directory's is refused."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from generator.serialize import CaseError, is_suite, read_case, read_manifest, read_meta

pytest_plugins = ["pytester"]
importlib.import_module("runners.backends.opconform")  # before pytester's in-process runs (see test_gate)

SUITE = Path(__file__).resolve().parents[1] / "cases"
U8 = SUITE / "node" / "test_cast_uint8_to_bfloat16_edge"  # one uint8 input of shape [8]
TWIN = SUITE / "graph" / "test_layout_add_broadcast_c"  # a TFLite twin
SECRET = b"s3cr3t:x"  # 8 bytes: exactly what U8's input and the models' uint8 [8] tensors take


# ---------------------------------------------------------------------------------------------
# building hostile files
# ---------------------------------------------------------------------------------------------
def _external(name: str, location: str, elem_type: int = TensorProto.UINT8, dims=(8,)) -> TensorProto:
    """A tensor whose data is `location`'s bytes (whole file)."""
    t = TensorProto(name=name, data_type=elem_type, dims=list(dims))
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", location
    return t


def _inline(name: str, values, elem_type=TensorProto.UINT8) -> TensorProto:
    return helper.make_tensor(name, elem_type, [len(values)], values)


def _graph(nodes, name="g", initializer=()) -> onnx.GraphProto:
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info("z", TensorProto.UINT8, [8])],
                             list(initializer))


def _constant(t: TensorProto) -> onnx.NodeProto:
    return helper.make_node("Constant", [], ["z"], value=t)


def _sparse(values: TensorProto, indices: TensorProto) -> onnx.SparseTensorProto:
    s = onnx.SparseTensorProto(values=values, indices=indices)
    s.dims.append(8)
    return s


def _function(nodes, attribute_proto=()) -> onnx.FunctionProto:
    f = onnx.FunctionProto(name="F", domain="local", output=["z"])
    f.node.extend(nodes)
    f.attribute_proto.extend(attribute_proto)
    return f


def _put(model: onnx.ModelProto, place: str, t: TensorProto) -> None:
    """Put tensor `t` into `model` at `place` (one of PLACES). The model need not be runnable: read_case
    refuses it before any backend sees it."""
    g = model.graph
    if place == "initializer":
        g.initializer.append(t)
    elif place == "sparse initializer values":
        g.sparse_initializer.append(_sparse(t, _inline("i", list(range(8)), TensorProto.INT64)))
    elif place == "sparse initializer indices":
        t.data_type = TensorProto.INT64
        del t.dims[:]
        t.dims.append(1)
        g.sparse_initializer.append(_sparse(_inline("v", [1]), t))
    elif place == "attribute tensor in an If branch":
        g.node.append(helper.make_node("If", ["c"], ["z"], then_branch=_graph([_constant(t)]),
                                       else_branch=_graph([_constant(_inline("e", [0] * 8))])))
    elif place == "initializer of a Loop body":
        g.node.append(helper.make_node("Loop", ["n", "c"], ["z"], body=_graph(
            [helper.make_node("Identity", [t.name], ["z"])], initializer=[t])))
    elif place == "attribute tensor two subgraphs deep":
        inner = helper.make_node("If", ["c"], ["z"], then_branch=_graph([_constant(t)]), else_branch=_graph([]))
        g.node.append(helper.make_node("If", ["c"], ["z"], then_branch=_graph([inner]), else_branch=_graph([])))
    elif place == "attribute tensor in a local function":
        model.functions.append(_function([_constant(t)]))
    elif place == "initializer of a subgraph in a local function":
        model.functions.append(_function([helper.make_node("If", ["c"], ["z"], then_branch=_graph([], initializer=[t]),
                                                           else_branch=_graph([]))]))
    elif place == "attribute default of a local function":
        model.functions.append(_function([_constant(_inline("e", [0] * 8))],
                                         [helper.make_attribute("value", t)]))
    elif place == "sparse tensor attribute":
        g.node.append(helper.make_node("Constant", [], ["z"], sparse_value=_sparse(
            t, _inline("i", list(range(8)), TensorProto.INT64))))
    elif place == "tensor list attribute":
        g.node.append(helper.make_node("Custom", [], ["z"], domain="local", tensors=[t]))
    elif place == "tensor in an attribute declared a float":
        attr = helper.make_attribute("alpha", 1.0)
        attr.t.CopyFrom(t)  # a field of another type than the attribute's: a backend might still read it
        g.node.append(helper.make_node("Custom", [], ["z"], domain="local"))
        g.node[-1].attribute.append(attr)
    elif place == "training_info initializer":
        model.training_info.add().initialization.initializer.append(t)
    else:
        raise AssertionError(place)


PLACES = ["initializer", "sparse initializer values", "sparse initializer indices", "attribute tensor in an If branch",
          "initializer of a Loop body", "attribute tensor two subgraphs deep", "attribute tensor in a local function",
          "initializer of a subgraph in a local function", "attribute default of a local function",
          "sparse tensor attribute", "tensor list attribute", "tensor in an attribute declared a float",
          "training_info initializer"]


def _plain_case(case_dir: Path, model: onnx.ModelProto | None = None) -> Path:
    """A plain ONNX node-test directory (no case.json): Identity of a uint8 [8] input."""
    if model is None:
        model = helper.make_model(helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "g",
            [helper.make_tensor_value_info("x", TensorProto.UINT8, [8])],
            [helper.make_tensor_value_info("y", TensorProto.UINT8, [8])]),
            opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    (case_dir / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    for rel, name in (("input_0.pb", "x"), ("output_0.pb", "y")):
        data = numpy_helper.from_array(np.arange(8, dtype=np.uint8), name).SerializeToString()
        (case_dir / "test_data_set_0" / rel).write_bytes(data)
    return case_dir


def _model(case_dir: Path) -> onnx.ModelProto:
    return onnx.load(case_dir / "model.onnx", load_external_data=False)


def _rehash(case_dir: Path, rel: str, meta: dict | None = None) -> None:
    meta = meta or json.loads((case_dir / "case.json").read_text())
    meta["sha256"][rel] = hashlib.sha256((case_dir / rel).read_bytes()).hexdigest()
    (case_dir / "case.json").write_text(json.dumps(meta))


def _externalize(path: Path, location: str, inline: bool = False) -> None:
    """Data file `path` made to take its data from `location` (inline=True: external_data entries only, its
    data_location left DEFAULT)."""
    t = TensorProto()
    t.ParseFromString(path.read_bytes())
    t.ClearField("raw_data")
    if not inline:
        t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", location
    path.write_bytes(t.SerializeToString())


def _link_outside(case_dir: Path, outside: Path) -> None:
    (case_dir / "sub").symlink_to(outside, target_is_directory=True)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _deep_model_bytes(levels: int) -> bytes:
    """model.onnx as bytes: If nodes whose then_branch holds an If node ... `levels` deep (written by hand:
    protobuf itself refuses to build a message deeper than its recursion limit)."""
    graph = _field(1, _field(1, b"x") + _field(2, b"y") + _field(4, b"Identity"))
    for _ in range(levels):
        attr = _field(1, b"then_branch") + _varint(20 << 3) + _varint(5) + _field(6, graph)  # type GRAPH, g
        graph = _field(1, _field(1, b"c") + _field(2, b"y") + _field(4, b"If") + _field(5, attr))
    return _varint(1 << 3) + _varint(8) + _field(7, graph)  # ir_version 8, graph


# ---------------------------------------------------------------------------------------------
# item 3: data files carry their data inline
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("file", ["input_0.pb", "output_0.pb"])
@pytest.mark.parametrize("where", ["relative to the working directory", "absolute", "symlinked dir in the case",
                                   "inside the case", "entries only"])
def test_external_data_in_a_data_file_is_refused_before_it_is_read(tmp_path, monkeypatch, file, where):
    """onnx would read it relative to the working directory (numpy_helper.to_array): refused as it is parsed,
    wherever it points, even inside the case."""
    case_dir = _plain_case(tmp_path / "suite" / "case")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET)
    (case_dir / "secret.bin").write_bytes(SECRET)
    _link_outside(case_dir, outside)
    monkeypatch.chdir(case_dir if where == "symlinked dir in the case" else outside)
    location = {"relative to the working directory": "secret.bin", "absolute": str(outside / "secret.bin"),
                "symlinked dir in the case": "sub/secret.bin", "inside the case": "secret.bin",
                "entries only": "secret.bin"}[where]
    _externalize(case_dir / "test_data_set_0" / file, location, inline=where == "entries only")
    with pytest.raises(CaseError) as info:
        read_case(case_dir)
    assert str(info.value) == f"{case_dir / 'test_data_set_0' / file}: external data in a data file; refused"


def test_external_data_in_a_twin_data_file_is_refused(tmp_path, monkeypatch):
    case_dir = Path(shutil.copytree(TWIN, tmp_path / "graph" / TWIN.name))
    rel = "test_data_set_0/tflite_input_0.pb"
    size = len(numpy_helper.to_array(onnx.load_tensor(case_dir / rel)).tobytes())
    (tmp_path / "secret.bin").write_bytes(SECRET * (size // len(SECRET) + 1))
    monkeypatch.chdir(tmp_path)
    _externalize(case_dir / rel, "secret.bin")
    _rehash(case_dir, rel)
    with pytest.raises(CaseError, match="tflite_input_0.pb: external data in a data file; refused"):
        read_case(case_dir)


# ---------------------------------------------------------------------------------------------
# item 3: every tensor of the model is confined to the case directory
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("where", ["../secret.bin", "absolute", "sub/secret.bin"])
def test_external_data_of_any_model_tensor_outside_the_case_is_refused(tmp_path, monkeypatch, place, where):
    """Wherever the tensor sits, its location resolves inside the case or the case is refused: a path out,
    an absolute path, a symlinked directory inside the case that leads out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET)
    (tmp_path / "secret.bin").write_bytes(SECRET)
    case_dir = _plain_case(tmp_path / "case")
    _link_outside(case_dir, outside)
    monkeypatch.chdir(outside)
    model = _model(case_dir)
    _put(model, place, _external("w", str(outside / "secret.bin") if where == "absolute" else where))
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(CaseError) as info:
        read_case(case_dir)
    assert str(info.value).startswith(f"{case_dir / 'model.onnx'}: ")
    assert "points outside the case directory; refused" in str(info.value), str(info.value)


@pytest.mark.parametrize("place", PLACES)
def test_external_data_of_any_model_tensor_inside_the_case_is_loaded(tmp_path, place):
    """...and when it does, the data is loaded (hash-checked), so the model a backend gets names no file:
    nothing of the location is left in it, its bytes are."""
    case_dir = _plain_case(tmp_path / "case")
    (case_dir / "real").mkdir()
    (case_dir / "real" / "weights.bin").write_bytes(SECRET)
    (case_dir / "link").symlink_to("real", target_is_directory=True)  # a symlinked directory inside: followed
    model = _model(case_dir)
    _put(model, place, _external("w", "link/weights.bin"))
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    loaded = read_case(case_dir).model.SerializeToString()
    assert b"weights.bin" not in loaded and b"location" not in loaded
    assert SECRET in loaded


def test_external_data_of_a_model_tensor_is_hash_checked_under_the_path_read(tmp_path):
    """A location through a symlinked directory inside the case is read at its resolved target: case.json lists
    that path, and the bytes there are the ones checked."""
    case_dir = Path(shutil.copytree(U8, tmp_path / "node" / U8.name))
    (case_dir / "real").mkdir()
    (case_dir / "real" / "w.bin").write_bytes(SECRET)
    (case_dir / "link").symlink_to("real", target_is_directory=True)
    model = _model(case_dir)
    _put(model, "sparse initializer values", _external("w", "link/w.bin"))
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    meta = json.loads((case_dir / "case.json").read_text())
    _rehash(case_dir, "model.onnx", meta)
    with pytest.raises(CaseError, match="real/w.bin: file not listed in case.json sha256"):
        read_case(case_dir)
    _rehash(case_dir, "real/w.bin")
    [sparse] = read_case(case_dir).model.graph.sparse_initializer
    assert sparse.values.raw_data == SECRET and sparse.values.data_location == TensorProto.DEFAULT
    (case_dir / "real" / "w.bin").write_bytes(SECRET[::-1])
    with pytest.raises(CaseError, match="real/w.bin: sha256 mismatch"):
        read_case(case_dir)


@pytest.mark.parametrize("entries,problem", [
    ({"location": ""}, "no location; refused"),
    ({"location": "w.bin", "offset": "x"}, "offset or length is no integer"),
    ({"location": "w.bin", "length": "-1"}, "negative offset or length"),
    ({"location": "w.bin", "offset": "4", "length": "8"}, "bytes 4 to 12 of w.bin, which has 8"),
    ({"location": "w\0.bin"}, "cannot be resolved"),
    ({"location": "loop/w.bin"}, "cannot be resolved"),
])
def test_a_malformed_external_data_entry_is_one_clear_line(tmp_path, entries, problem):
    """Not a ValueError or RuntimeError out of read_case (a crash of the worker): a CaseError naming model.onnx."""
    case_dir = _plain_case(tmp_path / "case")
    (case_dir / "w.bin").write_bytes(SECRET)
    (case_dir / "loop").symlink_to("loop")
    model = _model(case_dir)
    t = _external("w", "")
    del t.external_data[:]
    for key, value in entries.items():
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    model.graph.initializer.append(t)
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(CaseError) as info:
        read_case(case_dir)
    assert str(info.value).startswith(f"{case_dir / 'model.onnx'}: external data of tensor 'w'")
    assert problem in str(info.value) and "\n" not in str(info.value), str(info.value)


# ---------------------------------------------------------------------------------------------
# item 4b: JSON and protobuf nested absurdly deep
# ---------------------------------------------------------------------------------------------
DEEP = ["[" * 100_000 + "]" * 100_000, '{"sha256": {}, "params": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001]


@pytest.mark.parametrize("text", DEEP, ids=["array", "field"])
def test_a_case_json_nested_absurdly_deep_is_a_corrupt_case_json(tmp_path, text):
    case_dir = Path(shutil.copytree(U8, tmp_path / "node" / U8.name))
    (case_dir / "case.json").write_text(text)
    for read in (read_meta, read_case):
        with pytest.raises(CaseError) as info:
            read(case_dir)
        assert re.fullmatch(rf"{re.escape(str(case_dir / 'case.json'))}: corrupt case.json \(nested 10000[01] "
                            r"levels deep, more than the 64 taken\)", str(info.value)), str(info.value)


@pytest.mark.parametrize("text", DEEP, ids=["array", "field"])
def test_a_manifest_nested_absurdly_deep_is_a_corrupt_manifest(tmp_path, text):
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(CaseError, match="manifest.json: corrupt manifest [(]nested 10000[01] levels deep"):
        read_manifest(tmp_path)
    assert not is_suite(tmp_path)


@pytest.mark.parametrize("levels", [33, 1000])
def test_a_model_nested_past_protobufs_recursion_limit_is_one_clear_line(tmp_path, levels):
    """If nodes in If branches, deeper than protobuf parses: refused with one line saying so."""
    case_dir = _plain_case(tmp_path / "case")
    (case_dir / "model.onnx").write_bytes(_deep_model_bytes(levels))
    with pytest.raises(CaseError) as info:
        read_case(case_dir)
    assert str(info.value) == (f"{case_dir / 'model.onnx'}: not a valid ONNX model (nested deeper than "
                               "protobuf's recursion limit)")


def test_a_model_just_within_protobufs_recursion_limit_is_read(tmp_path):
    case_dir = _plain_case(tmp_path / "case")
    (case_dir / "model.onnx").write_bytes(_deep_model_bytes(20))
    shutil.rmtree(case_dir / "test_data_set_0")  # the model declares no graph inputs or outputs
    assert read_case(case_dir).model.graph.node[0].op_type == "If"


def test_a_data_file_nested_absurdly_deep_is_one_clear_line(tmp_path):
    """A TensorProto holds no message of its own type, but unknown groups nest: protobuf refuses them."""
    case_dir = _plain_case(tmp_path / "case")
    path = case_dir / "test_data_set_0" / "input_0.pb"
    path.write_bytes(path.read_bytes() + _varint(99 << 3 | 3) * 5000 + _varint(99 << 3 | 4) * 5000)
    with pytest.raises(CaseError) as info:
        read_case(case_dir)
    assert str(info.value).startswith(f"{path}: not a valid TensorProto (") and "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------
# item 4d: a case.json's name is its directory's
# ---------------------------------------------------------------------------------------------
def test_the_committed_suite_names_every_case_by_its_directory():
    for path in SUITE.glob("*/*/case.json"):
        assert json.loads(path.read_text())["name"] == path.parent.name, path


def test_a_case_json_naming_another_case_is_refused(tmp_path, monkeypatch):
    case_dir = Path(shutil.copytree(U8, tmp_path / "node" / U8.name))
    meta = json.loads((case_dir / "case.json").read_text())
    meta["name"] = "test_cast_uint8_to_bool_edge"
    (case_dir / "case.json").write_text(json.dumps(meta))
    for read in (read_meta, read_case):
        with pytest.raises(CaseError) as info:
            read(case_dir)
        assert str(info.value) == (f'{case_dir / "case.json"}: field "name": "test_cast_uint8_to_bool_edge" differs '
                                   f"from the name of the case's directory, '{U8.name}' (a case is known by its "
                                   "directory)")
    meta["name"] = U8.name
    (case_dir / "case.json").write_text(json.dumps(meta))
    monkeypatch.chdir(case_dir)
    assert read_case(Path(".")).name == U8.name  # "." is the directory it names
    del meta["name"]
    (case_dir / "case.json").write_text(json.dumps(meta))
    assert read_case(case_dir).name == U8.name  # no name: the directory's


# ---------------------------------------------------------------------------------------------
# the run: each hostile case is one invalid-case record, no secret byte in the results file
# ---------------------------------------------------------------------------------------------
def _data_external(location_of):
    def damage(case_dir: Path, base: Path) -> None:
        rel = "test_data_set_0/input_0.pb"
        _externalize(case_dir / rel, location_of(base))
        _rehash(case_dir, rel)
    return damage


def _model_external(place: str, location_of):
    def damage(case_dir: Path, base: Path) -> None:
        model = _model(case_dir)
        _put(model, place, _external("w", location_of(base)))
        (case_dir / "model.onnx").write_bytes(model.SerializeToString())
        _rehash(case_dir, "model.onnx")
    return damage


def _linked(damage):
    def both(case_dir: Path, base: Path) -> None:
        _link_outside(case_dir, base / "outside")
        damage(case_dir, base)
    return both


def _rename(case_dir: Path, base: Path) -> None:
    meta = json.loads((case_dir / "case.json").read_text())
    meta["name"] = "test_somewhere_else"
    (case_dir / "case.json").write_text(json.dumps(meta))


def _deep_model(case_dir: Path, base: Path) -> None:
    (case_dir / "model.onnx").write_bytes(_deep_model_bytes(1000))
    _rehash(case_dir, "model.onnx")


NOT_INLINE = "input_0.pb: external data in a data file; refused"
OUT = "points outside the case directory; refused"
HOSTILE = [  # (damage, file and problem the record names)
    (_data_external(lambda base: "secret.bin"), NOT_INLINE),  # relative to pytest's working directory
    (_data_external(lambda base: str(base / "outside" / "secret.bin")), NOT_INLINE),
    (_linked(_data_external(lambda base: "sub/secret.bin")), NOT_INLINE),
    (_model_external("sparse initializer values", lambda base: str(base / "outside" / "secret.bin")), OUT),
    (_linked(_model_external("sparse initializer values", lambda base: "sub/secret.bin")), OUT),
    (_model_external("attribute tensor in an If branch", lambda base: "../../../outside/secret.bin"), OUT),
    (_model_external("attribute tensor in a local function", lambda base: str(base / "outside" / "secret.bin")), OUT),
    (_model_external("initializer of a subgraph in a local function", lambda base: "../../../secret.bin"), OUT),
    (_model_external("sparse tensor attribute", lambda base: "../../../secret.bin"), OUT),
    (lambda d, base: (d / "case.json").write_text("[" * 100_000), "case.json: corrupt case.json (nested 100000"),
    (_rename, "test_somewhere_else"),  # read_case's words (the plugin has its own check of the name too)
    (_deep_model, "model.onnx: not a valid ONNX model (nested deeper than protobuf's recursion limit)"),
]
CLEAN = ["test_cast_uint8_to_bfloat16_exhaustive", "test_cast_uint8_to_bool_edge"]


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_hostile_case_files_are_invalid_cases_and_leak_nothing(pytester, isolation):
    base = pytester.path
    (base / "outside").mkdir()
    for where in (base, base / "outside"):
        (where / "secret.bin").write_bytes(SECRET)
    suite = base / "suite"
    expect = {}
    for i, (damage, problem) in enumerate(HOSTILE):
        case_dir = Path(shutil.copytree(U8, suite / "node" / f"test_hostile_{i}"))
        meta = json.loads((case_dir / "case.json").read_text())
        meta["name"] = case_dir.name
        (case_dir / "case.json").write_text(json.dumps(meta))
        damage(case_dir, base)
        expect[case_dir.name] = problem
    for name in CLEAN:
        shutil.copytree(SUITE / "node" / name, suite / "node" / name)
    report = base / "r.json"
    r = pytester.runpytest(str(suite), "--backend", "opconform", "--report", str(report), "--isolation", isolation)
    records = json.loads(report.read_text())["records"]
    assert sorted((rec["case"], rec["dataset"]) for rec in records) == sorted(
        [(name, 0) for name in expect] + [(name, 0) for name in CLEAN])
    for rec in records:
        if rec["case"] in CLEAN:
            assert rec["verdict"] == "pass", (rec["case"], rec["message"])
            continue
        assert rec["verdict"] == "invalid-case", (rec["case"], rec["verdict"], rec["message"])
        assert expect[rec["case"]] in rec["message"], (rec["case"], rec["message"])
    assert SECRET not in report.read_bytes()
    assert SECRET.decode() not in "\n".join(r.outlines + r.errlines)
    r.assert_outcomes(passed=len(CLEAN), failed=len(HOSTILE))
