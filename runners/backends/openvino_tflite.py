"""OpenVINO's TFLite frontend on CPU: runs the TFLite twins of graph cases (model_format "tflite"), a backend
apart from OpenVINO's ONNX importer.

CPU settings for conformance (docs/backends.md, "openvino and openvino-tflite"): f32 inference precision (the CPU
plugin would use bf16 where the CPU has it) and accuracy execution mode; the device and hints are --backend-option
values, as for the openvino backend (runners/backends/openvino_config.py). Inputs and outputs are matched by tensor
name.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov

from runners.backends import openvino_config
from runners.backends.base import Backend, Unsupported, UnsupportedTable
from runners.backends.openvino_placement import check_fallback, placement

# What OpenVINO's TFLite frontend and plugins say when they do not implement an op (docs/backends.md); not
# "OpConversionFailure" itself, which wraps a failed node's own message (see runners/backends/openvino.py).
UNSUPPORTED = UnsupportedTable(text=(
    r"No conversion rule",  # the TFLite frontend has no translator for an op
    r"is not supported",
    r"Cannot create .* layer",
    r"unsupported operation",
))


@dataclass
class Prepared:
    compiled: object
    inputs: list[str]
    outputs: list[object]  # ov output ports in the twin's output order
    # device and runtime precision of each execution node (openvino_placement; no ONNX model, so none is judged
    # lowered), into the item's record
    placement: dict | None = None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:400] or type(exc).__name__


def _port(ports, name: str | None, i: int):
    if name is not None:
        for p in ports:
            if name in p.get_names():
                return p
    if i < len(ports):
        return ports[i]
    raise ValueError(f"the model has no output {name!r}")


class OpenVinoTfliteBackend(Backend):
    name = "openvino-tflite"
    model_format = "tflite"

    OPTIONS = openvino_config.OPTIONS

    def __init__(self):
        self.core = ov.Core()
        self.config = openvino_config.OvConfig()

    def configure(self, options: dict[str, str]) -> None:
        self.config = openvino_config.configure(self, self.core, options)

    def version(self) -> str:
        return ov.get_version()

    def settings(self) -> dict:
        settings = self.config.settings()
        return {"device": settings.pop("device"), "frontend": "tflite", **settings}

    def prepare(self, model: bytes, case) -> Prepared:
        twin = getattr(case, "twin", None)
        with tempfile.TemporaryDirectory(prefix="opconform-ov-tflite-") as tmp:
            path = Path(tmp) / "model.tflite"  # the frontend is chosen by the file's extension
            path.write_bytes(bytes(model))
            try:
                ov_model = self.core.read_model(str(path))
                compiled = self.core.compile_model(ov_model, self.config.device, self.config.properties)
            except RuntimeError as exc:
                if UNSUPPORTED.matches(exc):
                    raise Unsupported(f"openvino-tflite: {_one_line(exc)}") from None
                raise
        names = list(twin.input_names) if twin else [p.get_any_name() for p in compiled.inputs]
        out_names = list(twin.output_names) if twin else [None] * len(compiled.outputs)
        outputs = [_port(compiled.outputs, n, i) for i, n in enumerate(out_names)]
        place = placement(compiled, None, self.config.device)
        check_fallback(place, self.config.allow_fallback, "openvino-tflite")
        return Prepared(compiled, names, outputs, place)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        request = prepared.compiled.create_infer_request()
        results = request.infer({n: np.ascontiguousarray(x) for n, x in zip(prepared.inputs, inputs)})
        return [np.array(results[p]) for p in prepared.outputs]
