"""A model's tensors that store their data outside model.onnx: found wherever they are, loaded from inside the
case directory and hash-checked, so that the model handed to a backend names no external file."""

from __future__ import annotations

from pathlib import Path

import onnx

from generator.case_reader import CaseError, CaseReader


def model_tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
    """Every TensorProto a model carries: the initializers and sparse initializers (values and indices) of
    its graph, of every subgraph and of its training_info graphs; the tensors, tensor lists, sparse tensors
    and sparse tensor lists of every attribute of every node (of graphs, subgraphs and local functions) and
    of every local function's attribute defaults. Fields are looked at whatever the attribute's declared
    type, and without recursion. (onnx.external_data_helper._get_all_tensors misses the sparse tensors, the
    functions' attribute defaults and subgraph initializers, and training_info.)"""
    found: list[onnx.TensorProto] = []
    graphs = [model.graph]
    for info in model.training_info:
        graphs += (info.initialization, info.algorithm)
    attrs = []
    for function in model.functions:
        for node in function.node:
            attrs.extend(node.attribute)
        attrs.extend(function.attribute_proto)
    while graphs or attrs:
        if graphs:
            graph = graphs.pop()
            found.extend(graph.initializer)
            for sparse in graph.sparse_initializer:
                found += (sparse.values, sparse.indices)
            for node in graph.node:
                attrs.extend(node.attribute)
            continue
        attr = attrs.pop()
        if attr.HasField("t"):
            found.append(attr.t)
        found.extend(attr.tensors)
        sparses = list(attr.sparse_tensors)
        if attr.HasField("sparse_tensor"):
            sparses.append(attr.sparse_tensor)
        for sparse in sparses:
            found += (sparse.values, sparse.indices)
        if attr.HasField("g"):
            graphs.append(attr.g)
        graphs.extend(attr.graphs)
    return found


def load_external_data(model: onnx.ModelProto, reader: CaseReader, model_path: Path) -> None:
    """Tensors stored outside model.onnx must live inside the case directory (a case must not make a
    runner read files elsewhere) and are hash-checked like every other file; they are loaded here, so that
    no tensor of the model handed to a backend still stores its data externally (model_tensors: every
    tensor, wherever it is). Stray external_data entries of a tensor whose data is inline are dropped."""
    loaded: dict[str, bytes] = {}
    for tensor in model_tensors(model):
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            if len(tensor.external_data):
                del tensor.external_data[:]
            continue
        what = f"external data of tensor {tensor.name!r}"
        info = {entry.key: entry.value for entry in tensor.external_data}
        location = info.get("location", "")
        if not location:
            raise CaseError(model_path, f"{what}: no location; refused")
        try:
            offset = int(info.get("offset") or 0)
            length = int(info["length"]) if info.get("length") else None
        except ValueError:
            raise CaseError(model_path, f"{what}: offset or length is no integer") from None
        if offset < 0 or (length is not None and length < 0):
            raise CaseError(model_path, f"{what}: negative offset or length")
        rel = reader.inside(location, f"{what}: location", model_path)
        if rel not in loaded:
            loaded[rel] = reader.read(rel)
        data = loaded[rel]
        end = len(data) if length is None else offset + length
        if end > len(data) or offset > len(data):
            raise CaseError(model_path, f"{what}: bytes {offset} to {end} of {rel}, which has {len(data)}")
        tensor.raw_data = data[offset:end]
        tensor.data_location = onnx.TensorProto.DEFAULT
        del tensor.external_data[:]
