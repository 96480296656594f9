"""What each backend does with QLinearMatMul (10, 21), MatMulInteger (10) and com.microsoft MatMulNBits (issue 23),
on tiny hand-built models (docs/matmul_backends.md): a refusal is `unsupported` with the backend's own words, a
kernel's check that refuses a valid model stays an error, and a model it runs gives the reference's values
(inputs chosen so the float results are exact: powers of two, small integers). A backend that is not installed
is skipped (TVM lives in its own virtual environment: run this file with its pytest too)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import unsupported_tables
from generator import dtypes
from generator.case import node_model
from generator.reference.matmul_integer import matmul_integer
from generator.reference.matmul_nbits import matmul_nbits_node, pack
from generator.reference.qlinear_matmul import qlinear_matmul_node
from runners.backends.base import BackendNotInstalled, Unsupported
from runners.backends.registry import get_backend
from runners.input_modes import RunMode, baked_tensors, build_model, fed_inputs

DOCS = unsupported_tables.DOCS.parent / "matmul_backends.md"
MS = "com.microsoft"
T = dtypes.get


_BACKENDS: dict = {}


def backend(name: str):
    if name not in _BACKENDS:
        try:
            _BACKENDS[name] = get_backend(name)
        except BackendNotInstalled as exc:
            _BACKENDS[name] = exc
    if isinstance(_BACKENDS[name], Exception):
        pytest.skip(str(_BACKENDS[name]))
    return _BACKENDS[name]


# ---- tiny models --------------------------------------------------------------------------------------
def qlinear_matmul(opset: int, t1: str, t2: str, t3: str, a_zp_shape: tuple = ()):
    """a [2, 3] @ b [3, 2], scales 1 (so y = saturate(acc + y_zero_point), exact), zero points 1 (a's of
    a_zp_shape: [2, 1] is per row)."""
    a = np.array([[1, 2, 3], [4, 5, 6]]).astype(T(t1).np_dtype)
    b = np.array([[1, 0], [0, 1], [1, 1]]).astype(T(t2).np_dtype)
    one = np.ones((), np.float32)
    values = [a, one, np.ones(a_zp_shape, T(t1).np_dtype), b, one, np.ones((), T(t2).np_dtype), one,
              np.ones((), T(t3).np_dtype)]
    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]
    types = [t1, "float32", t1, t2, "float32", t2, "float32", t3]
    model = node_model("QLinearMatMul", [(n, T(t), v.shape) for n, t, v in zip(names, types, values)],
                       [("y", T(t3), (2, 2))], {}, opset)
    return model, values


def matmul_integer_model(t1: str, t2: str, a_zp: np.ndarray | None, b_zp: np.ndarray | None):
    """A [2, 3] @ B [3, 2] with the zero points given ("" for an omitted a_zero_point before a b_zero_point)."""
    a = np.array([[1, 2, 3], [4, 5, 6]]).astype(T(t1).np_dtype)
    b = np.array([[1, -1], [0, 2], [3, 1]]).astype(T(t2).np_dtype) if t2 == "int8" else \
        np.array([[1, 7], [0, 2], [3, 1]]).astype(np.uint8)
    ins = [("A", T(t1), a.shape), ("B", T(t2), b.shape)]
    values = [a, b]
    for n, t, zp in (("a_zero_point", t1, a_zp), ("b_zero_point", t2, b_zp)):
        if zp is not None:
            ins.append((n, T(t), zp.shape))
            values.append(zp.astype(T(t).np_dtype))
    model = node_model("MatMulInteger", ins, [("Y", T("int32"), (2, 2))], {}, 10)
    if a_zp is None and b_zp is not None:  # an omitted optional input: the empty name
        model.graph.node[0].input[2:3] = ["", "b_zero_point"]
    return model, values, matmul_integer(a, b, a_zp, b_zp)


def matmul_nbits(bits: int = 4, zp: str | None = None, g_idx: bool = False, t1: str = "float32",
                 block_size: int = 16):
    """A [2, 16] of small integers, K = 16, N = 2, scales 2**-2: every product and sum exact. zp: None (the
    default 2**(bits-1)), "packed" (uint8, bits-packed) or "typed" (A's type, one per block). B holds random codes
    where bits divides 8 (pack's layout), zeros otherwise (such models are refused before B is read)."""
    K, N = 16, 2
    rng = np.random.default_rng(0)
    np_t = T(t1).np_dtype
    blocks = -(-K // block_size)
    if 8 % bits == 0:
        b = pack(rng.integers(0, 2 ** bits, (N, blocks, block_size)), bits)
    else:
        b = np.zeros((N, blocks, block_size * bits // 8), np.uint8)
    ins = [("A", rng.integers(-3, 4, (2, K)).astype(np_t)), ("B", b), ("scales", np.full((N, blocks), 0.25, np_t))]
    if zp == "packed":
        ins.append(("zero_points", pack(np.ones((N, blocks), np.int64), bits)))
    elif zp == "typed":
        ins.append(("zero_points", np.ones((N, blocks), np_t)))
    elif g_idx:
        ins.append(("", None))
    if g_idx:
        ins.append(("g_idx", np.zeros(K, np.int32)))
    attrs = {"K": K, "N": N, "bits": bits, "block_size": block_size}
    model = node_model("MatMulNBits", [(n, dtypes.from_numpy(v.dtype), v.shape) for n, v in ins if n],
                       [("Y", T(t1), (2, N))], attrs, 21, domain=MS, extra_opsets={MS: 1})
    model.graph.node[0].ClearField("input")
    model.graph.node[0].input.extend([n for n, _ in ins])  # an omitted zero_points keeps its place
    return model, [v for n, v in ins if n], attrs


def outcome(b, model: onnx.ModelProto, values: list, mode: RunMode | None = None):
    """("unsupported", reason) | ("error", message) | ("runs", outputs) of one model on one backend."""
    if mode is not None:
        model, values = build_model(model, baked_tensors(model, values, mode), False), fed_inputs(model, values, mode)
    try:
        return "runs", b.run(b.prepare(model, None), values)
    except Unsupported as exc:
        return "unsupported", str(exc)
    except Exception as exc:  # noqa: BLE001 - what the backend raised: an error verdict
        return "error", str(exc)


def nbits_expected(values: list, attrs: dict, zp_slot: bool, g_idx: bool) -> np.ndarray:
    inputs = list(values[:3]) + [values[3] if zp_slot else None] + ([values[-1]] if g_idx else [])
    return matmul_nbits_node(inputs, attrs, 1, [])[0]


def qlinear_expected(values: list) -> np.ndarray:
    return qlinear_matmul_node(values, {}, 21, [])[0]


def _says(kind: str, said, *words: str) -> None:
    what, detail = said
    assert what == kind, f"{kind} expected, got {what}: {detail}"
    assert all(w in detail for w in words), detail


# ---- onnxruntime (CPU) --------------------------------------------------------------------------------
@pytest.mark.parametrize("opset", [10, 21])
def test_onnxruntime_qlinear_matmul(opset):
    b = backend("onnxruntime")
    model, values = qlinear_matmul(opset, "uint8", "int8", "uint8")
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], qlinear_expected(values))
    _says("unsupported", outcome(b, *qlinear_matmul(opset, "uint8", "uint8", "int8")),
          "Could not find an implementation for QLinearMatMul")  # no kernel for a u8 a with an i8 y
    # a per-row a_zero_point (the text allows it) refused by a check of the inputs: an error, not unsupported
    _says("error", outcome(b, *qlinear_matmul(opset, "uint8", "uint8", "uint8", (2, 1))),
          "input zero point must be a scalar or 1D tensor of size 1")


def test_onnxruntime_qlinear_matmul_float8_is_unsupported():
    _says("unsupported", outcome(backend("onnxruntime"), *qlinear_matmul(21, *["float8e4m3fn"] * 3)),
          "Could not find an implementation for QLinearMatMul(21)")


def test_onnxruntime_matmul_integer():
    b = backend("onnxruntime")
    model, values, want = matmul_integer_model("uint8", "int8", np.array(1), np.array([1, -2]))
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], want)
    model, values, _ = matmul_integer_model("uint8", "int8", np.array([1, 2]), None)  # per row of A
    _says("error", outcome(b, model, values), "zero point must be a scalar or 1D tensor of size 1")


@pytest.mark.parametrize("inputs", ["fed", "initializers"])  # fed B: dequantize + sgemm; constant B: prepacked
@pytest.mark.parametrize("bits, zp", [(4, None), (2, "packed"), (8, "packed"), (4, "typed")])
def test_onnxruntime_matmul_nbits_runs_on_cpu(bits, zp, inputs):
    b = backend("onnxruntime")
    model, values, attrs = matmul_nbits(bits, zp)
    what, out = outcome(b, model, values, RunMode(inputs=inputs))
    assert what == "runs" and np.array_equal(out[0], nbits_expected(values, attrs, zp is not None, False))
    place = b.prepare(model, None).placement
    assert [n["op"] for n in place["nodes"]] == [f"{MS}::MatMulNBits"]
    assert {n["provider"] for n in place["nodes"]} == {"CPUExecutionProvider"}


@pytest.mark.parametrize("build, words", [
    (lambda: matmul_nbits(3), "Only 2b, 4b and 8b quantization is supported for MatMulNBits op"),
    (lambda: matmul_nbits(8, "typed"), "does not support 8-bit weights with floating-point zero points"),
    (lambda: matmul_nbits(8, g_idx=True), "quantization is supported for unpacked compute"),  # said at run
    (lambda: matmul_nbits(4, t1="bfloat16"), "Could not find an implementation for MatMulNBits"),
], ids=["bits3", "bits8_float_zero_points", "bits8_g_idx", "bfloat16"])
def test_onnxruntime_matmul_nbits_refusals_are_unsupported(build, words):
    model, values, _ = build()
    what, said = outcome(backend("onnxruntime"), model, values)
    assert what == "unsupported" and said.startswith("onnxruntime: ") and words in said
    assert "/onnxruntime_src/" not in said  # the kernel's sentence, not its source path and failed condition


def test_onnxruntime_matmul_nbits_block_size_below_16_is_an_error():
    """The schema: "The block size must be a power of 2 and not smaller than 16": a model it rules out, whose
    refusal a negative case judges (an Unsupported would hide nothing there, but is not what the kernel says)."""
    _says("error", outcome(backend("onnxruntime"), *matmul_nbits(4, block_size=8)[:2]),
          "Only power-of-two block sizes >= 16 are supported")


# ---- onnx-reference ------------------------------------------------------------------------------------
def test_onnx_reference_matmul_ops():
    b = backend("onnx-reference")
    model, values = qlinear_matmul(21, "int8", "int8", "int8")
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], qlinear_expected(values))
    model, values, want = matmul_integer_model("int8", "uint8", np.array(-1), None)
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], want)
    _says("unsupported", outcome(b, *matmul_nbits()[:2]), "MatMulNBits", "com.microsoft", "is unknown")
    # float8 QLinearMatMul: the evaluator's code calls np.iinfo on the output type; no statement: an error
    _says("error", outcome(b, *qlinear_matmul(21, *["float8e4m3fn"] * 3)), "Invalid integer data type")


# ---- OpenVINO (CPU) -------------------------------------------------------------------------------------
def test_openvino_matmul_nbits_needs_constant_weights():
    """The frontend's MatMulNBits translator takes B, zero_points and g_idx as constants only: fed, the item is
    unsupported in its words; as initializers (--inputs initializers) it runs, and its packed u8 B decompressed
    as u4 is not reported as a lowering."""
    b = backend("openvino")
    model, values, attrs = matmul_nbits(4, "packed")
    _says("unsupported", outcome(b, model, values), "MatMulNBits limitation: accepting only a constant as a B input")
    mode = RunMode(inputs="initializers")
    what, out = outcome(b, model, values, mode)
    assert what == "runs" and np.array_equal(out[0], nbits_expected(values, attrs, True, False))
    baked = build_model(model, baked_tensors(model, values, mode), False)
    assert "note" not in b.prepare(baked, None).placement
    _says("unsupported", outcome(b, *matmul_nbits(3)[:2], mode), "Unsupported bits value: 3")
    _says("error", outcome(b, *matmul_nbits(4, block_size=8)[:2], mode), "Wrong block size")  # the schema's rule


def test_openvino_qlinear_and_matmul_integer():
    b = backend("openvino")
    model, values = qlinear_matmul(10, "uint8", "uint8", "uint8")
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], qlinear_expected(values))
    # a per-row a_zero_point: the translator's failed check on a valid model, an error
    _says("error", outcome(b, *qlinear_matmul(10, "uint8", "uint8", "uint8", (2, 1))), "Scalar value can't be derived")
    model, values, want = matmul_integer_model("int8", "int8", np.array([1, 2]), np.array(1))
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], want)
    note = b.prepare(model, None).placement["note"]
    assert note == "MatMulInteger Y ran in f32, declared i32"  # its int32 sums computed by an f32 MatMul
    # an omitted a_zero_point before a b_zero_point (the empty name) reaches the plugin as a node it cannot run
    _says("error", outcome(b, *matmul_integer_model("int8", "int8", None, np.array(1))[:2]), "NullNode")


# ---- TVM (Relax ONNX frontend) ----------------------------------------------------------------------------
def test_tvm_matmul_ops():
    b = backend("tvm")
    model, values, want = matmul_integer_model("uint8", "int8", np.array([1, 2]), np.array([1, -2]))
    what, out = outcome(b, model, values)
    assert what == "runs" and np.array_equal(out[0], want)  # per-row a_zero_point included
    for model, values in (qlinear_matmul(10, "uint8", "uint8", "uint8"), matmul_nbits()[:2]):
        _says("unsupported", outcome(b, model, values), "The following operators are not supported for frontend "
              f"ONNX: {model.graph.node[0].op_type}")


# ---- the tables of refusals: each entry matched by what a backend said, and documented -----------------------
ORT_SAID = ("[ONNXRuntimeError] : 1 : FAIL : Exception during initialization: /onnxruntime_src/onnxruntime/contrib_ops/"
            "cpu/quantization/matmul_nbits.cc:{} onnxruntime::contrib::MatMulNBits<T1>::MatMulNBits(const "
            "onnxruntime::OpKernelInfo&) [with T1 = float] {}")
ORT_RUN = ("[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running {} node. Name:'' Status "
           "Message: {}")
OV_SAID = ("Exception from src/frontends/onnx/frontend/src/frontend.cpp:...: Errors during ONNX translation: \n"
           "-- com.microsoft.MatMulNBits with a message: While validating ONNX node '<Node(MatMulNBits): Y>': {}")
# (module, table name, message, unsupported?), verbatim from onnxruntime 1.32.0 / OpenVINO 2026.4.1 runs
SAYINGS = [
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_SAID.format(342, "nbits_ == 2 || nbits_ == 4 || nbits_ == 8 was false. "
     "Only 2b, 4b and 8b quantization is supported for MatMulNBits op, additional bits support is planned."), True),
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_SAID.format(346, "!(nbits_ == 8 && has_unquantized_zero_point_) was "
     "false. MatMulNBits on CPU does not support 8-bit weights with floating-point zero points; use uint8 zero "
     "points."), True),
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_RUN.format("MatMulNBits", "... ComputeBUnpacked(...) const [with T1 = "
     "float] nbits_ == 2 || nbits_ == 4 was false. Only 2b and 4b quantization is supported for unpacked compute "
     "for now"), True),
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_RUN.format("MatMulNBits", "... ComputeBUnpacked(...) const [with T1 = "
     "float; onnxruntime::AllocatorPtr = std::shared_ptr<onnxruntime::IAllocator>] reorder_idx_data == nullptr was "
     "false. g_idx (reorder index) is not supported for 2-bit quantization with floating-point zero points"), True),
    # a limit the contrib text does not state (any power of two >= 16): a kernel check refusing a valid model, an error
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_SAID.format(365, "nbits_ != 2 was false. 2-bit MatMulNBits block_size "
     "must not exceed 256. Got 512"), False),
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_SAID.format(349, "logical_block_size_ >= 16 && (logical_block_size_ & "
     "(logical_block_size_ - 1)) == 0 was false. Only power-of-two block sizes >= 16 are supported for MatMulNBits "
     "op, got: 8"), False),
    ("onnxruntime", "KERNEL_UNSUPPORTED", ORT_RUN.format("QLinearMatMul", "/onnxruntime_src/onnxruntime/core/"
     "providers/cpu/quantization/quantize_linear_matmul.cc:78 ... IsScalarOr1ElementVector(a_offset) was false. "
     "QLinearMatmul : input zero point must be a scalar or 1D tensor of size 1"), False),
    ("openvino_refusals", "TRANSLATOR_UNSUPPORTED", OV_SAID.format("MatMulNBits limitation: accepting only a constant "
     "as a B input"), True),
    ("openvino_refusals", "TRANSLATOR_UNSUPPORTED", OV_SAID.format("MatMulNBits limitation: accepting only a constant "
     "as a zero_points"), True),
    ("openvino_refusals", "TRANSLATOR_UNSUPPORTED", OV_SAID.format("Unsupported bits value: 5"), True),
    ("openvino_refusals", "TRANSLATOR_UNSUPPORTED", OV_SAID.format("Wrong block size, should be >=16 and be a power "
     "of 2, got: 24"), False),
]


def _table(module: str, table: str):
    try:
        return getattr(__import__(f"runners.backends.{module}", fromlist=[table]), table)
    except ImportError as exc:  # that backend is not installed here
        pytest.skip(str(exc))


@pytest.mark.parametrize("module, table, said, unsupported", SAYINGS, ids=[s[2][-50:] for s in SAYINGS])
def test_refusal_tables(module, table, said, unsupported):
    assert _table(module, table).matches(RuntimeError(said)) is unsupported


@pytest.mark.parametrize("module, table", sorted({(m, t) for m, t, _, _ in SAYINGS}))
def test_every_entry_is_exercised_and_documented(module, table, monkeypatch):
    monkeypatch.setattr(unsupported_tables, "DOCS", DOCS)
    t = _table(module, table)
    unsupported_tables.check_tables([(t, RuntimeError(s), yes) for m, n, s, yes in SAYINGS if (m, n) == (module, table)],
                                    [t])
