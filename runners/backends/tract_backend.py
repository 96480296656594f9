"""tract, Sonos' ONNX runtime in Rust, through its Python bindings (pip tract): `tract.onnx()` reads the model into
an InferenceModel (from its bytes: the C API's tract_onnx_load_buffer, the reader `load(path)` uses),
`into_model()` types and declutters it, `into_runnable()` (or --backend-option runtime's `prepare`) optimizes and
plans it, and `run` takes tract Tensors.

- Element types: tract's public API has twelve (`tract.DatumType`: bool, u8..u64, i8..i64, f16, f32, f64).
  Tensors go in and out as raw bytes of those (tract_tensor_from_bytes / tract_tensor_as_bytes), so every value,
  f16 NaN payloads, bool and 0-d shapes included, is bit-exact, and an output comes back in the type tract computed
  (never converted: compare names a type other than the declared one); the binding's own `Tensor.from_numpy` is
  not used (a numpy kind it lacks fails there with a TypeError of its own). Other types never reach the copy:
  tract's ONNX reader says "Unknown DatumType" for those outside its own (bfloat16, float8, int4 ...), and a
  string input, which the reader takes, has no DatumType in the public API (the one refusal the adapter makes
  itself).
- Input facts: the model's own (--backend-option input_facts=model, the default), or each input's shape and type
  in the data set (input_facts=data: what tract asks for where a shape is symbolic, "provide explicit input
  facts"; the model is compiled again for other shapes).
- Optimization: tract 0.23's `into_runnable` always optimizes (its default runtime is `into_optimized` and a
  plan); the unoptimized runtime is in its command-line tool only, so no option skips it. Model.transform's
  passes are not offered: f32_to_f16 turns the model's float32 inputs and outputs into float16 ones, another
  model than the case's.
- Model-local functions are inlined (onnx.inliner) first: tract's reader builds nodes by op_type alone and has
  no function support (ConvertPromoteTypes would be `Unimplemented(ConvertPromoteTypes)` whatever its body).
- anyhow (tract's errors) captures a backtrace per error where RUST_BACKTRACE is set, 80 ms and 3 kB of text
  each: RUST_LIB_BACKTRACE=0 is set (unless given) before tract first fails; messages keep the error's chain.

What tract says when it does not implement something is in tract_refusals (docs/backends_tract.md); anything
else it raises is an error.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnx.inliner

import tract
from tract.bindings import check, lib

from generator import dtypes
from generator.dtypes import DType
from runners.backends.base import Backend, BackendOptionError, Unsupported, choice, io_types, relu_model
from runners.backends.tract_refusals import CONSTANT_ONLY, classified, message

RUNTIME = "default"
INPUT_FACTS = ("model", "data")

# element type (generator.dtypes name) -> tract's DatumType name, its InferenceFact mnemonic, and numpy dtype
DATUM_TYPES = {"bool": ("BOOL", "bool", np.bool_), "uint8": ("U8", "u8", np.uint8),
               "uint16": ("U16", "u16", np.uint16), "uint32": ("U32", "u32", np.uint32),
               "uint64": ("U64", "u64", np.uint64), "int8": ("I8", "i8", np.int8), "int16": ("I16", "i16", np.int16),
               "int32": ("I32", "i32", np.int32), "int64": ("I64", "i64", np.int64),
               "float16": ("F16", "f16", np.float16), "float": ("F32", "f32", np.float32),
               "double": ("F64", "f64", np.float64)}
NUMPY = {datum: np.dtype(np_type) for datum, _, np_type in DATUM_TYPES.values()}


def _load(data: bytes):
    context = tract.onnx()
    pointer = ctypes.c_void_p()
    check(lib.tract_onnx_load_buffer(context.ptr, data, ctypes.c_size_t(len(data)), ctypes.byref(pointer)))
    return tract.InferenceModel(pointer)


def _tensor(x: np.ndarray, t: DType):
    """x as a tract Tensor of t's DatumType, its bytes copied as they are (np.require keeps 0-d 0-d)."""
    x = np.require(x, dtype=t.np_dtype, requirements="C")
    shape = (ctypes.c_size_t * x.ndim)(*x.shape)
    pointer = ctypes.c_void_p()
    check(lib.tract_tensor_from_bytes(tract.DatumType[DATUM_TYPES[t.name][0]], ctypes.c_size_t(x.ndim), shape,
                                      ctypes.c_void_p(x.ctypes.data), ctypes.byref(pointer)))
    return tract.Tensor(pointer)


def _array(value) -> np.ndarray:
    """A tract Tensor as a numpy array of the element type tract says it holds, its bytes copied as they are."""
    datum, shape, data = value._parts()
    dtype = NUMPY[datum.name]
    n = int(np.prod(shape, dtype=np.int64))
    raw = ctypes.string_at(data, n * dtype.itemsize) if n else b""
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _fact(shape: tuple[int, ...], t: DType) -> str:
    return ",".join([*(str(d) for d in shape), DATUM_TYPES[t.name][1]])


@dataclass
class Prepared:
    model: onnx.ModelProto
    data: bytes
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]
    inference: object = None  # the model as read at prepare, until its first compilation consumes it
    runnables: dict = field(default_factory=dict)  # input shapes (None: the model's facts) -> tract Runnable


class TractBackend(Backend):
    name = "tract"
    CONSTANT_ONLY = CONSTANT_ONLY  # tract's "must be a const": --inputs auto runs the item with initializers
    OPTIONS = {
        "runtime": f"the tract runtime that optimizes and runs the model, a name tract.runtime_for_name knows "
                   f"(default {RUNTIME!r}: tract's CPU runtime, what into_runnable uses; 'cuda' where an NVIDIA driver "
                   "is present)",
        "input_facts": "model (default: the shapes and types the model declares) or data (each input's shape "
                       "and type in the data set, the model compiled per shape)",
    }

    def __init__(self):
        os.environ.setdefault("RUST_LIB_BACKTRACE", "0")  # before tract's first error (anyhow reads it once)
        self.runtime_name = RUNTIME
        self.runtime = None  # None: Model.into_runnable, the default runtime
        self.input_facts = "model"

    def configure(self, options: dict[str, str]) -> None:
        if "input_facts" in options:
            self.input_facts = choice(self, "input_facts", options["input_facts"], {v: v for v in INPUT_FACTS})
        if "runtime" in options:
            self.runtime_name = options["runtime"].strip()
            try:
                self.runtime = tract.runtime_for_name(self.runtime_name)
            except tract.TractError as exc:
                raise BackendOptionError(f"backend {self.name!r}: --backend-option runtime={options['runtime']}: "
                                         f"tract says: {message(exc)}") from None
        self._check()

    def _check(self) -> None:
        """A runtime tract cannot run a model with is one usage error now, not an error per case."""
        f32 = dtypes.get("float")
        try:
            prepared = self._prepared(relu_model(), [("x", f32)], [("y", f32)])
            self.run(prepared, [np.array([-1.0, 2.0], np.float32)])
        except Exception as exc:  # noqa: BLE001 - whatever tract says about the options
            raise BackendOptionError(f"backend {self.name!r}: tract cannot run a Relu with runtime="
                                     f"{self.runtime_name}: {str(exc).removeprefix('tract ')}") from None

    def version(self) -> str:
        return importlib.metadata.version("tract")

    def build(self) -> str:
        return f"libtract {tract.version()}"  # the native library the binding loaded

    def settings(self) -> dict:
        settings = {"runtime": self.runtime.name() if self.runtime else "cpu (into_runnable)",
                    "optimized": True, "input_facts": self.input_facts, "library": tract.version(),
                    "onnx_local_functions": "inlined (onnx.inliner)"}
        knobs = {k: v for k, v in sorted(os.environ.items()) if k.startswith("TRACT_")}  # tract's own knobs
        if knobs:
            settings["environment"] = knobs
        return settings

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        for name, t in ins:
            if t.kind == "string":
                raise Unsupported(f"tract: string input {name!r}: tract's public API has no string tensors "
                                  f"(its DatumType: {', '.join(d.name for d in tract.DatumType)})")
        if model.functions:
            model = onnx.inliner.inline_local_functions(model)
        prepared = self._prepared(model, ins, outs)
        shapes = _case_shapes(model, case) if self.input_facts == "data" else ()
        if shapes is not None:
            self._runnable(prepared, shapes or None)  # what tract refuses, it refuses at prepare
        return prepared

    def _prepared(self, model: onnx.ModelProto, ins, outs) -> Prepared:
        data = model.SerializeToString()
        try:
            inference = _load(data)  # the reader's refusals (types, attributes) at prepare, whatever the facts
        except tract.TractError as exc:
            raise classified(exc, "load", model) from None
        return Prepared(model, data, ins, outs, inference)

    def _runnable(self, prepared: Prepared, shapes: tuple | None):
        if shapes not in prepared.runnables:
            try:
                inference, prepared.inference = prepared.inference or _load(prepared.data), None
                for i, shape in enumerate(shapes or ()):
                    inference.set_input_fact(i, _fact(shape, prepared.inputs[i][1]))
                typed = inference.into_model()
                runnable = self.runtime.prepare(typed) if self.runtime else typed.into_runnable()
            except tract.TractError as exc:
                raise classified(exc, "into_runnable", prepared.model) from None
            prepared.runnables[shapes] = runnable
        return prepared.runnables[shapes]

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        shapes = tuple(np.shape(x) for x in inputs) or None if self.input_facts == "data" else None
        runnable = self._runnable(prepared, shapes)
        try:
            values = runnable.run([_tensor(x, t) for x, (_, t) in zip(inputs, prepared.inputs)])
            arrays = [_array(v) for v in values]
        except tract.TractError as exc:
            raise classified(exc, "run", prepared.model) from None
        if len(arrays) != len(prepared.outputs):
            raise RuntimeError(f"tract returned {len(arrays)} outputs, the model has {len(prepared.outputs)}")
        return arrays  # in the type tract computed, each a numpy type: compare names one that is not declared


def _case_shapes(model: onnx.ModelProto, case) -> tuple | None:
    """The shapes of the model's graph inputs (by name: a run with initializers feeds fewer inputs than the case
    has) where every data set of the case gives them the same, else None (each data set's at run). A case
    without data sets (a negative one) has only the model's facts: ()."""
    if case is None:
        return None
    if not case.inputs:
        return ()
    inits = {t.name for t in model.graph.initializer}
    names = [vi.name for vi in model.graph.input if vi.name not in inits]
    seen = {tuple(dict(zip((vi.name for vi in case.model.graph.input), map(np.shape, data))).get(n) for n in names)
            for data in case.inputs}
    return seen.pop() if len(seen) == 1 and None not in next(iter(seen)) else None
