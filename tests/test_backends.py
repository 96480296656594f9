"""Backends and the registry: every backend on small Cast models, judged against generator.reference.cast.

The input values avoid rows where a backend is known not to conform (those are the suite's business, not
these tests'): what is checked here is that inputs go in and outputs come back bit-exactly in their
declared element types, and that Unsupported / errors / registry failures are reported as specified.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from generator import dtypes
from generator.case import node_model
from generator.reference.cast import cast
from runners.backends import registry
from runners.backends.base import Backend, BackendNotInstalled, Unsupported, UnknownBackend, as_declared
from runners.compare import compare_outputs

ort = pytest.importorskip("onnxruntime")
from runners.backends.onnxruntime import pack, unpack  # noqa: E402

BACKENDS = ["onnxruntime", "onnx-reference", "opconform"]
F32 = dtypes.get("float")

# Inputs (float32) per target whose results the spec defines and every backend here gets right.
TO_VALUES = {
    "float8e4m3fn": [0.0, -0.0, 0.25, 1.5, -3.0, 7.0, 100.0, 0.1, 448.0, -1000.0, np.nan, 2.0**-9],
    "float8e4m3fnuz": [0.0, 0.25, 1.5, -3.0, 7.0, 100.0, 0.1, 240.0, 1000.0, np.nan, 2.0**-10],
    "float8e5m2": [0.0, -0.0, 0.25, 1.5, -3.0, 7.0, 100.0, 0.1, 57344.0, -1e6, np.inf, -np.inf, np.nan],
    "float8e5m2fnuz": [0.0, 0.25, 1.5, -3.0, 7.0, 100.0, 0.1, 57344.0, -1e6, np.nan],
    "float8e8m0": [0.25, 1.0, 1.5, 3.0, 1024.0, 2.0**-100, 2.0**100, np.nan],
    "float4e2m1": [0.0, -0.0, 0.5, 1.5, -3.0, 6.0, 10.0, -0.2, 2.5],
    "int4": [-8.0, -1.0, 0.0, 3.0, 7.0],
    "uint4": [0.0, 1.0, 9.0, 15.0, 4.0],
    "int2": [-2.0, -1.0, 0.0, 1.0, 1.0],
    "uint2": [0.0, 1.0, 2.0, 3.0, 2.0],
    "bfloat16": [0.0, -0.0, 1.0 / 3, 3e38, -np.inf, np.nan, 1e-40],
    "float16": [0.0, -0.0, 1.0 / 3, 65520.0, -np.inf, np.nan, 1e-7],
    "double": [0.1, -0.0, np.inf, np.nan, 1e-45],
    "bool": [0.0, -0.0, 1.5, np.nan, -np.inf],
    "int8": [-128.0, 127.0, -0.0, 5.0],
    "uint64": [0.0, 1.0, 2.0**63, 2.0**64 - 2.0**11],
    "string": [0.1, 1.5, -3.0, 1e-7, 123456.0, -0.0],
}
# Sources whose every value (or the listed ones) casts to float32 exactly.
FROM_TYPES = ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0", "float4e2m1",
              "int4", "uint4", "int2", "uint2", "bfloat16", "float16", "bool", "int64", "string"]


def source_values(t: dtypes.DType) -> np.ndarray:
    if t.kind == "string":
        return np.array(["1.5", "-2", "0.1", "1e3", "-0", "NaN", "-INF", "0.3333333333"], dtype=object)
    if t.kind == "bool":
        return np.array([True, False])
    if t.bits <= 8:
        return t.all_values()
    if t.is_float:
        return t.all_values()[::97]
    return np.array([t.int_min, -1, 0, 1, 2**24 + 1, t.int_max], dtype=t.np_dtype)


def run_cast(backend: str, src: str, to: str, x: np.ndarray, opset: int = 25, attrs: dict | None = None,
             tier: str = "strict"):
    """Run Cast on `backend`; compare with the reference where it defines the result. Skips if Unsupported."""
    s, t = dtypes.get(src), dtypes.get(to)
    attrs = attrs or {}
    model = node_model("Cast", [("x", s, x.shape)], [("y", t, x.shape)], {"to": t.onnx, **attrs}, opset)
    b = registry.get_backend(backend)
    try:
        out = b.run(b.prepare(model, None), [x])
    except Unsupported as exc:
        pytest.skip(f"{backend}: {exc}")
    expected, why = cast(x, s, t, saturate=bool(attrs.get("saturate", 1)),
                         round_mode=attrs.get("round_mode", "up"), opset=opset)
    assert len(out) == 1 and out[0].shape == x.shape
    assert out[0].dtype == (object if t.kind == "string" else t.np_dtype)
    defined = why == ""
    spec = {"mode": "parsed", "source_type": s.name} if t.kind == "string" else {"mode": "exact"}
    outcome = compare_outputs([expected[defined]], [out[0][defined]], ["y"], [t], spec, tier, inputs=[x[defined]])
    assert outcome.ok, f"{backend} {src}->{to}:\n{outcome.message}"
    return out[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("to", sorted(TO_VALUES))
def test_cast_from_float32(backend, to):
    x = np.array(TO_VALUES[to], dtype=np.float32)
    # float -> string: no text format is fixed; onnxruntime prints 8 digits, which only the tolerant tier
    # accepts for values that need 9 (none here), so strict must pass
    run_cast(backend, "float", to, x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", FROM_TYPES)
def test_cast_to_float32(backend, src):
    t = dtypes.get(src)
    run_cast(backend, src, "float", source_values(t))


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_float8e8m0_round_modes(backend):
    x = np.array([1.0, 1.25, 1.5, 3.0, 0.75, 2.0**20 * 1.7], dtype=np.float32)
    for mode in ("up", "down", "nearest"):
        run_cast(backend, "float", "float8e8m0", x, opset=24, attrs={"round_mode": mode})


@pytest.mark.parametrize("backend", ["onnxruntime", "opconform"])
def test_cast_sub_byte_in_and_out(backend):
    run_cast(backend, "int4", "uint2", dtypes.get("int4").all_values())  # wraps: low two bits
    run_cast(backend, "uint2", "int4", dtypes.get("uint2").all_values())


@pytest.mark.parametrize("backend", ["onnxruntime", "opconform"])
def test_cast_string_to_float8(backend):
    x = np.array(["1.5", "-2", "0.1", "NaN", "1e9", "-0"], dtype=object)
    run_cast(backend, "string", "float8e5m2", x)
    run_cast(backend, "string", "float8e4m3fn", x.reshape(2, 3))


@pytest.mark.parametrize("backend", ["onnxruntime", "opconform"])
def test_cast_float8_to_string(backend):
    t = dtypes.get("float8e4m3fn")
    x = t.all_values()
    run_cast(backend, "float8e4m3fn", "string", x[~t.isnan(x)])


# ---- onnxruntime transport details ------------------------------------------------------
@pytest.mark.parametrize("name", ["int4", "uint4", "int2", "uint2", "float4e2m1"])
def test_pack_unpack_round_trip(name):
    t = dtypes.get(name)
    values = t.all_values()
    for n in range(0, 9):
        x = values[np.arange(n) % values.size]
        raw = pack(x, t)
        assert len(raw) == -(-n * t.bits // 8)
        assert (t.to_bits(unpack(raw, (n,), t)) == t.to_bits(x)).all()


def test_pack_layout_first_element_in_low_bits():
    assert pack(np.array([1, -1, 2], dtype=dtypes.get("int4").np_dtype), dtypes.get("int4")) == bytes([0xF1, 0x02])
    assert pack(np.array([1, 2, 3, 0, 1], dtype=dtypes.get("uint2").np_dtype), dtypes.get("uint2")) == bytes([0x39, 0x01])


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (2, 3), (3, 1, 3)])
@pytest.mark.parametrize("to", ["int4", "uint2", "float8e5m2", "bfloat16"])
def test_onnxruntime_shapes(shape, to):
    x = (np.arange(int(np.prod(shape)), dtype=np.float32) % 3).reshape(shape)
    run_cast("onnxruntime", "float", to, x)


def test_onnxruntime_settings_disable_optimizations():
    b = registry.get_backend("onnxruntime")
    assert b.settings()["graph_optimization_level"] == "ORT_DISABLE_ALL"
    assert b.version() == ort.__version__
    model = node_model("Cast", [("x", F32, (2,))], [("y", dtypes.get("float16"), (2,))], {"to": 10}, 25)
    options = b.prepare(model, None).session.get_session_options()
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL


@pytest.mark.parametrize("to, opset, said", [
    ("float4e2m1", 25, "Cast"),  # onnxruntime 1.31: no CPU Cast kernel for float4e2m1
    # 1.32 loads Cast-28 float6 models, then says its type system has no float6 (it was an error on 250 data sets)
    ("float6e2m3", 28, "float6e2m3"),
])
def test_onnxruntime_missing_types_are_unsupported_or_exact(to, opset, said):
    """A type the runtime lacks must be Unsupported, never an error; where it has it, the result is exact."""
    s, t = F32, dtypes.get(to)
    model = node_model("Cast", [("x", s, (3,))], [("y", t, (3,))], {"to": t.onnx}, opset)
    b = registry.get_backend("onnxruntime")
    try:
        prepared = b.prepare(model, None)
    except Unsupported as exc:
        assert said in str(exc)
        return
    x = np.array([0.5, 7.0, -1.5], np.float32)
    assert (t.to_bits(b.run(prepared, [x])[0]) == t.to_bits(cast(x, s, t)[0])).all()


# ---- opconform backend -------------------------------------------------------------------
def test_opconform_runs_a_chain_with_the_models_opset():
    """Two Casts in a row; the FNUZ row for Inf changed at Cast-24, so the opset must reach the reference."""
    from onnx import helper

    from generator.case import finish_model, value_info

    fnuz = dtypes.get("float8e4m3fnuz")
    x = np.array([np.inf, -np.inf, 3.0], np.float32)
    for opset in (19, 24):
        graph = helper.make_graph(
            [helper.make_node("Cast", ["x"], ["m"], to=fnuz.onnx),
             helper.make_node("Cast", ["m"], ["y"], to=dtypes.get("float16").onnx, domain="ai.onnx")],
            "chain", [value_info("x", F32, (3,))], [value_info("y", dtypes.get("float16"), (3,))])
        b = registry.get_backend("opconform")
        y = b.run(b.prepare(finish_model(graph, opset), None), [x])[0]
        mid, _ = cast(x, F32, fnuz, opset=opset)
        want, _ = cast(mid, fnuz, "float16", opset=opset)
        assert y.dtype == np.float16 and (want.view(np.uint16) == y.view(np.uint16)).all()
        assert np.isnan(y[0]) == (opset == 19)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_op_is_unsupported(backend):
    model = node_model("Frob", [("x", F32, (2,))], [("y", F32, (2,))], {}, 25, domain="com.example",
                       extra_opsets={"com.example": 1})
    with pytest.raises(Unsupported):
        registry.get_backend(backend).prepare(model, None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_invalid_model_is_an_error_not_unsupported(backend):
    model = node_model("Cast", [("x", F32, (2,))], [("y", dtypes.get("float16"), (2,))], {}, 25)  # no "to"
    b = registry.get_backend(backend)
    with pytest.raises(Exception) as info:
        b.run(b.prepare(model, None), [np.ones(2, np.float32)])
    assert not isinstance(info.value, Unsupported)


# ---- as_declared ----------------------------------------------------------------------------
def test_as_declared_only_exact_reinterpretations():
    f8 = dtypes.get("float8e4m3fn")
    bits = np.array([0x38, 0x7F], np.uint8)
    assert as_declared(bits, f8).dtype == f8.np_dtype and (f8.to_bits(as_declared(bits, f8)) == bits).all()
    i4 = dtypes.get("int4")
    assert as_declared(np.array([-8, 7], np.int8), i4).dtype == i4.np_dtype
    assert as_declared(np.array([8], np.int8), i4).dtype == np.int8  # out of range: left for compare
    assert as_declared(np.array([1.5], np.float32), f8).dtype == np.float32  # never round values
    assert as_declared(np.array(["a", "b"]), dtypes.get("string")).dtype == object
    assert as_declared(np.array([b"x"], dtype=object), dtypes.get("string"))[0] == "x"


# ---- registry ---------------------------------------------------------------------------
def test_unknown_backend_is_one_line_listing_available():
    with pytest.raises(UnknownBackend) as info:
        registry.get_backend("tensorflo")
    text = str(info.value)
    assert "\n" not in text and "tensorflo" in text
    for name in BACKENDS:
        assert name in text


@pytest.mark.parametrize("spec", ["no_such_module_xyz:Backend", "onnxruntime.backend:no_such_attr", "json:dumps"])
def test_bad_module_attr_is_one_line(spec):
    with pytest.raises(UnknownBackend) as info:
        registry.get_backend(spec)
    assert "\n" not in str(info.value) and spec.split(":")[0] in str(info.value)


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.delitem(sys.modules, "runners.backends.onnxruntime", raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now fails
    with pytest.raises(BackendNotInstalled) as info:
        registry.get_backend("onnxruntime")
    text = str(info.value)
    assert "\n" not in text and "not installed" in text and "pip install 'opconform[onnxruntime]'" in text
    row = next(r for r in registry.list_backends() if r["name"] == "onnxruntime")
    assert row["installed"] is False and row["version"] is None and "pip install" in row["detail"]


def test_list_backends():
    rows = {r["name"]: r for r in registry.list_backends()}
    for name in BACKENDS:
        assert rows[name]["installed"] is True and isinstance(rows[name]["version"], str)
    assert "ORT_DISABLE_ALL" in rows["onnxruntime"]["detail"]


@pytest.mark.parametrize("spec", ["onnxruntime.backend.backend:OnnxRuntimeBackend", "onnxruntime.backend",
                                  "onnxruntime.backend:"])
def test_module_attr_adapter_with_onnxruntime_backend(spec):
    b = registry.get_backend(spec)
    assert isinstance(b, Backend) and b.name == spec and b.version() == ort.__version__
    x = np.array([0.1, -3.0, 448.0, 1e6], np.float32)
    for to in ("float16", "float8e4m3fn"):  # float8e4m3fn comes back from onnxruntime.backend as uint8
        t = dtypes.get(to)
        model = node_model("Cast", [("x", F32, (4,))], [("y", t, (4,))], {"to": t.onnx}, 21)
        y = b.run(b.prepare(model, None), [x])[0]
        assert y.dtype == t.np_dtype and (t.to_bits(y) == t.to_bits(cast(x, F32, t)[0])).all()


def test_module_attr_naming_an_opconform_backend_class():
    b = registry.get_backend("runners.backends.opconform:OpconformBackend")
    assert b.name == "opconform"


# ---- unsupported or error: each adapter's table (docs/backends.md) ----------------------------------
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state  # noqa: E402

from runners.backends import litert as litert_backend  # noqa: E402
from runners.backends import onnx_backend_adapter, onnx_reference  # noqa: E402
from runners.backends import onnxruntime as ort_backend  # noqa: E402

ORT = "[ONNXRuntimeError] : {} : "
# (table, exception, unsupported?): what each runtime said, verbatim where a run produced it.
SAYINGS = [
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Exception during loading: MLDataType for: "
                                             "tensor(float6e2m3) is not currently registered or supported"), True),
    (ort_backend.UNSUPPORTED, ort_state.NotImplemented(ORT.format("9 : NOT_IMPLEMENTED") + "Could not find an "
                                                       "implementation for Cast(25) node with name ''"), True),
    (ort_backend.UNSUPPORTED, ort_state.NotImplemented(ORT.format("9 : NOT_IMPLEMENTED") + "Non-zero status code "
                                                       "returned while running Cast node. Name:'' Status Message: "
                                                       "not yet"), True),  # the status says it, whatever the words
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Failed to find kernel for Cast(25) (node:'' "
                                             "ep:'CPUExecutionProvider')."), True),
    (ort_backend.UNSUPPORTED, ort_state.InvalidGraph(ORT.format("10 : INVALID_GRAPH") + "This is an invalid model. "
                                                     "In Node, (\"\", Frob, \"\", -1) : , Error No Op registered for "
                                                     "Frob with domain_version of 21"), True),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Fatal error: com.example:Frob(-1) is not a "
                                             "registered function/op"), True),
    (ort_backend.UNSUPPORTED, RuntimeError("tensor type 27 is not supported"), True),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Invalid tensor data type 27."), True),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "/onnxruntime_src/onnxruntime/core/graph/"
                                             "model.cc:256 Unsupported model IR version: 99, max supported IR "
                                             "version: 14"), True),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "ONNX Runtime only *guarantees* support for "
                                             "models stamped with official released onnx opset versions. Opset 99 "
                                             "is under development ... Current official support for domain "
                                             "ai.onnx is till opset 28."), True),
    (ort_backend.UNSUPPORTED, ort_state.InvalidArgument(ORT.format("2 : INVALID_ARGUMENT") + "Non-zero status code "
                                                        "returned while running QLinearConv node. Name:'' Status "
                                                        "Message: Dilation not supported for AutoPadType::SAME_UPPER "
                                                        "or AutoPadType::SAME_LOWER."), False),
    (ort_backend.UNSUPPORTED, ort_state.RuntimeException(ORT.format("6 : RUNTIME_EXCEPTION") + "Non-zero status "
                                                         "code returned while running Cast node. Name:'' Status "
                                                         "Message: stod"), False),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Exception during initialization: a kernel's "
                                             "check: this mode is not currently registered or supported"), False),
    (ort_backend.UNSUPPORTED, ort_state.InvalidGraph(ORT.format("10 : INVALID_GRAPH") + "This is an invalid model. "
                                                     "Error Required attribute 'to' is missing."), False),
    (ort_backend.UNSUPPORTED, ort_state.Fail(ORT.format("1 : FAIL") + "Node () Op (Cast) [TypeInferenceError] "
                                             "Attribute to does not specify a valid type in ."), False),
    (ort_backend.UNSUPPORTED, ValueError("the model has 1 inputs, 2 given"), False),
    (onnx_reference.UNSUPPORTED, NotImplementedError("Node type 'Frob' from domain 'com.example' is unknown"), True),
    (onnx_reference.UNSUPPORTED, RuntimeError("No implementation was found for node type 'X' from domain 'y'. If "
                                              "this node has a context dependent implementation ..."), True),
    (onnx_reference.UNSUPPORTED, RuntimeError("No registered implementation for operator 'X' and domain '', the "
                                              "operator has a context dependent function."), True),
    (onnx_reference.UNSUPPORTED, TypeError("Issues with types <class 'numpy.ndarray'> (operator Cast)."), False),
    (onnx_reference.UNSUPPORTED, RuntimeError("Unable to cast to string"), False),
    (onnx_backend_adapter.UNSUPPORTED, NotImplementedError("no such kernel"), True),
    (onnx_backend_adapter.UNSUPPORTED, RuntimeError("is not supported"), False),
    (litert_backend.UNSUPPORTED, RuntimeError("Didn't find op for builtin opcode 'CAST' version '7'. An older "
                                              "version of this builtin might be supported."), True),
    (litert_backend.UNSUPPORTED, RuntimeError("Encountered unresolved custom op: Frob."), True),
    (litert_backend.UNSUPPORTED, ValueError("Op builtin_code out of range: 250."), True),
    (litert_backend.UNSUPPORTED, RuntimeError("Type INT4 is not supported by the CAST kernel."), True),
    (litert_backend.UNSUPPORTED, RuntimeError("tensorflow/lite/kernels/concatenation.cc:158 t->dims->data[d] != "
                                              "t0->dims->data[d] (3 != 2)Node number 2 (CONCATENATION) failed to "
                                              "prepare."), False),
]


@pytest.mark.parametrize("table, exc, unsupported", SAYINGS,
                         ids=[f"{type(e).__name__}:{str(e)[:60]}" for _, e, _ in SAYINGS])
def test_unsupported_or_error(table, exc, unsupported):
    assert table.matches(exc) is unsupported


def test_every_table_entry_is_exercised_and_documented():
    """Each pattern of each table is matched by a saying above and shown in docs/backends.md."""
    from unsupported_tables import check_tables

    check_tables(SAYINGS, {id(t): t for t, _, _ in SAYINGS}.values())


# ---- a string output is judged on what the backend returned (onnx#4814) ----------------------------
# onnx 1.13's ReferenceEvaluator returned Cast to string as an object array of Python floats (measured with
# onnx 1.13.1: [1.5, -3.0, 0.10000000149011612]); str() of each element read back as the right value, so the
# adapters' conversion made that wrong output pass.
ONNX_113_CAST_TO_STRING = np.array([1.5, -3.0, float(np.float32(0.1))], dtype=object)


def _string_cast_case(tmp_path):
    """A Cast float32 -> string node case on disk, read back as the runner reads it."""
    from generator.case import Case, case_meta
    from generator.serialize import read_case, write_case

    s, x = dtypes.get("string"), np.array([1.5, -3.0, 0.1], np.float32)
    model = node_model("Cast", [("x", F32, (3,))], [("y", s, (3,))], {"to": s.onnx}, 13)
    meta = case_meta(op="Cast", domain="", opset=13, family="cast", spec_file="Cast.txt", clause="number -> string",
                     compare={"mode": "parsed", "source_type": "float"}, flags=["edge"], seed=0, params={})
    write_case(Case("test_cast_float32_to_string_floats", "node", model, [[x]],
                    [[cast(x, F32, s)[0]]], meta), tmp_path)
    return read_case(tmp_path / "node" / "test_cast_float32_to_string_floats")


class _FloatsOrtValue:
    """What an OrtValue of a string tensor would be if onnxruntime handed floats back."""

    def is_tensor(self):
        return True

    def element_type(self):
        return dtypes.get("string").onnx

    def shape(self):
        return [3]

    def numpy(self):
        return ONNX_113_CAST_TO_STRING.copy()


class _FloatsRep:
    def run(self, inputs):
        return [ONNX_113_CAST_TO_STRING.copy()]


def _floats_backend(which: str, monkeypatch) -> Backend:
    """Each adapter that converts object arrays, with its runtime handing floats back for a string output."""
    if which == "onnx-reference":
        monkeypatch.setattr(onnx_reference.ReferenceEvaluator, "run",
                            lambda self, names, feed: [ONNX_113_CAST_TO_STRING.copy()])
        return registry.get_backend("onnx-reference")
    if which == "onnxruntime":
        b = registry.get_backend("onnxruntime")
        monkeypatch.setattr(type(b), "_run", lambda self, prepared, inputs: [
            self._to_numpy(_FloatsOrtValue(), t) for _, t in prepared.outputs])
        return b
    module = type(sys)("floats_backend")
    module.prepare = lambda model, device: _FloatsRep()
    return onnx_backend_adapter.OnnxBackendAdapter("floats_backend", module, "floats_backend")


@pytest.mark.parametrize("which", ["onnx-reference", "onnxruntime", "module:attr"])
def test_floats_where_a_string_is_declared_fail_naming_their_type(which, monkeypatch, tmp_path):
    from runners.execute import run_case_dataset

    case = _string_cast_case(tmp_path)
    r = run_case_dataset(_floats_backend(which, monkeypatch), case, 0, "strict", {})
    assert r.verdict == "fail", r.message
    assert "element [0] is a Python float (1.5)" in r.message and "3 of 3 elements are not text" in r.message
    assert r.n_mismatch == r.n_total == 3


def test_as_declared_never_turns_a_number_into_text():
    s = dtypes.get("string")
    y = as_declared(ONNX_113_CAST_TO_STRING, s)
    assert [type(v) for v in y] == [float, float, float]
    mixed = as_declared(np.array(["1.5", b"-3", np.float64(0.1)], dtype=object), s)
    assert list(mixed[:2]) == ["1.5", "-3"] and type(mixed[2]) is np.float64
    out = compare_outputs([np.array(["1.5", "-3", "0.1"], dtype=object)], [mixed], ["y"], [s],
                          {"mode": "parsed", "source_type": "float"}, "strict")
    assert not out.ok and "1 of 3 elements are not text: element [2] is a Python numpy.float64" in out.message
    # text as runtimes give it passes: str, UTF-8 bytes, numpy unicode
    for text in (np.array(["1.5", "-3"], dtype=object), np.array([b"1.5", b"-3"], dtype=object), np.array(["1.5", "-3"])):
        assert compare_outputs([np.array(["1.5", "-3"], dtype=object)], [as_declared(text, s)], ["y"], [s],
                               {"mode": "exact"}, "strict").ok


def test_a_probe_records_that_a_string_output_held_numbers():
    from runners.execute import _probe_output

    rec = _probe_output("y", dtypes.get("string"), ONNX_113_CAST_TO_STRING)
    assert rec["values"] == ["1.5", "-3.0", "0.10000000149011612"]
    assert rec["note"] == "3 of 3 elements are not text: element [0] is a Python float (1.5)"
    assert "note" not in _probe_output("y", dtypes.get("string"), np.array(["1.5"], dtype=object))
