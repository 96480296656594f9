"""tinygrad: ONNX models through the ONNX runner the pip package ships (tinygrad.nn.onnx.OnnxRunner, which parses
the model itself and maps each node onto tinygrad's Tensor ops), run on the device --backend-option device names.

- The device is a tinygrad target as its DEV variable takes it (CPU, CPU:CLANG, CPU:X86, PYTHON, CUDA ...;
  default CPU, whose kernels clang compiles; PYTHON emulates kernels in Python and needs no compiler). Importing
  tinygrad.nn.onnx makes tensors (the default zero points of ConvInteger / MatMulInteger), which opens the default
  device: without DEV tinygrad picks the first device that starts, on a GPU machine the GPU. So DEV is set before
  that import, which happens in the process that runs the backend (the worker), never at this module's import.
  The device is checked by running one tiny op on it; settings() record the target tinygrad resolved, its renderer
  and every tinygrad variable set in the environment (BEAM, NOOPT, ... change the kernels); with clang, its
  version, and tinygrad's on-disk cache of compiled kernels is keyed by it (tinygrad keys it by the source alone).
- Model-local functions are inlined (onnx.inliner) and the opset imports no node uses are dropped: the runner
  reads no functions, and refuses a model importing a domain it does not know even where no node is of it.
- The runner keeps Python values it read from inputs (a Reshape's shape ...) by input name across calls
  ("true graph inputs that are python consts are rare; if they change across runs, cached value will be wrong"):
  each data set gets a runner of its own, parsed from the model's bytes.
- Inputs go in bit for bit: numpy arrays handed to Tensor (a raw copy), bfloat16 as its uint16 bits bitcast in
  tinygrad; a 0-d array as one element reshaped to (), since Tensor() makes a 0-d array a constant from a.item()
  (a NaN's payload and sign lost, the value folded into the kernels as an initializer's is: a fed input is data).
  Outputs come back in the element type tinygrad produced, bit for bit (numpy(); bfloat16 bitcast to uint16, as
  numpy() would convert it to float32), then as_declared: a type other than the declared one is reported by
  compare, never converted. The runner's own table of ONNX element types (OnnxDataType: the 13
  types of bool, the integers of 8 to 64 bits, float16, bfloat16, float, double) is what tinygrad runs: any other
  type, at parse (a graph input, an initializer) or at run (Cast's `to`), it refuses in its own words ("17 is not
  a valid OnnxDataType"), and that is unsupported where the number is an ONNX type (an invalid one stays an error).

What tinygrad says when it does not implement something is UNSUPPORTED (docs/backends.md); anything else raised
where the spec requires a result is an error.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import onnx
import onnx.inliner
import tinygrad  # noqa: F401 - opens no device; a missing package is "not installed" (registry)
from tinygrad.helpers import Context, ContextVar, DEV, Target

from generator import dtypes
from generator.dtypes import ONNX_ENUM, DType
from runners.backends.base import Backend, Unsupported, UnsupportedTable, as_declared, io_types, refuse_option

DEVICE = "CPU"
# The ONNX element type numbers tinygrad's runner has no dtype for (its OnnxDataType enum, read from the runner
# itself), as it names them when it refuses one; an invalid number reads the same and is not in the list.
_ONNX_NUMBERS = sorted(v for v in ONNX_ENUM.values() if v)


# The runner's words, verbatim in tinygrad 0.14 (nn/onnx.py), each quoted in docs/backends.md
OP_MISSING = r"^op='[^']*' is not supported"  # no implementation of the op (or of its domain and opset version)
DOMAIN_MISSING = r"^'[^']*' is not a valid Domain$"  # a node's domain the runner does not know
# an op implementation called with an attribute it has no parameter for (DequantizeLinear-23's output_dtype)
ATTRIBUTE_MISSING = r"^get_onnx_ops\.<locals>\.\w+\(\) got an unexpected keyword argument '\w+'$"


def _table(known_types: set[int]) -> UnsupportedTable:
    """What tinygrad's ONNX runner says when it does not implement an op, domain, type or attribute: the element
    types are the ONNX ones its OnnxDataType lacks, named by number ("17 is not a valid OnnxDataType")."""
    lacking = "|".join(str(v) for v in _ONNX_NUMBERS if v not in known_types)
    return UnsupportedTable(text=(OP_MISSING, DOMAIN_MISSING, rf"^({lacking}) is not a valid OnnxDataType$",
                                  ATTRIBUTE_MISSING))


def _known_types() -> set[int]:
    from tinygrad.nn.onnx import OnnxDataType  # (after DEV is set: see the module docstring)

    return {int(t) for t in OnnxDataType}


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:500]}" if text else type(exc).__name__


@dataclass
class Prepared:
    model: bytes  # each data set parses its own runner (see the module docstring)
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


def _drop_unused_opsets(model: onnx.ModelProto) -> onnx.ModelProto:
    used = {n.domain or "" for n in model.graph.node} | {""}
    keep = [o for o in model.opset_import if (o.domain or "") in used]
    if len(keep) != len(model.opset_import):
        del model.opset_import[:]
        model.opset_import.extend(keep)
    return model


class TinygradBackend(Backend):
    name = "tinygrad"
    OPTIONS = {"device": "a tinygrad target as DEV takes it: CPU (default; clang compiles its kernels), CPU:CLANG, "
                         "CPU:X86, CPU:LLVM, PYTHON (no compiler), CUDA, ...; checked by running one op on it"}

    def __init__(self):
        self.device = DEVICE
        self._started = False
        self._unsupported: UnsupportedTable | None = None

    def configure(self, options: dict[str, str]) -> None:
        if "device" in options:
            self.device = options["device"].strip()
            try:
                self._start()
            except RuntimeError as exc:
                raise refuse_option(self, "device", options["device"], str(exc)) from None

    def _start(self) -> None:
        """Point tinygrad at the device (before tinygrad.nn.onnx is imported) and run one op there; RuntimeError
        (one line) where tinygrad cannot."""
        if self._started:
            return
        try:
            targets = [Target.parse(t) for t in self.device.split(";")]
        except RuntimeError as exc:
            raise RuntimeError(f"not a tinygrad target: {exc}") from None
        if not self.device or not all(t.device for t in targets):
            raise RuntimeError("expected a tinygrad target (CPU, CPU:X86, PYTHON, ...)")
        self.device = ";".join(repr(t) for t in targets)  # as tinygrad spells it (CPU for cpu)
        if "tinygrad.nn.onnx" not in sys.modules:  # the first backend of the process: the runner's import opens it
            DEV.value = self.device
        try:
            from tinygrad import Device, Tensor

            with Context(DEV=self.device):
                opened = Device[Device.DEFAULT]
                _cache_per_compiler(opened.renderer)
                (Tensor([1.0, 2.0]) + 1).numpy()
            asked, got = targets[0].renderer, getattr(getattr(opened.renderer, "target", None), "renderer", "")
            if asked and got != asked:  # tinygrad opens a device once a process, with the renderer asked first
                raise RuntimeError(f"{opened.device} is open in this process with {type(opened.renderer).__name__} "
                                   "already")
            self._unsupported = _table(_known_types())
        except Exception as exc:  # noqa: BLE001 - whatever the device says (a missing clang, library or module)
            hint = " (install clang, or --backend-option device=PYTHON)" if "clang" in str(exc) else ""
            raise RuntimeError(f"tinygrad cannot run on {self.device}: {_one_line(exc)}{hint}") from None
        self._started = True

    @property
    def unsupported(self) -> UnsupportedTable:
        self._start()
        return self._unsupported

    def _on_device(self) -> Context:
        """DEV as this backend's, around whatever makes or realizes tensors: DEV is one global of tinygrad's, and
        two backends of one process (tests) may name two devices."""
        self._start()
        return Context(DEV=self.device)

    def version(self) -> str:
        return importlib.metadata.version("tinygrad")

    def settings(self) -> dict:
        from tinygrad import Device

        with self._on_device():
            renderer = Device[Device.DEFAULT].renderer
        # tinygrad's variables (its ContextVars: BEAM, NOOPT, ...) as the environment sets them (DEV is the device's)
        env = {k: os.environ[k] for k in sorted(ContextVar._cache) if k in os.environ and k != "DEV"}
        settings = {"device": self.device, "target": repr(getattr(renderer, "target", Device.DEFAULT)),
                    "renderer": type(renderer).__name__, "tinygrad_env": env,
                    "onnx_runner": "tinygrad.nn.onnx.OnnxRunner", "onnx_local_functions": "inlined (onnx.inliner)"}
        if type(renderer).__name__ == "ClangRenderer":
            settings["compiler"] = _compiler()
        return settings

    def _classified(self, exc: BaseException, where: str) -> Exception:
        if self.unsupported.matches(exc):
            return Unsupported(f"tinygrad {where}: {_one_line(exc)}")
        return RuntimeError(f"tinygrad {where}: {_one_line(exc)}")

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        if model.functions:
            model = onnx.inliner.inline_local_functions(model)
        data = _drop_unused_opsets(model).SerializeToString()
        with self._on_device():
            self._runner(data)  # the runner's own refusals (an element type, a domain) are the model's, at prepare
        return Prepared(data, ins, outs)

    def _runner(self, data: bytes):
        from tinygrad import Tensor
        from tinygrad.nn.onnx import OnnxRunner

        try:
            return OnnxRunner(Tensor(data))
        except Exception as exc:  # noqa: BLE001 - the parser raises Python's and tinygrad's exceptions
            raise self._classified(exc, "ONNX parse") from None

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        with self._on_device():
            return self._run(prepared, inputs)

    def _run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        runner = self._runner(prepared.model)
        try:
            feeds = {name: _to_tensor(x, t) for (name, t), x in zip(prepared.inputs, inputs)}
            result = runner(feeds)
            values = [result[name] for name, _ in prepared.outputs]
            return [_to_numpy(v, t) for v, (_, t) in zip(values, prepared.outputs)]
        except Exception as exc:  # noqa: BLE001 - lazy tensors: a kernel may fail only when an output is read
            raise self._classified(exc, "run") from None


def _cache_per_compiler(renderer) -> None:
    """tinygrad keeps the kernels clang compiled on disk (its CACHEDB) keyed by their source alone, so a kernel
    another $CC compiled would run, not the recorded compiler's: clang's entries get a key of their compiler."""
    compiler = getattr(renderer, "compiler", None)
    if type(renderer).__name__ != "ClangRenderer" or not getattr(compiler, "cachekey", None):
        return
    tag = "_cc" + hashlib.sha256(_compiler().encode()).hexdigest()[:12]
    if not compiler.cachekey.endswith(tag):
        compiler.cachekey += tag


def _compiler() -> str:
    """The C compiler of the CPU device's kernels (tinygrad runs $CC, default clang) and its version: it decides
    what compiles (clang 14 has no __bf16 on x86-64) and the machine code."""
    cc = os.environ.get("CC", "clang")
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{cc} ({type(exc).__name__})"
    return f"{cc} ({out.splitlines()[0].strip()})" if out.strip() else cc


def _to_tensor(a: np.ndarray, t: DType):
    from tinygrad import Tensor, dtypes as tg

    a = np.require(a, dtype=t.np_dtype, requirements="C")
    if a.ndim == 0:  # Tensor() makes a 0-d array a constant of a.item(): NaNs canonical, the value compiled in
        return _to_tensor(a.reshape(1), t).reshape(())
    if t.name == "bfloat16":  # tinygrad has no numpy dtype for it
        return Tensor(a.view(np.uint16)).bitcast(tg.bfloat16)
    return Tensor(a)


def _to_numpy(value, declared: DType) -> np.ndarray:
    """An output in the element type tinygrad gave it, bit for bit (compare checks it is the declared one)."""
    from tinygrad import Tensor, dtypes as tg

    if not isinstance(value, Tensor):
        raise TypeError(f"tinygrad returned a {type(value).__name__}, not a tensor")
    if value.dtype == tg.bfloat16:
        return as_declared(dtypes.get("bfloat16").from_bits(value.bitcast(tg.uint16).numpy()), declared)
    if value.dtype in tg.fp8s:  # numpy() would convert it to float32; the runner makes none of these types
        raise TypeError(f"tinygrad returned {value.dtype}, a type its ONNX runner has no ONNX type for")
    return as_declared(value.numpy(), declared)

