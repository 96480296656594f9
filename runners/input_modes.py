"""How a run builds the model of a case: inputs fed, weights as initializers, or everything constant; static or
dynamic shapes; and the newest opset the run accepts (--inputs, --shapes, --max-opset).

A case's model feeds every input at run time. Deployed models do not: their weights (scales, zero points,
convolution weights, shapes...) are initializers, and an execution provider or an optimizer treats a node with
constant inputs differently (an EP may only claim a QLinearConv whose scales are compile-time constants; a
constant folder computes a node whose inputs are all constant at session creation, with its own code).

  auto          the default: fed; where the backend refuses a weight fed at run time in its own words (a backend's
                CONSTANT_ONLY table: tract's "must be a const", OpenVINO's "accepting only a constant as a B
                input"), the item runs again with its weights as initializers, and its record says so
                (`inputs`: "initializers"): a family is not hidden by how its weights are fed
  fed           the case's model as written
  initializers  a graph input that some node consumes in a weight slot (WEIGHTS) becomes an initializer holding
                the data set's value; the others stay fed
  constant      every graph input becomes an initializer: the model has no inputs

A data set whose baked values differ from another's is another model (the prepared-model cache is keyed by their
bytes). The expected outputs are the case's, unchanged. Initializers are written by the project's own tensor
writer (generator.serialize.tensor_bytes), so float8 / int4 / bfloat16 / strings keep their exact bits.

shapes=dynamic declares every dimension of the graph's (remaining) inputs and outputs unknown (a dim_param of
its own), rank kept: the backend selects its kernels without static shapes; outputs are still compared with the
expected ones, shapes included. A negative case keeps its declared shapes (its refusal at prepare may rest on
them). A case run on its twin (a TFLite model, not ONNX) is run only fed and static: another mode is
`unsupported` naming it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

import onnx

from generator.serialize import graph_io_types, tensor_bytes

INPUT_MODES = ("auto", "fed", "initializers", "constant")
SHAPE_MODES = ("static", "dynamic")

# (domain, op_type) -> the input slots a deployed model carries as weights (initializers). One table for every
# op of every family (and the graph cases' ops); the spec's input names in the comments. Domain "" is ai.onnx.
WEIGHTS: dict[tuple[str, str], tuple[int, ...]] = {
    ("", "QuantizeLinear"): (1, 2),  # x, y_scale, y_zero_point
    ("", "DequantizeLinear"): (1, 2),  # x, x_scale, x_zero_point
    ("", "DynamicQuantizeLinear"): (),  # x: data only (the scale is computed)
    ("", "QLinearConv"): (1, 2, 3, 4, 5, 6, 7, 8),  # x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B
    ("", "QLinearMatMul"): (1, 2, 3, 4, 5, 6, 7),  # a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point
    ("", "MatMulInteger"): (1, 2, 3),  # A, B, a_zero_point, b_zero_point
    ("", "ConvInteger"): (1, 2, 3),  # x, w, x_zero_point, w_zero_point
    ("com.microsoft", "MatMulNBits"): (1, 2, 3, 4, 5),  # A, B, scales, zero_points, g_idx, bias
    ("com.microsoft", "QLinearAdd"): (1, 2, 4, 5, 6, 7),  # A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point
    ("", "CastLike"): (1,),  # input, target_type
    ("", "Cast"): (),  # input
    ("", "Conv"): (1, 2),  # X, W, B
    ("", "ConvTranspose"): (1, 2),  # X, W, B
    ("", "Gemm"): (1, 2),  # A, B, C
    ("", "MatMul"): (1,),  # A, B
    ("", "PRelu"): (1,),  # X, slope
    ("", "BatchNormalization"): (1, 2, 3, 4),  # X, scale, B, input_mean, input_var
    ("", "InstanceNormalization"): (1, 2),  # input, scale, B
    ("", "LayerNormalization"): (1, 2),  # X, Scale, B
    ("", "Reshape"): (1,),  # data, shape
    ("", "Expand"): (1,),  # input, shape
    ("", "Tile"): (1,),  # input, repeats
    ("", "Pad"): (1, 2, 3),  # data, pads, constant_value, axes
    ("", "Slice"): (1, 2, 3, 4),  # data, starts, ends, axes, steps
    ("", "Split"): (1,),  # input, split
    ("", "Squeeze"): (1,),  # data, axes
    ("", "Unsqueeze"): (1,),  # data, axes
    ("", "ReduceMax"): (1,),  # data, axes (opset 18)
    ("", "ReduceMean"): (1,),  # data, axes (opset 18)
    ("", "ReduceSum"): (1,),  # data, axes (opset 13)
    ("", "Resize"): (1, 2, 3),  # X, roi, scales, sizes
    ("", "Clip"): (1, 2),  # input, min, max
}


@dataclass(frozen=True)
class RunMode:
    """How the run builds each case's model (picklable: it travels to the worker)."""

    inputs: str = "auto"
    shapes: str = "static"
    max_opset: int | None = None

    def __post_init__(self):
        if self.inputs not in INPUT_MODES:
            raise ValueError(f"--inputs {self.inputs}: unknown; one of {', '.join(INPUT_MODES)}")
        if self.shapes not in SHAPE_MODES:
            raise ValueError(f"--shapes {self.shapes}: unknown; one of {', '.join(SHAPE_MODES)}")
        if self.max_opset is not None and (isinstance(self.max_opset, bool) or not isinstance(self.max_opset, int)
                                           or self.max_opset < 1):
            raise ValueError(f"--max-opset {self.max_opset}: an opset number, 1 or more")

    @property
    def rebuilds(self) -> bool:
        return self.inputs not in ("auto", "fed") or self.shapes != "static"

    def fallback(self) -> "RunMode":
        """The mode an `auto` item runs again in when the backend refuses a fed weight."""
        return dataclasses.replace(self, inputs="initializers")

    def settings(self) -> dict:
        """What results record of the mode (in each record's and the header's settings), only where it is not
        the default (auto), so results of different modes are kept apart; a run in the default mode records
        what it recorded when fed was the default (nothing), and its records say which items ran otherwise."""
        out: dict = {}
        if self.inputs != "auto":
            out["inputs"] = self.inputs
        if self.shapes != "static":
            out["shapes"] = self.shapes
        if self.max_opset is not None:
            out["max_opset"] = self.max_opset
        return out


DEFAULT = RunMode()  # auto
FED = RunMode(inputs="fed")


def constant_only(backend, error: str | None) -> bool:
    """Whether an unsupported item's refusal is the backend saying, in its own words, that an input it was fed
    must be a constant (its CONSTANT_ONLY table, runners.backends.base.UnsupportedTable): `auto` then runs the
    item again with its weights as initializers."""
    table = getattr(backend, "CONSTANT_ONLY", None)
    return table is not None and bool(error) and table.matches(Exception(error))


def weight_inputs(model: onnx.ModelProto) -> set[str]:
    """The graph inputs that some node of the main graph consumes in a weight slot (WEIGHTS)."""
    fed = {name for name, _ in graph_io_types(model)[0]}
    out = set()
    for node in model.graph.node:
        slots = WEIGHTS.get((_domain(node.domain), node.op_type), ())
        out.update(node.input[s] for s in slots if s < len(node.input) and node.input[s] in fed)
    return out


def baked_positions(model: onnx.ModelProto, mode: RunMode) -> list[int]:
    """Positions (in the data set's inputs) of the inputs the mode turns into initializers."""
    ins = [name for name, _ in graph_io_types(model)[0]]
    if mode.inputs == "constant":
        return list(range(len(ins)))
    if mode.inputs == "initializers":
        weights = weight_inputs(model)
        return [j for j, name in enumerate(ins) if name in weights]
    return []


def baked_tensors(model: onnx.ModelProto, inputs: list, mode: RunMode) -> dict[int, bytes]:
    """{position: serialized TensorProto} of the inputs the mode bakes in, written in the declared type."""
    ins = graph_io_types(model)[0]
    return {j: tensor_bytes(inputs[j], ins[j][0], ins[j][1]) for j in baked_positions(model, mode)}


def model_key(baked: dict[int, bytes]) -> str:
    """Tells the models of data sets apart: the sha256 of the baked tensors' bytes ("" when none)."""
    if not baked:
        return ""
    h = hashlib.sha256()
    for j in sorted(baked):
        h.update(f"{j}:{len(baked[j])}:".encode())
        h.update(baked[j])
    return h.hexdigest()


def build_model(model: onnx.ModelProto, baked: dict[int, bytes], dynamic: bool) -> onnx.ModelProto:
    """A copy of `model` with the inputs at `baked`'s positions as initializers (graph inputs removed) and,
    if `dynamic`, every dimension of the remaining graph inputs and of the outputs unknown."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    ins = [name for name, _ in graph_io_types(model)[0]]
    names = set()
    for j, data in baked.items():
        t = onnx.TensorProto()
        t.ParseFromString(data)
        out.graph.initializer.append(t)
        names.add(ins[j])
    kept = [v for v in out.graph.input if v.name not in names]
    if names and out.ir_version < 4:  # before IR 4 an initializer must be a graph input too
        out.ir_version = 4
    del out.graph.input[:]
    out.graph.input.extend(kept)
    if dynamic:
        inits = {i.name for i in out.graph.initializer}
        _unknown_dims([v for v in out.graph.input if v.name not in inits], "in")
        _unknown_dims(list(out.graph.output), "out")
    return out


def _unknown_dims(values: list, prefix: str) -> None:
    for j, v in enumerate(values):
        if not v.type.HasField("tensor_type") or not v.type.tensor_type.HasField("shape"):
            continue
        for k, dim in enumerate(v.type.tensor_type.shape.dim):
            dim.Clear()
            dim.dim_param = f"{prefix}{j}_d{k}"  # one name each: no equality between dimensions is declared


def fed_inputs(model: onnx.ModelProto, inputs: list, mode: RunMode) -> list:
    """The data set's inputs the model of this mode still takes at run time."""
    baked = set(baked_positions(model, mode))
    return [x for j, x in enumerate(inputs) if j not in baked]


def default_opset(model: onnx.ModelProto) -> int | None:
    """The model's opset import of the ONNX domain (ai.onnx), None without one."""
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    return max(versions) if versions else None


def opset_refusal(model: onnx.ModelProto, mode: RunMode) -> str | None:
    """Why the case is out of this run's opsets ("opset 23 > --max-opset 21"), or None."""
    if mode.max_opset is None:
        return None
    opset = default_opset(model)
    if opset is not None and opset > mode.max_opset:
        return f"opset {opset} > --max-opset {mode.max_opset}"
    return None


def _domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain

