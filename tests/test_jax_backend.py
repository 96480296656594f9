"""The jax backend on CPU (runners/backends/jax_backend.py): bits in and out for every ml_dtypes type JAX has
(sub-byte ones included), jax_enable_x64 set and recorded, what is unsupported with its reason, the device
option. Expected values come from generator/reference/ on inputs where the spec leaves a runtime no choice."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes
from generator.reference.cast import cast
from runners.backends.base import BackendOptionError, Unsupported
from runners.backends.registry import get_backend
from runners.backends.torch_jax_nodes import exactly
from test_torch_backend_probes import cast_model, q_model

jax = pytest.importorskip("jax")
from runners.backends.jax_backend import jax_dtype  # noqa: E402 - after the skip: it imports jax


@pytest.fixture(scope="module")
def backend():
    return get_backend("jax")


def patterns(t) -> np.ndarray:
    """Every bit pattern of a type of 8 bits or fewer; a spread of them (signs, NaNs, subnormals) for wider ones."""
    n = min(1 << t.bits, 4096)
    bits = np.arange(n, dtype=np.uint64) * ((1 << t.bits) // n) + np.arange(n, dtype=np.uint64) % 7 * (t.bits > 12)
    return t.from_bits(bits.astype(t.bits_dtype))


@pytest.mark.parametrize("name", ["float8e4m3fn", "float8e5m2fnuz", "float8e8m0", "float4e2m1", "bfloat16",
                                  "double", "int4", "uint4", "int2", "uint64", "bool"])
def test_bits_travel_unchanged(backend, name):
    """Cast to the same type is the identity (the spec): every pattern comes back as it went in (NaN payloads,
    -0, sub-byte values), so device_put / np.asarray neither convert nor canonicalize; 64-bit types stay 64-bit."""
    t = dtypes.get(name)
    if jax_dtype(t) is None:
        pytest.skip(f"this jax has no {name}")
    x = patterns(t) if t.is_float or t.bits > 8 else np.arange(t.int_min, t.int_max + 1).astype(t.np_dtype)
    (y,) = backend.run(backend.prepare(cast_model(name, name), None), [x])
    assert y.dtype == t.np_dtype and t.to_bits(y).tobytes() == t.to_bits(x).tobytes()


@pytest.mark.parametrize("src,dst", [("int4", "float8e4m3fn"), ("double", "bfloat16"), ("int4", "float4e2m1"),
                                     ("float4e2m1", "float16"), ("uint2", "float8e5m2"), ("float8e8m0", "double")])
def test_exact_values_convert_to_the_reference(backend, src, dst):
    s, d = dtypes.get(src), dtypes.get(dst)
    values = [v for v in (0.0, -0.0, 1.0, 2.0, -4.0, 0.5, 3.0, 64.0) if exactly(v, s) is not None and
              exactly(v, d) is not None and (np.signbit(v) <= (s.has_negative_zero and d.has_negative_zero))]
    x = np.array(values, dtype=np.float64).astype(s.np_dtype)
    (y,) = backend.run(backend.prepare(cast_model(src, dst), None), [x])
    assert d.to_bits(y).tobytes() == d.to_bits(cast(x, s, d)[0]).tobytes()


def test_saturate_maps_only_as_jax_converts(backend):
    said = dict(p.split(" ", 1) for p in backend.settings()["float8_overflow_from_float32"].split(", "))
    mapped = 1 if said["float8e5m2"] == "saturates" else 0
    backend.prepare(cast_model("float", "float8e5m2", saturate=mapped), None)
    with pytest.raises(Unsupported, match=f"saturate={1 - mapped}"):
        backend.prepare(cast_model("float", "float8e5m2", saturate=1 - mapped), None)


def test_unsupported_with_the_reason(backend):
    with pytest.raises(Unsupported, match="no string arrays"):
        backend.prepare(cast_model("float", "string"), None)
    with pytest.raises(Unsupported, match="jax has no op computing QuantizeLinear"):
        backend.prepare(q_model("QuantizeLinear", "float", "uint8", []), None)


def test_settings_record_device_and_x64(backend):
    s = backend.settings()
    assert s["device"] == "cpu" and s["device_name"] and s["jax_enable_x64"] is True and s["jaxlib"]


def test_x64_off_makes_64_bit_types_unsupported():
    off = get_backend("jax", {"enable_x64": "0"})
    try:
        with pytest.raises(Unsupported, match="jax_enable_x64 off"):
            off.prepare(cast_model("double", "float"), None)
        assert off.settings()["jax_enable_x64"] is False
    finally:
        jax.config.update("jax_enable_x64", True)  # the module's backend and other tests expect it on


@pytest.mark.parametrize("options,why", [({"device": "tpu"}, "expected one of cpu, gpu"),
                                         ({"enable_x64": "yes"}, "expected one of")])
def test_bad_options_refused_in_one_line(options, why):
    with pytest.raises(BackendOptionError, match=why) as info:
        get_backend("jax", options)
    assert "\n" not in str(info.value)


def test_gpu_option_says_in_one_line_where_there_is_none():
    try:
        gpu = jax.devices("gpu")
    except RuntimeError:
        gpu = []
    if gpu:
        backend = get_backend("jax", {"device": "gpu"})
        x = patterns(dtypes.get("float8e4m3fn"))
        (y,) = backend.run(backend.prepare(cast_model("float8e4m3fn", "float8e4m3fn"), None), [x])
        assert y.tobytes() == x.tobytes() and backend.settings()["device"] == "gpu"
        return
    with pytest.raises(BackendOptionError, match="has no gpu device here") as info:
        get_backend("jax", {"device": "gpu"})
    assert "\n" not in str(info.value)


def test_types_xla_cannot_hold_are_unsupported(backend):
    """jax names float6_e2m3fn, but XLA's CPU client has no buffer for it (measured on 0.10.2): unsupported, not an
    error (and never the abort an empty float6 input caused)."""
    if jax_dtype(dtypes.get("float6e2m3")) is None:
        pytest.skip("this jax has no float6_e2m3fn")
    try:
        backend.prepare(cast_model("float", "float6e2m3", opset=28), None)
    except Unsupported as exc:
        assert "float6e2m3" in str(exc)


def test_unsupported_table_entries_are_documented():
    """Each pattern of the adapter's table is shown in docs/frameworks.md; what XLA says for float6 on this CPU
    (where it has no buffer for it) matches the table."""
    from pathlib import Path

    from runners.backends.jax_backend import UNSUPPORTED

    docs = (Path(__file__).resolve().parents[1] / "docs" / "frameworks.md").read_text(encoding="utf-8")
    assert all(f"`{pattern}`" in docs for pattern in UNSUPPORTED.text)
    for attempt in (lambda: jax.device_put(np.zeros(1, dtype=dtypes.get("float6e2m3").np_dtype)),
                    lambda: jax.jit(lambda a: a.astype(dtypes.get("float6e3m2").np_dtype))(np.zeros(1, np.float32))):
        try:
            np.asarray(attempt())
        except Exception as exc:  # noqa: BLE001 - what XLA raises
            assert UNSUPPORTED.matches(exc), exc
    assert not UNSUPPORTED.matches(ValueError("Incompatible shapes for broadcasting: (2,) and (3,)"))
