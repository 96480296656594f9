"""The tinygrad backend (runners/backends/tinygrad_backend.py) on tinygrad's PYTHON device, which needs no
compiler (the CPU device's kernels need clang: one test runs there where clang is installed): tensors in and out
bit-exactly for every type the runner has, a real case passing, refused and failing, the device option, and the
table of what tinygrad says when it does not implement something (each entry with a message tinygrad 0.14.0 gave
on the committed suite or on the hand-built model named)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from generator import dtypes
from generator.case import node_model
from generator.serialize import read_case

tinygrad = pytest.importorskip("tinygrad")
from runners.backends import tinygrad_backend  # noqa: E402
from runners.backends.base import BackendOptionError, Unsupported  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402
from runners.execute import run_case_dataset  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "cases"
# the element types of the runner's OnnxDataType table (tinygrad 0.14)
SUPPORTED = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16",
             "float", "double")


@pytest.fixture(scope="module")
def backend():
    return get_backend("tinygrad", {"device": "PYTHON"})


def verdict(backend, kind: str, name: str, dataset: int = 0):
    return run_case_dataset(backend, read_case(CASES / kind / name), dataset, "strict", {})


def patterns(t) -> np.ndarray:
    """Every value of an 8-bit type; a spread of bit patterns (signs, NaN payloads, subnormals) of wider ones."""
    if t.kind == "bool":
        return np.array([True, False, True])
    n = min(1 << t.bits, 4096)
    bits = np.arange(n, dtype=np.uint64) * ((1 << t.bits) // n) + np.arange(n, dtype=np.uint64) % 7 * (t.bits > 12)
    return t.from_bits(bits.astype(t.bits_dtype))


# ---- tensors in and out ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", SUPPORTED)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), None])
def test_identity_is_bit_exact(backend, name, shape):
    """Identity returns its input: each bit pattern (NaN payloads and -0 included) comes back as it went in, in
    its own type; a 0-d tensor stays 0-d, an empty one empty."""
    t = dtypes.get(name)
    pool = patterns(t)
    x = pool if shape is None else pool[np.arange(int(np.prod(shape))) % pool.size].reshape(shape)
    model = node_model("Identity", [("x", t, x.shape)], [("y", t, x.shape)], {}, 21)
    (y,) = backend.run(backend.prepare(model, None), [x])
    assert y.dtype == t.np_dtype and y.shape == x.shape
    assert t.to_bits(y).tobytes() == t.to_bits(x).tobytes()


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float", "double"])
def test_a_0d_input_keeps_its_nan_payload(backend, name):
    """A 0-d input is data as any other: tinygrad's Tensor() would make a 0-d array a constant of its .item()
    (every NaN the canonical quiet one), so it goes in as one element, reshaped. (A quiet NaN: the PYTHON
    device's reshape quiets a signalling one.)"""
    t = dtypes.get(name)
    m, sign = t.mantissa_bits, 1 << (t.bits - 1)
    bits = sign | (sign - 1) ^ ((1 << m) - 1) | 1 << (m - 1) | 5  # -NaN, quiet, with a payload
    x = t.from_bits(np.array(bits, dtype=t.bits_dtype))
    model = node_model("Identity", [("x", t, ())], [("y", t, ())], {}, 21)
    (y,) = backend.run(backend.prepare(model, None), [x])
    assert y.shape == () and int(t.to_bits(y)) == bits


def test_a_kernel_keeps_the_bits(backend):
    """Through a kernel too: Cast float -> double is exact for every float (subnormals, -0, infinities; NaNs
    compared by count, their payloads widened as the kernel does)."""
    f32, f64 = dtypes.get("float"), dtypes.get("double")
    x = patterns(f32)
    model = node_model("Cast", [("x", f32, x.shape)], [("y", f64, x.shape)], {"to": f64.onnx}, 13)
    (y,) = backend.run(backend.prepare(model, None), [x])
    ok = ~np.isnan(x)
    assert y.dtype == np.float64 and (f64.to_bits(y[ok]) == f64.to_bits(x[ok].astype(np.float64))).all()
    assert np.isnan(y[~ok]).all()


def test_output_in_the_type_tinygrad_gave_it(backend):
    """An output comes back in the type tinygrad made it, bit for bit: bfloat16 as its bits (numpy() would convert
    it to float32 in a kernel); another type than the declared one is never converted (compare names it), but
    integers that all fit the declared integer type are the same values (base.as_declared)."""
    from tinygrad import Tensor, dtypes as tg

    bf16, f16, i64 = dtypes.get("bfloat16"), dtypes.get("float16"), dtypes.get("int64")
    with backend._on_device():
        nan = tinygrad_backend._to_numpy(Tensor(np.array([0x7F81, 0xFFC3], np.uint16)).bitcast(tg.bfloat16), bf16)
        wide = tinygrad_backend._to_numpy(Tensor(np.array([0.5], np.float32)), f16)
        ints = tinygrad_backend._to_numpy(Tensor(np.array([-3, 7], np.int32)), i64)
    assert nan.dtype == bf16.np_dtype and bf16.to_bits(nan).tolist() == [0x7F81, 0xFFC3]
    assert wide.dtype == np.float32 and ints.dtype == np.int64 and ints.tolist() == [-3, 7]


def test_each_data_set_reads_its_own_python_values(backend):
    """The runner keeps a Python value read from an input (Reshape's shape) by the input's name across calls:
    two data sets with two shapes each get their own."""
    i64, f32 = dtypes.get("int64"), dtypes.get("float")
    model = node_model("Reshape", [("x", f32, (6,)), ("shape", i64, (2,))], [("y", f32, None)], {}, 14)
    prepared = backend.prepare(model, None)
    x = np.arange(6, dtype=np.float32)
    assert backend.run(prepared, [x, np.array([2, 3])])[0].shape == (2, 3)
    assert backend.run(prepared, [x, np.array([3, 2])])[0].shape == (3, 2)


def test_wrong_input_count_is_an_error(backend):
    f32 = dtypes.get("float")
    prepared = backend.prepare(node_model("Relu", [("x", f32, (2,))], [("y", f32, (2,))], {}, 14), None)
    with pytest.raises(ValueError, match="1 inputs, 2 given"):
        backend.run(prepared, [np.zeros(2, np.float32)] * 2)


# ---- real cases ---------------------------------------------------------------------------------
def test_real_cases(backend):
    assert verdict(backend, "node", "test_cast_bfloat16_to_float32_edge").verdict == "pass"
    assert verdict(backend, "node", "test_convert_promote_types_int8_int8_dim_dim_safe").verdict == "pass"  # inlined
    r = verdict(backend, "node", "test_cast_float32_to_float8e4m3fn_edge")
    assert r.verdict == "unsupported" and "17 is not a valid OnnxDataType" in r.message, r.message
    # tinygrad's round() adds 0.5 in the input's type: a bfloat16 129 rounds to 130 (docs/discrepancies.md)
    r = verdict(backend, "node", "test_quantizelinear_bfloat16_x_opset19", 1)
    assert r.verdict == "fail" and r.n_mismatch > 0, r.message


@pytest.mark.skipif(not shutil.which("clang"), reason="tinygrad's CPU device compiles its kernels with clang")
def test_cpu_device_runs_and_records_its_compiler():
    b = get_backend("tinygrad")
    r = verdict(b, "node", "test_cast_float32_to_float16_edge")
    assert r.verdict == "pass", r.message
    assert b.settings()["device"] == "CPU" and r.settings["renderer"] == "ClangRenderer"
    assert re.fullmatch(r"\S*clang\S* \(.*clang version .*\)", r.settings["compiler"]), r.settings["compiler"]
    from tinygrad import Device

    assert "_cc" in Device["CPU"].renderer.compiler.cachekey  # the kernels on disk are this compiler's


class ClangRenderer:  # what _cache_per_compiler reads of tinygrad's (by type name)
    def __init__(self):
        self.compiler = SimpleNamespace(cachekey="compile_clang_obj_x86_64_native")


def test_the_kernel_cache_is_keyed_by_the_compiler(monkeypatch):
    """tinygrad keys the kernels it keeps on disk by their source alone: clang's entries get a key of the
    compiler, so a kernel one $CC compiled is never run under another's name (keyed once per renderer)."""
    keys = []
    for cc in ("no-such-cc-a", "no-such-cc-b", "no-such-cc-a"):
        monkeypatch.setenv("CC", cc)
        r = ClangRenderer()
        tinygrad_backend._cache_per_compiler(r)
        tinygrad_backend._cache_per_compiler(r)
        keys.append(r.compiler.cachekey)
    assert keys[0] != keys[1] and keys[0] == keys[2], keys
    assert all(re.fullmatch(r"compile_clang_obj_x86_64_native_cc[0-9a-f]{12}", k) for k in keys), keys


# ---- version, settings, --backend-option ----------------------------------------------------------
def test_version_and_settings_are_recorded(backend):
    import importlib.metadata

    assert backend.version() == importlib.metadata.version("tinygrad")
    s = backend.settings()
    assert s["device"] == "PYTHON" and s["renderer"] == "PythonRenderer" and "compiler" not in s
    assert s["onnx_local_functions"].startswith("inlined")
    r = verdict(backend, "node", "test_cast_bfloat16_to_float32_edge")
    assert r.settings["device"] == "PYTHON" and r.backend_version == backend.version()


def test_tinygrad_variables_of_the_environment_are_recorded(backend, monkeypatch):
    monkeypatch.setenv("BEAM", "0")
    monkeypatch.setenv("NOT_TINYGRADS", "1")
    assert backend.settings()["tinygrad_env"] == {"BEAM": "0"}


@pytest.mark.parametrize("options, says", [
    ({"no_such_key": "1"}, "has no option no_such_key; known: device"),
    ({"device": "NOPE"}, "device=NOPE: tinygrad cannot run on NOPE: ModuleNotFoundError: No module named "
                         "'tinygrad.runtime.ops_nope'"),
    ({"device": "CPU:FOO"}, "tinygrad cannot run on CPU:FOO: RuntimeError: CPU has no renderer 'FOO'"),
    ({"device": "a:b:c:d"}, "not a tinygrad target: too many ':' in target string"),
    ({"device": ""}, "expected a tinygrad target"),
])
def test_bad_options_are_refused_in_one_line(options, says):
    with pytest.raises(BackendOptionError) as info:
        get_backend("tinygrad", options)
    assert says in str(info.value) and "\n" not in str(info.value) and "backend 'tinygrad'" in str(info.value)


# ---- unsupported or error -------------------------------------------------------------------------
# (exception, unsupported?): what tinygrad 0.14.0 said, verbatim
SAYINGS = [
    (NotImplementedError("op='MatMulNBits' is not supported"), True),  # the committed suite's MatMulNBits
    (NotImplementedError("op='Softmax' is not supported for domain Domain.MICROSOFT_CONTRIB_OPS and version 1"),
     True),  # test_an_op_of_another_domain_is_unsupported
    (ValueError("'org.example' is not a valid Domain"), True),  # test_a_node_of_an_unknown_domain_is_unsupported
    (ValueError("17 is not a valid OnnxDataType"), True),  # float8e4m3fn, the suite's Cast and QuantizeLinear
    (ValueError("22 is not a valid OnnxDataType"), True),  # int4
    (ValueError("8 is not a valid OnnxDataType"), True),  # string
    (TypeError("get_onnx_ops.<locals>.QuantizeLinear() got an unexpected keyword argument 'precision'"), True),
    (TypeError("get_onnx_ops.<locals>.DequantizeLinear() got an unexpected keyword argument 'output_dtype'"), True),
    # an invalid element type number reads as a missing one: an error; so are a kernel's failures on valid input
    (ValueError("999 is not a valid OnnxDataType"), False),
    (ValueError("0 is not a valid OnnxDataType"), False),
    (IndexError("shape mismatch: objects cannot be broadcast to a single shape ((2, 8), (2, 9))"), False),
    (TypeError("unsupported operand type(s) for +: 'NoneType' and 'int'"), False),
    (NotImplementedError("antialias is not implemented"), False),  # an attribute value, said by one op only
]


@pytest.mark.parametrize("exc, unsupported", SAYINGS,
                         ids=[f"{type(e).__name__}:{' '.join(str(e).split())[:60]}" for e, _ in SAYINGS])
def test_unsupported_or_error(backend, exc, unsupported):
    assert backend.unsupported.matches(exc) is unsupported
    said = backend._classified(exc, "run")
    assert isinstance(said, Unsupported) is unsupported and "\n" not in str(said)


def test_every_table_entry_is_exercised_and_documented(backend):
    from unsupported_tables import check_tables

    check_tables([(backend.unsupported, e, yes) for e, yes in SAYINGS], [backend.unsupported])


def test_the_types_refused_are_those_the_runner_lacks(backend):
    """The element type numbers refused are the ONNX types outside the runner's own table, read from it."""
    from tinygrad.nn.onnx import OnnxDataType

    known = {dtypes.get(n).onnx for n in SUPPORTED}
    assert {int(t) for t in OnnxDataType} == known
    for t in dtypes.all_dtypes():
        assert backend.unsupported.matches(ValueError(f"{t.onnx} is not a valid OnnxDataType")) is (t.onnx not in known)


def test_a_node_of_an_unknown_domain_is_unsupported(backend):
    f32 = dtypes.get("float")
    model = node_model("Foo", [("x", f32, (2,))], [("y", f32, (2,))], {}, 13, domain="org.example",
                       extra_opsets={"org.example": 1})
    with pytest.raises(Unsupported, match="'org.example' is not a valid Domain"):
        backend.prepare(model, None)


def test_an_op_of_another_domain_is_unsupported(backend):
    f32 = dtypes.get("float")
    model = node_model("Softmax", [("x", f32, (2,))], [("y", f32, (2,))], {}, 13, domain="com.microsoft",
                       extra_opsets={"com.microsoft": 1})
    with pytest.raises(Unsupported, match="not supported for domain Domain.MICROSOFT_CONTRIB_OPS and version 1"):
        backend.run(backend.prepare(model, None), [np.zeros(2, np.float32)])
