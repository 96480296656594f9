"""`opconform repro CASE[i] --backend B`: one item run alone, shown whole.

    opconform repro CASE_DIR[i] --backend B [--backend-option K=V ...] [--tier strict|tolerant] [--script FILE]

Runs data set i of the case directory through the same code a suite run uses (runners/execute.py:
run_case_dataset, which compares with runners/compare.py) in this process, and prints the node and its
attributes, the opset, the spec clause and any reading, the inputs, the expected and the actual outputs
(every element up to SHOWN_ELEMENTS per tensor), and the verdict with its message. Exit status: 0 the item
passes (or is a probe), 1 it does not (the failure reproduced), 2 bad input (no such case, a data set out
of range, an unknown backend or option), one line on stderr.

With --script FILE it writes instead a short standalone script that reproduces the item with the runtime
alone, needing no opconform: Python (numpy, onnx and the backend's package) for onnxruntime (the run's session
settings), onnx's ReferenceEvaluator, tract, tinygrad, IREE and OpenVINO, each run as its adapter runs it in the
runtime's public API (runners/repro_scripts.py: local functions inlined where the adapter inlines them, IREE's
compiler flags and runtime device, OpenVINO's device and hints, tinygrad's DEV, tract's runtime); JavaScript (FILE
must end in .mjs: `node FILE.mjs [DIR]`, Node and the npm package alone) for onnxruntime-node and onnxruntime-web
(runners/repro_js.py). The model and fed inputs are the run's: with --inputs auto, a backend that refuses a fed
weight in its own words gets the weights as initializers, as the run did (known by running the item). The model,
inputs and expected outputs are in the script; it prints the elements whose bits differ (a NaN matches a NaN; an
element type other than the declared one differs whole) and exits 1 when any does. The case's own comparison (its
tolerances, parsed strings) is opconform's: the script names it and compares bits. No suite text (the case's path
and name, its compare reason, names in its model) is ever code in the script: what the script says of the item is
in comments, each line escaped (printable) and prefixed with "# " (or "// "); settings are ascii() (JSON) literals;
the model, tensors and (in JavaScript) names are base64 literals; names the script prints are escaped as it
prints them.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import numpy as np
import onnx

from generator.serialize import CaseError, LoadedCase, graph_io_types, read_case, tensor_bytes
from runners.backends.base import UnknownBackend, parse_options
from runners.backends.registry import get_backend
from runners.escape import printable
from runners.execute import backend_identity, run_case_dataset
from runners.input_modes import DEFAULT, baked_tensors, build_model, fed_inputs, weight_inputs
from runners.report_items import input_lines, node_lines, opset_text, spec_text, tensor_text

SHOWN_ELEMENTS = 4096  # elements of one tensor printed (the rest counted)
ITEM = re.compile(r"(.+)\[([0-9]+)\]", re.S)
SCRIPT_BACKENDS = ("onnxruntime", "onnx-reference", "tract", "tinygrad", "iree", "openvino", "onnxruntime-node",
                   "onnxruntime-web")  # the runtimes a standalone script is written for


class ReproError(ValueError):
    """Bad input to `opconform repro`; str() is one line."""


def parse_item(text: str) -> tuple[Path, int]:
    """CASE_DIR[i] -> (the case directory, i); CASE_DIR alone is data set 0."""
    m = ITEM.fullmatch(text)
    return (Path(m.group(1)), int(m.group(2))) if m else (Path(text), 0)


def load(item: str) -> tuple[LoadedCase, int]:
    path, i = parse_item(item)
    if not path.is_dir():
        raise ReproError(f"{path}: no such case directory (give CASE_DIR[i], e.g. cases/node/test_x[0])")
    try:
        case = read_case(path)
    except CaseError as exc:
        raise ReproError(f"{exc.path}: {exc.problem}") from None
    if case.kind not in ("node", "graph", "probe", "negative"):
        raise ReproError(f"{path}: a {case.kind} case cannot be run")
    n = case.n_datasets
    if not 0 <= i < max(n, 1 if case.kind == "negative" else 0):
        raise ReproError(f"{path}[{i}]: no such data set (the case has {n}: 0..{n - 1})" if n else
                         f"{path}: the case has no data sets")
    return case, i


def backend_for(name: str, options: list[str]):
    try:
        return get_backend(name, parse_options(options))
    except (UnknownBackend, ValueError) as exc:
        raise ReproError(f"--backend {name}: {exc}") from None


class _Recording:
    """The backend, with what its last run returned kept (the actual outputs the verdict judged)."""

    def __init__(self, backend):
        self._backend = backend
        self.returned = None

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def run(self, prepared, inputs):
        self.returned = self._backend.run(prepared, inputs)
        return self.returned


def repro(item: str, backend_name: str, options: list[str], tier: str = "strict", out=sys.stdout) -> int:
    """Run and print one item (the module's docstring); the exit status."""
    case, i = load(item)
    backend = _Recording(backend_for(backend_name, options))
    result = run_case_dataset(backend, case, i, tier, {})
    name, version, settings = backend_identity(backend._backend)
    meta = case.meta or {}
    spec = meta.get("spec") if isinstance(meta.get("spec"), dict) else {}
    lines = [f"case      {case.dir}[{i}] ({case.kind}, family {meta.get('family', '?')})"]
    lines += [f"node      {n}" for n in node_lines(case.model)]
    lines.append(f"opset     {opset_text(case.model)}")
    if spec:
        lines.append(f"spec      {spec_text(spec)}")
    if isinstance(meta.get("reading"), str):
        lines.append(f"reading   {meta['reading']}")
    lines.append(f"backend   {name} {version} {settings}, tier {tier}")
    lines.append("inputs")
    lines += [f"  {line}" for line in input_lines(case, i, SHOWN_ELEMENTS)]
    _, outs = graph_io_types(case.model)
    if case.outputs is not None:
        lines.append("expected")
        lines += [f"  {n}: {t.name}{list(np.shape(a))} = {tensor_text(a, SHOWN_ELEMENTS)}"
                  for (n, t), a in zip(outs, case.outputs[i])]
    lines.append("actual")
    actual = backend.returned
    if isinstance(actual, (list, tuple)):
        lines += [f"  {n}: {np.asarray(a).dtype}{list(np.shape(a))} = {tensor_text(a, SHOWN_ELEMENTS)}"
                  for (n, _), a in zip(outs + [(f"output_{j}", None) for j in range(len(outs), len(actual))],
                                       actual)]
    else:
        lines.append(f"  {result.error or 'nothing returned'}")
    lines.append(f"verdict   {result.verdict}")
    lines.append(result.message)
    out.write(printable("\n".join(lines), newlines=True) + "\n")
    return 0 if result.verdict in ("pass", "probe") else 1


# ---- the standalone script ---------------------------------------------------------------------------

def write_script(item: str, backend_name: str, options: list[str], path: Path | str) -> Path:
    """Write the standalone reproducer of one item (the module's docstring) to `path` (a new file or one
    this command wrote). ReproError for a backend no script is written for."""
    from runners import repro_js, repro_scripts

    case, i = load(item)
    if backend_name not in SCRIPT_BACKENDS:
        raise ReproError(f"--script: scripts are written for {', '.join(SCRIPT_BACKENDS)}; for {backend_name} run "
                         "`opconform repro` without --script")
    if case.kind not in ("node", "graph"):
        raise ReproError(f"--script: {case.dir} is a {case.kind} case (a script reproduces node and graph cases)")
    path = Path(path)
    javascript = backend_name in repro_js.BACKENDS
    if javascript != (path.suffix == ".mjs"):
        raise ReproError(f"--script {path}: {backend_name}'s script is "
                         + ("JavaScript: give a FILE ending in .mjs (run with node)" if javascript else
                            "Python: give a FILE not ending in .mjs"))
    backend = backend_for(backend_name, options)
    name, version, settings = backend_identity(backend)
    if path.is_symlink() or (path.exists() and SCRIPT_MARK_TEXT not in path.read_text(errors="replace")[:2000]):
        raise ReproError(f"--script {path}: exists and is not a script opconform repro wrote (choose another path)")
    model, inputs, how = _as_run(backend, case, i)
    graph_ins, outs = graph_io_types(model)
    compare = (case.meta or {}).get("compare")
    reason = compare.get("reason") if isinstance(compare, dict) else None
    about = [("item", f"{case.dir}[{i}]"), ("backend", f"{name} {version}"),
             ("settings", json.dumps(settings, sort_keys=True)), ("inputs", how),
             ("opconform judged it with", reason if isinstance(reason, str) else "the case's compare spec")]
    if javascript:
        try:
            text = repro_js.script(backend, model, list(zip(graph_ins, inputs)), list(zip(outs, case.outputs[i])),
                                   SCRIPT_MARK_TEXT, [_comment(k, v, "//") for k, v in about])
        except ValueError as exc:
            raise ReproError(str(exc)) from None
    else:
        run = repro_scripts.block(backend, model)
        text = SCRIPT.format(
            mark=SCRIPT_MARK, about="\n".join(_comment(k, v) for k, v in about), needs=run.needs,
            model=_b64(model.SerializeToString()), inputs=_tensors(inputs, graph_ins),
            expected=_tensors(case.outputs[i], outs), run=run.run)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


SCRIPT_MARK_TEXT = "written by opconform repro --script"
SCRIPT_MARK = f"# {SCRIPT_MARK_TEXT}"


def _as_run(backend, case: LoadedCase, i: int) -> tuple[onnx.ModelProto, list, str]:
    """The model and fed inputs of the item as the run builds them, and how: the case's model fed, or (--inputs
    auto, a backend that refuses a fed weight in its own words) its weights as initializers where the backend
    refuses them fed; that is known by running the item, for those backends only."""
    fed = "the case's model, every input fed"
    if getattr(backend, "CONSTANT_ONLY", None) is None or not weight_inputs(case.model):
        return case.model, list(case.inputs[i]), fed
    if getattr(run_case_dataset(backend, case, i, "strict", {}), "inputs", None) != "initializers":
        return case.model, list(case.inputs[i]), fed
    mode = DEFAULT.fallback()
    model = build_model(case.model, baked_tensors(case.model, case.inputs[i], mode), False)
    return (model, fed_inputs(case.model, case.inputs[i], mode),
            f"weights as initializers ({', '.join(sorted(weight_inputs(case.model)))}), as --inputs auto ran the "
            f"item: {backend.name} refuses them fed")


def _comment(label: str, text: str, prefix: str = "#") -> str:
    """`# label: text`, a line of the text per comment line, every one escaped: a line feed, CR or other
    control character in suite text can end no comment (Python ends one only at a line's end; JavaScript at
    U+2028 / U+2029 too, which are escaped as well)."""
    first, *rest = str(text).split("\n")
    return "\n".join([f"{prefix} {label}: {printable(first)}", *(f"{prefix}   {printable(line)}" for line in rest)])


def _b64(data: bytes) -> str:
    return repr(base64.b64encode(data).decode("ascii"))


def _tensors(arrays, names_types) -> str:
    """The tensors as base64 literals of TensorProtos in their declared types (generator.serialize's writer:
    float8, int4, bfloat16 keep their bits; raw_data always)."""
    return "[" + ", ".join(_b64(tensor_bytes(a, n, t)) for a, (n, t) in zip(arrays, names_types)) + "]"


SCRIPT = '''#!/usr/bin/env python3
{mark}
"""Reproduces one item of a conformance suite (the comments below say which), standalone: needs {needs}.
It compares bits (a NaN matches a NaN) and prints the elements that differ; exit status 1 when any does."""
{about}
import base64
import sys

import numpy as np
import onnx
from onnx import numpy_helper

MODEL = base64.b64decode({model})
INPUTS = {inputs}
EXPECTED = {expected}


def tensor(data):
    t = onnx.TensorProto()
    t.ParseFromString(base64.b64decode(data))
    return t


def declared(data_type, dims, raw):  # raw bytes read in an ONNX element type (ONNX's packing: int4 two a byte)
    return numpy_helper.to_array(onnx.helper.make_tensor("y", data_type, list(dims), raw, raw=True))

{run}

def shown(x):  # a name or string element from the model, its control and bidi characters escaped
    if not isinstance(x, (str, bytes)):
        return format(x)
    text = x.decode("utf-8", "replace") if isinstance(x, bytes) else x
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def bits(a):
    a = np.asarray(a)
    return a if a.dtype.kind in "OSU" else a.view(f"u{{a.dtype.itemsize}}")


def nan(a):
    try:
        return np.isnan(np.asarray(a).astype(np.float64))
    except (TypeError, ValueError):
        return np.zeros(np.shape(a), bool)


inputs = [tensor(t) for t in INPUTS]
for t in inputs:
    print(f"input {{shown(t.name)}}: {{numpy_helper.to_array(t).tolist()}}")
actual = run(inputs)
differ = 0
for e, a in zip((tensor(t) for t in EXPECTED), actual):
    want, got = numpy_helper.to_array(e), np.asarray(a)
    print(f"output {{shown(e.name)}}: expected {{want.tolist()}}")
    print(f"output {{shown(e.name)}}: actual   {{got.tolist()}}")
    if got.dtype != want.dtype and not (got.dtype.kind in "OSU" and want.dtype.kind in "OSU"):
        print(f"  element type {{got.dtype}}, expected {{want.dtype}}")
        differ += max(want.size, 1)
        continue
    if want.shape != got.shape:
        print(f"  shape {{got.shape}}, expected {{want.shape}}")
        differ += 1
        continue
    same = (bits(want) == bits(got)) | (nan(want) & nan(got))
    for index in map(tuple, np.argwhere(~same)[:10]):  # (a 0-d output's index is [])
        print(f"  [{{', '.join(map(str, index))}}] expected {{shown(want[index])}} actual {{shown(got[index])}}")
    differ += int((~same).sum())
print(f"{{differ}} element(s) differ")
sys.exit(1 if differ else 0)
'''
