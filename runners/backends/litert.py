"""LiteRT (ai_edge_litert's interpreter) on CPU: runs the TFLite twins of graph cases (model_format "tflite").

The interpreter is used as users get it (OpResolverType.AUTO: the builtin kernels with the XNNPACK
delegate applied by default), on one thread so that runs are reproducible; --backend-option op_resolver and
num_threads change both (recorded in the settings). Outputs are matched to the
twin's outputs by tensor name (case.json "twin"), falling back to the subgraph's output order.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from runners.backends.base import Backend, Unsupported, UnsupportedTable, choice, count

# Failures at load / allocate time that mean "this runtime does not implement it" (docs/backends.md).
UNSUPPORTED = UnsupportedTable(text=(
    r"Didn't find op for builtin opcode",  # an op (or op version) this build has no kernel for
    r"Encountered unresolved custom op",
    r"Op builtin_code out of range",  # an op newer than this build
    r"is not supported",
))
# --backend-option op_resolver -> how the settings describe it
OP_RESOLVERS = {
    "AUTO": "AUTO (builtin kernels + default XNNPACK delegate)",
    "BUILTIN": "BUILTIN (builtin kernels + default XNNPACK delegate)",
    "BUILTIN_REF": "BUILTIN_REF (reference kernels)",
    "BUILTIN_WITHOUT_DEFAULT_DELEGATES": "BUILTIN_WITHOUT_DEFAULT_DELEGATES (builtin kernels, no delegate)",
}


@dataclass
class Prepared:
    interpreter: Interpreter
    inputs: list[int]  # tensor indices in the order the data sets hold the inputs
    outputs: list[int]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:400] or type(exc).__name__


def _ordered(details: list[dict], names: list[str] | None, what: str) -> list[int]:
    """Tensor indices of `details` in the order of `names` (the twin's), else as the model lists them."""
    if not names:
        return [d["index"] for d in details]
    by_name = {d["name"]: d["index"] for d in details}
    missing = [n for n in names if n not in by_name]
    if missing:
        if len(details) == len(names):  # renamed by a converter: keep the model's order
            return [d["index"] for d in details]
        raise ValueError(f"the model has no {what} named {', '.join(missing)} (it has {', '.join(by_name)})")
    return [by_name[n] for n in names]


def load_interpreter(model: bytes, input_names: list[str] | None = None, output_names: list[str] | None = None,
                     op_resolver: str = "AUTO", num_threads: int = 1) -> Prepared:
    """A LiteRT interpreter for .tflite bytes, allocated; Unsupported for ops LiteRT does not have."""
    try:
        interpreter = Interpreter(model_content=bytes(model), num_threads=num_threads,
                                  experimental_op_resolver_type=OpResolverType[op_resolver])
        interpreter.allocate_tensors()
    except (RuntimeError, ValueError) as exc:
        if UNSUPPORTED.matches(exc):
            raise Unsupported(f"litert: {_one_line(exc)}") from None
        raise
    return Prepared(interpreter, _ordered(interpreter.get_input_details(), input_names, "input"),
                    _ordered(interpreter.get_output_details(), output_names, "output"))


def run_interpreter(prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if len(inputs) != len(prepared.inputs):
        raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
    it = prepared.interpreter
    for index, x in zip(prepared.inputs, inputs):
        it.set_tensor(index, np.ascontiguousarray(x))
    it.invoke()
    return [np.array(it.get_tensor(index)) for index in prepared.outputs]


class LiteRTBackend(Backend):
    name = "litert"
    model_format = "tflite"
    OPTIONS = {
        "op_resolver": f"the interpreter's OpResolverType: {', '.join(OP_RESOLVERS)} (default AUTO; BUILTIN_REF: "
                       "the reference kernels)",
        "num_threads": "interpreter threads, 1 to 256 (default 1)",
    }

    def __init__(self):
        self.op_resolver = "AUTO"
        self.num_threads = 1

    def configure(self, options: dict[str, str]) -> None:
        if "op_resolver" in options:
            choice(self, "op_resolver", options["op_resolver"], OP_RESOLVERS)
            self.op_resolver = options["op_resolver"]
        if "num_threads" in options:
            self.num_threads = count(self, "num_threads", options["num_threads"], low=1)

    def version(self) -> str:
        return importlib.metadata.version("ai-edge-litert")

    def settings(self) -> dict:
        return {"op_resolver": OP_RESOLVERS[self.op_resolver], "num_threads": self.num_threads}

    def prepare(self, model: bytes, case) -> Prepared:
        twin = getattr(case, "twin", None)
        return load_interpreter(model, twin.input_names if twin else None, twin.output_names if twin else None,
                                self.op_resolver, self.num_threads)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return run_interpreter(prepared, inputs)
