"""Small real ONNX models, float and quantized, for testing `gen-cases --from-model` on models as people bring them.

Two float models are written with onnx.helper from seeded numpy weights (ai.onnx opset 17, IR version 8):

- `float_cnn`: image [batch, 3, 16, 16] -> Conv 3x3 (3->8) -> Relu -> Conv 3x3 stride 2 (8->8) -> Relu ->
  GlobalAveragePool -> Flatten -> Gemm (8->10) = "logits"; Softmax -> Cast to float16 = "probs" (the half-precision
  output a mixed-precision export hands on).
- `float_transformer`: one pre-norm encoder block on tokens [batch, seq, 64] with an int64 attention_mask
  [batch, seq] Cast to float into an additive mask (as BERT-style exports do): LayerNormalization, Q/K/V
  MatMul + Add, 4 heads by Reshape / Transpose, QK^T / sqrt(16) + mask, Softmax, MatMul V, output projection,
  residual, LayerNormalization, MLP 64 -> 128 -> 64 with Gelu written as torch exports it at opset 17 (Erf), residual.

Every other model is one of them put through onnxruntime's own quantizers (quantize_static with a seeded calibration
reader, quantize_dynamic, MatMulNBitsQuantizer), and `cnn_nncf_s8` through NNCF's ONNX backend where nncf is
installed. `build(name, out_dir)` writes one model (and the float model it comes from), `build_all(out_dir)` all of
them, `cached(name)` one in a per-process-safe cache the tests share. The quantizers' scratch files go to temporary
directories; their logging and warnings are silenced while they run.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import io
import logging
import os
import tempfile
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
CALIBRATION_BATCHES = 4
BATCH, SEQ = 2, 8  # concrete sizes of the calibration data (the models keep their symbolic dims)
HIDDEN, HEADS, MLP = 64, 4, 128
FLOAT_OF = {"cnn": "float_cnn", "transformer": "float_transformer"}

NAMES: tuple[str, ...] = (
    "float_cnn", "float_transformer",
    "cnn_qdq_u8", "cnn_qdq_s8_per_channel", "cnn_qop_u8", "cnn_nncf_s8",
    "transformer_dynamic_u8", "transformer_dynamic_s8", "transformer_qdq_s8_per_channel", "transformer_qop_u8",
    "transformer_nbits_b32", "transformer_nbits_b128_sym",
)
# name -> the module it needs beyond onnx / onnxruntime: build() raises MissingPackage when it is absent
NEEDS: dict[str, str] = {"cnn_nncf_s8": "nncf", "transformer_nbits_b32": "onnx_ir",
                         "transformer_nbits_b128_sym": "onnx_ir"}


class MissingPackage(RuntimeError):
    """A model's quantizer needs a package that is not installed (its `package` attribute names it)."""

    def __init__(self, name: str, package: str):
        super().__init__(f"model {name!r} needs the Python package {package!r}, which is not installed "
                         f"(pip install {package.replace('_', '-')})")
        self.package = package


def has_package(package: str) -> bool:
    """Whether the module `package` can be imported here."""
    return importlib.util.find_spec(package) is not None


def available(name: str) -> bool:
    """Whether `name` can be built here (its optional package, if any, is importable)."""
    return NEEDS.get(name) is None or has_package(NEEDS[name])


# ---------------------------------------------------------------------------------------------------- float models

def _init(name: str, array: np.ndarray) -> TensorProto:
    return numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)


def _model(nodes: list, name: str, inputs: list, outputs: list, inits: list) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="opconform-tests",
                              ir_version=IR_VERSION)
    onnx.checker.check_model(model, full_check=True)
    return model


def float_cnn() -> onnx.ModelProto:
    """The float CNN (see the module's docstring)."""
    rng = np.random.default_rng(1)
    inits = [
        _init("conv1.weight", rng.normal(0, 1 / np.sqrt(27), (8, 3, 3, 3))), _init("conv1.bias", rng.normal(0, .1, 8)),
        _init("conv2.weight", rng.normal(0, 1 / np.sqrt(72), (8, 8, 3, 3))), _init("conv2.bias", rng.normal(0, .1, 8)),
        _init("fc.weight", rng.normal(0, 1 / np.sqrt(8), (10, 8))), _init("fc.bias", rng.normal(0, .1, 10)),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1"], "conv1", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv1"], ["relu1"], "relu1"),
        helper.make_node("Conv", ["relu1", "conv2.weight", "conv2.bias"], ["conv2"], "conv2", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["conv2"], ["relu2"], "relu2"),
        helper.make_node("GlobalAveragePool", ["relu2"], ["pool"], "pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], "flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], "fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["softmax"], "softmax", axis=-1),
        helper.make_node("Cast", ["softmax"], ["probs"], "probs_to_fp16", to=TensorProto.FLOAT16),
    ]
    inputs = [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 16, 16])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10]),
               helper.make_tensor_value_info("probs", TensorProto.FLOAT16, ["batch", 10])]
    return _model(nodes, "float_cnn", inputs, outputs, inits)


def float_transformer() -> onnx.ModelProto:
    """The float transformer block (see the module's docstring)."""
    rng = np.random.default_rng(2)
    d, head = HIDDEN, HIDDEN // HEADS
    inits = [_init("one", np.array(1.0)), _init("mask_fill", np.array(-10000.0)), _init("half", np.array(0.5)),
             _init("sqrt_head", np.array(np.sqrt(head))), _init("sqrt2", np.array(np.sqrt(2.0))),
             numpy_helper.from_array(np.array([1, 2], np.int64), "mask_axes"),
             numpy_helper.from_array(np.array([0, 0, HEADS, head], np.int64), "heads_shape"),
             numpy_helper.from_array(np.array([0, 0, d], np.int64), "hidden_shape")]
    for ln in ("ln1", "ln2"):
        inits += [_init(f"{ln}.weight", 1 + rng.normal(0, .1, d)), _init(f"{ln}.bias", rng.normal(0, .1, d))]
    for proj, k, n in (("q", d, d), ("k", d, d), ("v", d, d), ("o", d, d), ("fc1", d, MLP), ("fc2", MLP, d)):
        inits += [_init(f"{proj}.weight", rng.normal(0, 1 / np.sqrt(k), (k, n))),
                  _init(f"{proj}.bias", rng.normal(0, .05, n))]

    def node(op: str, ins: list[str], out: str, **attrs) -> onnx.NodeProto:
        return helper.make_node(op, ins, [out], out, **attrs)

    def linear(proj: str, x: str) -> list[onnx.NodeProto]:
        return [node("MatMul", [x, f"{proj}.weight"], f"{proj}.matmul"),
                node("Add", [f"{proj}.matmul", f"{proj}.bias"], proj)]

    nodes = [node("Cast", ["attention_mask"], "mask_float", to=TensorProto.FLOAT),
             node("Sub", ["one", "mask_float"], "mask_inverted"),
             node("Mul", ["mask_inverted", "mask_fill"], "mask_additive"),
             node("Unsqueeze", ["mask_additive", "mask_axes"], "mask_4d"),
             node("LayerNormalization", ["tokens", "ln1.weight", "ln1.bias"], "ln1", axis=-1, epsilon=1e-5)]
    for proj in "qkv":
        nodes += linear(proj, "ln1") + [node("Reshape", [proj, "heads_shape"], f"{proj}.heads")]
    nodes += [node("Transpose", ["q.heads"], "q.t", perm=[0, 2, 1, 3]),
              node("Transpose", ["k.heads"], "k.t", perm=[0, 2, 3, 1]),
              node("Transpose", ["v.heads"], "v.t", perm=[0, 2, 1, 3]),
              node("MatMul", ["q.t", "k.t"], "scores"), node("Div", ["scores", "sqrt_head"], "scores_scaled"),
              node("Add", ["scores_scaled", "mask_4d"], "scores_masked"),
              node("Softmax", ["scores_masked"], "attention", axis=-1),
              node("MatMul", ["attention", "v.t"], "context"),
              node("Transpose", ["context"], "context.t", perm=[0, 2, 1, 3]),
              node("Reshape", ["context.t", "hidden_shape"], "context.merged")]
    nodes += linear("o", "context.merged") + [
        node("Add", ["tokens", "o"], "residual1"),
        node("LayerNormalization", ["residual1", "ln2.weight", "ln2.bias"], "ln2", axis=-1, epsilon=1e-5)]
    nodes += linear("fc1", "ln2") + [
        node("Div", ["fc1", "sqrt2"], "gelu.div"), node("Erf", ["gelu.div"], "gelu.erf"),
        node("Add", ["gelu.erf", "one"], "gelu.add"), node("Mul", ["fc1", "gelu.add"], "gelu.mul"),
        node("Mul", ["gelu.mul", "half"], "gelu")]
    nodes += linear("fc2", "gelu") + [node("Add", ["residual1", "fc2"], "hidden")]
    inputs = [helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq", d]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])]
    outputs = [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "seq", d])]
    return _model(nodes, "float_transformer", inputs, outputs, inits)


# ------------------------------------------------------------------------------------------------- inputs, checks

def _dims(value_info: onnx.ValueInfoProto, sizes: dict[str, int]) -> list[int]:
    return [dim.dim_value if dim.HasField("dim_value") else sizes[dim.dim_param]
            for dim in value_info.type.tensor_type.shape.dim]


def feeds(model: onnx.ModelProto | str | os.PathLike, seed: int = 0, batch: int = BATCH,
          seq: int = SEQ) -> dict[str, np.ndarray]:
    """Random inputs for any model here: symbolic dims "batch" / "seq" set to batch / seq, an attention_mask of ones
    with the last positions of each row but the first masked out (padding)."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(os.fspath(model), load_external_data=False)
    rng = np.random.default_rng(seed)
    sizes = {"batch": batch, "seq": seq}
    inits = {i.name for i in model.graph.initializer}
    out: dict[str, np.ndarray] = {}
    for value_info in model.graph.input:
        if value_info.name in inits:
            continue
        shape = _dims(value_info, sizes)
        if value_info.name == "attention_mask":
            lengths = np.concatenate([[seq], rng.integers(1, seq + 1, batch - 1)])
            out["attention_mask"] = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int64)
        else:
            out[value_info.name] = rng.standard_normal(shape).astype(np.float32)
    return out


def op_counts(model: onnx.ModelProto | str | os.PathLike) -> Counter:
    """Nodes of the main graph by operator, "domain:Op" for a domain other than ai.onnx."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(os.fspath(model), load_external_data=False)
    return Counter(f"{n.domain}:{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type
                   for n in model.graph.node)


def run(path: str | os.PathLike, seed: int = 0) -> list[np.ndarray]:
    """The model at path checked with onnx.checker and run in onnxruntime (CPU, one thread) on feeds(path, seed)."""
    onnx.checker.check_model(os.fspath(path))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(os.fspath(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds(path, seed))


# ------------------------------------------------------------------------------------------------------ quantizing

@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The quantizers' Python logging (they log INFO / WARNING on the root logger), warnings and onnxruntime's own
    session warnings (its default logger severity is put back to 2, onnxruntime's default, afterwards)."""
    before = logging.root.manager.disable
    logging.disable(logging.WARNING)
    onnxruntime.set_default_logger_severity(3)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        onnxruntime.set_default_logger_severity(2)
        logging.disable(before)


def _import_nbits():
    """onnxruntime's MatMulNBitsQuantizer module, imported without the logging.basicConfig it runs on import
    taking over the root logger (a handler already there makes basicConfig do nothing)."""
    if not has_package("onnx_ir"):
        raise MissingPackage("transformer_nbits_*", "onnx_ir")
    placeholder = logging.NullHandler()
    logging.root.addHandler(placeholder)
    try:
        from onnxruntime.quantization import matmul_nbits_quantizer
    finally:
        logging.root.removeHandler(placeholder)
    return matmul_nbits_quantizer


class _Calibration:
    """CALIBRATION_BATCHES seeded batches (numpy default_rng(0)) of the float model's inputs, BATCH x SEQ; it is
    both onnxruntime's CalibrationDataReader (get_next / rewind) and an iterable for NNCF."""

    def __init__(self, float_path: Path):
        model = onnx.load(os.fspath(float_path))
        rng = np.random.default_rng(0)
        self.batches = [feeds(model, seed=int(rng.integers(2**31))) for _ in range(CALIBRATION_BATCHES)]
        self._next = iter(self.batches)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._next, None)

    def rewind(self) -> None:
        self._next = iter(self.batches)

    def __iter__(self):
        return iter(self.batches)


def _static(float_path: Path, out: Path, qformat: str, activation: str, weight: str, per_channel: bool) -> None:
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    quantize_static(os.fspath(float_path), os.fspath(out), _Calibration(float_path),
                    quant_format=getattr(QuantFormat, qformat), activation_type=getattr(QuantType, activation),
                    weight_type=getattr(QuantType, weight), per_channel=per_channel,
                    calibrate_method=CalibrationMethod.MinMax)


def _dynamic(float_path: Path, out: Path, weight: str) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(os.fspath(float_path), os.fspath(out), weight_type=getattr(QuantType, weight))


def _nbits(float_path: Path, out: Path, block_size: int, is_symmetric: bool) -> None:
    module = _import_nbits()
    quantizer = module.MatMulNBitsQuantizer(onnx.load(os.fspath(float_path)), bits=4, block_size=block_size,
                                            is_symmetric=is_symmetric, op_types_to_quantize=("MatMul",))
    quantizer.process()
    onnx.save(quantizer.model.model, os.fspath(out))


def _nncf(float_path: Path, out: Path) -> None:
    if not has_package("nncf"):
        raise MissingPackage("cnn_nncf_s8", "nncf")
    # NNCF's telemetry (openvino-telemetry, on by default) stays off where NNCF_CI is set (as in pytest processes)
    os.environ.setdefault("NNCF_CI", "1")
    import nncf
    calibration = _Calibration(float_path)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # progress bars
        quantized = nncf.quantize(onnx.load(os.fspath(float_path)), nncf.Dataset(calibration),
                                  subset_size=len(calibration.batches))
    onnx.save(quantized, os.fspath(out))


# name -> (the float model it starts from, quantizing float_path into out)
RECIPES: dict[str, tuple[str, Callable[[Path, Path], None]]] = {
    "cnn_qdq_u8": ("cnn", lambda f, o: _static(f, o, "QDQ", "QUInt8", "QUInt8", False)),
    "cnn_qdq_s8_per_channel": ("cnn", lambda f, o: _static(f, o, "QDQ", "QInt8", "QInt8", True)),
    "cnn_qop_u8": ("cnn", lambda f, o: _static(f, o, "QOperator", "QUInt8", "QInt8", False)),
    "cnn_nncf_s8": ("cnn", _nncf),
    "transformer_dynamic_u8": ("transformer", lambda f, o: _dynamic(f, o, "QUInt8")),
    "transformer_dynamic_s8": ("transformer", lambda f, o: _dynamic(f, o, "QInt8")),
    "transformer_qdq_s8_per_channel": ("transformer", lambda f, o: _static(f, o, "QDQ", "QInt8", "QInt8", True)),
    "transformer_qop_u8": ("transformer", lambda f, o: _static(f, o, "QOperator", "QUInt8", "QUInt8", False)),
    "transformer_nbits_b32": ("transformer", lambda f, o: _nbits(f, o, 32, False)),
    "transformer_nbits_b128_sym": ("transformer", lambda f, o: _nbits(f, o, 128, True)),
}
FLOATS: dict[str, Callable[[], onnx.ModelProto]] = {"float_cnn": float_cnn, "float_transformer": float_transformer}
assert set(NAMES) == set(FLOATS) | set(RECIPES)


def _write(model: onnx.ModelProto, path: Path) -> None:
    """model saved at path through a temporary file beside it and os.replace (no reader sees half a file)."""
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        onnx.save(model, tmp)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def build(name: str, out_dir: str | os.PathLike) -> Path:
    """Model `name` written as out_dir/<name>.onnx (and, for a quantized one, the float model it comes from as
    out_dir/float_<family>.onnx); its path. Raises MissingPackage where its quantizer's package is absent."""
    if name not in NAMES:
        raise KeyError(f"unknown model {name!r}: one of {', '.join(NAMES)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.onnx"
    if name in FLOATS:
        _write(FLOATS[name](), path)
        return path
    if not available(name):
        raise MissingPackage(name, NEEDS[name])
    family, quantize = RECIPES[name]
    float_path = build(FLOAT_OF[family], out_dir)
    # quantize_static's augmented model and calibration files go to a TemporaryDirectory of its own ("ort.quant.*"),
    # nothing to the working directory (tests/test_quantized_models.py checks)
    with tempfile.TemporaryDirectory(prefix="opconform-quantize-") as scratch, _quiet():
        out = Path(scratch) / f"{name}.onnx"
        quantize(float_path, out)
        model = onnx.load(os.fspath(out))
    _write(model, path)
    return path


def build_all(out_dir: str | os.PathLike, skip_missing: bool = True) -> dict[str, Path]:
    """Every model of NAMES written into out_dir, by name; those whose optional package is absent are left out
    (skip_missing) or raise MissingPackage."""
    return {name: build(name, out_dir) for name in NAMES if available(name) or not skip_missing}


# ---------------------------------------------------------------------------------------------------------- cache

def cache_dir() -> Path:
    """tempfile.gettempdir()/opconform-test-models-<onnxruntime version>-<hash>, the hash of this module's source and
    of the versions of the other packages that shape the models (a new one builds into a new directory)."""
    key = hashlib.sha256(Path(__file__).read_bytes())
    for package in ("onnx", "numpy", "onnx_ir", "nncf"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            key.update(f"{package}={importlib.metadata.version(package.replace('_', '-'))}".encode())
    digest = key.hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"opconform-test-models-{onnxruntime.__version__}-{digest}"


def cached(name: str) -> Path:
    """Model `name` from the cache, built there once. Concurrent processes may build the same model at the same
    time: each builds in a private directory and moves its files into place with os.replace, so a reader always
    sees a whole file (built the same way, whichever process's it is)."""
    directory = cache_dir()
    path = directory / f"{name}.onnx"
    if path.exists():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=directory) as private:
        build(name, private)
        for built in Path(private).glob("*.onnx"):
            if not (directory / built.name).exists():
                os.replace(built, directory / built.name)
    return path
