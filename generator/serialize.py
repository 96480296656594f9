"""Case <-> directory, and the suite manifest.

Layout (DESIGN.md): <suite>/manifest.json and <suite>/<kind>/<name>/ holding model.onnx,
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

import errno
import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import dtypes, jsontext
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
    if not dtype.onnx_knows:  # a type of a newer onnx than the installed one: the same bytes, made here
        tensor = onnx.TensorProto(name=name, data_type=dtype.onnx, dims=array.shape, raw_data=dtype.to_raw(array))
        return tensor.SerializeToString(deterministic=True)
    tensor = numpy_helper.from_array(array, name=name)
    if tensor.data_type != dtype.onnx:
        raise ValueError(f"{name}: numpy gave element type {tensor.data_type}, expected {dtype.name}")
    return tensor.SerializeToString(deterministic=True)


def read_tensor(data: bytes, path: Path) -> np.ndarray:
    """The array a serialized TensorProto holds (strings as str). Raises CaseError naming `path`."""
    return _tensor(data, path, None)


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


def content_hash(case_json_bytes: bytes) -> str:
    """The content hash of a case: the sha256 of its case.json's bytes. case.json lists the sha256 of every
    other file of the case, so this one hash covers the whole case."""
    return sha256(case_json_bytes)


# ---------------------------------------------------------------------------------------
# case.json: the fields the runners read, each checked (a wrong type is a damaged case, never a crash)
# ---------------------------------------------------------------------------------------
COMPARE_MODES = {  # compare mode (runners/compare.py) -> the parameters it needs
    "exact": (), "ulp": ("ulp",), "abs": ("abs",), "allclose": ("rtol", "atol"), "parsed": ("source_type",),
    "default": (), "none": (),
}
PHASES = ("prepare", "run")  # where a negative case's model must be refused
_FAMILY = re.compile(r"[a-z][a-z0-9_]*")  # a module name: the diagnosis imports a family's fault models by it
_FORMAT = re.compile(r"[a-z][a-z0-9]*")  # a twin's format names its data files (<format>_input_<j>.pb)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class _Bad(Exception):
    """A field of case.json that fails its check: where (a dotted path) and what is wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(f'field "{where}": {problem}')


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _need(ok: bool, where: str, expected: str, value) -> None:
    if not ok:
        raise _Bad(where, f"expected {expected}, got {_shown(value)}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_amount(v) -> bool:
    """A finite number >= 0 (a tolerance)."""
    return (_is_int(v) or isinstance(v, float)) and math.isfinite(v) and v >= 0


def _dtype(name_or_enum: str | int) -> dtypes.DType | None:
    try:
        return dtypes.get(name_or_enum)
    except KeyError:
        return None


def _is_numeric_type(v) -> bool:
    return isinstance(v, str) and _dtype(v) is not None and _dtype(v).is_numeric


def _string(where: str, v) -> None:
    _need(isinstance(v, str), where, "a string", v)


def _name(where: str, v) -> None:
    _need(isinstance(v, str) and v != "", where, "a non-empty string", v)


def _family(where: str, v) -> None:
    _need(isinstance(v, str) and _FAMILY.fullmatch(v) is not None, where,
          "a family name in lower snake case", v)


def _kind(where: str, v) -> None:
    _need(isinstance(v, str) and v in KINDS, where, "one of " + ", ".join(f'"{k}"' for k in KINDS), v)


def _opset(where: str, v) -> None:
    _need(_is_int(v) and v >= 1, where, "a positive integer", v)


def _object(where: str, v) -> None:
    _need(isinstance(v, dict), where, "an object", v)


def _strings(where: str, v) -> None:
    _need(isinstance(v, list) and all(isinstance(s, str) for s in v), where, "a list of strings", v)


def _phase(where: str, v) -> None:
    _need(isinstance(v, str) and v in PHASES, where, " or ".join(f'"{p}"' for p in PHASES), v)


def _negative(where: str, v) -> None:
    _object(where, v)
    if "phase" in v:
        _phase(f"{where}.phase", v["phase"])


def _native(where: str, v) -> None:
    _object(where, v)
    if "ops" in v:
        _strings(f"{where}.ops", v["ops"])
    if "reason" in v:
        _string(f"{where}.reason", v["reason"])


def is_case_path(rel) -> bool:
    """A path as case.json lists files: relative, with "/" between non-empty parts, no "." or ".."."""
    return isinstance(rel, str) and not rel.startswith("/") and all(
        part not in ("", ".", "..") for part in rel.split("/"))


def _sha256s(where: str, v) -> None:
    _object(where, v)
    for rel, digest in v.items():
        _need(is_case_path(rel), f"{where}", "file paths relative to the case directory", rel)
        _need(isinstance(digest, str) and _SHA256.fullmatch(digest) is not None, f"{where}[{rel}]",
              "a sha256 in lower-case hex", digest)


_COMPARE_PARAMS = {  # key of a compare spec -> (what it must be, check)
    "mode": ("one of " + ", ".join(COMPARE_MODES), lambda v: isinstance(v, str) and v in COMPARE_MODES),
    "reason": ("a string", lambda v: isinstance(v, str)),
    "nan_sign": ("true or false", lambda v: isinstance(v, bool)),
    "ulp": ("an integer from 0 to 2**64 - 1", lambda v: _is_int(v) and 0 <= v < 2**64),
    "abs": ("a finite number >= 0", _is_amount),
    "rtol": ("a finite number >= 0", _is_amount),
    "atol": ("a finite number >= 0", _is_amount),
    "rel": ("a finite number >= 0", _is_amount),
    "source_type": ("the name of a numeric element type", _is_numeric_type),
}


def _compare(where: str, v, nested: tuple[str, ...] = ("tolerant", "outputs")) -> None:
    """A compare spec (runners/compare.py's docstring): the parameters, a "tolerant" override, per-output
    specs under "outputs" (which may have their own "tolerant"). Keys compare does not read are left alone."""
    _object(where, v)
    for key, sub in v.items():
        here = f"{where}.{key}"
        if key in ("tolerant", "outputs"):
            if key not in nested:
                raise _Bad(here, f"not allowed inside {where.rsplit('.', 1)[-1]!r}")
            _object(here, sub)
            if key == "tolerant":
                _compare(here, sub, nested=())
            else:
                for output, spec in sub.items():
                    _compare(f"{here}.{output}", spec, nested=("tolerant",))
        elif key in _COMPARE_PARAMS:
            expected, ok = _COMPARE_PARAMS[key]
            _need(ok(sub), here, expected, sub)


def merge_compare(spec: dict, output: str, tolerant: bool) -> dict:
    """The compare spec of one output in one tier: the top-level keys, updated with the output's own spec,
    then (tier "tolerant") with its "tolerant" override, else the top-level one."""
    merged = {k: v for k, v in spec.items() if k != "outputs"}
    merged.update({k: v for k, v in ((spec.get("outputs") or {}).get(output) or {}).items() if k != "outputs"})
    override = merged.pop("tolerant", None)
    if tolerant and override:
        merged.update(override)
    return merged


def compare_problem(spec, outputs: list[tuple[str, dtypes.DType]]) -> str | None:
    """Why a compare spec cannot judge these outputs (name, element type) in every tier, or None: each must
    resolve to a known mode with its parameters ("parsed" only for string outputs)."""
    try:
        _compare("compare", spec)
    except _Bad as exc:
        return str(exc)
    for name, dt in outputs:
        for tier in ("strict", "tolerant"):
            merged = merge_compare(spec, name, tier == "tolerant")
            mode = merged.get("mode")
            missing = [k for k in COMPARE_MODES.get(mode, ("mode",)) if k not in merged]
            where = f'field "compare": output {name!r}, tier {tier}'
            if missing:
                return f'{where}: no "{missing[0]}"'
            if mode == "parsed" and dt.kind != "string":
                return f'{where}: mode "parsed" needs a string output, not {dt.name}'
    return None


def _perm(where: str, v) -> None:
    _need(isinstance(v, list) and all(_is_int(p) for p in v) and sorted(v) == list(range(len(v))), where,
          "a permutation of 0 .. rank - 1", v)


def _element_type(where: str, v) -> None:
    _need(isinstance(v, str) and _dtype(v) is not None, where, "the name of an element type", v)


def _twin_entries(where: str, v) -> None:
    _need(isinstance(v, list), where, "a list", v)
    for i, entry in enumerate(v):
        here = f"{where}[{i}]"
        _object(here, entry)
        for key, check in (("name", _string), ("onnx", _string), ("perm", _perm), ("type", _element_type)):
            if key not in entry:
                raise _Bad(f"{here}.{key}", "missing")
            check(f"{here}.{key}", entry[key])


def _twin(where: str, v) -> None:
    _object(where, v)
    for key in ("format", "model", "inputs", "outputs"):
        if key not in v:
            raise _Bad(f"{where}.{key}", "missing")
    # "onnx" is the case's own model, not a twin
    _need(isinstance(v["format"], str) and _FORMAT.fullmatch(v["format"]) is not None
          and v["format"] != "onnx", f"{where}.format", 'a lower-case format name such as "tflite"', v["format"])
    _name(f"{where}.model", v["model"])  # confined to the case directory when read (_CaseReader.inside)
    _twin_entries(f"{where}.inputs", v["inputs"])
    _twin_entries(f"{where}.outputs", v["outputs"])


# case.json field -> its check; a field that is present must pass it (the runners read these)
CASE_FIELDS = {
    "name": _name,
    "kind": _kind,
    "op": _string,
    "domain": _string,
    "family": _family,
    "opset": _opset,
    "params": _object,
    "flags": _strings,
    "undefined": _strings,  # a probe's reasons (opconform hunt keys its probes by them)
    "reading": _string,  # what a judged expectation rests on where no sentence states it (results carry it)
    "sha256": _sha256s,
    "phase": _phase,
    "negative": _negative,
    "native": _native,
    "compare": _compare,
    "twin": _twin,
}
REQUIRED_FIELDS = ("sha256",)


def meta_problem(meta) -> str | None:
    """The first field of a parsed case.json that the runners cannot use as it is, as
    'field "family": expected a string, got 17'; None if every field passes its check (CASE_FIELDS)."""
    if not isinstance(meta, dict):
        return f"expected a JSON object, got {_shown(meta)}"
    for key in REQUIRED_FIELDS:
        if key not in meta:
            return f'field "{key}": missing'
    try:
        for key, check in CASE_FIELDS.items():
            if key in meta:
                check(key, meta[key])
    except _Bad as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------------------
# reading a case's files: confined, regular, bounded, hash-checked
# ---------------------------------------------------------------------------------------
# Size bounds, checked before a file is read (the committed suite's largest files: a data file of 256 KiB,
# the 1x256x256 float32 tensors of test_layout_softmax_last_axis_1x256x256; model.onnx 10 KiB;
# case.json 17 KiB). A tensor file whose model declares a static shape and a known element type can take
# at most MAX_BYTES_PER_ELEMENT per element plus TENSOR_OVERHEAD; any other file MAX_FILE_BYTES.
MAX_FILE_BYTES = 256 << 20  # model.onnx, a twin model, external data, a tensor of dynamic shape or strings
MAX_CASE_JSON_BYTES = 16 << 20
MAX_BYTES_PER_ELEMENT = 11  # the widest encoding of one element: a 10-byte varint (a negative int32 in
#                             int32_data) with its field tag (repeated fields may be written unpacked)
TENSOR_OVERHEAD = 64 << 10  # the name, dims, doc string... of a TensorProto

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: opening a FIFO never waits


@dataclass(frozen=True)
class _Slot:
    """What the model declares for one data file: the tensor's name, element type (TensorProto enum, 0 when
    it is no tensor) and dims (None unless every dim is a static size)."""

    name: str
    elem_type: int
    dims: tuple[int, ...] | None

    @staticmethod
    def of(value: onnx.ValueInfoProto) -> "_Slot":
        if not value.type.HasField("tensor_type"):
            return _Slot(value.name, 0, None)
        t = value.type.tensor_type
        dims = tuple(d.dim_value for d in t.shape.dim)
        static = t.HasField("shape") and all(d.HasField("dim_value") and d.dim_value >= 0 for d in t.shape.dim)
        return _Slot(value.name, t.elem_type, dims if static else None)

    def max_bytes(self) -> int:
        dt = _dtype(self.elem_type)
        if self.dims is None or dt is None or not dt.is_numeric:
            return MAX_FILE_BYTES
        return min(MAX_FILE_BYTES, math.prod(self.dims) * MAX_BYTES_PER_ELEMENT + TENSOR_OVERHEAD)


def _type_name(elem_type: int) -> str:
    dt = _dtype(elem_type)
    return dt.name if dt else f"element type {elem_type}"


def _file_kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


class _CaseReader:
    """Every file of a case is read through here. A file is read only if it lies inside the case directory
    (a symlink is followed only to a file inside it), is a regular file (not a FIFO, device or directory:
    checked on the open descriptor, before any read) and is no larger than its bound; with case.json it must
    be listed there and match its sha256. The entries of the case directory and of its test_data_set_<i>
    directories are listed once (one listing per directory instead of a stat per file)."""

    def __init__(self, case_dir: Path):
        self.case_dir = case_dir
        self._dir = os.fspath(case_dir)  # reads join strings: pathlib costs more than the open per file
        self.hashes: dict[str, str] | None = None
        self._root: Path | None = None
        self.sets: list[str] = []
        self.names: dict[str, set[str]] = {}

    @property
    def dir_name(self) -> str:
        """The name of the case directory ("." and ".." resolved)."""
        name = self.case_dir.name
        return name if name not in ("", "..") else self.root.name

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = self.case_dir.resolve()
        return self._root

    def inside(self, rel: str, what: str, named: Path) -> str:
        """`rel` (a path that case.json or the model gives) as a normalized path relative to the case
        directory, if it stays inside it with symlinks followed; else CaseError naming the file `named`."""
        try:
            target = (self.case_dir / rel).resolve()
        except (ValueError, RuntimeError, OSError) as exc:  # a NUL byte, a symlink loop, a name too long
            raise CaseError(named, f"{what} {rel!r} cannot be resolved ({exc}); refused") from None
        if Path(rel).is_absolute() or not target.is_relative_to(self.root) or target == self.root:
            raise CaseError(named, f"{what} {rel!r} points outside the case directory; refused")
        return target.relative_to(self.root).as_posix()

    def _open(self, rel: str) -> int:
        try:
            return os.open(f"{self._dir}/{rel}", _OPEN_FLAGS)
        except FileNotFoundError:
            raise CaseError(self.case_dir / rel, "missing file") from None
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise CaseError(self.case_dir / rel, f"cannot read ({exc.strerror})") from None
        # a symlink (O_NOFOLLOW): followed only to a file inside the case directory
        target = self.inside(rel, "symlink", self.case_dir / rel)
        try:
            return os.open(f"{self._dir}/{target}", _OPEN_FLAGS)
        except OSError as exc:
            raise CaseError(self.case_dir / rel, f"cannot read the symlink's target ({exc.strerror})") from None

    def read(self, rel: str, limit: int = MAX_FILE_BYTES, listed: bool = True) -> bytes:
        """The bytes of case file `rel` (a path whose directories are the case's own: the case directory, a
        listed data set directory, or a path `inside` gave). listed=False: case.json itself."""
        fd = self._open(rel)
        try:
            data = _read_bounded(fd, limit)
        except ValueError as exc:
            raise CaseError(self.case_dir / rel, f"{exc}; refused") from None
        except OSError as exc:
            raise CaseError(self.case_dir / rel, f"cannot read ({exc.strerror})") from None
        finally:
            os.close(fd)
        if listed and self.hashes is not None:
            want = self.hashes.get(rel)
            if want is None:
                raise CaseError(self.case_dir / rel, "file not listed in case.json sha256")
            if sha256(data) != want:
                raise CaseError(self.case_dir / rel, "sha256 mismatch: the file differs from what case.json records")
        return data

    def list_sets(self) -> None:
        """The test_data_set_<i> directories, in order, and the names in each."""
        try:
            with os.scandir(self.case_dir) as entries:
                found = [e for e in entries if e.name.startswith("test_data_set_") and e.is_dir()]
        except OSError as exc:
            raise CaseError(self.case_dir, f"cannot list ({exc.strerror})") from None
        for e in found:
            if e.is_symlink():
                self.inside(e.name, "symlink", self.case_dir / e.name)
        try:
            self.sets = sorted((e.name for e in found), key=lambda n: int(n.rsplit("_", 1)[1]))
        except ValueError:
            raise CaseError(self.case_dir, "data set directory not named test_data_set_<i>") from None
        for ds in self.sets:
            try:
                self.names[ds] = set(os.listdir(self.case_dir / ds))
            except OSError as exc:
                raise CaseError(self.case_dir / ds, f"cannot list ({exc.strerror})") from None

    def count(self, ds: str, prefix: str) -> int:
        """How many of <prefix>_0.pb, <prefix>_1.pb ... data set `ds` holds without a gap."""
        j = 0
        while f"{prefix}_{j}.pb" in self.names[ds]:
            j += 1
        return j

    def tensors(self, ds: str, prefix: str, slots: list[_Slot] | None, check: bool) -> list[np.ndarray]:
        """<prefix>_<j>.pb of data set `ds`: one per slot, each bounded by its slot and, with `check`, of the
        slot's element type and static shape; slots=None: up to the first missing one, bounded by
        MAX_FILE_BYTES."""
        n = self.count(ds, prefix) if slots is None else len(slots)
        if slots is not None:
            self._exactly(ds, prefix, n)
        arrays = []
        for j in range(n):
            rel = f"{ds}/{prefix}_{j}.pb"
            slot = slots[j] if slots is not None else None
            data = self.read(rel, slot.max_bytes() if slot else MAX_FILE_BYTES)
            arrays.append(_tensor(data, f"{self._dir}/{rel}", slot if check else None))
        return arrays

    def _exactly(self, ds: str, prefix: str, n: int) -> None:
        have = self.count(ds, prefix)
        wanted = f"{prefix}_0.pb .. {prefix}_{n - 1}.pb" if n else f"no {prefix}_<j>.pb"
        if have < n:
            raise CaseError(self.case_dir / ds / f"{prefix}_{have}.pb",
                            f"missing file (the model has {n} {prefix}s: every data set needs {wanted})")
        if f"{prefix}_{n}.pb" in self.names[ds]:
            raise CaseError(self.case_dir / ds / f"{prefix}_{n}.pb",
                            f"one file too many (the model has {n} {prefix}s: {wanted})")

    def exists(self, rel: str) -> bool:
        ds, sep, name = rel.partition("/")
        if sep and "/" not in name and ds in self.names:
            return name in self.names[ds]
        return (self.case_dir / rel).exists()


def _read_bounded(fd: int, limit: int) -> bytes:
    """The content of an open file if it is a regular file of at most `limit` bytes (checked on the
    descriptor before reading); else ValueError saying what it is."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{_file_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit:
        raise ValueError(f"{st.st_size} bytes, more than the {limit} it can take")
    parts, total = [], 0
    while chunk := os.read(fd, max(st.st_size + 1 - total, 1 << 16)):  # +1: a file that grew is seen
        total += len(chunk)
        if total > limit:
            raise ValueError(f"more than the {limit} bytes it can take")
        parts.append(chunk)
    return b"".join(parts)


def _tensor(data: bytes, path: Path | str, slot: _Slot | None) -> np.ndarray:
    """The tensor stored in `data`, of the element type and static shape `slot` declares (if given)."""
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
    except Exception as exc:  # protobuf raises several types for corrupt bytes
        raise CaseError(path, f"not a valid TensorProto ({_protobuf_problem(exc)})") from None
    if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
        # before any conversion: numpy_helper.to_array would read the file, relative to the working directory
        raise CaseError(path, "external data in a data file; refused")
    if slot is not None and slot.elem_type and tensor.data_type != slot.elem_type:
        raise CaseError(path, f"a {_type_name(tensor.data_type)} tensor, but the model declares "
                              f"{_type_name(slot.elem_type)} for {slot.name!r}")
    if slot is not None and slot.dims is not None and tuple(tensor.dims) != slot.dims:
        raise CaseError(path, f"shape {list(tensor.dims)}, but the model declares {list(slot.dims)} for {slot.name!r}")
    return _to_array(tensor, path)


def _to_array(tensor: onnx.TensorProto, path: Path | str) -> np.ndarray:
    dt = _dtype(tensor.data_type)
    if dt is not None and not dt.onnx_knows:  # a type of a newer onnx than the installed one: decoded here
        if not tensor.HasField("raw_data") and math.prod(tensor.dims):
            raise CaseError(path, f"{dt.name} data outside raw_data, which this onnx ({dtypes.ONNX_VERSION}) "
                                  "cannot convert")
        try:
            return dt.from_raw(tensor.raw_data, tuple(tensor.dims))
        except ValueError as exc:
            raise CaseError(path, f"not a valid TensorProto ({exc})") from None
    try:
        array = numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - a tensor whose data does not fit its type and dims
        raise CaseError(path, f"not a valid TensorProto ({exc.__class__.__name__}: {exc})") from None
    if tensor.data_type == onnx.TensorProto.STRING:
        array = np.vectorize(lambda s: s.decode("utf-8") if isinstance(s, bytes) else s,
                             otypes=[object])(array) if array.size else array.astype(object)
    return array


def _protobuf_problem(exc: Exception) -> str:
    """One line saying why protobuf refused to parse a file."""
    text = " ".join(str(exc).split())
    if isinstance(exc, RecursionError) or any(w in text for w in ("MaxDepth", "nesting", "recursion")):
        return "nested deeper than protobuf's recursion limit"
    return f"{exc.__class__.__name__}: {text[:200]}" if text else exc.__class__.__name__


def _model_tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
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


def _load_external_data(model: onnx.ModelProto, reader: _CaseReader, model_path: Path) -> None:
    """Tensors stored outside model.onnx must live inside the case directory (a case must not make a
    runner read files elsewhere) and are hash-checked like every other file; they are loaded here, so that
    no tensor of the model handed to a backend still stores its data externally (_model_tensors: every
    tensor, wherever it is). Stray external_data entries of a tensor whose data is inline are dropped."""
    loaded: dict[str, bytes] = {}
    for tensor in _model_tensors(model):
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


def read_meta(case_dir: Path | str) -> tuple[dict, bytes] | None:
    """A case's case.json, checked field by field (CASE_FIELDS), and its bytes; None for a plain ONNX
    node-test directory. Raises CaseError."""
    return _read_meta(_CaseReader(Path(case_dir)))


def _read_meta(reader: _CaseReader) -> tuple[dict, bytes] | None:
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
        raise CaseError(path, f'field "name": {_shown(meta["name"])} differs from the name of the case\'s '
                              f"directory, {reader.dir_name!r} (a case is known by its directory)")
    return meta, raw


def _read_model(reader: _CaseReader) -> onnx.ModelProto:
    model_path = reader.case_dir / "model.onnx"
    model = onnx.ModelProto()
    data = reader.read("model.onnx")
    try:
        model.ParseFromString(data)
    except Exception as exc:
        raise CaseError(model_path, f"not a valid ONNX model ({_protobuf_problem(exc)})") from None
    if not model.graph.node:
        raise CaseError(model_path, "model has no nodes (truncated or corrupt)")
    _load_external_data(model, reader, model_path)
    return model


def read_case(case_dir: Path | str) -> LoadedCase:
    """Read a case directory, checking every file against case.json. Raises CaseError.

    Node / graph / probe data sets must hold one input_<j>.pb per graph input that is not an initializer
    (an omitted optional input is no graph input), node / graph ones one output_<j>.pb per graph output,
    each of the element type and static shape the model declares. A negative case's data sets are fed to
    the backend as they are (it must refuse the model whatever they hold)."""
    reader = _CaseReader(Path(case_dir))
    read = _read_meta(reader)
    meta, raw = read if read else (None, b"")
    reader.hashes = meta["sha256"] if meta else None
    model = _read_model(reader)
    kind = meta.get("kind", "node") if meta else "node"
    inits = {i.name for i in model.graph.initializer}
    in_slots = [_Slot.of(v) for v in model.graph.input if v.name not in inits]
    out_slots = [_Slot.of(v) for v in model.graph.output]
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


def _judged_outputs(reader: _CaseReader, model: onnx.ModelProto) -> list[tuple[str, dtypes.DType]]:
    """(name, element type) of the outputs a node / graph case is judged on: every graph input and output
    must be a tensor of a type opconform knows (the runner compares in it)."""
    try:
        return graph_io_types(model)[1]
    except KeyError as exc:
        raise CaseError(reader.case_dir / "model.onnx", f"a graph input or output of no known tensor type "
                                                        f"({exc.args[0]})") from None


def _read_twin(reader: _CaseReader, meta: dict, in_slots: list[_Slot], out_slots: list[_Slot]) -> LoadedTwin:
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


def _twin_slot(entry: dict, onnx_slot: _Slot | None) -> _Slot:
    """What a twin data file must hold: the entry's element type; the ONNX tensor's shape, permuted."""
    dims = None
    if onnx_slot is not None and onnx_slot.dims is not None and len(entry["perm"]) == len(onnx_slot.dims):
        dims = tuple(onnx_slot.dims[p] for p in entry["perm"])
    return _Slot(entry["name"], dtypes.get(entry["type"]).onnx, dims)


def _manifest_bytes(suite_dir: Path | str) -> bytes:
    """manifest.json, read as a case's files are (a regular file of at most MAX_FILE_BYTES). Raises CaseError."""
    return _CaseReader(Path(suite_dir)).read(MANIFEST, listed=False)


def is_suite(path: Path) -> bool:
    try:
        return jsontext.loads(_manifest_bytes(path))["format"] == SUITE_FORMAT
    except (CaseError, ValueError, KeyError, TypeError):
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
        return jsontext.loads(_manifest_bytes(suite_dir))
    except ValueError as exc:  # UnicodeDecodeError included
        raise CaseError(path, f"corrupt manifest ({exc})") from None
