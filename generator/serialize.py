"""Case <-> directory, and the suite manifest.

Layout (DESIGN.md): <suite>/manifest.json and <suite>/<kind>/<name>/ holding model.onnx,
test_data_set_<i>/input_<j>.pb (and output_<j>.pb for node / graph kinds) and case.json.
A case with a twin (graph/ kind: the NHWC TFLite model) adds model.<format> and
test_data_set_<i>/<format>_input_<j>.pb / <format>_output_<j>.pb; case.json["twin"] names the twin's
inputs / outputs, their element types, and the permutation from each ONNX input / output.
Every file is written deterministically (sorted JSON keys, deterministic protobuf), so two
generations with the same options are byte-identical. Reading a case checks each file against
the sha256 that case.json records.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import dtypes
from generator.case import GENERATOR_VERSION, KINDS, Case, Twin

MANIFEST = "manifest.json"
SUITE_FORMAT = "opconform-suite/1"


class CaseError(Exception):
    """A case on disk is missing a file, corrupt, or fails its hash. str() names the file."""

    def __init__(self, path: Path | str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


def dumps_json(obj) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tensor_bytes(array: np.ndarray, name: str, dtype: dtypes.DType) -> bytes:
    """A TensorProto of `array` in the declared element type, serialized deterministically."""
    if dtype.kind == "string":
        array = np.asarray(array, dtype=object)
    else:
        array = np.asarray(array, dtype=dtype.np_dtype)
    tensor = numpy_helper.from_array(array, name=name)
    if tensor.data_type != dtype.onnx:
        raise ValueError(f"{name}: numpy gave element type {tensor.data_type}, expected {dtype.name}")
    return tensor.SerializeToString(deterministic=True)


def read_tensor(data: bytes, path: Path) -> np.ndarray:
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
        array = numpy_helper.to_array(tensor)
    except Exception as exc:  # protobuf raises several types for corrupt bytes
        raise CaseError(path, f"not a valid TensorProto ({exc.__class__.__name__}: {exc})") from None
    if tensor.data_type == onnx.TensorProto.STRING:
        array = np.vectorize(lambda s: s.decode("utf-8") if isinstance(s, bytes) else s,
                             otypes=[object])(array) if array.size else array.astype(object)
    return array


def graph_io_types(model: onnx.ModelProto) -> tuple[list[tuple[str, dtypes.DType]], list[tuple[str, dtypes.DType]]]:
    """(name, element type) of each graph input that is not an initializer, and of each output."""
    inits = {i.name for i in model.graph.initializer}
    ins = [(v.name, dtypes.get(v.type.tensor_type.elem_type)) for v in model.graph.input if v.name not in inits]
    outs = [(v.name, dtypes.get(v.type.tensor_type.elem_type)) for v in model.graph.output]
    return ins, outs


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
    """A case read back from disk. meta is None for a plain ONNX node-test directory."""

    name: str
    kind: str
    dir: Path
    model: onnx.ModelProto
    inputs: list[list[np.ndarray]]
    outputs: list[list[np.ndarray]] | None
    meta: dict | None
    twin: LoadedTwin | None = None

    @property
    def n_datasets(self) -> int:
        return len(self.inputs)


def _read(path: Path, expected: dict[str, str] | None, rel: str) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CaseError(path, "missing file") from None
    except OSError as exc:
        raise CaseError(path, f"cannot read ({exc.strerror})") from None
    if expected is not None:
        want = expected.get(rel)
        if want is None:
            raise CaseError(path, "file not listed in case.json sha256")
        if sha256(data) != want:
            raise CaseError(path, "sha256 mismatch: the file differs from what case.json records")
    return data


class _Listing:
    """The entries of a case directory and of its test_data_set_<i> directories, listed once: a case is
    read with one listing per directory instead of a stat per file."""

    def __init__(self, case_dir: Path):
        try:
            with os.scandir(case_dir) as entries:
                sets = [e.name for e in entries if e.name.startswith("test_data_set_") and e.is_dir()]
        except OSError as exc:
            raise CaseError(case_dir, f"cannot list ({exc.strerror})") from None
        try:
            self.sets = sorted(sets, key=lambda n: int(n.rsplit("_", 1)[1]))
        except ValueError:
            raise CaseError(case_dir, "data set directory not named test_data_set_<i>") from None
        self.case_dir = case_dir
        self.names: dict[str, set[str]] = {}
        for ds in self.sets:
            try:
                self.names[ds] = set(os.listdir(case_dir / ds))
            except OSError as exc:
                raise CaseError(case_dir / ds, f"cannot list ({exc.strerror})") from None

    def tensors(self, ds: str, prefix: str, hashes) -> list[np.ndarray]:
        """<prefix>_0.pb, <prefix>_1.pb ... of data set directory `ds`, up to the first missing one."""
        arrays, names, j = [], self.names[ds], 0
        while f"{prefix}_{j}.pb" in names:
            rel = f"{ds}/{prefix}_{j}.pb"
            path = self.case_dir / rel
            arrays.append(read_tensor(_read(path, hashes, rel), path))
            j += 1
        return arrays

    def exists(self, rel: str) -> bool:
        ds, sep, name = rel.partition("/")
        if sep and "/" not in name and ds in self.names:
            return name in self.names[ds]
        return (self.case_dir / rel).exists()


def _load_external_data(model: onnx.ModelProto, case_dir: Path, model_path: Path, hashes) -> None:
    """Tensors stored outside model.onnx must live inside the case directory (a case must not make a
    runner read files elsewhere) and are hash-checked like every other file; they are loaded here."""
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors, uses_external_data

    root = case_dir.resolve()
    for tensor in _get_all_tensors(model):
        if not uses_external_data(tensor):
            continue
        location = ExternalDataInfo(tensor).location
        target = (case_dir / location).resolve()
        if Path(location).is_absolute() or not target.is_relative_to(root) or target == root:
            raise CaseError(model_path, f"external data location {location!r} of tensor {tensor.name!r} points "
                                        "outside the case directory; refused")
        data = _read(target, hashes, target.relative_to(root).as_posix())
        info = ExternalDataInfo(tensor)
        chunk = data[info.offset or 0:][: info.length] if info.length else data[info.offset or 0:]
        tensor.raw_data = chunk
        tensor.data_location = onnx.TensorProto.DEFAULT
        del tensor.external_data[:]


def read_case(case_dir: Path | str) -> LoadedCase:
    """Read a case directory, checking every file against case.json. Raises CaseError."""
    case_dir = Path(case_dir)
    meta_path = case_dir / "case.json"
    meta = None
    hashes = None
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            hashes = meta["sha256"]
            if not isinstance(hashes, dict):
                raise TypeError("sha256 is not an object")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise CaseError(meta_path, f"corrupt case.json ({exc})") from None
    model_path = case_dir / "model.onnx"
    model = onnx.ModelProto()
    try:
        model.ParseFromString(_read(model_path, hashes, "model.onnx"))
    except CaseError:
        raise
    except Exception as exc:
        raise CaseError(model_path, f"not a valid ONNX model ({exc.__class__.__name__})") from None
    if not model.graph.node:
        raise CaseError(model_path, "model has no nodes (truncated or corrupt)")
    _load_external_data(model, case_dir, model_path, hashes)
    kind = meta.get("kind", "node") if meta else "node"
    listing = _Listing(case_dir)
    inputs = [listing.tensors(ds, "input", hashes) for ds in listing.sets]
    outputs = [listing.tensors(ds, "output", hashes) for ds in listing.sets]
    if hashes is not None:
        for rel in hashes:
            if not listing.exists(rel):
                raise CaseError(case_dir / rel, "missing file (listed in case.json)")
    has_outputs = kind in ("node", "graph")
    if has_outputs and any(len(o) == 0 for o in outputs):
        raise CaseError(case_dir, "a data set has no output_<j>.pb")
    twin = _read_twin(listing, meta, hashes, len(inputs)) if meta and "twin" in meta else None
    return LoadedCase(
        name=meta.get("name", case_dir.name) if meta else case_dir.name,
        kind=kind,
        dir=case_dir,
        model=model,
        inputs=inputs,
        outputs=outputs if has_outputs else None,
        meta=meta,
        twin=twin,
    )


def _read_twin(listing: _Listing, meta: dict, hashes, n_datasets: int) -> LoadedTwin:
    case_dir = listing.case_dir
    spec = meta["twin"]
    try:
        fmt, model_rel = str(spec["format"]), str(spec["model"])
        ins = [(str(e["name"]), dtypes.get(e["type"]), [int(p) for p in e["perm"]]) for e in spec["inputs"]]
        outs = [(str(e["name"]), dtypes.get(e["type"]), [int(p) for p in e["perm"]]) for e in spec["outputs"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise CaseError(case_dir / "case.json", f"corrupt twin entry ({exc.__class__.__name__}: {exc})") from None
    model_path = case_dir / model_rel
    model = _read(model_path, hashes, model_rel)
    inputs = [listing.tensors(ds, f"{fmt}_input", hashes) for ds in listing.sets]
    outputs = [listing.tensors(ds, f"{fmt}_output", hashes) for ds in listing.sets]
    if len(inputs) != n_datasets or any(len(i) != len(ins) for i in inputs) or any(
            len(o) != len(outs) for o in outputs):
        raise CaseError(case_dir, f"the {fmt} twin lacks data: every data set needs {len(ins)} "
                                  f"{fmt}_input_<j>.pb and {len(outs)} {fmt}_output_<j>.pb")
    return LoadedTwin(fmt, model_path, model, inputs, outputs, [n for n, _, _ in ins], [n for n, _, _ in outs],
                      [t for _, t, _ in ins], [t for _, t, _ in outs], [p for _, _, p in ins],
                      [p for _, _, p in outs])


def is_suite(path: Path) -> bool:
    try:
        return json.loads((Path(path) / MANIFEST).read_text())["format"] == SUITE_FORMAT
    except (OSError, ValueError, KeyError, TypeError):
        return False


def write_manifest(suite_dir: Path, options: dict, entries: list[dict]) -> None:
    """entries: one dict per case (name, kind, op, family, opset, params...), sorted by kind and name."""
    counts = {k: sum(1 for e in entries if e["kind"] == k) for k in KINDS}
    manifest = {
        "format": SUITE_FORMAT,
        "generator_version": GENERATOR_VERSION,
        "options": options,
        "counts": counts,
        "cases": sorted(entries, key=lambda e: (e["kind"], e["name"])),
    }
    # one case a line: a manifest of thousands of cases stays small and diffs line by line
    text = dumps_json({**manifest, "cases": ["@CASES@"]}).decode("utf-8")
    lines = ",\n  ".join(json.dumps(e, sort_keys=True, ensure_ascii=False) for e in manifest["cases"])
    text = text.replace('"@CASES@"', lines)
    (Path(suite_dir) / MANIFEST).write_bytes(text.encode("utf-8"))


def read_manifest(suite_dir: Path) -> dict:
    path = Path(suite_dir) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CaseError(path, "missing file") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CaseError(path, f"corrupt manifest ({exc})") from None
