"""Case <-> directory, and the suite manifest.

Layout (docs/design.md, "The case format"): <suite>/manifest.json and <suite>/<kind>/<name>/ holding model.onnx,
test_data_set_<i>/input_<j>.pb (and output_<j>.pb for node / graph kinds) and case.json.
A case with a twin (graph/ kind: the NHWC TFLite model) adds model.<format> and
test_data_set_<i>/<format>_input_<j>.pb / <format>_output_<j>.pb; case.json["twin"] names the twin's
inputs / outputs, their element types, and the permutation from each ONNX input / output.
Every file is written deterministically (sorted JSON keys, deterministic protobuf), so two
generations with the same options are byte-identical.

Reading a case (read_case) trusts nothing on disk; whatever is wrong raises CaseError naming the file,
which runners report as the verdict `invalid-case`:
- case.json: every field a runner reads has the type it needs (CASE_FIELDS), and the compare spec
  resolves for every judged output in every tier, so runner code never trips over a case read_case accepts;
- every file is listed in case.json with its sha256 and matches it;
- case.json's "name" is its directory's name (runners key items by the directory), and case.json and
  manifest.json are parsed with bounded nesting (generator/jsontext.py): a document nested too
  deep is a corrupt file, never a RecursionError;
- files are read only inside the case directory: paths case.json or the model give (the twin model,
  external data) must stay inside it, and a symlink is followed only to a file inside it;
- every tensor of the model (initializers and sparse initializers of the graph, of every subgraph and of
  training_info; tensors and sparse tensors of every attribute, in graphs, subgraphs and local functions,
  and of a local function's attribute defaults) that stores its data externally has it loaded here, from
  inside the case directory, hash-checked: the model handed to a backend names no external file, so no
  backend reads a file itself. A data file (input_<j>.pb, output_<j>.pb, a twin's) must carry its data
  inline: external data there is refused before any conversion (onnx would read it relative to the
  working directory);
- a model or data file that protobuf will not parse (corrupt, or nested deeper than its recursion limit)
  is refused with one line;
- a file is read only if it is a regular file (not a FIFO, device or directory) no larger than it can be:
  a tensor file's bound comes from the static shape and element type the model declares, any other file's
  is MAX_FILE_BYTES; both are checked on the open descriptor before a byte is read;
- node / graph / probe data sets hold one input per graph input that is not an initializer, node / graph
  ones one output per graph output, each of the declared element type and static shape: a damaged case is
  never blamed on the backend.
Hard links are not detected (a hard link is the file itself, and its content must match its sha256).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import case_reader, dtypes, jsontext
from generator.case import GENERATOR_VERSION, KINDS, Case, Twin
from generator.case_fields import compare_problem, meta_problem, shown
from generator.case_reader import MAX_CASE_JSON_BYTES, CaseError, CaseReader, Slot, protobuf_problem, sha256
from generator.external_data import load_external_data

# read from this module by runners/compare.py and runners/backends/ (their imports are not this module's to change)

MANIFEST = "manifest.json"
SUITE_FORMAT = "opconform-suite/1"


def dumps_json(obj) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def tensor_bytes(array: np.ndarray, name: str, dtype: dtypes.DType) -> bytes:
    """A TensorProto of `array` in the declared element type, serialized deterministically."""
    if dtype.kind == "string":
        array = np.asarray(array, dtype=object)
    else:
        array = np.asarray(array, dtype=dtype.np_dtype)
    if not dtype.onnx_knows:  # a type of a newer onnx than the installed one: the same bytes, made here
        tensor = onnx.TensorProto(name=name, data_type=dtype.onnx, dims=array.shape, raw_data=dtype.to_raw(array))
        return tensor.SerializeToString(deterministic=True)
    tensor = numpy_helper.from_array(array, name=name)
    if tensor.data_type != dtype.onnx:
        raise ValueError(f"{name}: numpy gave element type {tensor.data_type}, expected {dtype.name}")
    return tensor.SerializeToString(deterministic=True)


def graph_io_types(model: onnx.ModelProto) -> tuple[list[tuple[str, dtypes.DType]], list[tuple[str, dtypes.DType]]]:
    """(name, element type) of each graph input that is not an initializer, and of each output."""
    inits = {i.name for i in model.graph.initializer}
    ins = [(v.name, dtypes.get(v.type.tensor_type.elem_type)) for v in model.graph.input if v.name not in inits]
    outs = [(v.name, dtypes.get(v.type.tensor_type.elem_type)) for v in model.graph.output]
    return ins, outs


# Attributes whose integer value is an element type (Cast / CastLike / QuantizeLinear / DequantizeLinear ...).
_TYPE_ATTRS = ("to", "output_dtype", "dtype", "precision")


def element_types(model: onnx.ModelProto) -> set[int]:
    """Every element type a model names: its graph's value infos, initializers and type attributes. What a
    backend built on the installed onnx checks with dtypes.onnx_problem before running (onnx 1.19 has no int2)."""
    g = model.graph
    types = {v.type.tensor_type.elem_type for v in (*g.input, *g.output, *g.value_info)}
    types |= {t.data_type for t in g.initializer}
    for node in g.node:
        types |= {a.i for a in node.attribute if a.name in _TYPE_ATTRS and a.type == onnx.AttributeProto.INT}
        types |= {a.t.data_type for a in node.attribute if a.type == onnx.AttributeProto.TENSOR}
    return types - {0}


def case_files(case: Case) -> dict[str, bytes]:
    """Relative path -> bytes of every file of the case except case.json."""
    files = {"model.onnx": case.model.SerializeToString(deterministic=True)}
    ins, outs = graph_io_types(case.model)
    for i, data_inputs in enumerate(case.inputs):
        if len(data_inputs) != len(ins):
            raise ValueError(f"{case.name}: data set {i} has {len(data_inputs)} inputs, the model {len(ins)}")
        for j, ((name, dt), arr) in enumerate(zip(ins, data_inputs)):
            files[f"test_data_set_{i}/input_{j}.pb"] = tensor_bytes(arr, name, dt)
        if case.outputs is not None:
            for j, ((name, dt), arr) in enumerate(zip(outs, case.outputs[i])):
                files[f"test_data_set_{i}/output_{j}.pb"] = tensor_bytes(arr, name, dt)
    if case.twin is not None:
        files.update(twin_files(case.twin))
    return files


def twin_files(twin: Twin) -> dict[str, bytes]:
    files = {f"model.{twin.format}": bytes(twin.model)}
    for i, (ins, outs) in enumerate(zip(twin.inputs, twin.outputs)):
        for prefix, names, arrays in (("input", twin.input_names, ins), ("output", twin.output_names, outs)):
            for j, (name, arr) in enumerate(zip(names, arrays)):
                files[f"test_data_set_{i}/{twin.format}_{prefix}_{j}.pb"] = tensor_bytes(
                    arr, name, dtypes.from_numpy(np.asarray(arr).dtype))
    return files


def twin_json(twin: Twin, onnx_ins: list[str], onnx_outs: list[str]) -> dict:
    """case.json["twin"]: the twin's model file and, per input / output, its name, element type, the ONNX
    tensor it stands for and the permutation: twin == numpy.transpose(onnx, perm)."""
    def entries(names, onnx_names, perms, arrays):
        return [{"name": n, "onnx": o, "perm": [int(p) for p in perm],
                 "type": dtypes.from_numpy(np.asarray(a).dtype).name}
                for n, o, perm, a in zip(names, onnx_names, perms, arrays)]
    return {"format": twin.format, "model": f"model.{twin.format}",
            "inputs": entries(twin.input_names, onnx_ins, twin.input_perms, twin.inputs[0]),
            "outputs": entries(twin.output_names, onnx_outs, twin.output_perms, twin.outputs[0])}


def case_json(case: Case, files: dict[str, bytes]) -> dict:
    meta = dict(case.meta)
    meta.update(
        name=case.name,
        kind=case.kind,
        ir_version=case.model.ir_version,
        generator_version=GENERATOR_VERSION,
        sha256={path: sha256(data) for path, data in sorted(files.items())},
    )
    if case.twin is not None:
        ins, outs = graph_io_types(case.model)
        meta["twin"] = twin_json(case.twin, [n for n, _ in ins], [n for n, _ in outs])
    return meta


def write_case(case: Case, suite_dir: Path) -> dict:
    """Write one case under suite_dir/<kind>/<name>/ and return its case.json content."""
    case_dir = Path(suite_dir) / case.kind / case.name
    case_dir.mkdir(parents=True, exist_ok=False)
    files = case_files(case)
    for rel, data in files.items():
        path = case_dir / rel
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
    meta = case_json(case, files)
    (case_dir / "case.json").write_bytes(dumps_json(meta))
    return meta


@dataclass
class LoadedTwin:
    """The twin of a case read back from disk (hash-checked). perm: twin == numpy.transpose(onnx, perm)."""

    format: str
    model_path: Path
    model: bytes
    inputs: list[list[np.ndarray]]
    outputs: list[list[np.ndarray]]
    input_names: list[str]
    output_names: list[str]
    input_types: list[dtypes.DType]
    output_types: list[dtypes.DType]
    input_perms: list[list[int]]
    output_perms: list[list[int]]


@dataclass
class LoadedCase:
    """A case read back from disk. meta is None for a plain ONNX node-test directory; content is the case's
    content hash (`content_hash` of its case.json), None without case.json."""

    name: str
    kind: str
    dir: Path
    model: onnx.ModelProto
    inputs: list[list[np.ndarray]]
    outputs: list[list[np.ndarray]] | None
    meta: dict | None
    twin: LoadedTwin | None = None
    content: str | None = None

    @property
    def n_datasets(self) -> int:
        return len(self.inputs)

    @cached_property
    def io_types(self) -> tuple[tuple[tuple[str, dtypes.DType], ...], tuple[tuple[str, dtypes.DType], ...]]:
        """graph_io_types of the case's model, worked out once (the runner asks per data set and per fault
        model diagnosed); KeyError as graph_io_types raises it."""
        ins, outs = graph_io_types(self.model)
        return tuple(ins), tuple(outs)


def content_hash(case_json_bytes: bytes) -> str:
    """The content hash of a case: the sha256 of its case.json's bytes. case.json lists the sha256 of every
    other file of the case, so this one hash covers the whole case."""
    return sha256(case_json_bytes)


def read_meta(case_dir: Path | str) -> tuple[dict, bytes] | None:
    """A case's case.json, checked field by field (CASE_FIELDS), and its bytes; None for a plain ONNX
    node-test directory. Raises CaseError."""
    return _read_meta(CaseReader(Path(case_dir)))


def _read_meta(reader: CaseReader) -> tuple[dict, bytes] | None:
    path = reader.case_dir / "case.json"
    try:
        raw = reader.read("case.json", MAX_CASE_JSON_BYTES, listed=False)
    except CaseError:
        if not os.path.lexists(path):  # a plain ONNX node-test directory
            return None
        raise
    try:
        meta = jsontext.loads(raw)
    except ValueError as exc:  # UnicodeDecodeError included
        raise CaseError(path, f"corrupt case.json ({exc})") from None
    problem = meta_problem(meta)
    if problem:
        raise CaseError(path, problem)
    if "name" in meta and meta["name"] != reader.dir_name:
        raise CaseError(path, f'field "name": {shown(meta["name"])} differs from the name of the case\'s '
                              f"directory, {reader.dir_name!r} (a case is known by its directory)")
    return meta, raw


def _read_model(reader: CaseReader) -> onnx.ModelProto:
    model_path = reader.case_dir / "model.onnx"
    model = onnx.ModelProto()
    data = reader.read("model.onnx")
    try:
        model.ParseFromString(data)
    except Exception as exc:
        raise CaseError(model_path, f"not a valid ONNX model ({protobuf_problem(exc)})") from None
    if not model.graph.node:
        raise CaseError(model_path, "model has no nodes (truncated or corrupt)")
    load_external_data(model, reader, model_path)
    return model


def read_case(case_dir: Path | str) -> LoadedCase:
    """Read a case directory, checking every file against case.json. Raises CaseError.

    Node / graph / probe data sets must hold one input_<j>.pb per graph input that is not an initializer
    (an omitted optional input is no graph input), node / graph ones one output_<j>.pb per graph output,
    each of the element type and static shape the model declares. A negative case's data sets are fed to
    the backend as they are (it must refuse the model whatever they hold)."""
    reader = CaseReader(Path(case_dir))
    read = _read_meta(reader)
    meta, raw = read if read else (None, b"")
    reader.hashes = meta["sha256"] if meta else None
    model = _read_model(reader)
    kind = meta.get("kind", "node") if meta else "node"
    inits = {i.name for i in model.graph.initializer}
    in_slots = [Slot.of(v) for v in model.graph.input if v.name not in inits]
    out_slots = [Slot.of(v) for v in model.graph.output]
    has_outputs = kind in ("node", "graph")
    judged = _judged_outputs(reader, model) if has_outputs else []
    reader.list_sets()
    checked = kind != "negative"
    inputs = [reader.tensors(ds, "input", in_slots if checked else None, checked) for ds in reader.sets]
    outputs = [reader.tensors(ds, "output", out_slots, True) for ds in reader.sets] if has_outputs else None
    if reader.hashes is not None:
        for rel in reader.hashes:
            if not reader.exists(rel):
                raise CaseError(reader.case_dir / rel, "missing file (listed in case.json)")
    twin = _read_twin(reader, meta, in_slots, out_slots) if meta and "twin" in meta else None
    if twin is not None and has_outputs:
        judged += zip(twin.output_names, twin.output_types)
    if meta and "compare" in meta:
        problem = compare_problem(meta["compare"], judged)
        if problem:
            raise CaseError(reader.case_dir / "case.json", problem)
    return LoadedCase(
        name=meta.get("name", reader.case_dir.name) if meta else reader.case_dir.name,
        kind=kind,
        dir=reader.case_dir,
        model=model,
        inputs=inputs,
        outputs=outputs,
        meta=meta,
        twin=twin,
        content=content_hash(raw) if meta else None,
    )


def _judged_outputs(reader: CaseReader, model: onnx.ModelProto) -> list[tuple[str, dtypes.DType]]:
    """(name, element type) of the outputs a node / graph case is judged on: every graph input and output
    must be a tensor of a type opconform knows (the runner compares in it)."""
    try:
        return graph_io_types(model)[1]
    except KeyError as exc:
        raise CaseError(reader.case_dir / "model.onnx", f"a graph input or output of no known tensor type "
                                                        f"({exc.args[0]})") from None


def _read_twin(reader: CaseReader, meta: dict, in_slots: list[Slot], out_slots: list[Slot]) -> LoadedTwin:
    """The twin case.json["twin"] describes (its fields checked by CASE_FIELDS): the model, and per data set
    one <format>_input_<j>.pb / <format>_output_<j>.pb per entry, each of the entry's element type and of
    the shape of the ONNX tensor it stands for, permuted."""
    spec = meta["twin"]
    fmt = spec["format"]
    model_rel = reader.inside(spec["model"], "twin model", reader.case_dir / "case.json")
    model = reader.read(model_rel)
    slots = {}
    for side, onnx_slots in (("inputs", in_slots), ("outputs", out_slots)):
        by_name = {s.name: s for s in onnx_slots}
        slots[side] = [_twin_slot(e, by_name.get(e["onnx"])) for e in spec[side]]
    inputs = [reader.tensors(ds, f"{fmt}_input", slots["inputs"], True) for ds in reader.sets]
    outputs = [reader.tensors(ds, f"{fmt}_output", slots["outputs"], True) for ds in reader.sets]
    ins, outs = spec["inputs"], spec["outputs"]
    return LoadedTwin(fmt, reader.case_dir / model_rel, model, inputs, outputs, [e["name"] for e in ins],
                      [e["name"] for e in outs], [dtypes.get(e["type"]) for e in ins],
                      [dtypes.get(e["type"]) for e in outs], [list(e["perm"]) for e in ins],
                      [list(e["perm"]) for e in outs])


def _twin_slot(entry: dict, onnx_slot: Slot | None) -> Slot:
    """What a twin data file must hold: the entry's element type; the ONNX tensor's shape, permuted."""
    dims = None
    if onnx_slot is not None and onnx_slot.dims is not None and len(entry["perm"]) == len(onnx_slot.dims):
        dims = tuple(onnx_slot.dims[p] for p in entry["perm"])
    return Slot(entry["name"], dtypes.get(entry["type"]).onnx, dims)


def _manifest_bytes(suite_dir: Path | str) -> bytes:
    """manifest.json, read as a case's files are (a regular file, of at most MAX_MANIFEST_BYTES). Raises CaseError."""
    return CaseReader(Path(suite_dir)).read(MANIFEST, case_reader.MAX_MANIFEST_BYTES, listed=False)


def is_suite(path: Path) -> bool:
    try:
        return jsontext.loads(_manifest_bytes(path))["format"] == SUITE_FORMAT
    except (CaseError, ValueError, KeyError, TypeError):
        return False


def write_manifest(suite_dir: Path, options: dict, entries: list[dict], extra: dict | None = None) -> None:
    """entries: one dict per case (name, kind, op, family, opset, params...), sorted by kind and name; extra: more
    top-level fields (a suite of a user's model: "model", generator/from_model/suite.py)."""
    counts = {k: sum(1 for e in entries if e["kind"] == k) for k in KINDS}
    manifest = {
        "format": SUITE_FORMAT,
        "generator_version": GENERATOR_VERSION,
        "options": options,
        "counts": counts,
        "cases": sorted(entries, key=lambda e: (e["kind"], e["name"])),
        **(extra or {}),
    }
    # one case a line: a manifest of thousands of cases stays small and diffs line by line
    text = dumps_json({**manifest, "cases": ["@CASES@"]}).decode("utf-8")
    lines = ",\n  ".join(json.dumps(e, sort_keys=True, ensure_ascii=False) for e in manifest["cases"])
    text = text.replace('"@CASES@"', lines)
    (Path(suite_dir) / MANIFEST).write_bytes(text.encode("utf-8"))


def read_manifest(suite_dir: Path) -> dict:
    """A suite's manifest.json, bounded in bytes and in the cases it lists (case_reader's limits). Raises
    CaseError."""
    path = Path(suite_dir) / MANIFEST
    try:
        doc = jsontext.loads(_manifest_bytes(suite_dir))
    except ValueError as exc:  # UnicodeDecodeError included
        raise CaseError(path, f"corrupt manifest ({exc})") from None
    cases = doc.get("cases") if isinstance(doc, dict) else None
    if isinstance(cases, list) and len(cases) > case_reader.MAX_MANIFEST_CASES:
        raise CaseError(path, f"{len(cases)} cases listed, more than the {case_reader.MAX_MANIFEST_CASES} a "
                              "manifest can list; refused")
    return doc
