"""The oldest versions pyproject.toml allows (issue 20, item 6), checked with the installed (current) ones:
the registry built against an onnx / ml_dtypes that predates some element types, the case reader and writer
for the types onnx does not know, the one line a backend built on onnx says for them, and .ci/oldest_check.py
(what .ci/oldest asserts of its results files). .ci/oldest runs the real oldest versions.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from generator import case_reader, dtypes, serialize
from generator.serialize import CaseError

ROOT = Path(__file__).resolve().parents[1]
NEWER_THAN_1_19 = ("INT2", "UINT2", "FLOAT6E2M3", "FLOAT6E3M2")  # TensorProto names onnx 1.19.0 lacks


def _fresh_dtypes(monkeypatch):
    """generator/dtypes.py executed anew, against whatever onnx / ml_dtypes look like now."""
    spec = importlib.util.spec_from_file_location("dtypes_under_test", ROOT / "generator" / "dtypes.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def onnx_1_19(monkeypatch):
    """onnx as 1.19.0 is: no TensorProto.INT2 / UINT2 / FLOAT6* (a stand-in class: protobuf's own finds an enum
    value in its descriptor even after delattr)."""
    names = {n: getattr(TensorProto, n) for n in dir(TensorProto) if n.isupper() and n not in NEWER_THAN_1_19}
    monkeypatch.setattr(onnx, "TensorProto", type("TensorProto", (), names))
    monkeypatch.setattr(onnx, "__version__", "1.19.0")


def test_registry_imports_with_an_onnx_lacking_types(onnx_1_19, monkeypatch):
    d = _fresh_dtypes(monkeypatch)
    int2 = d.get("int2")
    assert int2.onnx == 26 and not int2.onnx_knows  # kept, with onnx.proto's number, but marked
    assert d.get(26) is int2
    assert d.get("int4").onnx_knows and d.get("float").onnx_knows
    assert sorted(t.name for t in d.all_dtypes() if not t.onnx_knows) == ["float6e2m3", "float6e3m2", "int2", "uint2"]
    assert d.onnx_problem([1, 22, "float8e4m3fn"]) is None
    assert d.onnx_problem([1, 26]) == "this onnx (1.19.0) does not know element type int2 (26)"
    assert d.onnx_problem(["float6e3m2"]) == "this onnx (1.19.0) does not know element type float6e3m2 (28)"


def test_registry_leaves_out_a_type_ml_dtypes_lacks(monkeypatch):
    monkeypatch.delattr(ml_dtypes, "float6_e2m3fn")
    d = _fresh_dtypes(monkeypatch)
    assert "float6e2m3" not in {t.name for t in d.all_dtypes()}
    why = f"this ml_dtypes ({ml_dtypes.__version__}) has no dtype for it"
    assert d.unknown_types() == (("float6e2m3", 27, why),)
    assert d.onnx_problem([27]) == d.onnx_problem(["float6e2m3"]) == f"element type float6e2m3 (27): {why}"
    assert d.get("float6e3m2").np_dtype == np.dtype(ml_dtypes.float6_e3m2fn)


def test_enum_values_are_the_installed_onnx_ones():
    for name, value in dtypes.ONNX_ENUM.items():
        assert getattr(TensorProto, name) == value, name
    assert all(t.onnx_knows for t in dtypes.all_dtypes())  # the pinned onnx knows every type


NUMERIC = [t for t in dtypes.all_dtypes() if t.is_numeric]


def _values(t: dtypes.DType, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    pool = t.all_values() if t.bits <= 16 else rng.integers(-100, 100, 64).astype(t.np_dtype)
    return pool[rng.integers(0, len(pool), n)]


@pytest.mark.parametrize("t", NUMERIC, ids=lambda t: t.name)
@pytest.mark.parametrize("n", [0, 1, 3, 5, 148])
def test_raw_data_made_and_read_here_is_onnx_own(t, n, monkeypatch):
    """For a type the installed onnx does not know, serialize writes and reads raw_data itself: the same bytes
    and values numpy_helper gives for it where onnx knows the type."""
    x = _values(t, n).reshape(n)
    theirs = serialize.tensor_bytes(x, "x", t)
    monkeypatch.setattr(dtypes, "_ONNX_KNOWN", dtypes._ONNX_KNOWN - {t.onnx})
    monkeypatch.setattr(numpy_helper, "from_array", None)  # as if onnx could not: not called
    monkeypatch.setattr(numpy_helper, "to_array", None)
    assert serialize.tensor_bytes(x, "x", t) == theirs
    got = case_reader.read_tensor(theirs, Path("x.pb"))
    assert got.dtype == t.np_dtype and got.shape == (n,)
    assert t.same_values(got, x).all()


def test_a_short_or_unpacked_tensor_of_an_unknown_type_is_one_line(monkeypatch):
    int2 = dtypes.get("int2")
    monkeypatch.setattr(dtypes, "_ONNX_KNOWN", dtypes._ONNX_KNOWN - {26})
    short = TensorProto(name="x", data_type=26, dims=[5], raw_data=b"\x00")
    with pytest.raises(CaseError, match=r"5 int2 elements need more than 1 bytes"):
        case_reader.read_tensor(short.SerializeToString(), Path("x.pb"))
    unpacked = TensorProto(name="x", data_type=26, dims=[2], int32_data=[1, 1])
    with pytest.raises(CaseError, match=r"int2 data outside raw_data, which this onnx \(.*\) cannot convert"):
        case_reader.read_tensor(unpacked.SerializeToString(), Path("x.pb"))
    assert int2.from_raw(b"", (0,)).shape == (0,)


def test_element_types_of_a_model_and_the_line_for_an_older_onnx(onnx_1_19, monkeypatch):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", 26, [2])
    node = helper.make_node("Cast", ["x"], ["y"], to=26)
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]))
    assert serialize.element_types(model) == {1, 26}
    q = helper.make_node("QuantizeLinear", ["x", "s"], ["q"], output_dtype=27)
    model.graph.node.append(q)
    model.graph.initializer.append(helper.make_tensor("s", TensorProto.FLOAT16, [], [1.0]))
    assert serialize.element_types(model) == {1, 10, 26, 27}
    d = _fresh_dtypes(monkeypatch)
    assert d.onnx_problem(sorted(serialize.element_types(model))) == \
        "this onnx (1.19.0) does not know element type int2 (26)"


def test_the_onnx_reference_backend_says_unsupported_for_a_type_its_onnx_lacks(monkeypatch):
    """Its evaluator is the installed onnx: a type that onnx predates is unsupported with the one line, not
    the evaluator's KeyError (an error)."""
    from runners.backends.base import Unsupported
    from runners.backends.onnx_reference import OnnxReferenceBackend

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", 26, [2])
    model = helper.make_model(helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=26)], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 25)])
    monkeypatch.setattr(dtypes, "_ONNX_KNOWN", dtypes._ONNX_KNOWN - {26})
    with pytest.raises(Unsupported, match=r"^onnx\.reference: this onnx \(.*\) does not know element type int2 \(26\)$"):
        OnnxReferenceBackend().prepare(model, None)


# ---- .ci/oldest_check.py -------------------------------------------------------------------

def _check_module():
    spec = importlib.util.spec_from_file_location("oldest_check", ROOT / ".ci" / "oldest_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _suite(tmp_path: Path, families: list[str]) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "manifest.json").write_text(json.dumps({"cases": [{"family": f} for f in families]}))
    return suite


def _results(tmp_path: Path, name: str, records: list[tuple[str, str, str]]) -> Path:
    """records: (case, family, verdict), node items of data set 0."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"backend": {"name": name, "version": "1"}, "records": [
        {"case": c, "dataset": 0, "family": f, "kind": "node", "verdict": v, "message": f"{c}: said so\nmore"}
        for c, f, v in records]}))
    return path


GOOD = [("a1", "cast", "pass"), ("a2", "cast", "unsupported"), ("b1", "layout", "fail")]


def test_oldest_check_passes_a_run_that_ran(tmp_path):
    suite = _suite(tmp_path, ["cast", "layout"])
    ref = _results(tmp_path, "opconform", [(c, f, "pass") for c, f, _ in GOOD])
    assert _check_module().problems(3, suite, [ref, _results(tmp_path, "openvino", GOOD)]) == []


@pytest.mark.parametrize("records, min_items, expected", [
    (GOOD[:2] + [("b1", "layout", "error")], 3, "openvino 1 (openvino.json): b1[0] error: b1: said so"),
    (GOOD[:2] + [("b1", "layout", "crash")], 3, "b1[0] crash"),
    (GOOD[:2] + [("b1", "layout", "timeout")], 3, "b1[0] timeout"),
    (GOOD[:2] + [("b1", "layout", "invalid-case")], 3, "b1[0] invalid-case"),
    (GOOD, 4, "3 items, fewer than 4"),
    (GOOD[:2] + [("b1", "layout", "unsupported")], 3, "family layout: no item ran"),
    (GOOD[:2], 2, "no item of family layout"),
])
def test_oldest_check_refuses(tmp_path, records, min_items, expected):
    suite = _suite(tmp_path, ["cast", "layout"])
    ref = _results(tmp_path, "opconform", [(c, f, "pass") for c, f, _ in records])
    found = _check_module().problems(min_items, suite, [ref, _results(tmp_path, "openvino", records)])
    assert any(expected in line for line in found), found


def test_oldest_check_wants_the_references_passing_and_the_same_items(tmp_path):
    suite = _suite(tmp_path, ["cast", "layout"])
    ref = _results(tmp_path, "opconform", GOOD)
    other = _results(tmp_path, "onnxruntime", GOOD[:2] + [("b2", "layout", "pass")])
    found = _check_module().problems(3, suite, [ref, other])
    assert "opconform 1 (opconform.json): a2[0] unsupported on the references" in found
    assert "onnxruntime 1 (onnxruntime.json): not the same items as the first file (2 differ)" in found


def test_oldest_check_without_a_results_file_is_one_line(tmp_path, capsys):
    suite = _suite(tmp_path, ["cast"])
    assert _check_module().main(["1", str(suite), str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"oldest versions: {tmp_path / 'missing.json'}: no results file (pytest did not run; its log is "
                   "beside it)"]


def test_oldest_check_excuses_only_what_the_known_list_names(tmp_path):
    """A known error of a release and a family it does not implement pass with their entry; an entry that
    matches nothing is a problem; the list's lines need a reason."""
    check = _check_module()
    suite = _suite(tmp_path, ["cast", "layout"])
    records = [("a1", "cast", "pass"), ("a2_dilation", "cast", "error"), ("b1", "layout", "unsupported")]
    ref = _results(tmp_path, "opconform", [(c, f, "pass") for c, f, _ in records])
    ov = _results(tmp_path, "openvino", records)
    excused = [("openvino", "error", "a2_dil", "a bug of that release"),
               ("openvino", "unsupported", "family:layout", "no such op there")]
    assert check.problems(3, suite, [ref, ov], excused) == []
    found = check.problems(3, suite, [ref, ov], excused[:1])
    assert any("family layout: no item ran" in line for line in found)
    found = check.problems(3, suite, [ref, ov], excused + [("openvino", "error", "zz", "gone")])
    assert any("openvino error zz matched nothing: remove it (gone)" in line for line in found)
    assert check.problems(3, suite, [ref, ov], [("openvino", "crash", "a2_dil", "not an error")]) != []
    bad = tmp_path / "known.txt"
    bad.write_text("openvino error a2\n")
    with pytest.raises(SystemExit, match="expected BACKEND VERDICT WHAT # why"):
        check.known(bad)
    bad.write_text("# comment\n\nopenvino error a2  # why\n")
    assert check.known(bad) == [("openvino", "error", "a2", "why")]
