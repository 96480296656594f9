"""onnxruntime's JavaScript builds: onnxruntime-node (the native library behind Node's N-API binding) and
onnxruntime-web (the WebAssembly build, run in Node, single-threaded by default), both from npm.

Each worker process starts one Node process at its first prepare (runners/backends/js_process.py running
js/driver.mjs) and keeps it: prepare sends the model's bytes (a session is created there and its id kept),
run sends the inputs as raw little-endian bytes and reads the outputs back the same way, reinterpreted in
the element type Node says they hold (compare checks it is the declared one), bit for bit. If Node dies, the
worker ends with it, so the item is a crash as it would be in-process; a hang is the worker's timeout.

The JS Tensor API has a fixed list of element types (bool, int4 / uint4, 8- to 64-bit integers, float16 /
float32 / float64, string): a model with a graph input or output of any other type (bfloat16, float8, float4,
float6, int2 ...) cannot be fed or read through it, and is unsupported before the runtime is asked, quoting
the API's own words (`new Tensor(type, ...)` says "Unsupported tensor type: bfloat16."). Types inside the
graph are the runtime's business as usual.

Conformance defaults as in the Python onnxruntime adapter: graph optimizations off (the kernels, nothing
folded or fused), one thread, no spinning (onnxruntime-node); onnxruntime-web with env.wasm.numThreads=1.
The npm packages live in a folder opconform manages (runners/backends/js_packages.py, `opconform js-install`).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import weakref
from dataclasses import dataclass

import numpy as np
import onnx

from generator import dtypes
from generator.dtypes import DType
from runners.backends import js_packages
from runners.backends.base import (Backend, BackendNotInstalled, BackendOptionError, Unsupported, UnsupportedTable,
                                   as_declared, choice, count, io_types, refuse_option, relu_model)
from runners.backends.js_process import NodeDied, NodeError, NodeProcess, node_executable

# project element type name -> the JS API's (the others are spelled the same)
JS_NAMES = {"float": "float32", "double": "float64"}
FROM_JS = {js: name for name, js in JS_NAMES.items()}
# --backend-option graph_optimization_level (the Python adapter's keys) -> SessionOptions.graphOptimizationLevel
OPTIMIZATION_LEVELS = {"disable": "disabled", "basic": "basic", "extended": "extended", "layout": "layout",
                       "all": "all"}
OPTIMIZATION = "disable"
NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}


def js_type(t: DType) -> str:
    return JS_NAMES.get(t.name, t.name)


# What onnxruntime says, through either JS build, when it does not implement an op / type / attribute
# (docs/backends.md). The runtime's own sentences, as in runners/backends/onnxruntime.py, plus the JS layers'.
UNSUPPORTED = UnsupportedTable(
    text=(
        r"ERROR_CODE: 9,",  # onnxruntime-web: the status is NOT_IMPLEMENTED, whatever the words
        r"Could not find an implementation for",  # no kernel for this op / type combination
        r"Failed to find kernel for",
        r"No Op registered for",  # an op (or opset version of it) this build does not know
        r"is not a registered function/op",
        r"MLDataType for: \S+ is not currently registered or supported",
        r"Invalid tensor data type",
        r"Unsupported model IR version",
        r"Current official support for domain",  # an opset newer than this build
        # the JS Tensor API has no such element type, named as the JS API would name it (onnxruntime-node 1.30 reads
        # its type names past the end of a table for an int4 output and says "Unsupported tensor type: <garbage>":
        # not a refusal of a type, an error)
        rf"^Unsupported tensor type: ({'|'.join(sorted({js_type(t) for t in dtypes.all_dtypes()}))})\.$",
        r"^Tensor\.type is not supported: \w+$",  # onnxruntime-node's binding takes no input of this type (int4)
        r"^Unsupported data type: \d+$",  # onnxruntime-node's binding: no JS type for this ONNX element type
        r"^unsupported data type: \d+$",  # onnxruntime-web's glue: the same
        r"^unsupported type: u?int4$",  # onnxruntime-web: it makes no typed array of an int4 / uint4 output
    ),
    errors=(
        r"Exception during initialization",  # a kernel's constructor refused its attributes
        r"Non-zero status code returned while running",  # a kernel refused its inputs at run
    ))
# A kernel's own words that it does not implement a value of a valid model, inside the two wrappers above: the
# CPU MatMulNBits kernel's, as runners/backends/onnxruntime.py quotes them (the same C++ in every build).
KERNEL_UNSUPPORTED = UnsupportedTable(text=(
    r"Only 2b, 4b and 8b quantization is supported for MatMulNBits op",
    r"MatMulNBits on CPU does not support \d+-bit weights with floating-point zero points",
    r"Only [0-9b, and]+ quantization is supported for unpacked compute",
    r"g_idx \(reorder index\) is not supported for \d+-bit quantization with floating-point zero points",
))


def unsupported(exc: BaseException) -> bool:
    return KERNEL_UNSUPPORTED.matches(exc) or UNSUPPORTED.matches(exc)


def _reason(message: str) -> str:
    """The runtime's words that say so: from the sentence a table matched to the end of its line (not the wrappers,
    source path and function signature before it), else the first line."""
    for pattern in KERNEL_UNSUPPORTED.text + UNSUPPORTED.text[1:]:  # (not the status code: its sentence follows)
        said = re.search(pattern + r".*", message, re.IGNORECASE | re.MULTILINE)
        if said:
            return said.group(0).strip()
    return _first_line(message)


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[0] if lines else "?"


@dataclass
class Prepared:
    session: int
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


class _OnnxRuntimeJs(Backend):
    flavor = "?"  # "node" | "web": the driver's package

    def __init__(self):
        self.package = f"onnxruntime-{self.flavor}"
        self.where = js_packages.js_dir()
        problem = self.not_installed()
        if problem:  # one line before anything runs, with what to do (not an error per item)
            raise BackendNotInstalled(f"backend {self.name!r} is not installed: {problem}")
        self.optimization = OPTIMIZATION
        self.config: dict[str, str] = {}
        self._node: NodeProcess | None = None
        self._refused_types: dict[str, str] | None = None  # JS type name -> the API's words, for those it lacks

    def not_installed(self) -> str | None:
        if node_executable() is None:
            return "node is not on PATH: install Node.js 18 or later, or set OPCONFORM_NODE to a node executable"
        return js_packages.missing(self.package, self.where)

    # ---- options ----------------------------------------------------------------------------
    def _configure_common(self, options: dict[str, str]) -> None:
        for key, value in options.items():
            if key == "graph_optimization_level":
                self.optimization = choice(self, key, value, {k: k for k in OPTIMIZATION_LEVELS})
            elif key.startswith("config."):
                self.config[key.removeprefix("config.")] = value

    def _check(self) -> None:
        """Options the runtime refuses are one usage error now, not an error per item: a one-node model is run
        with them in a Node process of its own."""
        node = NodeProcess(self.flavor, self.where)
        try:
            answer, _ = node.request({"op": "create", "options": self._session_options()},
                                     [relu_model().SerializeToString()])
            x = np.array([-1.0, 2.0], np.float32)
            node.request({"op": "run", "id": answer["id"], "outputs": ["y"],
                          "inputs": [{"name": "x", "type": "float32", "dims": [2]}]}, [x.tobytes()])
        except (NodeError, NodeDied) as exc:
            raise BackendOptionError(f"backend {self.name!r}: {self.package} refuses these options: "
                                     f"{_first_line(str(exc))}") from None
        finally:
            node.close()

    def _session_options(self) -> dict:
        raise NotImplementedError

    # ---- what is recorded ---------------------------------------------------------------------
    def version(self) -> str:
        return js_packages.installed_version(self.package, self.where) or "unknown"

    def build(self) -> str:
        """Node's version and platform, the shared JS layer's version, where the package was loaded from."""
        return (f"{self.package} {self.version()} (onnxruntime-common "
                f"{js_packages.installed_version('onnxruntime-common', self.where) or '?'}), "
                f"Node {node_version()}, {self.where}")

    def _common_settings(self) -> dict:
        settings = {"execution_providers": self._providers(),
                    "graph_optimization_level": OPTIMIZATION_LEVELS[self.optimization]}
        return settings

    def _providers(self) -> list[str]:
        raise NotImplementedError

    # ---- the Node process -------------------------------------------------------------------------
    def _process(self) -> NodeProcess:
        if self._node is None:
            self._node = NodeProcess(self.flavor, self.where)
            candidates = sorted({js_type(t) for t in dtypes.all_dtypes()})
            try:
                said = self._request({"op": "hello", "candidates": candidates}, [], "start-up")[0]["types"]
            except NodeError as exc:  # the package does not load: each item says so, and the next one tries again
                self._node.close()
                self._node = None
                raise RuntimeError(f"{self.package} from {self.where} does not load in Node: "
                                   f"{_first_line(str(exc))}") from None
            self._refused_types = {t: words for t, words in said.items() if words is not None}
        return self._node

    def _request(self, header: dict, blobs: list[bytes], doing: str):
        try:
            return self._node.request(header, blobs, doing)
        except NodeDied as exc:
            # Node took the runtime with it: this worker ends the same way, so the item is a crash (the worker's
            # output keeps this line) and the next item starts a fresh worker and Node
            print(f"opconform: {exc}; ending this process too, so that the item is a crash", file=sys.stderr,
                  flush=True)
            os._exit(exc.code)

    def _type_refusal(self, model_types: list[tuple[str, DType]]) -> str | None:
        for name, t in model_types:
            words = self._refused_types.get(js_type(t))
            if words is not None and UNSUPPORTED.matches(Exception(words)):
                return (f"{self.package}: the JS Tensor API has no {t.name} element type (graph input / output "
                        f"{name!r}): new Tensor('{js_type(t)}', ...) says {words!r}")
        return None

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        self._process()
        # the session first: a model onnxruntime must refuse (a negative case) is refused as it would be anywhere,
        # whatever its types; only then are types the JS Tensor API cannot feed or read unsupported
        refusal = self._type_refusal(ins + outs)
        try:
            answer, _ = self._request({"op": "create", "options": self._session_options()},
                                      [model.SerializeToString()], "session creation")
        except NodeError as exc:
            if refusal and unsupported(exc):  # the binding refusing the same type ("Unsupported data type: 16")
                raise Unsupported(f"{refusal}; session creation: {_reason(str(exc))}") from None
            raise self._classified(exc) from None
        if refusal:
            self._node.release(answer["id"])
            raise Unsupported(refusal)
        prepared = Prepared(answer["id"], ins, outs)
        weakref.finalize(prepared, self._node.release, answer["id"])  # the session goes when the cache drops it
        return prepared

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        specs, blobs = [], []
        for (name, t), x in zip(prepared.inputs, inputs):
            x = np.asarray(x, dtype=t.np_dtype)
            spec = {"name": name, "type": js_type(t), "dims": [int(d) for d in x.shape]}
            if t.kind == "string":
                spec["strings"] = [str(s) for s in x.ravel()]
            else:
                blobs.append(t.to_raw(x))
            specs.append(spec)
        header = {"op": "run", "id": prepared.session, "inputs": specs, "outputs": [n for n, _ in prepared.outputs]}
        try:
            answer, got = self._request(header, blobs, "run")
        except NodeError as exc:
            raise self._classified(exc) from None
        return self._outputs(answer["outputs"], got, prepared)

    def _outputs(self, specs: list[dict], blobs, prepared: Prepared) -> list[np.ndarray]:
        if len(specs) != len(prepared.outputs):
            raise RuntimeError(f"{self.package} returned {len(specs)} outputs, the model has {len(prepared.outputs)}")
        values, b = [], 0
        for spec, (_, declared) in zip(specs, prepared.outputs):
            t = dtypes.find(FROM_JS.get(spec["type"], spec["type"]))  # what the runtime says it returned
            if t is None:
                raise RuntimeError(f"{self.package} returned an output of element type {spec['type']!r}")
            shape = tuple(spec["dims"])
            if t.kind == "string":
                values.append(as_declared(np.array(spec["strings"], dtype=object).reshape(shape), t))
                continue
            raw = bytes(blobs[b])
            b += 1
            need = -(-int(np.prod(shape, dtype=np.int64)) * t.bits // 8)
            if len(raw) != need:
                raise RuntimeError(f"{self.package} returned {len(raw)} bytes for a {t.name}{list(shape)} output, "
                                   f"{need} expected")
            values.append(t.from_raw(raw, shape))
        return values

    def _classified(self, exc: NodeError) -> Exception:
        message = str(exc)
        if unsupported(exc):
            return Unsupported(f"{self.package}: {_reason(message)}")
        return RuntimeError(f"{self.package}: {exc.name or 'Error'}: {message}")


@functools.lru_cache(maxsize=None)
def node_version() -> str:
    try:
        return subprocess.run([node_executable() or "node", "--version"], capture_output=True, text=True,
                              timeout=60).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class OnnxRuntimeNodeBackend(_OnnxRuntimeJs):
    name = "onnxruntime-node"
    flavor = "node"
    PROVIDERS = ["cpu"]
    OPTIONS = {
        "execution_providers": "onnxruntime-node's executionProviders, comma-separated in priority order (default "
                               "cpu; the GPU ones need the libraries npm's install script would have fetched)",
        "graph_optimization_level": f"{' | '.join(OPTIMIZATION_LEVELS)} (default {OPTIMIZATION}: the kernels "
                                    "themselves, nothing folded or fused)",
        "intra_op_num_threads": "threads of the intra-op pool, 0 to 256, 0 = onnxruntime's choice (default 1)",
        "config.<key>": "a session config entry (SessionOptions.extra), e.g. config.session.set_denormal_as_zero=1",
    }

    def __init__(self):
        super().__init__()
        self.providers = list(self.PROVIDERS)
        self.intra_op_threads = 1

    def configure(self, options: dict[str, str]) -> None:
        self._configure_common(options)
        if "execution_providers" in options:
            value = options["execution_providers"]
            names = [p.strip() for p in value.split(",") if p.strip()]
            if not names or len(set(names)) < len(names):
                raise refuse_option(self, "execution_providers", value, "expected provider names, each once")
            self.providers = names
        if "intra_op_num_threads" in options:
            self.intra_op_threads = count(self, "intra_op_num_threads", options["intra_op_num_threads"])
        self._check()

    def _providers(self) -> list[str]:
        return self.providers

    def _session_options(self) -> dict:
        return {"executionProviders": self.providers,
                "graphOptimizationLevel": OPTIMIZATION_LEVELS[self.optimization],
                "intraOpNumThreads": self.intra_op_threads, "interOpNumThreads": 1,
                "extra": {**NO_SPINNING, **self.config}}

    def settings(self) -> dict:
        entries = {**NO_SPINNING, **self.config}
        settings = {**self._common_settings(), "intra_op_num_threads": self.intra_op_threads,
                    "allow_spinning": entries["session.intra_op.allow_spinning"] != "0"}
        if self.config:
            settings["config"] = self.config
        return settings


class OnnxRuntimeWebBackend(_OnnxRuntimeJs):
    name = "onnxruntime-web"
    flavor = "web"
    OPTIONS = {
        "graph_optimization_level": f"{' | '.join(OPTIMIZATION_LEVELS)} (default {OPTIMIZATION}: the kernels "
                                    "themselves, nothing folded or fused)",
        "num_threads": "env.wasm.numThreads, 1 to 64 (default 1: single-threaded WebAssembly)",
        "config.<key>": "a session config entry (SessionOptions.extra)",
    }

    def __init__(self):
        super().__init__()
        self.threads = 1

    def configure(self, options: dict[str, str]) -> None:
        self._configure_common(options)
        if "num_threads" in options:
            self.threads = count(self, "num_threads", options["num_threads"], low=1, high=64)
        self._check()

    def _providers(self) -> list[str]:
        return ["wasm"]

    def _session_options(self) -> dict:
        options = {"executionProviders": ["wasm"], "graphOptimizationLevel": OPTIMIZATION_LEVELS[self.optimization],
                   "numThreads": self.threads}
        if self.config:
            options["extra"] = dict(self.config)
        return options

    def settings(self) -> dict:
        # the WebAssembly runs on Node's engine: its version is a setting here, not only the build
        settings = {**self._common_settings(), "wasm_num_threads": self.threads, "node": node_version()}
        if self.config:
            settings["config"] = self.config
        return settings
