"""The tract backend (runners/backends/tract_backend.py, tract_refusals.py): real cases of the committed suite
judged end to end (passes, refusals in tract's words, a fed weight refused naming its slot, errors that stay
errors, a negative case), tensors in and out bit-exactly for each of tract's element types, the options, and the
table of what tract says when it does not implement something (verbatim messages of tract 0.23.9, each
documented in docs/backends_tract.md)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from generator import dtypes
from generator.case import node_model
from generator.serialize import read_case

tract = pytest.importorskip("tract")
from runners.backends import tract_refusals  # noqa: E402
from runners.backends.base import BackendOptionError, Unsupported  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402
from runners.execute import run_case_dataset  # noqa: E402
from runners.input_modes import DEFAULT, FED, RunMode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
DOCS = ROOT / "docs" / "backends_tract.md"
INITIALIZERS = RunMode(inputs="initializers")


@pytest.fixture(scope="module")
def backend():
    return get_backend("tract")


def verdict(backend, kind: str, name: str, dataset: int = 0, mode: RunMode = FED):
    """The item's Result, fed by default: the adapter's own refusals (--inputs auto's rerun is tested apart)."""
    return run_case_dataset(backend, read_case(CASES / kind / name), dataset, "strict", {}, mode)


# ---- real cases ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "test_cast_float32_to_float16_edge",
    "test_dynamicquantizelinear_scalar",  # a 0-d input stays 0-d; three outputs
    "test_convert_promote_types_int8_int8_dim_dim_safe",  # a model-local function, inlined
    "test_qlinearconv_auto_pad_notset",  # fed scales and zero points: QLinearConv takes them
])
def test_real_cases_pass(backend, name):
    r = verdict(backend, "node", name)
    assert r.verdict == "pass", r.message


@pytest.mark.parametrize("name, says", [
    ("test_cast_bfloat16_to_float32_edge", "Unknown DatumType Bfloat16"),
    ("test_cast_float6e2m3_to_float32_edge", "unknown ONNX TensorProto.DataType (27)"),  # a number onnx defines
    ("test_cast_float32_to_string_edge", "Unsupported DatumType in the public API String"),
    ("test_cast_string_to_float32_edge", "tract's public API has no string tensors"),  # the adapter's own
    ("test_matmulnbits_bits8_default_zero_point", "MatMulNBits: only bits=4"),  # 0.23.9 goes on "and bits=2 are"
    ("test_quantizelinear_example_opset10",
     "QuantizeLinear's y_scale (input 1, fed as 'y_scale'): tract takes it only as a constant: y_scale must be a "
     "const"),
    # tract's DequantizeLinear calls its scale y_scale too: the slot named is the ONNX one
    ("test_dequantizelinear_explicit_defaults_per_tensor_uint8_opset13",
     "DequantizeLinear's x_scale (input 1, fed as 'x_scale'): tract takes it only as a constant: y_scale must"),
    ("test_matmulnbits_a_1_row", "MatMulNBits's input 1 (fed as 'B'): tract takes it only as a constant: "
                                 "MatMulNBits: quantized weight B must be a constant"),
])
def test_real_cases_unsupported(backend, name, says):
    r = verdict(backend, "node", name)
    assert r.verdict == "unsupported" and says in r.message, r.message
    assert "\n" not in r.message and "Stack backtrace" not in r.message


def test_fed_weight_refusals_are_constant_only(backend):
    """--inputs auto (the lead's) reruns such an item with initializers: CONSTANT_ONLY knows the words; with the
    weights as initializers the same case runs."""
    r = verdict(backend, "node", "test_quantizelinear_example_opset10")
    assert backend.CONSTANT_ONLY.matches(Exception(r.error)), r.error
    assert not backend.CONSTANT_ONLY.matches(Exception("Unknown DatumType Bfloat16"))
    r = verdict(backend, "node", "test_dequantizelinear_explicit_defaults_per_tensor_uint8_opset13", mode=INITIALIZERS)
    assert r.verdict == "pass", r.message
    r = verdict(backend, "node", "test_quantizelinear_example_opset10", mode=DEFAULT)  # auto: fed refused, then run
    assert r.verdict == "pass" and r.inputs == "initializers", r.message


@pytest.mark.parametrize("name, says", [
    ("test_cast_float32_to_int64_edge", "Unsupported DatumType in the public API TDim"),  # tract's Cast to i64 is TDim
    ("test_qlinearconv_vector_tail", "Expect concrete shape for kernel"),  # a symbolic kernel dimension
])
def test_real_cases_error(backend, name, says):
    r = verdict(backend, "node", name)
    assert r.verdict == "error" and says in r.message, r.message


def test_wrong_output_type_is_a_fail(backend):
    """tract ignores DequantizeLinear-23's output_dtype: a float32 output where float16 is declared is compare's
    to report (the adapter converts nothing)."""
    r = verdict(backend, "node", "test_dequantizelinear_output_dtype_uint8_float32_to_float16_opset23",
                mode=INITIALIZERS)
    assert r.verdict == "fail" and "returned element type float (numpy float32), declared float16" in r.message


def test_real_negative_case_is_refused(backend):
    r = verdict(backend, "negative", "test_matmulinteger_negative_k_mismatch")
    assert r.verdict == "pass" and "refused at prepare" in r.message, r.message


def test_input_facts_data_makes_shapes_concrete():
    """A symbolic kernel dimension tract cannot convolve with the model's facts runs with the data set's."""
    r = verdict(get_backend("tract", {"input_facts": "data"}), "node", "test_qlinearconv_vector_tail")
    assert r.verdict == "pass", r.message


# ---- tensors in and out ---------------------------------------------------------------------------
TYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float",
         "double"]


def _pool(t) -> np.ndarray:
    if t.kind == "bool":
        return np.array([True, False])
    if t.is_float:  # bit patterns: NaN payloads, infinities, -0 and subnormals included
        return t.from_bits(np.arange(0, 1 << 16, 251).astype(t.bits_dtype) << (t.bits - 16))
    return np.array([t.int_min, t.int_max, 0, 1, t.int_min + 1], dtype=t.np_dtype)


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_identity_is_bit_exact(backend, name, shape):
    t = dtypes.get(name)
    pool = _pool(t)
    x = pool[np.arange(int(np.prod(shape))) * 7 % pool.size].reshape(shape)
    model = node_model("Identity", [("x", t, shape)], [("y", t, shape)], {}, 21)
    y = backend.run(backend.prepare(model, None), [x])[0]
    assert y.dtype == t.np_dtype and y.shape == shape
    assert (t.to_bits(y) == t.to_bits(x)).all() if t.kind != "bool" else (y == x).all()


def test_float16_every_bit_pattern_through_a_kernel(backend):
    """Neg flips the sign bit of every float16, NaNs included: the values cross tract's kernels, not only the
    copies."""
    t = dtypes.get("float16")
    x = t.from_bits(np.arange(1 << 16).astype(np.uint16))
    model = node_model("Neg", [("x", t, x.shape)], [("y", t, x.shape)], {}, 13)
    y = backend.run(backend.prepare(model, None), [x])[0]
    assert y.dtype == np.float16 and (t.to_bits(y) == (t.to_bits(x) ^ 0x8000)).all()


def test_wrong_input_count_is_an_error(backend):
    f32 = dtypes.get("float")
    prepared = backend.prepare(node_model("Relu", [("x", f32, (2,))], [("y", f32, (2,))], {}, 14), None)
    with pytest.raises(ValueError, match="1 inputs, 2 given"):
        backend.run(prepared, [np.zeros(2, np.float32)] * 2)


# ---- version, settings, --backend-option --------------------------------------------------------
def test_version_and_settings_are_recorded(backend):
    import importlib.metadata

    assert backend.version() == importlib.metadata.version("tract")
    assert backend.build() == f"libtract {tract.version()}"
    s = backend.settings()
    assert s["runtime"] == "cpu (into_runnable)" and s["optimized"] is True and s["input_facts"] == "model"
    assert s["library"] == tract.version() and s["onnx_local_functions"] == "inlined (onnx.inliner)"
    r = verdict(backend, "node", "test_cast_float32_to_float16_edge", mode=DEFAULT)  # (an explicit mode is recorded too)
    assert r.settings == s and r.backend_version == backend.version()


def _no_cuda() -> bool:
    try:
        tract.runtime_for_name("cuda")
    except tract.TractError:
        return True
    return False


@pytest.mark.parametrize("options, says", [
    ({"no_such_key": "1"}, "has no option no_such_key; known: runtime, input_facts"),
    ({"input_facts": "guess"}, "input_facts=guess: expected one of model, data"),
    ({"runtime": "metal"}, "runtime=metal: tract says: Unknown runtime metal (not compiled in tract?)"),
    ({"runtime": "cuda"} if _no_cuda() else {"runtime": "no_such"}, "runtime="),
])
def test_bad_options_are_refused_in_one_line(options, says):
    with pytest.raises(BackendOptionError) as info:
        get_backend("tract", options)
    assert says in str(info.value) and "\n" not in str(info.value) and "backend 'tract'" in str(info.value)
    assert "Stack backtrace" not in str(info.value)


def test_options_are_in_force_and_recorded():
    b = get_backend("tract", {"runtime": "default", "input_facts": "data"})
    s = b.settings()
    assert s["runtime"] == "cpu" and s["input_facts"] == "data" and s != get_backend("tract").settings()
    compiled = []
    real = b.runtime.prepare
    b.runtime.prepare = lambda model: compiled.append(model) or real(model)  # the runtime asked compiles
    f32 = dtypes.get("float")
    model = node_model("Relu", [("x", f32, ("n",))], [("y", f32, ("n",))], {}, 14)
    prepared = b.prepare(model, None)  # no data set: compiled at run, once per shape
    for x in (np.array([-1.0, 2.0], np.float32), np.array([3.0, -4.0], np.float32), np.array([-5.0], np.float32)):
        assert (b.run(prepared, [x])[0] == np.maximum(x, 0)).all()
    assert len(compiled) == 2 and prepared.runnables.keys() == {((2,),), ((1,),)}


# ---- unsupported or error ---------------------------------------------------------------------------
# (message, unsupported?): what tract 0.23.9 said on the committed suite, verbatim (its context chain as
# tract_refusals.message joins it).
SAYINGS = [
    ('Translating proto model to model: translating to fact: Tensor { elem_type: Bfloat16, shape: Some('
     'TensorShapeProto { dim: [] }) }: Unknown DatumType Bfloat16', True),
    ("Translating proto model to model: Building node  (Cast): Unknown DatumType Float8e4m3fnuz", True),
    ("Unsupported DatumType in the public API String", True),
    ('Failed analyse for node #2 "output" Unimplemented(ConvertPromoteTypes): Wrong number of outputs. Op says 1, '
     'node says 2.', True),
    ('Translating node #3 "y" QuantizeLinear ToTypedTranslator: y_scale must be a const', True),
    ('Translating node #5 "Y" MatMulNBits ToTypedTranslator: MatMulNBits: quantized weight B must be a constant',
     True),
    ("Translating proto model to model: Building node  (DequantizeLinear): DequantizeLinear: blocked quantization "
     "is not supported", True),
    ("Translating proto model to model: Building node  (MatMulNBits): MatMulNBits: only bits=4 and bits=2 are "
     "supported (got 8)", True),
    ("Translating proto model to model: Building node  (MatMulNBits): MatMulNBits: only bits=4 is supported (got "
     "8)", True),  # tract 0.23.0
    ("Translating proto model to model: Building node  (MatMulNBits): MatMulNBits: g_idx (act-order) is "
     "unsupported", True),
    ('Translating node #3 "y" QuantizeLinear ToTypedTranslator: QuantizeLinear: unsupported per-axis output type '
     'I16', True),
    ('Evaluating #1 "y" DequantizeLinearF32: Unsupported type I16', True),
    ("Translating proto model to model: Building node  (Cast): unknown ONNX TensorProto.DataType (27): unknown "
     "enumeration value 27", True),  # float6e2m3: a type onnx defines, tract's schema does not
    # errors: an invalid type number, tract's TDim leaking out of its API, failed inference, shape bugs
    ("Translating proto model to model: Building node  (Cast): unknown ONNX TensorProto.DataType (999): unknown "
     "enumeration value 999", False),
    ("Unsupported DatumType in the public API TDim", False),
    ('Failed analyse for node #3 "y" DequantizeLinear: Infering facts: Applying rule inputs[1].datum_type == F32: '
     'Impossible to unify F16 with F32.', False),
    ('Translating node #8 "y" ConvHir ToTypedTranslator: Expect concrete shape for kernel', False),
    ('Translating node #3 "y" QuantizeLinear ToTypedTranslator: Tensor datum type error: tensor is I16, accessed as '
     'I8', False),
    ('Translating node #4 "y" QLinearMatMul ToTypedTranslator: Output mismatch after rewiring expansion for output '
     '#0: expected 3,U8 got 1,3,U8', False),
]


@pytest.mark.parametrize("said, unsupported", SAYINGS, ids=[s[:70] for s, _ in SAYINGS])
def test_unsupported_or_error(said, unsupported):
    exc = tract.TractError(said.replace(": ", "\n\nCaused by:\n    0: ", 1) + "\n\nStack backtrace:\n   0: x")
    got = tract_refusals.classified(exc, "load")
    assert isinstance(got, Unsupported) is unsupported, got
    assert str(got) == f"tract load: {said}" or unsupported and "an ONNX element type" in str(got)
    assert "\n" not in str(got) and "backtrace" not in str(got)


def test_every_table_entry_is_exercised_and_documented():
    docs = DOCS.read_text(encoding="utf-8")
    said = [s for s, yes in SAYINGS if yes]
    for table in (tract_refusals.UNSUPPORTED, tract_refusals.CONSTANT_ONLY):
        for pattern in table.text:
            assert any(re.search(pattern, s, re.IGNORECASE) for s in said), pattern
            assert f"`{pattern}`".replace("|", "\\|") in docs, pattern


def test_a_cast_to_an_invalid_type_is_an_error_not_unsupported(backend):
    x, y = (helper.make_tensor_value_info(n, 1, [2]) for n in "xy")
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=999)], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    with pytest.raises(RuntimeError, match=r"unknown ONNX TensorProto.DataType \(999\)"):
        backend.prepare(model, None)

