"""The torch backend on CPU (runners/backends/torch_backend.py, torch_quant.py): bits in and out, what maps and
what is unsupported with its reason, the device option. Expected values come from generator/reference/ on
inputs where the spec leaves a runtime no choice (values every type of the pair holds exactly)."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes
from generator.reference.cast import cast
from generator.reference.dequantize_linear import dequantize_linear
from generator.reference.quantize_linear import quantize_linear
from runners.backends.base import BackendOptionError, Unsupported
from runners.backends.registry import get_backend
from runners.backends.torch_jax_nodes import exactly
from test_torch_backend_probes import cast_model, q_model

torch = pytest.importorskip("torch")

FLOATS = ("float16", "bfloat16", "float", "double", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
          "float8e5m2fnuz", "float8e8m0")


@pytest.fixture(scope="module")
def backend():
    return get_backend("torch")


def all_patterns(t) -> np.ndarray:
    """Every bit pattern of an 8-bit type; a spread of them (signs, NaNs, subnormals) for wider ones."""
    n = 256 if t.bits == 8 else 4096
    bits = np.arange(n, dtype=np.uint64) * ((1 << t.bits) // n) + np.arange(n, dtype=np.uint64) % 7
    return t.from_bits(bits.astype(t.bits_dtype))


@pytest.mark.parametrize("name", FLOATS + ("int8", "uint16", "uint32", "uint64", "int64", "bool"))
def test_bits_travel_unchanged(backend, name):
    """Cast to the same type is the identity (the spec): every pattern comes back as it went in, NaN payloads
    and -0 included, so the adapter's views neither convert nor canonicalize."""
    t = dtypes.get(name)
    x = all_patterns(t) if t.is_float else np.arange(256).astype(t.np_dtype)
    prepared = backend.prepare(cast_model(name, name, saturate=0) if t.is_float8 else cast_model(name, name), None)
    (y,) = backend.run(prepared, [x])
    assert y.dtype == t.np_dtype and t.to_bits(y).tobytes() == t.to_bits(x).tobytes()


@pytest.mark.parametrize("src,dst", [("float", "float8e4m3fn"), ("float", "bfloat16"), ("float8e5m2", "float16"),
                                     ("int8", "float8e5m2"), ("float16", "double"), ("float8e8m0", "float")])
def test_exact_values_convert_to_the_reference(backend, src, dst):
    s, d = dtypes.get(src), dtypes.get(dst)
    values = [v for v in (0.0, -0.0, 1.0, 2.0, -4.0, 0.5, 16.0, 64.0) if exactly(v, s) is not None and
              exactly(v, d) is not None and (np.signbit(v) <= (s.has_negative_zero and d.has_negative_zero))]
    x = np.array(values, dtype=np.float64).astype(s.np_dtype)
    (y,) = backend.run(backend.prepare(cast_model(src, dst), None), [x])
    assert d.to_bits(y).tobytes() == d.to_bits(cast(x, s, d)[0]).tobytes()


def test_saturate_maps_only_as_torch_converts(backend):
    """One of saturate=0 / 1 maps float32 -> float8e4m3fn, the other is unsupported naming it: which one is
    what this torch does (settings record it), never assumed."""
    said = dict(p.split(" ", 1) for p in backend.settings()["float8_overflow_from_float32"].split(", "))
    mapped = 1 if said["float8e4m3fn"] == "saturates" else 0
    backend.prepare(cast_model("float", "float8e4m3fn", saturate=mapped), None)
    with pytest.raises(Unsupported, match=f"saturate={1 - mapped}"):
        backend.prepare(cast_model("float", "float8e4m3fn", saturate=1 - mapped), None)


@pytest.mark.parametrize("model,why", [
    (cast_model("float", "string"), "no string tensors"),
    (cast_model("float", "int4"), "no int4 dtype"),
    (cast_model("float4e2m1", "float"), "no float4e2m1 dtype"),
])
def test_types_torch_lacks_are_unsupported(backend, model, why):
    with pytest.raises(Unsupported, match=why):
        backend.prepare(model, None)


@pytest.mark.parametrize("qtype", ["uint8", "int8", "int32"])
@pytest.mark.parametrize("scale_shape,axis", [([], 1), ([3], 1), ([2], 0)])
def test_quantize_and_dequantize_map_one_to_one(backend, qtype, scale_shape, axis):
    """Inputs on which no rounding happens (x / scale whole numbers inside the range): any correct runtime
    gives the reference's values. QuantizeLinear has no int32 output (the schema): DequantizeLinear only."""
    q = dtypes.get(qtype)
    rng = np.random.default_rng(0)
    scale = np.float32(0.25) * (1 + np.arange(int(np.prod(scale_shape)))).reshape(scale_shape).astype(np.float32)
    zp = np.full(scale_shape, 3 if qtype == "uint8" else -3, dtype=q.np_dtype)
    whole = rng.integers(-20, 20, size=(2, 3)).astype(np.float32)
    shaped = scale.reshape([-1 if i == axis else 1 for i in range(2)]) if scale.ndim else scale
    x = (whole * shaped).astype(np.float32)
    y = (whole + zp.reshape(shaped.shape)).astype(q.np_dtype)
    if qtype != "int32":
        prepared = backend.prepare(q_model("QuantizeLinear", "float", qtype, scale_shape, axis=axis), None)
        (y,) = backend.run(prepared, [x, scale, zp])
        assert y.dtype == q.np_dtype and np.array_equal(y, quantize_linear(x, scale, zp, axis=axis).outputs[0])
    prepared = backend.prepare(q_model("DequantizeLinear", qtype, "float", scale_shape, axis=axis), None)
    (back,) = backend.run(prepared, [y, scale, zp])
    want = dequantize_linear(y, scale, zp, axis=axis).outputs[0]
    assert back.dtype == np.float32 and back.tobytes() == want.tobytes()


@pytest.mark.parametrize("model,why", [
    (q_model("QuantizeLinear", "float", "float8e4m3fn", []), "no quantized float8e4m3fn"),
    (q_model("QuantizeLinear", "float", "int4", [2, 1], axis=1, block_size=3), "no blocked quantization"),
    (q_model("QuantizeLinear", "float16", "uint8", []), "float32 only"),
    (q_model("DequantizeLinear", "int16", "float", []), "no quantized int16"),
])
def test_quantization_torch_lacks_is_unsupported(backend, model, why):
    with pytest.raises(Unsupported, match=why):
        backend.prepare(model, None)


def test_settings_name_the_device(backend):
    s = backend.settings()
    assert s["device"] == "cpu" and s["device_name"] and backend.version() == torch.__version__


@pytest.mark.parametrize("value,why", [("tpu", "expected cpu, cuda or cuda:N"), ("cuda:99", "CUDA")])
def test_device_option_refuses_in_one_line(value, why):
    if value == "cuda:99" and torch.cuda.device_count() > 99:
        pytest.skip("a machine with 100 GPUs")
    with pytest.raises(BackendOptionError, match=why) as info:
        get_backend("torch", {"device": value})
    assert "\n" not in str(info.value)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_cuda_device_converts(backend):
    gpu = get_backend("torch", {"device": "cuda"})
    x = all_patterns(dtypes.get("float8e4m3fn"))
    (y,) = gpu.run(gpu.prepare(cast_model("float8e4m3fn", "float8e4m3fn"), None), [x])
    assert y.tobytes() == x.tobytes() and gpu.settings()["device_name"]


def test_a_scalar_stays_a_scalar(backend):
    model = cast_model("float", "float16")
    model.graph.input[0].type.tensor_type.shape.ClearField("dim")
    model.graph.output[0].type.tensor_type.shape.ClearField("dim")
    (y,) = backend.run(backend.prepare(model, None), [np.array(1.5, dtype=np.float32)])
    assert y.shape == () and y.dtype == np.float16 and float(y) == 1.5


def test_shapes_the_schema_rules_out_are_refused(backend):
    """QuantizeLinear-10 takes a scalar scale: torch would quantize per channel; the adapter's refusal is no
    refusal of torch's, so it is Unsupported (a negative case is not judged on torch)."""
    prepared = backend.prepare(q_model("QuantizeLinear", "float", "uint8", [3], opset=10), None)
    x = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(Unsupported, match="takes a scalar y_scale.*refusal would be the adapter's"):
        backend.run(prepared, [x, np.ones(3, np.float32), np.zeros(3, np.uint8)])


def test_unsupported_table_entries_are_said_by_torch_and_documented():
    """Each pattern of the adapter's table is matched by what this torch says, and shown in docs/frameworks.md."""
    import re
    from pathlib import Path

    from runners.backends.torch_backend import UNSUPPORTED

    said = []
    for attempt in (lambda: torch.zeros(2).to(torch.int4),
                    lambda: torch.quantize_per_tensor(torch.zeros(2).half(), 1.0, 0, torch.quint8)):
        with pytest.raises(Exception) as info:
            attempt()
        said.append(info.value)
    docs = (Path(__file__).resolve().parents[1] / "docs" / "frameworks.md").read_text(encoding="utf-8")
    for pattern in UNSUPPORTED.text:
        assert any(re.search(pattern, str(e)) for e in said) and f"`{pattern}`" in docs, pattern
    assert all(UNSUPPORTED.matches(e) for e in said)
    assert not UNSUPPORTED.matches(RuntimeError("The size of tensor a (2) must match the size of tensor b (3)"))
