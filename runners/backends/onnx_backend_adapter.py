"""Any onnx.backend.base.Backend (or module with prepare / run) as an opconform Backend: `--backend module:attr`.

Accepted targets (what onnx's own backend-test runner accepts):
  - a class or instance with prepare(model, device) -> rep and rep.run(inputs), such as
    `onnxruntime.backend.backend:OnnxRuntimeBackend` (onnx.backend.base.Backend uses classmethods);
  - a module with such a `prepare` function, given as `module:attr` naming the module or as a plain
    module path such as `onnxruntime.backend`.
If the target has is_compatible(model) and it returns False, the case is Unsupported, as onnx's runner
skips it. A NotImplementedError from the backend is Unsupported too. Outputs are converted to the
declared types only where that is an exact reinterpretation (base.as_declared). --backend-option device
is the device string handed to prepare (default CPU), checked with supports_device where the target has it.
"""

from __future__ import annotations

import importlib.metadata
import sys
import types
from dataclasses import dataclass

import numpy as np
import onnx

from generator.dtypes import DType
from runners.backends.base import Backend, Unsupported, UnsupportedTable, as_declared, io_types, refuse_option

# onnx.backend.base says nothing of unsupported models but is_compatible; NotImplementedError is Python's word.
UNSUPPORTED = UnsupportedTable(types=(NotImplementedError,))


@dataclass
class Prepared:
    rep: object
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


def _package_version(module_name: str, target) -> str:
    """Version of the distribution that ships module_name, else the module's __version__, else "unknown"."""
    top = module_name.split(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, []) + [top]:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    for obj in (target, sys.modules.get(top)):
        v = getattr(obj, "__version__", None)
        if isinstance(v, str):
            return v
    return "unknown"


class OnnxBackendAdapter(Backend):
    OPTIONS = {"device": "the device string handed to prepare(model, device) (default CPU), e.g. CUDA"}

    def __init__(self, spec: str, target, module_name: str, device: str = "CPU"):
        if not callable(getattr(target, "prepare", None)):
            raise TypeError(f"{spec}: has no prepare(model, device) function")
        self.name = spec
        self.target = target
        self.module_name = module_name
        self.device = device

    def configure(self, options: dict[str, str]) -> None:
        device = options.get("device", self.device)
        supports = getattr(self.target, "supports_device", None)
        if callable(supports) and not supports(device):
            raise refuse_option(self, "device", device, f"{self.name}.supports_device() returned False")
        self.device = device

    def version(self) -> str:
        return _package_version(self.module_name, self.target)

    def settings(self) -> dict:
        return {"device": self.device}

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        is_compatible = getattr(self.target, "is_compatible", None)
        try:
            compatible = not callable(is_compatible) or is_compatible(model, self.device)
            rep = self.target.prepare(model, self.device) if compatible else None
        except Exception as exc:
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"{self.name}: {exc}") from None
            raise
        if not compatible:
            raise Unsupported(f"{self.name}: is_compatible() returned False for this model")
        return Prepared(rep, ins, outs)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        try:
            results = prepared.rep.run(list(inputs))
        except Exception as exc:
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"{self.name}: {exc}") from None
            raise
        if isinstance(results, dict):
            results = [results[name] for name, _ in prepared.outputs]
        return [as_declared(r, t) for r, (_, t) in zip(list(results), prepared.outputs)]


def adapt(spec: str, target, module_name: str) -> Backend:
    """A Backend for `target`: an opconform Backend class / instance is used as it is; anything with
    prepare / run (onnx.backend.base.Backend subclass or instance, a module) is wrapped."""
    if isinstance(target, type) and issubclass(target, Backend):
        return target()
    if isinstance(target, Backend):
        return target
    if isinstance(target, (type, types.ModuleType)) or callable(getattr(target, "prepare", None)):
        return OnnxBackendAdapter(spec, target, module_name)
    raise TypeError(f"{spec}: not a backend (expected an onnx.backend.base.Backend or a module with prepare/run)")
