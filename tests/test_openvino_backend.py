"""The OpenVINO backend: settings in force, tensors in and out bit-exactly (bf16, float8, packed 4-bit, bool,
strings), local functions inlined for the ONNX frontend, ConvertPromoteTypes built natively (output element
types and refusals are OpenVINO's own), Unsupported for element types OpenVINO lacks.

Values avoid what OpenVINO's CPU plugin is known to get wrong (64-bit integers and doubles are computed in 32
bits): those are the suite's business (docs/convert_promote_types.md), not these tests'."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from generator import dtypes
from generator.case import finish_model, node_model, value_info
from generator.reference import convert_promote_types as cpt
from generator.reference.cast import cast

ov = pytest.importorskip("openvino")
from openvino import _pyopenvino  # noqa: E402
from runners.backends import openvino_tensors as tensors  # noqa: E402
from runners.backends.base import BackendOptionError, Unsupported  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402


@pytest.fixture(scope="module")
def backend():
    return get_backend("openvino")


def test_settings_are_reported_and_in_force(backend):
    s = backend.settings()
    assert s["INFERENCE_PRECISION_HINT"] == "f32" and s["EXECUTION_MODE_HINT"] == "ACCURACY" and s["device"] == "CPU"
    assert backend.version() == ov.get_version()
    f32 = dtypes.get("float")
    prepared = backend.prepare(node_model("Cast", [("x", f32, (2,))], [("y", f32, (2,))], {"to": f32.onnx}, 21), None)
    assert str(prepared.compiled.get_property("INFERENCE_PRECISION_HINT")) in ("f32", "<Type: 'float32'>")
    assert str(prepared.compiled.get_property("EXECUTION_MODE_HINT")).upper().endswith("ACCURACY")


@pytest.mark.parametrize("name", ["int4", "uint4", "uint2", "float4e2m1"])
def test_pack_unpack_round_trip(name):
    t = dtypes.get(name)
    values = t.all_values()
    for n in range(0, 9):
        x = values[np.arange(n) % values.size]
        raw = tensors.pack(x, t)
        assert len(raw) == -(-n * t.bits // 8)
        assert (t.to_bits(tensors.unpack(raw, (n,), t)) == t.to_bits(x)).all()


@pytest.mark.parametrize("name", ["bfloat16", "float8e4m3fn", "float8e5m2", "int4", "uint4", "bool", "float16",
                                  "uint64", "float8e8m0", "string"])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3)])
def test_tensor_round_trip(name, shape):
    t = dtypes.get(name)
    n = int(np.prod(shape))
    if t.kind == "string":
        x = np.array(["a", "bé", "", "3.5", "x y"] * 2, dtype=object)[:n].reshape(shape)
    else:
        pool = t.all_values() if t.bits <= 8 and t.kind != "bool" else (
            np.array([True, False]) if t.kind == "bool" else t.from_bits(np.arange(0, 2**16, 4099)))
        x = pool[np.arange(n) * 7 % pool.size].reshape(shape)
    tensor = tensors.to_tensor(x, t)
    assert tensors.our_type(tensor.element_type) == t and tuple(tensor.shape) == shape
    y = tensors.from_tensor(tensor)
    assert y.shape == shape and y.dtype == (object if t.kind == "string" else t.np_dtype)
    if t.kind == "string":
        assert y.tolist() == x.tolist()
    else:
        assert (t.to_bits(y) == t.to_bits(x)).all()


def test_packed_layout_first_element_in_low_bits():
    u4 = dtypes.get("uint4")
    assert tensors.pack(np.array([1, 2, 3, 4, 5], dtype=u4.np_dtype), u4) == bytes([0x21, 0x43, 0x05])


@pytest.mark.parametrize("src", ["bfloat16", "float8e4m3fn", "float8e5m2", "int4", "uint4", "bool", "float16",
                                 "int8", "uint16"])
def test_cast_through_the_onnx_frontend_is_bit_exact(backend, src):
    s, f32 = dtypes.get(src), dtypes.get("float")
    x = s.all_values() if s.bits <= 8 and s.kind != "bool" else (
        np.array([True, False]) if s.kind == "bool" else s.from_bits(np.arange(0, 2**16, 97)))
    if s.is_float and s.has_inf:  # (ONNX Cast of the same type would saturate Inf for float8e5m2; not here)
        with np.errstate(invalid="ignore"):
            x = x[~np.isinf(x.astype(np.float64))]
    for to in (f32, s):
        model = node_model("Cast", [("x", s, x.shape)], [("y", to, x.shape)], {"to": to.onnx}, 21)
        y = backend.run(backend.prepare(model, None), [x])[0]
        want, why = cast(x, s, to)
        assert y.dtype == to.np_dtype and (why == "").all()
        assert ((to.to_bits(y) == to.to_bits(want)) | (to.isnan(y) & to.isnan(want))).all(), (src, to.name)


def test_local_functions_are_inlined(backend):
    f32, f16 = dtypes.get("float"), dtypes.get("float16")
    body = [helper.make_node("Cast", ["a"], ["b"], to=f16.onnx)]
    fn = helper.make_function("com.example", "ToHalf", ["a"], ["b"], body, [helper.make_opsetid("", 21)])
    graph = helper.make_graph([helper.make_node("ToHalf", ["x"], ["y"], domain="com.example")], "g",
                              [value_info("x", f32, (3,))], [value_info("y", f16, (3,))])
    model = finish_model(graph, 21, {"com.example": 1}, [fn])
    y = backend.run(backend.prepare(model, None), [np.array([0.1, 65519.0, -2.5], np.float32)])[0]
    assert y.dtype == np.float16 and y.tolist() == [np.float16(0.1), 65504.0, -2.5]


def _cpt_model(t0, t1, shapes, common, **attrs):
    """A ConvertPromoteTypes model as the family writes them (the function body casts to `common`)."""
    from generator.families.convert_promote_types import Variant, model

    ranks = tuple(len(s) for s in shapes)
    v = Variant(dtypes.get(t0), dtypes.get(t1), ranks, attrs.get("promote_unsafe", False),
                attrs.get("pytorch_scalar_promotion", False), attrs.get("u64_integer_promotion_target", "f32"),
                written=tuple(attrs))
    return model(v, dtypes.get(common), shapes)


@pytest.mark.parametrize("t0, t1, shapes, attrs", [
    ("int8", "float", [(3,), (2,)], {}),
    ("int8", "uint8", [(3,), (2,)], {"promote_unsafe": True}),
    ("float16", "bfloat16", [(3,), ()], {"promote_unsafe": True}),
    ("float8e4m3fn", "float8e5m2", [(3,), (1, 2)], {"promote_unsafe": True}),
    ("uint64", "int16", [(3,), (2,)], {"promote_unsafe": True, "u64_integer_promotion_target": "f64"}),
    ("int32", "int8", [(), (2,)], {"pytorch_scalar_promotion": True, "promote_unsafe": True}),
    ("uint4", "int8", [(3,), (2,)], {}),
])
def test_convert_promote_types_is_built_natively(backend, t0, t1, shapes, attrs):
    want = cpt.common_type(t0, t1, len(shapes[0]), len(shapes[1]), **attrs)
    # the function body casts to float32 on purpose: the native node, not the body, must decide the type
    model = _cpt_model(t0, t1, shapes, "float", **attrs)
    prepared = backend.prepare(model, None)
    assert prepared.native
    a, b = dtypes.get(t0), dtypes.get(t1)
    xs = [np.resize(np.array([0, 1, 3], dtype=object).astype(t.np_dtype), s) for t, s in zip((a, b), shapes)]
    ys = backend.run(prepared, xs)
    for x, t, y in zip(xs, (a, b), ys):
        assert y.dtype == want.np_dtype and y.shape == x.shape
        assert (want.to_bits(y) == want.to_bits(cpt.convert(x, t, want).outputs[0])).all()


@pytest.mark.parametrize("mode", ["initializers", "constant"])
def test_convert_promote_types_built_natively_with_baked_inputs(backend, mode):
    """--inputs initializers / constant (runners/input_modes.py): the baked inputs become constants of the native
    graph, values exact (it looked only among the graph inputs: every item an error)."""
    from runners.input_modes import RunMode, baked_tensors, build_model, fed_inputs

    model = _cpt_model("int8", "float8e4m3fn", [(3,), (2,)], "float", promote_unsafe=True)
    xs = [np.array([-3, 0, 7], np.int8), np.array([0.5, -448.0], dtypes.get("float8e4m3fn").np_dtype)]
    run_mode = RunMode(inputs=mode)
    baked = build_model(model, baked_tensors(model, xs, run_mode), dynamic=False)
    assert len(baked.graph.initializer) == (2 if mode == "constant" else 0)
    fed = fed_inputs(model, xs, run_mode)
    prepared = backend.prepare(baked, None)
    assert prepared.native
    want = dtypes.get(cpt.common_type("int8", "float8e4m3fn", 1, 1, promote_unsafe=True))
    ys = backend.run(prepared, fed)
    for x, t, y in zip(xs, ("int8", "float8e4m3fn"), ys):
        assert (want.to_bits(y) == want.to_bits(cpt.convert(x, dtypes.get(t), want).outputs[0])).all()


@pytest.mark.parametrize("t0, t1, shapes, attrs", [
    ("int8", "uint8", [(3,), (2,)], {}),
    ("float16", "bfloat16", [(3,), (2,)], {}),
    ("uint64", "int8", [(3,), (2,)], {}),
    ("int32", "float", [(3,), (2,)], {}),
    ("int64", "uint8", [(), (2,)], {"pytorch_scalar_promotion": True}),
])
def test_convert_promote_types_refusals_raise_at_prepare(backend, t0, t1, shapes, attrs):
    with pytest.raises(cpt.PromotionError):
        cpt.common_type(t0, t1, len(shapes[0]), len(shapes[1]), **attrs)
    with pytest.raises(RuntimeError) as info:
        backend.prepare(_cpt_model(t0, t1, shapes, "float", **attrs), None)
    assert not isinstance(info.value, Unsupported) and "ConvertPromoteTypes" in str(info.value)
    assert "\n" not in str(info.value)


def test_native_ops_capability(backend):
    assert f"{cpt.DOMAIN}::{cpt.OP_TYPE}" in backend.native_ops


def test_types_openvino_lacks_are_unsupported(backend):
    fnuz, f32 = dtypes.get("float8e4m3fnuz"), dtypes.get("float")
    with pytest.raises(Unsupported, match="float8e4m3fnuz"):
        backend.prepare(node_model("Cast", [("x", f32, (2,))], [("y", fnuz, (2,))], {"to": fnuz.onnx}, 21), None)
    assert tensors.ov_type(dtypes.get("int2")) is None and tensors.our_type(ov.Type.u1) is None


def test_unknown_op_is_unsupported(backend):
    f32 = dtypes.get("float")
    model = node_model("Frob", [("x", f32, (2,))], [("y", f32, (2,))], {}, 21, domain="com.example",
                       extra_opsets={"com.example": 1})
    with pytest.raises(Unsupported):
        backend.prepare(model, None)


def test_mixing_native_and_onnx_nodes_is_unsupported(backend):
    i8, f32 = dtypes.get("int8"), dtypes.get("float")
    graph = helper.make_graph(
        [helper.make_node(cpt.OP_TYPE, ["a", "b"], ["c", "d"], domain=cpt.DOMAIN),
         helper.make_node("Cast", ["c"], ["y"], to=f32.onnx)], "g",
        [value_info("a", i8, (2,)), value_info("b", f32, (2,))], [value_info("y", f32, (2,))])
    model = finish_model(graph, 21, {cpt.DOMAIN: 14})
    with pytest.raises(Unsupported, match="mixing"):
        backend.prepare(model, None)


# ---- unsupported or error (runners/backends/openvino.py, openvino_tflite.py, docs/backends.md) --------------
from runners.backends import openvino as ov_backend  # noqa: E402
from runners.backends import openvino_tflite as ov_tflite  # noqa: E402

_REPORT = ("Exception from src/inference/src/cpp/core.cpp:105:\nCheck 'false' failed at src/frontends/"
           "common_translators/src/unconverted_ops_report.cpp:151:\nFrontEnd API failed with OpConversionFailure:\n"
           "Model wasn't fully converted.")
# (table, exception, unsupported?): what OpenVINO 2026.4.1 said on the suite, verbatim where a run produced it.
SAYINGS = [
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + "\nSummary:\n-- No conversion rule found for operations: "
                                                    "com.example.Frob\nTo facilitate the conversion ..."), True),
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + " Failed operations detailed log:\n-- Cast-25 with a message:\n"
                                                    "While validating ONNX node '<Node(Cast): output>': Exception from "
                                                    "src/frontends/onnx/frontend/src/utils/common.cpp:81:\nUnsupported "
                                                    "data type UINT2 expected: BOOL, BFLOAT16, FLOAT4E2M1"), True),
    (ov_backend.UNSUPPORTED, RuntimeError("Exception from src/inference/src/cpp/core.cpp:117:\nUnsupported operation "
                                          "of type: Convert name: output\nDetails:\nNot Implemented:\ncpu_convert "
                                          "can't convert from: bf16 precision to: string"), True),
    (ov_backend.UNSUPPORTED, RuntimeError("Exception from src/plugins/intel_cpu/src/nodes/convert.cpp:95:\n"
                                          "unsupported src_prc: f4e2m1"), True),
    (ov_backend.UNSUPPORTED, RuntimeError("OpenVINO does not support the following ONNX operations: Frob"), True),
    (ov_backend.UNSUPPORTED, RuntimeError("Check failed: Input element type f64 is not supported"), True),
    (ov_backend.UNSUPPORTED, RuntimeError("Exception from src/core/src/node.cpp: Not Implemented: evaluate"), True),
    (ov_backend.UNSUPPORTED, _pyopenvino.NotImplementedFailure("get_place is not implemented"), True),
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + " Failed operations detailed log:\n-- QLinearConv-10 with a "
                                                    "message:\nWhile validating ONNX node '<Node(QLinearConv): y>': "
                                                    "Check 'scale_dim.compatible(x_dim_at_axis)' failed at src/"
                                                    "frontends/onnx/frontend/src/op/dequantize_linear.cpp:119:\n"
                                                    "FrontEnd API failed with GeneralFailure:\nThe number of "
                                                    "dequantization scale elements '6' must match the input shape "
                                                    "dimension '1 pointed to by the axis attribute: 1"), False),
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + " Failed operations detailed log:\n-- Cast-21 with a message:\n"
                                                    "While validating ONNX node '<Node(Cast): y>': Node (): unknown "
                                                    "attribute 'to'"), False),
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + " Failed operations detailed log:\n-- Cast-21 with a message:\n"
                                                    "Unsupported data type  expected: BOOL"), False),  # to=999: invalid
    (ov_backend.UNSUPPORTED, RuntimeError("Check 'shape_size(get_input_shape(0)) == shape_size(output_shape)' failed"),
     False),
    # OpenVINO 2026.4.1 on test_quantizelinear_float4e2m1_opset23
    (ov_backend.UNSUPPORTED, RuntimeError(_REPORT + " Failed operations detailed log:\n-- QuantizeLinear-23 with a "
                                                    "message:\nWhile validating ONNX node '<Node(QuantizeLinear): y>': "
                                                    "Check 'is_supported_type' failed at src/core/src/op/fake_convert."
                                                    "cpp:130:\nBad format for f8 conversion type: f4e2m1\n\nSummary:"
                                                    "\n-- Conversion is failed for: QuantizeLinear-23\n\n"), True),
    (ov_tflite.UNSUPPORTED, RuntimeError("Model wasn't fully converted. Summary: -- No conversion rule found for "
                                         "operations: CUSTOM"), True),
    (ov_tflite.UNSUPPORTED, RuntimeError("Cannot create Frob layer tfl_frob id:3"), True),
    (ov_tflite.UNSUPPORTED, RuntimeError("Element type u2 is not supported"), True),
    (ov_tflite.UNSUPPORTED, RuntimeError("tflite frontend: unsupported operation BROADCAST_TO"), True),
    (ov_tflite.UNSUPPORTED, RuntimeError("FrontEnd API failed with OpConversionFailure: -- CONCATENATION with a "
                                         "message: Check 'axis < rank' failed"), False),
]


# what older releases said (quoted verbatim in tests/test_openvino_releases.py)
from test_openvino_releases import ELTWISE_2025_0, SAID_2024_6, SCALE_TYPE_2023_3  # noqa: E402

SAYINGS += [(ov_backend.UNSUPPORTED, e, True) for e in (*SAID_2024_6, SCALE_TYPE_2023_3, ELTWISE_2025_0)]


@pytest.mark.parametrize("table, exc, unsupported", SAYINGS,
                         ids=[f"{type(e).__name__}:{' '.join(str(e).split())[-60:]}" for _, e, _ in SAYINGS])
def test_unsupported_or_error(table, exc, unsupported):
    assert table.matches(exc) is unsupported


def test_every_table_entry_is_exercised_and_documented():
    from unsupported_tables import check_tables

    check_tables(SAYINGS, (ov_backend.UNSUPPORTED, ov_tflite.UNSUPPORTED))


def test_a_translator_refusing_a_valid_model_is_an_error_not_unsupported(backend):
    """Per-channel w_scale of length M where the input has C != M channels: valid ONNX, but the frontend
    dequantizes w along axis 1 and its check refuses the model (it was reported unsupported)."""
    u8, f32 = dtypes.get("uint8"), dtypes.get("float")
    ins = [("x", u8, (1, 1, 3, 3)), ("x_scale", f32, ()), ("x_zero_point", u8, ()), ("w", u8, (2, 1, 1, 1)),
           ("w_scale", f32, (2,)), ("w_zero_point", u8, (2,)), ("y_scale", f32, ()), ("y_zero_point", u8, ())]
    model = node_model("QLinearConv", ins, [("y", u8, (1, 2, 3, 3))], {}, 10)
    with pytest.raises(RuntimeError) as info:
        backend.prepare(model, None)
    assert not isinstance(info.value, Unsupported)
    assert "QLinearConv" in str(info.value) and "dequantization scale elements" in str(info.value)


def test_an_input_the_compiled_model_does_not_read_is_not_fed(backend):
    """The frontend drops a float8 QuantizeLinear's y_zero_point (no port in the compiled model); feeding it was
    an error on every such item. Now the outputs are judged: here the zero point is 0, so they are right."""
    from generator.reference.quantize_linear import quantize_linear

    f32, f8 = dtypes.get("float"), dtypes.get("float8e4m3fn")
    model = node_model("QuantizeLinear", [("x", f32, (3,)), ("y_scale", f32, ()), ("y_zero_point", f8, ())],
                       [("y", f8, (3,))], {}, 19)
    prepared = backend.prepare(model, None)
    assert "y_zero_point" not in {n for p in prepared.compiled.inputs for n in p.get_names()}
    x = np.array([1.0, -2.5, 448.0], np.float32)
    s, z = np.array(1.0, np.float32), np.zeros((), f8.np_dtype)
    y = backend.run(prepared, [x, s, z])[0]
    want = quantize_linear(x, s, z, zero_point_type=f8, opset=19).outputs[0]
    assert y.dtype == f8.np_dtype and (f8.to_bits(y) == f8.to_bits(want)).all()


# ---- --backend-option (runners/backends/openvino_config.py) -------------------------------------
def _f32_cast():
    f32 = dtypes.get("float")
    return node_model("Cast", [("x", f32, (2,))], [("y", f32, (2,))], {"to": f32.onnx}, 21)


@pytest.mark.parametrize("name", ["openvino", "openvino-tflite"])
@pytest.mark.parametrize("options, says", [
    ({"device": "NO_SUCH_DEVICE"}, "NO_SUCH_DEVICE not available; OpenVINO has CPU"),
    ({"device": "HETERO:NO_SUCH_DEVICE,CPU"}, "NO_SUCH_DEVICE not available"),
    ({"inference_precision": "f64"}, "expected one of f32, f16, bf16, device"),
    ({"execution_mode": "FAST"}, "expected one of ACCURACY, PERFORMANCE, device"),
    ({"config.INFERENCE_PRECISION_HINT": "f16"}, "use --backend-option inference_precision=..."),
    ({"config.NO_SUCH_PROPERTY": "1"}, "OpenVINO refuses these --backend-option values: NotFound: Unsupported "
                                       "property NO_SUCH_PROPERTY by CPU plugin"),
    ({"config.INFERENCE_NUM_THREADS": "x"}, "OpenVINO refuses these --backend-option values"),
])
def test_bad_options_are_refused_in_one_line(name, options, says):
    with pytest.raises(BackendOptionError) as info:
        get_backend(name, options)
    assert says in str(info.value) and "\n" not in str(info.value) and f"backend {name!r}" in str(info.value)


def test_options_are_in_the_compiled_model():
    b = get_backend("openvino", {"execution_mode": "PERFORMANCE", "config.INFERENCE_NUM_THREADS": "1",
                                 "performance_mode": "LATENCY"})
    compiled = b.prepare(_f32_cast(), None).compiled
    assert str(compiled.get_property("EXECUTION_MODE_HINT")).upper().endswith("PERFORMANCE")
    assert int(compiled.get_property("INFERENCE_NUM_THREADS")) == 1
    assert str(compiled.get_property("PERFORMANCE_HINT")).upper().endswith("LATENCY")
    assert b.settings()["EXECUTION_MODE_HINT"] == "PERFORMANCE" and b.settings()["INFERENCE_NUM_THREADS"] == "1"


def test_device_is_validated_and_used(monkeypatch):
    b = get_backend("openvino", {"device": "AUTO:CPU"})
    seen = []
    real = b.core.compile_model
    monkeypatch.setattr(b.core, "compile_model", lambda model, device, config: seen.append(device) or
                        real(model, device, config))
    x = np.array([1.5, -2.0], np.float32)
    assert (b.run(b.prepare(_f32_cast(), None), [x])[0] == x).all()
    assert seen == ["AUTO:CPU"] and b.settings()["device"] == "AUTO:CPU"


@pytest.mark.parametrize("name", ["openvino", "openvino-tflite"])
def test_settings_differ_per_option_and_not_without(name):
    default = get_backend(name).settings()
    assert default == get_backend(name, {}).settings()
    assert default["device"] == "CPU" and default["INFERENCE_PRECISION_HINT"] == "f32"
    seen = [default]
    for options in ({"inference_precision": "device"}, {"inference_precision": "bf16"}, {"device": "AUTO"},
                    {"config.INFERENCE_NUM_THREADS": "1"}):
        settings = get_backend(name, options).settings()
        assert settings not in seen, options
        seen.append(settings)
    assert get_backend(name, {"inference_precision": "device"}).settings()["INFERENCE_PRECISION_HINT"] == \
        "(device default)"
