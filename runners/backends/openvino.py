"""OpenVINO on CPU: ONNX models through its ONNX frontend; OpenVINO's own operators built natively.

- f32 inference precision and accuracy mode (the CPU plugin otherwise runs in bf16 where the CPU has it); the
  device and hints are --backend-option values (runners/backends/openvino_config.py), recorded in every report.
- Model-local functions are inlined (onnx.inliner) first: the ONNX frontend does not accept them.
- A model whose nodes are all OpenVINO operators (domain org.openvinotoolkit; today ConvertPromoteTypes-14)
  is built natively with openvino.opset14, never through its function body: the output element types and
  values are OpenVINO's own, and building or compiling raises where OpenVINO refuses the node.
- Inputs and outputs travel bit-exactly (runners/backends/openvino_tensors.py); an element type OpenVINO has
  no equivalent for (the FNUZ float8 types, float6, int2) is Unsupported.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnx.inliner
import openvino as ov
from onnx import helper

from generator import dtypes
from generator.dtypes import DType
from generator.reference import convert_promote_types as cpt
from generator.case_reader import read_tensor
from runners.backends import openvino_config
from runners.backends.base import Backend, Unsupported, io_types
from runners.backends.openvino_config import summary as _summary
from runners.backends.openvino_ops import OPSET14 as ops
from runners.backends.openvino_placement import check_fallback
from runners.backends.openvino_placement import placement as _placement
from runners.backends.openvino_refusals import CONSTANT_ONLY, UNSUPPORTED, refusal  # noqa: F401 - the table, for tests
from runners.backends.openvino_tensors import from_tensor, ov_type, to_tensor

def _attributes(node: onnx.NodeProto) -> dict:
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode("utf-8") if isinstance(v, bytes) else v
    return out


def _convert_promote_types(attrs: dict, inputs: list) -> list:
    """ConvertPromoteTypes-14 natively; only the attributes the node carries are passed (OpenVINO's own
    defaults apply to the rest)."""
    kw = {}
    for name in ("promote_unsafe", "pytorch_scalar_promotion"):
        if name in attrs:
            kw[name] = bool(attrs[name])
    if "u64_integer_promotion_target" in attrs:
        kw["u64_integer_promotion_target"] = attrs["u64_integer_promotion_target"]
    node = ops.convert_promote_types(inputs[0], inputs[1], **kw)
    return [node.output(0), node.output(1)]


# (domain, op_type) -> builder(attributes, input outputs) -> outputs; None where this OpenVINO lacks the op (2023.3
# has no opset14; 2024.0's opset14 has no convert_promote_types yet)
NATIVE = {(cpt.DOMAIN, cpt.OP_TYPE): _convert_promote_types if hasattr(ops, "convert_promote_types") else None}


@dataclass
class Prepared:
    compiled: ov.CompiledModel
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]
    native: bool
    # where each node ran and in which precision (runners/backends/openvino_placement.py), into the item's record
    placement: dict | None = None


def _shape(v: onnx.ValueInfoProto) -> ov.PartialShape:
    t = v.type.tensor_type
    if not t.HasField("shape"):
        return ov.PartialShape.dynamic()
    return ov.PartialShape([d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim])


def _is_native(model: onnx.ModelProto) -> bool:
    kinds = {(n.domain, n.op_type) in NATIVE for n in model.graph.node}
    if kinds == {True, False}:
        raise Unsupported("openvino backend: a graph mixing OpenVINO-native and ONNX nodes is not supported")
    return kinds == {True}


class OpenVinoBackend(Backend):
    name = "openvino"
    native_ops = frozenset(f"{d}::{op}" for (d, op), build in NATIVE.items() if build is not None)

    OPTIONS = openvino_config.OPTIONS
    CONSTANT_ONLY = CONSTANT_ONLY  # refusals of a fed weight (--inputs auto)

    def __init__(self):
        self.core = ov.Core()
        self.config = openvino_config.OvConfig()

    def configure(self, options: dict[str, str]) -> None:
        self.config = openvino_config.configure(self, self.core, options)

    def version(self) -> str:
        return ov.get_version()

    def settings(self) -> dict:
        return {**self.config.settings(), "onnx_local_functions": "inlined (onnx.inliner)",
                "native_ops": sorted(self.native_ops)}

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        for name, t in ins + outs:
            if ov_type(t) is None:
                raise Unsupported(f"OpenVINO has no element type for {t.name} ({name!r})")
        native = _is_native(model)
        ov_model = self._native(model, ins, outs) if native else self._read_onnx(model)
        try:
            compiled = self.core.compile_model(ov_model, self.config.device, self.config.properties)
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises RuntimeError / its own types
            why = refusal(exc, model)
            if why is not None:
                raise Unsupported(f"openvino: {why or _summary(exc)}") from None
            raise RuntimeError(f"openvino compile_model: {_summary(exc)}") from None
        place = _placement(compiled, model, self.config.device)
        check_fallback(place, self.config.allow_fallback, "openvino")
        return Prepared(compiled, ins, outs, native, place)

    def _read_onnx(self, model: onnx.ModelProto) -> ov.Model:
        if model.functions:
            model = onnx.inliner.inline_local_functions(model)
        try:
            return self.core.read_model(io.BytesIO(model.SerializeToString()))
        except Exception as exc:  # noqa: BLE001
            why = refusal(exc, model)
            if why is not None:
                raise Unsupported(f"openvino ONNX frontend: {why or _summary(exc)}") from None
            raise RuntimeError(f"openvino ONNX frontend: {_summary(exc)}") from None

    def _native(self, model: onnx.ModelProto, ins, outs) -> ov.Model:
        """The graph built node by node with openvino.opset14; raises what OpenVINO raises (a refusal)."""
        lacking = [n.op_type for n in model.graph.node if NATIVE[(n.domain, n.op_type)] is None]
        if lacking:
            raise Unsupported(f"OpenVINO {ov.get_version().split('-')[0]} has no native {lacking[0]} (its opset14 "
                              "has none)")
        shapes = {v.name: _shape(v) for v in model.graph.input}
        params = [ops.parameter(shapes[name], ov_type(t), name=name) for name, t in ins]
        values = {name: p.output(0) for (name, _), p in zip(ins, params)}
        for init in model.graph.initializer:  # --inputs initializers / constant: the baked inputs as constants
            t = dtypes.get(init.data_type)
            x = read_tensor(init.SerializeToString(), Path(init.name))
            values[init.name] = ops.constant(to_tensor(np.asarray(x, dtype=t.np_dtype), t)).output(0)
        for node in model.graph.node:
            try:
                results = NATIVE[(node.domain, node.op_type)](_attributes(node), [values[n] for n in node.input])
            except Exception as exc:  # noqa: BLE001 - validation failures are RuntimeError with a C++ trace
                raise RuntimeError(f"openvino {node.op_type}: {_summary(exc)}") from None
            values.update(zip(node.output, results))
        results = [values[name] for name, _ in outs]
        for (name, _), r in zip(outs, results):
            r.get_tensor().set_names({name})
        return ov.Model(results, params, "opconform")

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        request = prepared.compiled.create_infer_request()
        # an input the compiled model does not read has no port (the frontend drops QuantizeLinear's y_zero_point
        # for float8 outputs): nothing to feed; the outputs say whether ignoring it was right
        read = {n for port in prepared.compiled.inputs for n in port.get_names()}
        for (name, t), x in zip(prepared.inputs, inputs):
            if name in read:
                request.set_tensor(prepared.compiled.input(name), to_tensor(x, t))
        try:
            request.infer()
        except Exception as exc:  # noqa: BLE001
            if refusal(exc) is not None:
                raise Unsupported(f"openvino: {_summary(exc)}") from None
            raise RuntimeError(f"openvino infer: {_summary(exc)}") from None
        return [from_tensor(request.get_tensor(prepared.compiled.output(name))) for name, _ in prepared.outputs]
