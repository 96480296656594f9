"""onnxruntime (on CPU unless --backend-option providers says otherwise), every input and output bit-exact in
its declared element type.

`InferenceSession.run` with numpy arrays where every input and output is of a numpy type (its buffers are
copied bit for bit). Otherwise not: the Python binding hands float8e4m3fn outputs back as uint8 and cannot
convert bfloat16, the other float8 types, float8e8m0, int4/uint4 or int2/uint2 to or from numpy at all.
So those tensors travel as OrtValues whose raw buffers are copied with ctypes: sub-byte types are
PACKED there (4-bit: two per byte, first element in the low nibble; 2-bit: four per byte, low bits
first). The binding cannot build a string OrtValue from numpy, so a string input is produced by a tiny
helper session (one Constant node) that returns it as an OrtValue; the model under test is never changed.
Releases before 1.23 lack OrtValue.tensor_size_in_bytes (the packed size is computed from the element type);
1.18's binding makes OrtValues of numpy types only (float8 / bfloat16 / int4 inputs come from a Constant too).

Each item records which provider ran its node(s) (ort_placement; onnxruntime 1.32 and later): a node that ran on
another provider than the first one asked for makes the item unsupported, naming both, unless allow_fallback=1.
A plugin EP shipped as a library runs with ep_library.<name>=PATH and ep_devices=EpName (ort_plugin).

By default graph optimizations are disabled (ORT_DISABLE_ALL): a conformance check must see the kernel, not
a constant-folded or fused result. One intra-op thread and no spinning: the models are single nodes on small
tensors, where a thread pool only costs (creating it per session, and its threads spinning for work while the
next case is prepared and while cached sessions wait). A vendor gates its own configuration with
--backend-option (OPTIONS: providers and their options, optimization level, threads, session config entries);
the settings in force are in every report.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

from generator import dtypes
from generator.dtypes import DType
from runners.backends import ort_placement, ort_plugin
from runners.backends.base import (Backend, BackendOptionError, Unsupported, UnsupportedTable, as_declared,
                                   choice, count, io_types, refuse_option)
from runners.backends.packing import pack, unpack

PROVIDERS = ["CPUExecutionProvider"]
INTRA_OP_THREADS = 1  # see the module docstring
OPTIMIZATION = "disable"
# --backend-option graph_optimization_level -> onnxruntime's GraphOptimizationLevel (those this build has)
OPTIMIZATION_LEVELS = {key: getattr(ort.GraphOptimizationLevel, name) for key, name in (
    ("disable", "ORT_DISABLE_ALL"), ("basic", "ORT_ENABLE_BASIC"), ("extended", "ORT_ENABLE_EXTENDED"),
    ("layout", "ORT_ENABLE_LAYOUT"), ("all", "ORT_ENABLE_ALL")) if hasattr(ort.GraphOptimizationLevel, name)}
NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}

# What onnxruntime says when it does not implement an op / type / attribute (docs/backends.md).
UNSUPPORTED = UnsupportedTable(
    types=(ort_state.NotImplemented,),  # status NOT_IMPLEMENTED, whatever the words
    text=(
        r"Could not find an implementation for",  # no kernel for this op / type combination
        r"Failed to find kernel for",
        r"No Op registered for",  # an op (or opset version of it) this build does not know
        r"is not a registered function/op",
        r"MLDataType for: \S+ is not currently registered or supported",  # 1.32: float6 known to onnx, not to ORT
        r"tensor type \d+ is not supported",  # the Python binding cannot make an OrtValue of this type
        r"Invalid tensor data type",
        r"Unsupported model IR version",
        r"Current official support for domain",  # an opset newer than this build
    ),
    errors=(
        r"Exception during initialization",  # a kernel's constructor refused its attributes
        r"Non-zero status code returned while running",  # a kernel refused its inputs at run
    ))

# A kernel's own words that it does not implement a value of a valid model, said inside the two wrappers above
# (its constructor or its Compute failing an ORT_ENFORCE): unsupported whatever the wrapper. Each quotes the
# sentence of onnxruntime 1.32's CPU kernel (contrib_ops/cpu/quantization/matmul_nbits.cc, measured with
# hand-built models: docs/matmul_backends.md). A kernel's check of its inputs phrased as a requirement ("input zero
# point must be a scalar") is not here: it refuses what the spec allows, an error.
KERNEL_UNSUPPORTED = UnsupportedTable(text=(
    r"Only 2b, 4b and 8b quantization is supported for MatMulNBits op",  # bits 3, 5, 6, 7 ("support is planned")
    r"MatMulNBits on CPU does not support \d+-bit weights with floating-point zero points",  # bits 8, float zp
    r"Only [0-9b, and]+ quantization is supported for unpacked compute",  # g_idx / float zp path: bits 8
    r"g_idx \(reorder index\) is not supported for \d+-bit quantization with floating-point zero points",  # at run
))


def unsupported(exc: BaseException) -> bool:
    """Whether onnxruntime says it does not implement what `exc` is about (UNSUPPORTED, KERNEL_UNSUPPORTED)."""
    return KERNEL_UNSUPPORTED.matches(exc) or UNSUPPORTED.matches(exc)


def _reason(exc: BaseException) -> str:
    """The words that say so: a kernel's sentence (from KERNEL_UNSUPPORTED's match to the end of its line, not the
    source path and the failed condition before it), else the first line."""
    for pattern in KERNEL_UNSUPPORTED.text:
        said = re.search(pattern + r".*", str(exc), re.IGNORECASE)
        if said:
            return said.group(0).strip()
    return _first_line(exc)


# With a plugin EP in the session, a node that no provider has a kernel for (what the CPU provider alone reports
# as "Could not find an implementation") fails in the memcpy transformer instead, wrapped in "Exception during
# initialization" (an error pattern above): the node was left unassigned, so it is unsupported.
NO_PROVIDER = re.compile(r"Provider type for \S+ node with name '.*' is not set")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


def _session_options(optimization: str = OPTIMIZATION, threads: int = INTRA_OP_THREADS,
                     config: dict[str, str] | None = None) -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.graph_optimization_level = OPTIMIZATION_LEVELS[optimization]
    so.log_severity_level = 4  # failures come back as exceptions; keep stderr for the real log
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    record = {ort_placement.RECORD: "1"} if ort_placement.CHECKABLE else {}  # where each node ran
    for key, value in {**NO_SPINNING, **record, **(config or {})}.items():
        so.add_session_config_entry(key, value)
    return so


def _size_in_bytes(value: ort.OrtValue, t: DType, shape) -> int:
    """The bytes of an OrtValue's buffer: onnxruntime's own count where the binding has it (1.23 and later),
    else the packed size (elements of under a byte packed whole into bytes, as onnxruntime holds them)."""
    if hasattr(value, "tensor_size_in_bytes"):
        return value.tensor_size_in_bytes()
    return -(-int(np.prod(shape, dtype=np.int64)) * t.bits // 8)


def _typed_ortvalues() -> bool:
    """Whether OrtValue.ortvalue_from_shape_and_type takes an ONNX element type (1.20 does, 1.18 does not)."""
    try:
        ort.OrtValue.ortvalue_from_shape_and_type([1], onnx.TensorProto.BFLOAT16)
    except Exception:  # noqa: BLE001 - 1.18 and before: "Not a valid numpy type"
        return False
    return True


_TYPED_ORTVALUES = _typed_ortvalues()


@dataclass
class Prepared:
    session: ort.InferenceSession
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]
    numpy_io: bool = False  # every input and output of a numpy type: InferenceSession.run, no OrtValues
    placement: dict | None = None  # where each node ran (ort_placement), into the item's record


class OnnxRuntimeBackend(Backend):
    name = "onnxruntime"
    OPTIONS = {
        "providers": "execution providers in priority order, comma-separated, each one of "
                     "onnxruntime.get_available_providers() (default CPUExecutionProvider)",
        "provider_option.<Provider>.<key>": "an option of one of those providers (InferenceSession "
                                            "provider_options), e.g. provider_option.CUDAExecutionProvider.device_id=1",
        "graph_optimization_level": f"{' | '.join(OPTIMIZATION_LEVELS)} (default {OPTIMIZATION}: the kernels "
                                    "themselves, nothing folded or fused)",
        "intra_op_num_threads": f"threads of the intra-op pool, 0 to 256, 0 = onnxruntime's choice "
                                f"(default {INTRA_OP_THREADS})",
        "config.<key>": "a session config entry, SessionOptions.add_session_config_entry(key, value), "
                        "e.g. config.session.set_denormal_as_zero=1",
        "allow_fallback": "0 | 1 (default 0: an item whose node ran on another provider than the first one "
                          "asked for is unsupported, naming both; 1: judged, the placement recorded)",
        "ep_library.<name>": "a plugin execution provider library to load under <name> "
                             "(onnxruntime.register_execution_provider_library), e.g. ep_library.my_ep=/opt/my_ep.so",
        "ep_devices": "instead of providers: execution providers by the devices they offer "
                      "(onnxruntime.get_ep_devices()), EpName[:cpu|gpu|npu] comma-separated in priority order, "
                      "e.g. ep_devices=MyExecutionProvider:npu (a plugin EP's own options: "
                      "provider_option.MyExecutionProvider.<key>)",
    }

    def __init__(self):
        self.providers = list(PROVIDERS)
        self.provider_options: dict[str, dict[str, str]] = {}
        self.optimization = OPTIMIZATION
        self.intra_op_threads = INTRA_OP_THREADS
        self.config: dict[str, str] = {}  # session config entries given as options
        self.allow_fallback = False
        self.ep_libraries: dict[str, str] = {}  # plugin EP libraries loaded: name -> path
        self.ep_devices: list[tuple[str, list]] | None = None  # ep_devices: [(EP name, its OrtEpDevices)]
        self.ep_device_spec = ""

    def configure(self, options: dict[str, str]) -> None:
        for key, value in options.items():  # libraries first: ep_devices selects their devices
            if key.startswith("ep_library."):
                self._plugin(key, value, lambda: ort_plugin.register(key.removeprefix("ep_library."), value))
                self.ep_libraries[key.removeprefix("ep_library.")] = value
        if "providers" in options and "ep_devices" in options:
            raise refuse_option(self, "ep_devices", options["ep_devices"], "give providers or ep_devices, not both")
        if "providers" in options:
            self.providers = self._providers(options["providers"])
        if "ep_devices" in options:
            value = self.ep_device_spec = options["ep_devices"]
            self.ep_devices = self._plugin("ep_devices", value,
                                           lambda: ort_plugin.select(ort_plugin.parse_devices(value)))
            self.providers = [ep for ep, _ in self.ep_devices]
        if "allow_fallback" in options:
            self.allow_fallback = choice(self, "allow_fallback", options["allow_fallback"], {"0": False, "1": True})
        for key, value in options.items():
            if key == "graph_optimization_level":
                choice(self, key, value, OPTIMIZATION_LEVELS)
                self.optimization = value
            elif key == "intra_op_num_threads":
                self.intra_op_threads = count(self, key, value)
            elif key.startswith("provider_option."):
                provider, _, name = key.removeprefix("provider_option.").partition(".")
                if provider not in self.providers or not name:
                    raise refuse_option(self, key, value, f"expected provider_option.<Provider>.<key> with a "
                                        f"Provider of providers ({', '.join(self.providers)})")
                self.provider_options.setdefault(provider, {})[name] = value
            elif key.startswith("config."):
                self.config[key.removeprefix("config.")] = value
        if "providers" in options or "ep_devices" in options or self.provider_options:
            self._check_providers()

    def _plugin(self, key: str, value: str, action):
        try:
            return action()
        except ValueError as exc:
            raise refuse_option(self, key, value, str(exc)) from None

    def _providers(self, value: str) -> list[str]:
        names = [p.strip() for p in value.split(",") if p.strip()]
        available = ort.get_available_providers()
        missing = [p for p in names if p not in available]
        why = ("no provider named" if not names else f"{', '.join(missing)} not available" if missing
               else "a provider named twice" if len(set(names)) < len(names) else None)
        if why:
            raise refuse_option(self, "providers", value, f"{why}; this onnxruntime has {', '.join(available)}")
        return names

    def _check_providers(self) -> None:
        """onnxruntime drops a provider it cannot start (a missing CUDA library ...) with only a warning, and
        runs on CPU: a session of a one-node model says now, rather than a run that judged the wrong provider.
        A provider option onnxruntime refuses is found here too. (Config entries are left out: one such as
        session.disable_cpu_ep_fallback may rightly refuse this model on a provider without Relu.)"""
        x, y = (helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [1]) for n in "xy")
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "options", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
        try:  # quiet: a dropped provider is said below
            session = self._new_session(model, _session_options())
        except Exception as exc:  # noqa: BLE001 - whatever onnxruntime says about the providers
            raise BackendOptionError(f"backend {self.name!r}: onnxruntime refuses these providers / provider "
                                     f"options: {_first_line(exc)}") from None
        dropped = [p for p in self.providers if p not in session.get_providers()]
        if dropped:
            raise refuse_option(self, "providers", ",".join(self.providers),
                                f"onnxruntime did not start {', '.join(dropped)} (it runs on "
                                f"{', '.join(session.get_providers())})")

    def version(self) -> str:
        return ort.__version__

    def build(self) -> str:
        """The build's own line (git commit, build type): two wheels of one version may differ."""
        return ort.get_build_info() if hasattr(ort, "get_build_info") else ""

    def settings(self) -> dict:
        entries = {**NO_SPINNING, **self.config}
        settings = {"providers": self.providers,
                    "graph_optimization_level": OPTIMIZATION_LEVELS[self.optimization].name,
                    "intra_op_num_threads": self.intra_op_threads,
                    "allow_spinning": entries["session.intra_op.allow_spinning"] != "0"}
        if self.provider_options:
            settings["provider_options"] = self.provider_options
        if self.config:
            settings["config"] = self.config
        # said only where they differ from the default, so the settings baselines hold stay the same: where
        # this onnxruntime (< 1.32) cannot say which provider ran a node, and where a fallback is judged
        if not ort_placement.CHECKABLE:
            settings["placement_checked"] = False
        if self.allow_fallback:
            settings["allow_fallback"] = True
        if self.ep_libraries:
            settings["ep_libraries"] = self.ep_libraries
        if self.ep_devices is not None:
            settings["ep_devices"] = self.ep_device_spec
        return settings

    def _options(self) -> ort.SessionOptions:
        return _session_options(self.optimization, self.intra_op_threads, self.config)

    def _provider_options(self) -> list[dict[str, str]]:
        return [self.provider_options.get(p, {}) for p in self.providers]

    def _session(self, model: onnx.ModelProto) -> ort.InferenceSession:
        return self._new_session(model, self._options())

    def _new_session(self, model: onnx.ModelProto, so: ort.SessionOptions) -> ort.InferenceSession:
        if self.ep_devices is None:
            return ort.InferenceSession(model.SerializeToString(), so, providers=self.providers,
                                        provider_options=self._provider_options())
        for ep, devices in self.ep_devices:  # in priority order; onnxruntime adds the CPU provider last
            so.add_provider_for_devices(devices, self.provider_options.get(ep, {}))
        return ort.InferenceSession(model.SerializeToString(), so)

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        try:
            session = self._session(model)
        except Exception as exc:
            if unsupported(exc) or NO_PROVIDER.search(str(exc)):
                raise Unsupported(f"onnxruntime: {_reason(exc)}") from None
            raise
        place = ort_placement.placement(session, self.providers[0])
        away = ort_placement.elsewhere(place)
        if away and not self.allow_fallback:  # a verdict would judge another provider's kernel
            refusal = Unsupported(f"onnxruntime: {away}")
            refusal.placement = place
            raise refusal
        numpy_io = all(t.is_numpy_native for _, t in ins + outs)  # the binding copies their buffers bit for bit
        return Prepared(session, ins, outs, numpy_io, place)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        try:
            return self._run(prepared, inputs)
        except Exception as exc:
            if unsupported(exc):
                raise Unsupported(f"onnxruntime: {_reason(exc)}") from None
            raise

    def _run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        names = [name for name, _ in prepared.outputs]
        if prepared.numpy_io:
            feed = {name: np.asarray(x, dtype=t.np_dtype) for (name, t), x in zip(prepared.inputs, inputs)}
            return prepared.session.run(names, feed)
        feed = {name: self._ortvalue(x, t) for (name, t), x in zip(prepared.inputs, inputs)}
        values = prepared.session.run_with_ort_values(names, feed)
        return [self._to_numpy(v, t) for v, (_, t) in zip(values, prepared.outputs)]

    # ---- OrtValue <-> numpy, bit-exact ------------------------------------------------------
    def _ortvalue(self, x: np.ndarray, t: DType) -> ort.OrtValue:
        shape = list(np.shape(x))
        if t.kind == "string":
            return self._constant_ortvalue(numpy_helper.from_array(np.asarray(x, dtype=object), "value"), 13)
        raw = pack(np.asarray(x, dtype=t.np_dtype), t)
        if not _TYPED_ORTVALUES:  # onnxruntime 1.18 makes OrtValues of numpy types only
            return self._constant_ortvalue(helper.make_tensor("value", t.onnx, shape, raw, raw=True), 21)
        value = ort.OrtValue.ortvalue_from_shape_and_type(shape, t.onnx)
        size = _size_in_bytes(value, t, shape)
        if size != len(raw):
            raise RuntimeError(f"onnxruntime holds {size} bytes for a {t.name}{shape} tensor, packing gave {len(raw)}")
        if size:
            ctypes.memmove(value.data_ptr(), raw, size)
        return value

    def _constant_ortvalue(self, tensor: onnx.TensorProto, opset: int) -> ort.OrtValue:
        """A tensor the binding cannot make an OrtValue of (strings; float8 / bfloat16 / int4 in onnxruntime 1.18)
        as the output of a one-Constant helper session."""
        graph = helper.make_graph([helper.make_node("Constant", [], ["s"], value=tensor)], "constant_input", [],
                                  [helper.make_tensor_value_info("s", tensor.data_type, tensor.dims)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 7 if opset < 21 else 10
        # on CPU whatever the options: it only makes the input
        session = ort.InferenceSession(model.SerializeToString(), _session_options(), providers=PROVIDERS)
        return session.run_with_ort_values(["s"], {})[0]

    def _to_numpy(self, value: ort.OrtValue, declared: DType) -> np.ndarray:
        if not value.is_tensor():
            raise RuntimeError(f"onnxruntime returned a non-tensor value ({value.data_type()})")
        t = dtypes.get(value.element_type())  # what ORT says it returned; compare checks it is `declared`
        shape = tuple(value.shape())
        if t.kind == "string":
            return as_declared(value.numpy(), t)
        size = _size_in_bytes(value, t, shape)
        raw = ctypes.string_at(value.data_ptr(), size) if size else b""
        return unpack(raw, shape, t)
