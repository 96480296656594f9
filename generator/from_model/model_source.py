"""A user's model, read for `gen-cases --from-model`: its nodes with every input's element type, shape and, where the
model holds it, value (docs/from_model.md).

The model is read without its external data; shapes come from the model's value_info and onnx's shape inference run
on a copy that holds no tensor data (large initializers become typed graph inputs there), so a model of hundreds of
MB is never copied whole. Only the inputs of the nodes a caller asks for are read (`value`), each alone: an external
tensor's bytes are read from its file at its offset, and the file must lie inside the model's directory.

A symbolic or unknown dimension gets a size: `dims` (dim_param -> size, from `--dim NAME=SIZE`) or DEFAULT_DIM.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from generator import dtypes
from generator.case_reader import read_tensor
from generator.dtypes import DType

# the size of a dimension the model leaves symbolic or unknown: 2, so that batch and sequence axes hold more than
# one row (a per-row zero point, a broadcast over the batch) while the data sets stay small
DEFAULT_DIM = 2
# initializers larger than this are left out of the copy shape inference reads (typed graph inputs there)
_INLINE_LIMIT = 1 << 12
MAX_MODEL_BYTES = 4 << 30
CONTRIB_PASSES = 16  # rounds of shape inference and com.microsoft rules (a chain of contrib ops types one a round)


class ModelError(Exception):
    """A model that cannot be read as asked: one line for the user."""


@dataclass
class Operand:
    """One input or output of a node: its tensor name in the model ("" for an omitted optional input)."""
    name: str
    type: DType | None  # None: the model and shape inference leave it unknown
    dims: tuple | None  # as declared: ints, dim_param strings, None for an unknown dimension; None: unknown rank
    shape: tuple[int, ...] | None  # dims with every symbolic / unknown one given its size
    origin: str  # "initializer", "constant" (a Constant node's output), "input" (a graph input), "computed", "absent"
    default: bool = False  # a graph input that an initializer of the same name gives a default value
    _load: object = field(default=None, repr=False, compare=False)

    @property
    def constant(self) -> bool:
        """The model holds its value (an initializer, a Constant node, a graph input's default)."""
        return self._load is not None

    def proto(self) -> onnx.TensorProto:
        """The tensor as the model stores it, data inline (read now, alone): a case's initializer is this, its
        bits and its encoding the model's."""
        if self._load is None:
            raise ValueError(f"tensor {self.name!r} is not a constant of the model")
        return self._load()

    def value(self) -> np.ndarray:
        """The value the model holds, decoded by the project's tensor reader."""
        return read_tensor(self.proto().SerializeToString(), self.name)


@dataclass
class Site:
    """One node of the model, with what a case of it needs."""
    index: int  # its position in graph.node
    node: onnx.NodeProto
    name: str  # node.name, or "<op>_<index>" where the model gives none
    domain: str  # "" for ai.onnx
    opset: int | None  # the model's import of the node's domain
    ai_onnx: int  # the model's ai.onnx import (a contrib operator's case imports it too)
    inputs: list[Operand]
    outputs: list[Operand]

    @property
    def op(self) -> str:
        return self.node.op_type

    @property
    def key(self) -> tuple[str, str]:
        return self.domain, self.node.op_type


@dataclass
class Source:
    """The model read: its path, sha256, opset imports and nodes."""
    path: Path
    sha256: str
    opsets: dict[str, int]
    sites: list[Site]
    dims: dict[str, int]  # the size given each symbolic dimension seen (the defaults included)
    graph_inputs: list[str]


def _domain(d: str) -> str:
    return "" if d in ("", "ai.onnx") else d


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read(path: Path | str, dims: dict[str, int] | None = None) -> Source:
    """The model at path, its nodes as Sites (ModelError: one line)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ModelError(f"{path}: {exc.strerror or exc}") from None
    if not path.is_file():
        raise ModelError(f"{path}: not a file")
    if size > MAX_MODEL_BYTES:
        raise ModelError(f"{path}: {size} bytes; models over {MAX_MODEL_BYTES} bytes are refused")
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # protobuf's DecodeError and friends: not an ONNX model
        raise ModelError(f"{path}: not an ONNX model ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not model.graph.node:
        raise ModelError(f"{path}: the model's graph has no nodes")
    opsets = {_domain(o.domain): int(o.version) for o in model.opset_import}
    infos = _inferred(model)
    sizes = dict(dims or {})
    constants = _constants(model, path.parent)
    inputs = {v.name for v in model.graph.input}
    sites = []
    for index, node in enumerate(model.graph.node):
        dom = _domain(node.domain)
        ins = [_operand(n, infos, constants, inputs, sizes) for n in node.input]
        outs = [_operand(n, infos, {}, set(), sizes) for n in node.output]
        sites.append(Site(index, node, node.name or f"{node.op_type}_{index}", dom, opsets.get(dom),
                          opsets.get("", 1), ins, outs))
    graph_inputs = [v.name for v in model.graph.input if v.name not in constants or v.name in inputs]
    return Source(path, file_sha256(path), opsets, sites, sizes, graph_inputs)


def _inferred(model: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Tensor name -> type, from the model's own declarations and onnx's shape inference on a data-free copy."""
    light = onnx.ModelProto()
    light.CopyFrom(model)
    kept = []
    for init in light.graph.initializer:
        external = init.data_location == onnx.TensorProto.EXTERNAL
        if external or init.ByteSize() > _INLINE_LIMIT:
            if not any(v.name == init.name for v in light.graph.input):
                light.graph.input.append(helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
        else:
            kept.append(init)
    del light.graph.initializer[:]
    light.graph.initializer.extend(kept)
    from generator.from_model import contrib_shapes
    for _ in range(CONTRIB_PASSES):  # onnx's inference, then the com.microsoft outputs it cannot type, again
        try:
            light = onnx.shape_inference.infer_shapes(light, strict_mode=False, data_prop=True)
        except Exception:  # a model onnx cannot infer: what it declares is what we know
            pass
        types: dict[str, onnx.TypeProto] = {}
        g = light.graph
        for v in list(g.input) + list(g.value_info) + list(g.output):
            if v.type.HasField("tensor_type") and (v.name not in types or not types[v.name].tensor_type.elem_type):
                types[v.name] = v.type
        for init in light.graph.initializer:
            types.setdefault(init.name, helper.make_tensor_type_proto(init.data_type, list(init.dims)))
        more = contrib_shapes.added(g, {n: t for n, t in types.items() if t.tensor_type.HasField("shape")})
        if not more:
            break
        g.value_info.extend(more)
    for init in model.graph.initializer:
        types[init.name] = helper.make_tensor_type_proto(init.data_type, list(init.dims))
    return types


def _constants(model: onnx.ModelProto, base: Path) -> dict[str, object]:
    """Tensor name -> a loader of its value: initializers (external data read alone) and Constant nodes' outputs."""
    found: dict[str, object] = {}
    for init in model.graph.initializer:
        found[init.name] = _loader(init, base)
    for node in model.graph.node:
        if node.op_type == "Constant" and _domain(node.domain) == "" and node.output:
            found[node.output[0]] = _constant_node(node, base)
    return found


def _loader(tensor: onnx.TensorProto, base: Path):
    """A loader of the tensor as the model stores it, its data inline (an external tensor's bytes read alone)."""
    def load() -> onnx.TensorProto:
        t = onnx.TensorProto()
        t.CopyFrom(tensor)
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            t.raw_data = _external_bytes(tensor, base)
            t.data_location = onnx.TensorProto.DEFAULT
            del t.external_data[:]
        return t
    return load


def _external_bytes(tensor: onnx.TensorProto, base: Path) -> bytes:
    info = {e.key: e.value for e in tensor.external_data}
    location = info.get("location", "")
    what = f"external data of tensor {tensor.name!r}"
    if not location:
        raise ModelError(f"{what}: no location")
    root = base.resolve()
    file = (root / location).resolve()
    if not file.is_relative_to(root) or os.path.isabs(location):
        raise ModelError(f"{what}: {location!r} lies outside the model's directory; refused")
    try:
        offset = int(info.get("offset") or 0)
        length = int(info["length"]) if info.get("length") else None
        with open(file, "rb") as f:
            f.seek(offset)
            data = f.read() if length is None else f.read(length)
    except (OSError, ValueError) as exc:
        raise ModelError(f"{what}: {location!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if length is not None and len(data) != length:
        raise ModelError(f"{what}: {location!r} holds {len(data)} of the {length} bytes at offset {offset}")
    return data


def _constant_node(node: onnx.NodeProto, base: Path):
    attr = node.attribute[0] if len(node.attribute) == 1 else None

    def load() -> onnx.TensorProto:
        if attr is None:
            raise ModelError(f"Constant node {node.name or node.output[0]!r}: expected one attribute")
        if attr.name == "value":
            return _loader(attr.t, base)()
        v = helper.get_attribute_value(attr)
        if attr.name in ("value_float", "value_floats"):
            return tensor_of(np.asarray(v, dtype=np.float32), node.output[0], dtypes.get("float"))
        if attr.name in ("value_int", "value_ints"):
            return tensor_of(np.asarray(v, dtype=np.int64), node.output[0], dtypes.get("int64"))
        if attr.name in ("value_string", "value_strings"):
            return tensor_of(np.asarray(v, dtype=object), node.output[0], dtypes.get("string"))
        raise ModelError(f"Constant node {node.name or node.output[0]!r}: attribute {attr.name} is not read")
    return load


def _operand(name: str, infos: dict, constants: dict, graph_inputs: set, sizes: dict) -> Operand:
    if not name:
        return Operand("", None, None, None, "absent")
    tp = infos.get(name)
    t, dims = None, None
    if tp is not None:
        tt = tp.tensor_type
        t = dtypes.find(tt.elem_type) if tt.elem_type else None
        if tt.HasField("shape"):
            dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim)
    load = constants.get(name)
    if load is not None:
        origin = "input" if name in graph_inputs else ("initializer" if _is_init(load) else "constant")
    else:
        origin = "input" if name in graph_inputs else "computed"
    shape = None
    if dims is not None:
        shape = tuple(_size(d, sizes) for d in dims)
    return Operand(name, t, dims, shape, origin, default=load is not None and name in graph_inputs, _load=load)


def _is_init(load) -> bool:
    return load.__qualname__.startswith("_loader")


def _size(d, sizes: dict) -> int:
    if isinstance(d, int):
        return d
    key = d or "?"
    return sizes.setdefault(key, DEFAULT_DIM) if d else sizes.get("?", DEFAULT_DIM)


def tensor_of(value: np.ndarray, name: str, t: DType) -> onnx.TensorProto:
    """value as an initializer of type t, its bits kept (the project's tensor writer)."""
    from generator.serialize import tensor_bytes
    proto = onnx.TensorProto()
    proto.ParseFromString(tensor_bytes(np.asarray(value), name, t))
    return proto


