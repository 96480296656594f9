"""A tiny interpreter over model.graph.node in order, calling one node function per node.

The opconform backend runs it with the project's references; fault models run it with one operator's
reference swapped for a plausible wrong implementation (generator.faults), which is how the suite's kill
matrix and the runner's diagnosis see what a faulty backend would output.

Node functions have the signature of generator.reference.NodeFunction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import helper

from generator import dtypes
from generator.dtypes import DType
from generator.reference import NodeFunction, lookup as reference_lookup
from generator.case_reader import read_tensor
from generator.serialize import graph_io_types

Lookup = Callable[[str, str], "NodeFunction | None"]


class NoFunction(Exception):
    """A node whose (domain, op_type) has no node function; str() names it."""


def domain_of(d: str) -> str:
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


def decode_initializers(model: onnx.ModelProto) -> list[np.ndarray]:
    """The model's initializers, decoded in graph order."""
    return [_tensor(init) for init in model.graph.initializer]


def static_shapes(model: onnx.ModelProto) -> dict[str, tuple]:
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
class Program:
    steps: list[Step]
    constants: dict[str, np.ndarray]  # initializers
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


def compile_model(model: onnx.ModelProto, lookup: Lookup = reference_lookup, validate: bool = False) -> Program:
    """The model's nodes bound to their node functions. validate: call the functions' prepare-time checks
    (`fn.validate`, `fn.validate_shapes`), which raise for a model the spec says is invalid."""
    ins, outs = graph_io_types(model)
    opsets = {domain_of(o.domain): o.version for o in model.opset_import}
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in model.graph.input
             if v.type.tensor_type.HasField("shape")}
    types = dict(ins)
    shapes = static_shapes(model)
    steps = []
    for node in model.graph.node:
        dom = domain_of(node.domain)
        fn = lookup(dom, node.op_type)
        if fn is None:
            raise NoFunction(f"no node function for {dom or 'ai.onnx'}::{node.op_type}")
        if dom not in opsets:
            raise ValueError(f"node {node.op_type!r}: the model imports no opset for domain {dom!r}")
        attrs = {a.name: decode_attribute(a) for a in node.attribute}
        if validate:
            check = getattr(fn, "validate", None)
            # an omitted optional input ("") is checked as None; a computed one (no static type) skips the check
            if check is not None and all(n == "" or (n in types and n in ranks) for n in node.input):
                check(attrs, opsets[dom], [types.get(n) for n in node.input], [ranks.get(n) for n in node.input])
            check_shapes = getattr(fn, "validate_shapes", None)
            if check_shapes is not None:
                check_shapes([shapes.get(n) for n in node.input], attrs, opsets[dom])
        steps.append(Step(fn, node, attrs, opsets[dom]))
    constants = {init.name: _tensor(init) for init in model.graph.initializer}
    return Program(steps, constants, ins, outs)


def run_program(program: Program, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The graph outputs for one data set (inputs in graph-input order), as the node functions return them."""
    if len(inputs) != len(program.inputs):
        raise ValueError(f"the model has {len(program.inputs)} inputs, {len(inputs)} given")
    values: dict[str, np.ndarray] = dict(program.constants)
    types: dict[str, DType] = {name: dtypes.from_numpy(v.dtype) for name, v in values.items()}
    for (name, t), x in zip(program.inputs, inputs):
        values[name] = np.asarray(x, dtype=object if t.kind == "string" else t.np_dtype)
        types[name] = t
    for step in program.steps:
        args = [values[n] if n else None for n in step.node.input]
        arg_types = [types[n] if n else None for n in step.node.input]
        results = step.fn(args, step.attrs, step.opset, arg_types)
        for name, r in zip(step.node.output, results):
            if name:
                values[name] = r
                types[name] = dtypes.from_numpy(np.asarray(r).dtype)
    return [values[name] for name, _ in program.outputs]
