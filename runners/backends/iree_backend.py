"""IREE: ONNX models through IREE's ONNX importer (iree.compiler.extras.onnx_importer, what `iree-import-onnx`
runs), compiled by `iree-compile` for a target (default llvm-cpu for the host CPU) and run on IREE's runtime
(default device local-sync).

- Models are imported in the worker (fast) and compiled many to one module by one `iree-compile` subprocess
  (runners/backends/iree_batch.py, iree_compile.py): a one-node compile costs a second or more, mostly the
  compiler's fixed cost. Each model's outcome is its own: a compile error is the item's `error` with the compiler's
  first error line for its function, and a function that kills the compiler (found by bisection) is the item's
  `crash`: the worker ends itself with the compiler's signal, after writing what the compiler said, so the runner
  records a crash of this item and goes on in a fresh worker (in a run without isolation, an `error`). What the
  compiler made of each model is kept on disk (iree_cache.py), keyed by the model's bytes, the compiler's version
  and every flag: a rerun only loads.
- f64 stays f64: iree-compile demotes it to f32 unless told not to (--iree-input-demote-f64-to-f32=false, what
  IREE's own ONNX test suite passes), and a float64 Cast judged in float32 would fail for the adapter's choice.
- Model-local functions are inlined (onnx.inliner), as the spec defines them: the importer converts nodes by op
  type only.
- IREE's runtime ABI is signless: tensors go in and come back as raw bytes in the declared type (iree_tensors.py).

What IREE says when it does not implement something is UNSUPPORTED (docs/backends_iree.md); anything else raised
where the spec requires a result is an error.
"""

from __future__ import annotations

import importlib.metadata
import multiprocessing
import os
import shlex
import signal
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import iree.compiler  # noqa: F401 - (the registry reports the backend not installed without both packages)
import iree.runtime  # noqa: F401
import numpy as np

from generator.dtypes import DType
from runners.backends import iree_cache, iree_tensors
from runners.backends.base import (Backend, BackendOptionError, Unsupported, UnsupportedTable, choice, count,
                                   io_types, refuse_option)

# target -> (compiler flags, the runtime device it runs on by default)
TARGETS = {
    "llvm-cpu": (["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"], "local-sync"),
    "vmvx": (["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"], "local-sync"),
    "cuda": (["--iree-hal-target-device=cuda"], "cuda"),
    "hip": (["--iree-hal-target-device=hip"], "hip"),
    "vulkan": (["--iree-hal-target-device=vulkan"], "vulkan"),
}
TARGET, CPU, BATCH = "llvm-cpu", "host", 32
KEEP_F64 = "--iree-input-demote-f64-to-f32=false"

# What IREE says when it does not implement something, at import, compile or run (docs/backends_iree.md).
UNSUPPORTED = UnsupportedTable(text=(
    r"Unknown ONNX tensor element type: \d+",  # the importer has no MLIR type for this ONNX type (float4e2m1, int2 ...)
    r"Unsupported ONNX TypeProto",  # the importer: a value's type it has no MLIR type for (a map, a sparse tensor)
    r"Unsupport (list|optional) element type",  # the importer: a sequence / optional of what it does not convert
    r"Unhandled ONNX TensorProto data",  # the importer: an initializer of a type it cannot write inline
    r"Unsupported builtin tensor type",  # the importer: an initializer with no MLIR builtin tensor type (strings)
    # torch-mlir's ONNX conversion has no pattern for this node (op, attribute value or element types): the node
    # is left as torch.operator "onnx.X" and the conversion fails on it
    r"failed to legalize operation 'torch\.operator' that was explicitly marked illegal",
    r"iree's runtime has no element type for",  # (the adapter's words for HalElementType's list: strings)
))


def _one_line(text: str, limit: int = 600) -> str:
    return " ".join(ln.strip() for ln in str(text).splitlines() if ln.strip())[:limit]


def _classified(text: str) -> Exception:
    exc = RuntimeError(text)
    return Unsupported(text) if UNSUPPORTED.matches(exc) else exc


@dataclass
class Prepared:
    context: object
    function: object
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


class IreeBackend(Backend):
    name = "iree"
    OPTIONS = {
        "target": f"what iree-compile compiles for: {', '.join(TARGETS)} (default {TARGET})",
        "device": "the IREE runtime device to run on, e.g. local-sync, local-task, cuda://0 (default: local-sync for "
                  "llvm-cpu and vmvx, else the target's driver)",
        "cpu": f"llvm-cpu only: --iree-llvmcpu-target-cpu (default {CPU}: this machine's CPU), e.g. generic, znver4",
        "flags": "more iree-compile flags, one string split as a shell would (recorded; e.g. "
                 "'--iree-opt-level=O3'); --iree-input-demote-f64-to-f32 given here replaces the default =false",
        "checker": "1: run onnx.checker on each model first, as iree-import-onnx does (it refuses what the checker "
                   "refuses); 0 (default): the importer module alone, after shape inference",
        "batch": f"models per compiler invocation, 1 to 256 (default {BATCH}; 1: each case alone); not a setting: "
                 "results do not depend on it",
        "cache": "the compile cache directory, or 'off' (memory only); default $XDG_CACHE_HOME/opconform/iree; not a "
                 "setting",
    }

    def __init__(self):
        self.target, self.cpu, self.device_uri = TARGET, CPU, None
        self.extra: list[str] = []
        self.batch = BATCH
        self.checker = False
        self.cache_root: Path | None = iree_cache.default_root()
        self._batcher = None
        self._compiler_id: str | None = None
        self._device = self._instance = None
        self._modules: OrderedDict = OrderedDict()  # vmfb path -> (VmContext, VmModule), the last few used

    # ---- options ----------------------------------------------------------------------------------
    def configure(self, options: dict[str, str]) -> None:
        if "target" in options:
            self.target = choice(self, "target", options["target"], {t: t for t in TARGETS})
        if "cpu" in options:
            if self.target != "llvm-cpu":
                raise refuse_option(self, "cpu", options["cpu"], f"only for target llvm-cpu (target is {self.target})")
            if not options["cpu"] or any(c.isspace() for c in options["cpu"]):
                raise refuse_option(self, "cpu", options["cpu"], "expected one LLVM CPU name")
            self.cpu = options["cpu"]
        if "flags" in options:
            try:
                flags = shlex.split(options["flags"])
            except ValueError as exc:
                raise refuse_option(self, "flags", options["flags"], f"cannot split it: {exc}") from None
            bad = [f for f in flags if not f.startswith("-")]
            if bad:
                raise refuse_option(self, "flags", options["flags"], f"{bad[0]!r} is no flag (flags start with -)")
            self.extra = flags
        if "checker" in options:
            self.checker = choice(self, "checker", options["checker"], {"0": False, "1": True})
        if "batch" in options:
            self.batch = count(self, "batch", options["batch"], 1, 256)
        if "cache" in options:
            value = options["cache"]
            self.cache_root = None if value == "off" else Path(value).expanduser()
            if self.cache_root is not None and self.cache_root.exists() and not self.cache_root.is_dir():
                raise refuse_option(self, "cache", value, "not a directory")
        if "device" in options:
            self.device_uri = options["device"]
        self._check()

    def _check(self) -> None:
        """A target the compiler refuses, a flag it does not know or a device that is absent is one usage error
        now, not an error per case: a one-node model is compiled and run with the options."""
        from generator import dtypes
        from generator.case import node_model

        f32 = dtypes.get("float")
        model = node_model("Relu", [("x", f32, (2,))], [("y", f32, (2,))], {}, 14)
        try:
            prepared = self.prepare(model, None)
            self.run(prepared, [np.array([-1.0, 2.0], np.float32)])
        except Exception as exc:  # noqa: BLE001 - whatever IREE says about the options
            raise BackendOptionError(f"backend {self.name!r}: IREE cannot compile and run a Relu with "
                                     f"{self._described()}: {_one_line(exc, 300)}") from None

    def _described(self) -> str:
        return " ".join(f"{k}={v}" for k, v in (("target", self.target), ("device", self.device()),
                                                 ("flags", shlex.join(self.flags()))))

    def flags(self) -> list[str]:
        """Every iree-compile flag in force (the cache key holds them all)."""
        flags = list(TARGETS[self.target][0])
        if self.target == "llvm-cpu":
            flags.append(f"--iree-llvmcpu-target-cpu={self.cpu}")
        if not any(f.split("=", 1)[0] == KEEP_F64.split("=", 1)[0] for f in self.extra):
            flags.append(KEEP_F64)
        return flags + self.extra

    def device(self) -> str:
        return self.device_uri or TARGETS[self.target][1]

    # ---- identity ---------------------------------------------------------------------------------
    def version(self) -> str:
        return importlib.metadata.version("iree-base-compiler")

    def build(self) -> str | None:
        from iree.runtime import version as runtime

        return (f"{self.compiler_id()}; iree-base-runtime {importlib.metadata.version('iree-base-runtime')} "
                f"({runtime.VERSION} @ {runtime.REVISIONS.get('IREE', '?')})")

    def tool(self) -> str:
        from iree.compiler.tools.binaries import find_tool

        return find_tool("iree-compile")  # (IREE_TOOL_PATH, IREE's own variable, can name another build)

    def compiler_id(self) -> str:
        """What the iree-compile run says it is (`--version`: its version and revision, LLVM's): the tool found
        may be another build than the package's (IREE_TOOL_PATH)."""
        if self._compiler_id is None:
            import subprocess

            try:
                out = subprocess.run([self.tool(), "--version"], capture_output=True, text=True, check=True).stdout
            except (OSError, ValueError, subprocess.CalledProcessError) as exc:
                raise RuntimeError(f"iree-compile --version failed: {_one_line(exc)}") from None
            lines = [ln.strip() for ln in out.splitlines() if "version" in ln.lower()]
            self._compiler_id = "; ".join(lines) or _one_line(out)
        return self._compiler_id

    def settings(self) -> dict:
        return {"target": self.target, "device": self.device(), "compiler_flags": self.flags(),
                "importer": "iree.compiler.extras.onnx_importer after onnx shape inference (data propagation)"
                            + (" and onnx.checker" if self.checker else ""),
                "onnx_local_functions": "inlined (onnx.inliner)"}

    # ---- prepare / run ------------------------------------------------------------------------------
    def batcher(self):
        if self._batcher is None:
            from runners.backends.iree_batch import Batcher

            self._batcher = Batcher(iree_cache.Cache(self.cache_root), self.tool(), self.flags(), self.compiler_id(),
                                    self.batch, self.checker)
        return self._batcher

    def prepare(self, model, case) -> Prepared:
        ins, outs = io_types(model)
        entry = self.batcher().entry(model, case)
        if "refused" in entry:
            raise _classified(f"iree import: {entry['refused']}")
        if "error" in entry:
            raise _classified(f"iree-compile: {entry['error']}")
        if "crash" in entry:
            _die_as_the_compiler(entry["crash"], entry.get("signal"))
        for name, t in [*ins, *outs]:  # compiled, but no buffer view can carry it (a string tensor)
            if iree_tensors.hal_type(t) is None:
                raise Unsupported(f"iree's runtime has no element type for {t.name} ({name!r}): HalElementType "
                                  "lists none")
        context, module = self._load(self.batcher().cache.module_path(entry))
        function = module.lookup_function(entry["function"])
        if function is None:
            raise RuntimeError(f"iree: function {entry['function']} is not in its module (a damaged cache?)")
        return Prepared(context, function, ins, outs)

    def _load(self, path: Path):
        import iree.runtime as rt

        if path in self._modules:
            self._modules.move_to_end(path)
            return self._modules[path]
        device = self._runtime_device()
        module = rt.VmModule.copy_buffer(self._instance, path.read_bytes())
        context = rt.VmContext(self._instance, modules=[rt.create_hal_module(self._instance, device), module])
        self._modules[path] = (context, module)
        while len(self._modules) > 4:
            self._modules.popitem(last=False)
        return context, module

    def _runtime_device(self):
        import iree.runtime as rt

        if self._device is None:
            self._device = rt.get_device(self.device())
            self._instance = rt.VmInstance()
        return self._device

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        import iree.runtime as rt

        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        device = self._runtime_device()
        args = rt.VmVariantList(len(inputs))
        for (_, t), x in zip(prepared.inputs, inputs):
            args.push_ref(iree_tensors.to_device(device, x, t))
        results = rt.VmVariantList(len(prepared.outputs))
        try:
            prepared.context.invoke(prepared.function, args, results)
        except Exception as exc:  # noqa: BLE001 - the runtime's status, as its exception
            raise _classified(f"iree run: {type(exc).__name__}: {_one_line(exc)}") from None
        if len(results) != len(prepared.outputs):
            raise RuntimeError(f"iree returned {len(results)} outputs, the model has {len(prepared.outputs)}")
        return [iree_tensors.from_device(results.get_as_object(j, rt.HalBufferView), t)
                for j, (_, t) in enumerate(prepared.outputs)]


def _die_as_the_compiler(crash: str, signum: int | None) -> None:
    """The compiler died compiling this model: the item is a crash. In a worker (a spawned process) the worker
    ends itself with the compiler's signal after writing what it said (the runner records the item's crash and
    starts a fresh worker); in the runner's own process (--isolation none) it is an error."""
    text = f"iree-compile crashed on this model: {crash}"
    if multiprocessing.parent_process() is None:
        raise RuntimeError(text)
    sig = signal.Signals(signum) if signum in set(signal.Signals) else signal.SIGSEGV
    print(text, file=sys.stderr, flush=True)
    iree_cache.discard_scratch()  # (a memory-only cache's files: atexit does not run)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
