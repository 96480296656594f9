"""What the report shows of one failing item beyond its record, read from the case directory it judged: the
node(s) with their attributes, the opset, the spec clause (case.json "spec") and whether the expectation rests
on a reading (case.json "reading"), the inputs of its data set (in full where small: a QLinearConv's x, w,
scales and zero points), the command that reruns it with pytest and the reproducer command (`opconform repro
CASE[i] --backend B`, runners/repro.py), both built and shell-quoted by runners/commands.py.

A case is found only in a suite the report may read (report_inputs.suites_here: the --suite given, or a
suite the results header names that is here with the manifest the run had) and only under a name and kind
that suite's manifest lists: a record's case name is data, never a path. It is read by
generator.serialize.read_case (every file checked against case.json, nothing read outside the case
directory); a case that cannot be read, or whose content differs from what the run judged, shows why instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx

from generator.serialize import CaseError, LoadedCase, read_case
from runners.commands import NOT_SHOWN, repro_command, rerun_command
from runners.report_inputs import suite_cases
from runners.results import suite_hash

MAX_ELEMENTS = 64  # elements of one tensor shown in full; a larger one shows its first FIRST_ELEMENTS
FIRST_ELEMENTS = 16
MAX_NODES = 8  # nodes of a graph case shown
MAX_TEXT = 200  # characters of one attribute value shown


class Cases:
    """The case directories of a report's suites, each manifest and case read once."""

    def __init__(self) -> None:
        self._kinds: dict[str, dict[str, str]] = {}
        self._read: dict[Path, LoadedCase | str] = {}

    def find(self, suites: list[str], case: str) -> Path | None:
        """The directory of `case` in the first of `suites` whose manifest lists it."""
        for suite in suites:
            kind = self._manifest(suite).get(case)
            if kind is not None:
                return Path(suite) / kind / case
        return None

    def _manifest(self, suite: str) -> dict[str, str]:
        """Name -> kind of the cases the suite's manifest lists under a plain directory name."""
        if suite not in self._kinds:
            try:
                listed = suite_cases(suite, suite_hash(suite))
            except ValueError:
                listed = {}
            self._kinds[suite] = {name: kind for name, kind in listed.items()
                                  if kind and "/" not in name and name not in ("", ".", "..")}
        return self._kinds[suite]

    def read(self, path: Path) -> LoadedCase | str:
        """The case, or one line saying why it cannot be read."""
        if path not in self._read:
            try:
                self._read[path] = read_case(path)
            except CaseError as exc:
                self._read[path] = f"cannot be read here: {exc.problem} ({exc.path})"
            except (OSError, ValueError) as exc:
                self._read[path] = f"cannot be read here: {exc}"
        return self._read[path]


def details(r: dict, cases: Cases, suites: list[str], backend: str, tier: str) -> dict:
    """What the report shows of failing record `r` beside its message: {"nodeid", "rerun", "dir", "repro",
    "not_shown", "problem", "opset", "nodes", "spec", "reading", "inputs"} (the case's parts None / empty where it
    is not found). rerun and repro are commands to paste (runners/commands.py); not_shown says why one that
    would hold an unpastable name is left out."""
    nodeid = r.get("nodeid")
    rerun = rerun_command(nodeid, backend, tier) if nodeid else None
    out = {"nodeid": nodeid, "rerun": rerun, "dir": None, "repro": None, "not_shown": None, "problem": None,
           "opset": None, "nodes": [], "spec": None, "reading": r.get("reading"), "inputs": []}
    if nodeid and rerun is None:
        out["not_shown"] = NOT_SHOWN
    path = cases.find(suites, r["case"]) if suites else None
    if path is None:
        out["problem"] = ("its suite is not here (give it with --suite)" if not suites
                          else "not in the suite found here")
        return out
    out["dir"] = str(path)
    out["repro"] = repro_command(path, r["dataset"], backend, tier)
    if out["repro"] is None:
        out["not_shown"] = NOT_SHOWN
    case = cases.read(path)
    if isinstance(case, str):
        out["problem"] = case
        return out
    if r.get("content") and case.content and r["content"] != case.content:
        out["problem"] = "the case here has other content than the one the run judged (regenerated since?)"
        return out
    meta = case.meta or {}
    out["opset"] = opset_text(case.model)
    out["nodes"] = node_lines(case.model)
    if isinstance(meta.get("spec"), dict):
        out["spec"] = spec_text(meta["spec"])
    out["reading"] = meta.get("reading") if isinstance(meta.get("reading"), str) else out["reading"]
    if 0 <= r["dataset"] < case.n_datasets:
        out["inputs"] = input_lines(case, r["dataset"])
    return out


def spec_text(spec: dict) -> str:
    """case.json's spec as one line, "file: clause" (the file once where the clause already starts with it)."""
    file, clause = str(spec.get("file") or ""), str(spec.get("clause") or "")
    return clause if not file or clause.startswith(file) else f"{file}: {clause}" if clause else file


def opset_text(model: onnx.ModelProto) -> str:
    return ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import)


def node_lines(model: onnx.ModelProto) -> list[str]:
    """Each node as op(attribute=value, ...), inputs -> outputs."""
    nodes = list(model.graph.node)
    lines = []
    for node in nodes[:MAX_NODES]:
        op = f"{node.domain}.{node.op_type}" if node.domain else node.op_type
        attrs = ", ".join(f"{a.name}={_attribute(a)}" for a in node.attribute)
        lines.append(f"{op}({attrs}): {', '.join(node.input)} -> {', '.join(node.output)}")
    if len(nodes) > MAX_NODES:
        lines.append(f"... and {len(nodes) - MAX_NODES} more node(s)")
    return lines


def _attribute(a: onnx.AttributeProto) -> str:
    try:
        value = onnx.helper.get_attribute_value(a)
    except Exception as exc:  # noqa: BLE001 - a case's bytes: any protobuf oddity is shown, never raised
        return f"<unreadable: {exc}>"
    if isinstance(value, onnx.TensorProto):
        text = f"tensor {_type_name(value.data_type)}{list(value.dims)}"
    elif isinstance(value, onnx.GraphProto):
        text = f"graph {value.name!r} of {len(value.node)} node(s)"
    elif isinstance(value, bytes):
        text = repr(value.decode("utf-8", "replace"))
    elif isinstance(value, list):
        text = repr([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value])
    else:
        text = repr(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


def _type_name(elem_type: int) -> str:
    try:
        return onnx.TensorProto.DataType.Name(elem_type).lower()
    except ValueError:
        return f"type {elem_type}"


def input_lines(case: LoadedCase, i: int, limit: int = MAX_ELEMENTS) -> list[str]:
    """"name: type[shape] = values" for each input of data set i, then each initializer of the model (at most
    `limit` elements of each in full: tensor_text)."""
    graph = case.model.graph
    inits = {t.name for t in graph.initializer}
    fed = [v for v in graph.input if v.name not in inits]
    lines = [f"{v.name}: {_type_name(v.type.tensor_type.elem_type)}{_shape(a)} = {tensor_text(a, limit)}"
             for v, a in zip(fed, case.inputs[i])]
    for t in graph.initializer:
        try:
            a = onnx.numpy_helper.to_array(t)
        except Exception:  # noqa: BLE001 - shown as unreadable, the rest still shown
            lines.append(f"{t.name} (initializer): {_type_name(t.data_type)}{list(t.dims)}: unreadable")
            continue
        lines.append(f"{t.name} (initializer): {_type_name(t.data_type)}{_shape(a)} = {tensor_text(a, limit)}")
    return lines


def _shape(a: np.ndarray) -> str:
    return str(list(np.shape(a)))


def tensor_text(a, limit: int = MAX_ELEMENTS) -> str:
    """The elements of a tensor, flattened: all where at most `limit`, else the first FIRST_ELEMENTS."""
    flat = np.asarray(a).reshape(-1)
    first = FIRST_ELEMENTS if limit == MAX_ELEMENTS else limit
    shown = flat if flat.size <= limit else flat[:first]
    text = " ".join(_element(x) for x in shown)
    if flat.size == 1 and np.ndim(a) == 0:
        return text
    more = f" ... ({flat.size - first} more)" if flat.size > limit else ""
    return f"[{text}{more}]"


def _element(x) -> str:
    if isinstance(x, (bytes, str)):
        return repr(x.decode("utf-8", "replace") if isinstance(x, bytes) else x)
    return str(x)  # numpy's shortest text of the element's own type (float32 0.1 is "0.1"; ml_dtypes' too)
