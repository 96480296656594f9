"""The project's own references as a backend: a tiny interpreter over model.graph.node in order.

Each node is looked up in generator.reference.REFERENCES by (domain, op_type) and called with the
model's opset import of its domain. It is the yardstick for the suites (it must pass 100% of them) and
runs where no other backend is installed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper

from generator import dtypes
from generator.case import GENERATOR_VERSION
from generator.dtypes import DType
from generator.reference import REFERENCES, NodeFunction, lookup
from generator.serialize import read_tensor
from runners.backends.base import Backend, Unsupported, as_declared, io_types


def _domain(d: str) -> str:
    return "" if d == "ai.onnx" else d


def decode_attribute(attr: onnx.AttributeProto):
    """An attribute value as a reference expects it: str for strings, numpy arrays for tensors."""
    value = helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, onnx.TensorProto):
        return _tensor(value)
    if isinstance(value, list):
        return [v.decode("utf-8") if isinstance(v, bytes) else _tensor(v) if isinstance(v, onnx.TensorProto) else v
                for v in value]
    return value


def _tensor(t: onnx.TensorProto) -> np.ndarray:
    return read_tensor(t.SerializeToString(), t.name or "<tensor>")


def _static_shapes(model: onnx.ModelProto) -> dict[str, tuple]:
    """Shapes known before any data: graph inputs whose every dimension is a number, and initializers."""
    shapes = {}
    for v in model.graph.input:
        t = v.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[v.name] = tuple(d.dim_value for d in t.shape.dim)
    shapes.update((init.name, tuple(init.dims)) for init in model.graph.initializer)
    return shapes


@dataclass
class Step:
    fn: NodeFunction
    node: onnx.NodeProto
    attrs: dict
    opset: int


@dataclass
class Prepared:
    steps: list[Step]
    constants: dict[str, np.ndarray]  # initializers
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


class OpconformBackend(Backend):
    name = "opconform"

    def version(self) -> str:
        return GENERATOR_VERSION

    @property
    def native_ops(self) -> frozenset[str]:
        """Every node runs its own reference, never a model-local function body (case.json "native")."""
        return frozenset(f"{d or 'ai.onnx'}::{op}" for d, op in REFERENCES)

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        opsets = {_domain(o.domain): o.version for o in model.opset_import}
        ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in model.graph.input
                 if v.type.tensor_type.HasField("shape")}
        types = dict(ins)
        shapes = _static_shapes(model)
        steps = []
        for node in model.graph.node:
            dom = _domain(node.domain)
            fn = lookup(dom, node.op_type)
            if fn is None:
                raise Unsupported(f"opconform has no reference for {dom or 'ai.onnx'}::{node.op_type}")
            if dom not in opsets:
                raise ValueError(f"node {node.op_type!r}: the model imports no opset for domain {dom!r}")
            attrs = {a.name: decode_attribute(a) for a in node.attribute}
            check = getattr(fn, "validate", None)  # a reference that refuses a model does so here, at prepare
            if check is not None and all(n in types and n in ranks for n in node.input):
                check(attrs, opsets[dom], [types[n] for n in node.input], [ranks[n] for n in node.input])
            check_shapes = getattr(fn, "validate_shapes", None)  # the same, from the shapes known at prepare
            if check_shapes is not None:
                check_shapes([shapes.get(n) for n in node.input], attrs, opsets[dom])
            steps.append(Step(fn, node, attrs, opsets[dom]))
        constants = {init.name: _tensor(init) for init in model.graph.initializer}
        return Prepared(steps, constants, ins, outs)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        values: dict[str, np.ndarray] = dict(prepared.constants)
        types: dict[str, DType] = {name: dtypes.from_numpy(v.dtype) for name, v in values.items()}
        for (name, t), x in zip(prepared.inputs, inputs):
            values[name] = np.asarray(x, dtype=object if t.kind == "string" else t.np_dtype)
            types[name] = t
        for step in prepared.steps:
            args = [values[n] if n else None for n in step.node.input]
            arg_types = [types[n] if n else None for n in step.node.input]
            results = step.fn(args, step.attrs, step.opset, arg_types)
            for name, r in zip(step.node.output, results):
                if name:
                    values[name] = r
                    types[name] = dtypes.from_numpy(np.asarray(r).dtype)
        return [as_declared(values[name], t) for name, t in prepared.outputs]


class OpconformTfliteBackend(Backend):
    """The TFLite twins of graph cases, run with the same kernels (generator.reference.layout.run)."""

    name = "opconform-tflite"
    model_format = "tflite"

    def version(self) -> str:
        return GENERATOR_VERSION

    def settings(self) -> dict:
        return {"runs": "TFLite twins with the layout kernels (generator.reference.layout)"}

    def prepare(self, model: bytes, case):
        from generator.tflite_writer import TfliteUnknownOperator, read_tflite

        try:
            return read_tflite(bytes(model))
        except TfliteUnknownOperator as exc:
            raise Unsupported(f"opconform-tflite: {exc}") from None

    def run(self, prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        from generator.reference.layout import run

        return run(prepared, inputs)
