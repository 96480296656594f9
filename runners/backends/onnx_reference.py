"""onnx.reference.ReferenceEvaluator, a backend under test like any other.

Its outputs are numpy arrays whose dtype is the evaluator's choice (measured with onnx 1.23: the
declared ml_dtypes type for every Cast target, numpy unicode for strings). `as_declared` converts only
exact reinterpretations (bit patterns -> the float type, unicode -> str objects); anything else reaches
compare unchanged and is reported as a wrong element type. onnx 1.13's evaluator returned Cast to string as an
object array of Python floats / ints (onnx#4814, measured with onnx 1.13.1): those elements are kept as they
are, and compare fails the output naming their type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from generator import dtypes
from generator.dtypes import DType
from generator.serialize import element_types
from runners.backends.base import Backend, Unsupported, UnsupportedTable, as_declared, io_types

# What the evaluator says when it does not implement an op / type / attribute (docs/backends.md).
UNSUPPORTED = UnsupportedTable(
    types=(NotImplementedError,),  # unknown ops, RuntimeImplementationError (an attribute value not implemented)
    text=(
        r"No implementation was found for node type",  # RuntimeContextError: a schema, no implementation
        r"No registered implementation for operator",
    ))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


@dataclass
class Prepared:
    evaluator: ReferenceEvaluator
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


class OnnxReferenceBackend(Backend):
    name = "onnx-reference"

    def version(self) -> str:
        return onnx.__version__

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        problem = dtypes.onnx_problem(sorted(element_types(model)))
        if problem:  # a type newer than the installed onnx, whose evaluator is the backend under test
            raise Unsupported(f"onnx.reference: {problem}")
        try:
            evaluator = ReferenceEvaluator(model)
        except Exception as exc:
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"onnx.reference: {_first_line(exc)}") from None
            raise
        return Prepared(evaluator, ins, outs)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        feed = {name: x for (name, _), x in zip(prepared.inputs, inputs)}
        try:
            results = prepared.evaluator.run([name for name, _ in prepared.outputs], feed)
        except Exception as exc:
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"onnx.reference: {_first_line(exc)}") from None
            raise
        return [as_declared(r, t) for r, (_, t) in zip(results, prepared.outputs)]
