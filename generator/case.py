"""Case: one model, its data sets, and the metadata that says what it checks and how to compare.

Kinds (docs/design.md, "The case format"):
  node      single-node model with expected outputs; must pass
  graph     multi-node model (layout family); must pass
  negative  the backend must refuse the model; no outputs
  probe     the spec defines no result: outputs are recorded, never judged
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper

from generator import dtypes

KINDS = ("node", "graph", "negative", "probe")
GENERATOR_VERSION = "0.1.0"
REQUIRED_META = ("op", "domain", "opset", "family", "spec", "compare", "flags", "seed")


@dataclass
class Twin:
    """The same case in another model format, with its own data sets (graph/ kind: the NHWC TFLite twin
    of an NCHW ONNX graph; docs/design.md, "The case format").

    input_perms / output_perms: for each ONNX graph input / output in order, the permutation that turns
    the ONNX tensor into the twin's: twin_array == numpy.transpose(onnx_array, perm)."""

    format: str  # "tflite"
    model: bytes
    input_names: list[str]
    output_names: list[str]
    input_perms: list[list[int]]
    output_perms: list[list[int]]
    inputs: list[list[np.ndarray]]  # per data set, in the twin's input order
    outputs: list[list[np.ndarray]]


@dataclass
class Case:
    name: str  # test_<op>_<what>, lower snake case, unique in a suite
    kind: str
    model: onnx.ModelProto
    inputs: list[list[np.ndarray]]  # one list of input arrays per data set
    outputs: list[list[np.ndarray]] | None  # expected outputs per data set (node / graph)
    meta: dict = field(default_factory=dict)
    twin: Twin | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r}")
        if not self.name.startswith("test_") or self.name != self.name.lower():
            raise ValueError(f"{self.name}: case names are test_<op>_<what> in lower snake case")
        missing = [k for k in REQUIRED_META if k not in self.meta]
        if missing:
            raise ValueError(f"{self.name}: metadata lacks {', '.join(missing)}")
        if self.kind in ("node", "graph"):
            if self.outputs is None or len(self.outputs) != len(self.inputs):
                raise ValueError(f"{self.name}: a {self.kind} case needs expected outputs for every data set")
        elif self.outputs is not None:
            raise ValueError(f"{self.name}: a {self.kind} case has no expected outputs")
        if self.twin is not None and (len(self.twin.inputs) != len(self.inputs)
                                      or len(self.twin.outputs) != len(self.inputs)):
            raise ValueError(f"{self.name}: the twin needs inputs and outputs for every data set")


def case_meta(*, op: str, domain: str, opset: int, family: str, spec_file: str, clause: str, compare: dict,
              flags: list[str], seed: int, params: dict, reading: str | None = None, **extra) -> dict:
    """The metadata every case.json carries (docs/design.md, "The case format"), plus family-specific fields.

    reading: where the expected outputs rest on a reading of the texts rather than a sentence of them, a
    short statement of what is read and why (docs/readings.md), so that vendors can see it; left out
    when every expectation is a sentence's."""
    meta = {"op": op, "domain": domain, "opset": opset, "family": family,
            "spec": {"file": spec_file, "clause": clause}, "compare": compare, "flags": flags, "seed": seed,
            "params": params, **extra}
    if reading:
        meta["reading"] = reading
    return meta


def ir_version_for(opset: int) -> int:
    """Lowest IR version whose release supports this ai.onnx opset (onnx.helper.VERSION_TABLE).

    Backends reject IR versions newer than they know (onnxruntime 1.31 stops at IR 13), so a
    model never carries a newer IR than its opset needs.
    """
    for _release, ir, ai_onnx, *_ in helper.VERSION_TABLE:
        if ai_onnx >= opset:
            return ir
    raise ValueError(f"opset {opset} is newer than the installed onnx knows")


def value_info(name: str, dtype: dtypes.DType, shape) -> onnx.ValueInfoProto:
    """shape: a tuple of ints / str (symbolic dims), or None for unknown rank."""
    return helper.make_tensor_value_info(name, dtype.onnx, shape)


def node_model(
    op: str,
    inputs: list[tuple[str, dtypes.DType, tuple | None]],
    outputs: list[tuple[str, dtypes.DType, tuple | None]],
    attrs: dict,
    opset: int,
    domain: str = "",
    extra_opsets: dict[str, int] | None = None,
    functions: list[onnx.FunctionProto] | None = None,
) -> onnx.ModelProto:
    """A one-node model, stamped with the lowest IR version its opset needs."""
    node = helper.make_node(op, [n for n, _, _ in inputs], [n for n, _, _ in outputs], domain=domain or None, **attrs)
    graph = helper.make_graph(
        [node], op.lower(), [value_info(*i) for i in inputs], [value_info(*o) for o in outputs]
    )
    return finish_model(graph, opset, extra_opsets, functions)


def finish_model(graph: onnx.GraphProto, opset: int, extra_opsets: dict[str, int] | None = None,
                 functions: list[onnx.FunctionProto] | None = None) -> onnx.ModelProto:
    imports = [helper.make_opsetid("", opset)]
    for dom, ver in sorted((extra_opsets or {}).items()):
        imports.append(helper.make_opsetid(dom, ver))
    model = helper.make_model(graph, opset_imports=imports, producer_name="opconform",
                              producer_version=GENERATOR_VERSION, functions=functions or None)
    model.ir_version = ir_version_for(opset)
    return model
