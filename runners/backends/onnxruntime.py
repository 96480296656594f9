"""onnxruntime on CPU, every input and output bit-exact in its declared element type.

`InferenceSession.run` with numpy arrays where every input and output is of a numpy type (its buffers are
copied bit for bit). Otherwise not: the Python binding hands float8e4m3fn outputs back as uint8 and cannot
convert bfloat16, the other float8 types, float8e8m0, int4/uint4 or int2/uint2 to or from numpy at all.
So those tensors travel as OrtValues whose raw buffers are copied with ctypes: sub-byte types are
PACKED there (4-bit: two per byte, first element in the low nibble; 2-bit: four per byte, low bits
first). The binding cannot build a string OrtValue from numpy, so a string input is produced by a tiny
helper session (one Constant node) that returns it as an OrtValue; the model under test is never changed.

Graph optimizations are disabled (ORT_DISABLE_ALL): a conformance check must see the kernel, not a
constant-folded or fused result.

One intra-op thread and no spinning: the models are single nodes on small tensors, where a thread pool
only costs (creating it per session, and its threads spinning for work while the next case is prepared
and while cached sessions wait). Both settings are in every report.
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
from runners.backends.base import Backend, Unsupported, as_declared, io_types
from runners.backends.packing import pack, unpack

PROVIDERS = ["CPUExecutionProvider"]
INTRA_OP_THREADS = 1  # see the module docstring

# Failures at session creation that mean "not implemented here" rather than "broken".
_UNSUPPORTED_TEXT = re.compile(
    r"Could not find an implementation|Failed to find kernel|No Op registered for|is not a registered function/op"
    r"|Invalid tensor data type|Unsupported model IR version|Current official support for domain",
    re.IGNORECASE)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


def _unsupported_reason(exc: BaseException) -> str | None:
    """The reason to report Unsupported for an ORT exception, or None if it is a real error."""
    if isinstance(exc, ort_state.NotImplemented):
        return _first_line(exc)
    if isinstance(exc, (ort_state.Fail, ort_state.InvalidGraph, ort_state.InvalidArgument)):
        m = _UNSUPPORTED_TEXT.search(str(exc))
        if m and "Exception during initialization" not in str(exc):  # a kernel's own check: an error
            return _first_line(exc)
    return None


@dataclass
class Prepared:
    session: ort.InferenceSession
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]
    numpy_io: bool = False  # every input and output of a numpy type: InferenceSession.run, no OrtValues


class OnnxRuntimeBackend(Backend):
    name = "onnxruntime"

    def version(self) -> str:
        return ort.__version__

    def settings(self) -> dict:
        return {"providers": PROVIDERS, "graph_optimization_level": "ORT_DISABLE_ALL",
                "intra_op_num_threads": INTRA_OP_THREADS, "allow_spinning": False}

    def _options(self) -> ort.SessionOptions:
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        so.log_severity_level = 4  # failures come back as exceptions; keep stderr for the real log
        so.intra_op_num_threads = INTRA_OP_THREADS
        so.inter_op_num_threads = 1
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return so

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        try:
            session = ort.InferenceSession(model.SerializeToString(), self._options(), providers=PROVIDERS)
        except Exception as exc:
            reason = _unsupported_reason(exc)
            if reason is not None:
                raise Unsupported(f"onnxruntime: {reason}") from None
            raise
        numpy_io = all(t.is_numpy_native for _, t in ins + outs)  # the binding copies their buffers bit for bit
        return Prepared(session, ins, outs, numpy_io)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        names = [name for name, _ in prepared.outputs]
        if prepared.numpy_io:
            feed = {name: np.asarray(x, dtype=t.np_dtype) for (name, t), x in zip(prepared.inputs, inputs)}
            try:
                return prepared.session.run(names, feed)
            except ort_state.NotImplemented as exc:
                raise Unsupported(f"onnxruntime: {_first_line(exc)}") from None
        feed = {name: self._ortvalue(x, t) for (name, t), x in zip(prepared.inputs, inputs)}
        try:
            values = prepared.session.run_with_ort_values(names, feed)
        except ort_state.NotImplemented as exc:
            raise Unsupported(f"onnxruntime: {_first_line(exc)}") from None
        return [self._to_numpy(v, t) for v, (_, t) in zip(values, prepared.outputs)]

    # ---- OrtValue <-> numpy, bit-exact ------------------------------------------------------
    def _ortvalue(self, x: np.ndarray, t: DType) -> ort.OrtValue:
        shape = list(np.shape(x))
        if t.kind == "string":
            return self._string_ortvalue(np.asarray(x, dtype=object))
        raw = pack(np.asarray(x, dtype=t.np_dtype), t)
        value = ort.OrtValue.ortvalue_from_shape_and_type(shape, t.onnx)
        size = value.tensor_size_in_bytes()
        if size != len(raw):
            raise RuntimeError(f"onnxruntime holds {size} bytes for a {t.name}{shape} tensor, packing gave {len(raw)}")
        if size:
            ctypes.memmove(value.data_ptr(), raw, size)
        return value

    def _string_ortvalue(self, x: np.ndarray) -> ort.OrtValue:
        """A string tensor as an OrtValue: the output of a one-Constant helper session."""
        tensor = numpy_helper.from_array(x, "value")
        graph = helper.make_graph([helper.make_node("Constant", [], ["s"], value=tensor)], "string_input", [],
                                  [helper.make_tensor_value_info("s", onnx.TensorProto.STRING, x.shape)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        session = ort.InferenceSession(model.SerializeToString(), self._options(), providers=PROVIDERS)
        return session.run_with_ort_values(["s"], {})[0]

    def _to_numpy(self, value: ort.OrtValue, declared: DType) -> np.ndarray:
        if not value.is_tensor():
            raise RuntimeError(f"onnxruntime returned a non-tensor value ({value.data_type()})")
        t = dtypes.get(value.element_type())  # what ORT says it returned; compare checks it is `declared`
        shape = tuple(value.shape())
        if t.kind == "string":
            return as_declared(value.numpy(), t)
        size = value.tensor_size_in_bytes()
        raw = ctypes.string_at(value.data_ptr(), size) if size else b""
        return unpack(raw, shape, t)
