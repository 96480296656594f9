"""Converter pipelines as backends: each runs one twin's model through a converter and checks the converted
model against the OTHER twin's data sets (inputs and expected outputs).

  tflite2onnx+onnxruntime  TFLite twin -> tflite2onnx -> onnxruntime, judged on the ONNX (NCHW) data sets.
                           The case's explicit layout map (case.json params.explicit_layouts) is passed on
                           as tflite2onnx's `explicit_layouts`.
  onnx2tf+litert           ONNX graph -> onnx2tf (its command line) -> LiteRT, judged on the TFLite (NHWC)
                           data sets. onnx2tf needs TensorFlow, whose numpy / protobuf pins clash with
                           opconform's: it may live in its own virtual environment, named by the environment
                           variable OPCONFORM_ONNX2TF (the path of its `onnx2tf` executable); else `onnx2tf`
                           is looked up on PATH.

A pipeline whose converter is not installed reports every case unsupported (and `opconform backends` lists
it as not installed). A model the converter rejects is an error whose message names the converter's complaint
(the operator, where it says which). Neither takes --backend-option: they run their runtimes' defaults.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from runners.backends.base import Backend, Unsupported

ONNX2TF_ENV = "OPCONFORM_ONNX2TF"
ONNX2TF_TIMEOUT = 600  # seconds for one conversion (TensorFlow's import alone takes several)
# onnx2tf downloads sample images for its dummy inference when every input looks like an NHWC image with 3
# channels; it reads them from its working directory first. We put seeded uniform [0, 1) data there, so the
# conversion needs no network (the data only feed onnx2tf's own output checks, not the converted model).
ONNX2TF_SAMPLE = "calibration_image_sample_data_20x128x128x3_float32.npy"
LAYOUT_LETTERS = {3: "NWC", 4: "NHWC", 5: "NDHWC"}


class ConversionError(Exception):
    """The converter rejected the model or failed; str() quotes what it said."""


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def explicit_layouts(case) -> dict[str, tuple[str, str]]:
    """case.json params.explicit_layouts (tensor -> perm, ONNX = TFLite.transpose(perm)) as tflite2onnx's
    {tensor: (TFLite layout, ONNX layout)} letters, e.g. (0, 3, 1, 2) -> ("NHWC", "NCHW")."""
    params = ((getattr(case, "meta", None) or {}).get("params") or {})
    out = {}
    for name, perm in sorted((params.get("explicit_layouts") or {}).items()):
        src = LAYOUT_LETTERS.get(len(perm))
        if src is None:
            raise Unsupported(f"explicit layout of rank {len(perm)} has no layout letters")
        out[name] = (src, "".join(src[p] for p in perm))
    return out


def _converter_message(text: str) -> str:
    """The converter's own complaint: its error lines (operator names included), else its last line."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    errors = [line for line in lines if re.search(r"error|exception|not ?supported|unsupported|op_type|"
                                                  r"NotImplemented", line, re.IGNORECASE)]
    picked = errors[-4:] if errors else lines[-1:]
    return " | ".join(picked)[:800] or "no message"


def _where(exc: BaseException, package: str) -> str:
    """The converter's innermost frame of a traceback, e.g. "tflite2onnx/op/conv.py:96 in parse": it names
    the operator's converter when the message does not."""
    where, tb = "unknown", exc.__traceback__
    while tb is not None:
        path = Path(tb.tb_frame.f_code.co_filename)
        if package in path.parts:
            rel = path.parts[path.parts.index(package):]
            where = f"{'/'.join(rel)}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return where


def _reorder(names_wanted: list[str], names_have: list[str]) -> list[int]:
    """Index into names_have for each wanted name; positions when the converter renamed them."""
    def norm(n: str) -> str:
        return re.sub(r"^serving_default_|:\d+$", "", n)

    have = [norm(n) for n in names_have]
    if all(norm(n) in have for n in names_wanted):
        return [have.index(norm(n)) for n in names_wanted]
    if len(names_wanted) != len(names_have):
        raise ConversionError(f"the converted model has {len(names_have)} tensors ({', '.join(names_have)}), "
                              f"the case {len(names_wanted)} ({', '.join(names_wanted)})")
    return list(range(len(names_wanted)))


# ---------------------------------------------------------------------------------------
# tflite2onnx + onnxruntime
# ---------------------------------------------------------------------------------------
@dataclass
class OrtPrepared:
    inner: object  # runners.backends.onnxruntime.Prepared
    feed_order: list[int]  # converted model's input j takes the case's input feed_order[j]
    output_order: list[int]  # the case's output k is the converted model's output output_order[k]
    onnx_model: onnx.ModelProto


class Tflite2OnnxOnnxRuntime(Backend):
    name = "tflite2onnx+onnxruntime"
    model_format = "tflite"
    data_format = "onnx"

    def version(self) -> str:
        return f"tflite2onnx {_version('tflite2onnx') or 'not installed'} + onnxruntime {_version('onnxruntime')}"

    def not_installed(self) -> str | None:
        try:
            _tflite2onnx()
        except Unsupported as exc:
            return str(exc)
        return None

    def settings(self) -> dict:
        return {"converter": "tflite2onnx.convert (explicit_layouts from the case)",
                "runtime": "onnxruntime CPU, graph optimizations off, 1 intra-op thread, no spinning"}

    def prepare(self, model: bytes, case) -> OrtPrepared:
        tflite2onnx = _tflite2onnx()
        from runners.backends.onnxruntime import OnnxRuntimeBackend

        layouts = explicit_layouts(case)
        with tempfile.TemporaryDirectory(prefix="opconform-tflite2onnx-") as tmp:
            src, dst = Path(tmp) / "model.tflite", Path(tmp) / "model.onnx"
            src.write_bytes(bytes(model))
            try:
                tflite2onnx.convert(str(src), str(dst), explicit_layouts=layouts or None)
            except Exception as exc:  # noqa: BLE001 - whatever the converter raises is its rejection
                raise ConversionError(f"tflite2onnx rejected the model: {type(exc).__name__}: "
                                      f"{_converter_message(str(exc))} (at {_where(exc, 'tflite2onnx')})") from None
            converted = onnx.load(str(dst))
        inner = OnnxRuntimeBackend().prepare(converted, None)
        inits = {i.name for i in case.model.graph.initializer}
        wanted_in = [v.name for v in case.model.graph.input if v.name not in inits]
        wanted_out = [v.name for v in case.model.graph.output]
        have_in = [n for n, _ in inner.inputs]
        have_out = [n for n, _ in inner.outputs]
        return OrtPrepared(inner, _invert(_reorder(wanted_in, have_in)), _reorder(wanted_out, have_out), converted)

    def run(self, prepared: OrtPrepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        from runners.backends.onnxruntime import OnnxRuntimeBackend

        feed = [inputs[k] for k in prepared.feed_order]
        outs = OnnxRuntimeBackend().run(prepared.inner, feed)
        return [outs[j] for j in prepared.output_order]


def _tflite2onnx():
    """The tflite2onnx module; Unsupported when it is not installed."""
    try:
        import tflite2onnx
    except ImportError:
        raise Unsupported("tflite2onnx is not installed: pip install 'opconform[tflite2onnx]'") from None
    return tflite2onnx


def _invert(order: list[int]) -> list[int]:
    """order[k] = j (case input k is model input j) -> inv[j] = k."""
    inv = [0] * len(order)
    for k, j in enumerate(order):
        inv[j] = k
    return inv


# ---------------------------------------------------------------------------------------
# onnx2tf + LiteRT
# ---------------------------------------------------------------------------------------
def _signature_names(interpreter) -> tuple[dict[int, str], dict[int, str]]:
    """Tensor index -> the ONNX name onnx2tf keeps in the model's signature (its tensors are renamed
    "serving_default_x:0", "PartitionedCall:1", ...). Empty where the model has no signature."""
    try:
        sigs = interpreter._get_full_signature_list()  # the interpreter's own (underscored) accessor
    except Exception:  # noqa: BLE001 - an interpreter without it: names only
        return {}, {}
    if len(sigs) != 1:
        return {}, {}
    sig = next(iter(sigs.values()))
    return ({i: n for n, i in sig.get("inputs", {}).items()}, {i: n for n, i in sig.get("outputs", {}).items()})


def onnx2tf_command() -> str | None:
    """The onnx2tf executable: $OPCONFORM_ONNX2TF, else `onnx2tf` on PATH, else None."""
    env = os.environ.get(ONNX2TF_ENV)
    if env:
        return env if Path(env).is_file() and os.access(env, os.X_OK) else None
    return shutil.which("onnx2tf")


class Onnx2TfLiteRT(Backend):
    name = "onnx2tf+litert"
    model_format = "onnx"
    data_format = "tflite"

    def version(self) -> str:
        cmd = onnx2tf_command()
        if cmd is None:
            return f"onnx2tf not installed + ai-edge-litert {_version('ai-edge-litert')}"
        version = _version("onnx2tf") if shutil.which("onnx2tf") == cmd else None
        if version is None:  # in its own environment: ask the package there
            python = Path(cmd).with_name("python")
            try:
                version = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('onnx2tf'))"],
                                         capture_output=True, text=True, timeout=120).stdout.strip() or "unknown"
            except (OSError, subprocess.SubprocessError):
                version = "unknown"
        return f"onnx2tf {version} ({cmd}) + ai-edge-litert {_version('ai-edge-litert')}"

    def not_installed(self) -> str | None:
        if onnx2tf_command() is None:
            return (f"onnx2tf is not installed: pip install 'opconform[onnx2tf]', or set {ONNX2TF_ENV} to the onnx2tf "
                    f"executable of its own environment")
        return None

    def settings(self) -> dict:
        return {"converter": "onnx2tf -i model.onnx -o DIR (defaults), model_float32.tflite",
                "runtime": "LiteRT interpreter, AUTO op resolver, 1 thread"}

    def prepare(self, model: onnx.ModelProto, case):
        missing = self.not_installed()
        if missing:
            raise Unsupported(missing)
        cmd = onnx2tf_command()
        from runners.backends.litert import load_interpreter

        with tempfile.TemporaryDirectory(prefix="opconform-onnx2tf-") as tmp:
            src, out = Path(tmp) / "model.onnx", Path(tmp) / "out"
            src.write_bytes(model.SerializeToString())
            sample = np.random.default_rng(0).uniform(0.0, 1.0, (20, 128, 128, 3)).astype(np.float32)
            np.save(Path(tmp) / ONNX2TF_SAMPLE, sample)
            try:
                done = subprocess.run([cmd, "-i", str(src), "-o", str(out)], capture_output=True, text=True,
                                      timeout=ONNX2TF_TIMEOUT, cwd=tmp)
            except subprocess.TimeoutExpired:
                raise ConversionError(f"onnx2tf did not finish in {ONNX2TF_TIMEOUT} s") from None
            tflite = out / "model_float32.tflite"
            if done.returncode != 0 or not tflite.is_file():
                raise ConversionError(f"onnx2tf rejected the model (exit {done.returncode}): "
                                      f"{_converter_message(done.stdout + chr(10) + done.stderr)}")
            data = tflite.read_bytes()
        twin = case.twin
        prepared = load_interpreter(data)
        it = prepared.interpreter
        ins, outs = _signature_names(it)
        order_in = _reorder(twin.input_names, [ins.get(d["index"], d["name"]) for d in it.get_input_details()])
        order_out = _reorder(twin.output_names, [outs.get(d["index"], d["name"]) for d in it.get_output_details()])
        prepared.inputs = [it.get_input_details()[j]["index"] for j in order_in]
        prepared.outputs = [it.get_output_details()[j]["index"] for j in order_out]
        return prepared

    def run(self, prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        from runners.backends.litert import run_interpreter

        return run_interpreter(prepared, inputs)
