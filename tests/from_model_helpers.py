"""Helpers of the `gen-cases --from-model` tests: small models made with onnx's helpers, a suite generated from one,
run on a backend, and the checks every covered node's cases must pass (constants bit-identical to the model's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from generator import dtypes
from generator.serialize import tensor_bytes


def tensor(value, name: str, t: str) -> onnx.TensorProto:
    """value as a TensorProto of element type t (the project's writer: every type's bits kept)."""
    proto = onnx.TensorProto()
    proto.ParseFromString(tensor_bytes(np.asarray(value), name, dtypes.get(t)))
    return proto


def graph_model(nodes: list[onnx.NodeProto], inputs: list[tuple[str, str, list]], outputs: list[tuple[str, str, list]],
                initializers: list[onnx.TensorProto], opset: int, extra_opsets: dict[str, int] | None = None,
                ir_version: int | None = None) -> onnx.ModelProto:
    """A model of nodes: inputs / outputs as (name, element type, dims with str for symbolic ones)."""
    vi = [helper.make_tensor_value_info(n, dtypes.get(t).onnx, s) for n, t, s in inputs]
    vo = [helper.make_tensor_value_info(n, dtypes.get(t).onnx, s) for n, t, s in outputs]
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (extra_opsets or {}).items()]
    model = helper.make_model(helper.make_graph(nodes, "model", vi, vo, initializers), opset_imports=imports)
    if ir_version is not None:
        model.ir_version = ir_version
    return model


def gen_cases(*args) -> subprocess.CompletedProcess:
    """gen-cases ARGS in this process (its exit status and output)."""
    import contextlib
    import io

    from generator.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess(["gen-cases", *args], code, out.getvalue(), err.getvalue())


def from_model(model: onnx.ModelProto | Path, tmp: Path, *extra) -> tuple[Path, dict]:
    """The suite of a model (saved under tmp when given as a ModelProto): (suite dir, its manifest)."""
    if isinstance(model, onnx.ModelProto):
        path = tmp / "model.onnx"
        onnx.save(model, path)
    else:
        path = Path(model)
    out = tmp / "suite"
    done = gen_cases("--from-model", path, out, *extra)
    assert done.returncode == 0, done.stderr + done.stdout
    return out, json.loads((out / "manifest.json").read_text())


def run_suite(suite: Path, backend: str, tmp: Path, *extra) -> list[dict]:
    """`opconform run SUITE --backend B` (a command: it installs signal handlers); the results file's records."""
    report = tmp / f"results-{backend.replace(':', '_')}.json"
    env = dict(os.environ, PYTEST_ADDOPTS="")
    done = subprocess.run([sys.executable, "-m", "runners.cli", "run", str(suite), "--backend", backend,
                           "--report", str(report), "-j", "1", *extra], capture_output=True, text=True, env=env)
    assert report.exists(), done.stderr + done.stdout
    return json.loads(report.read_text())["records"]


def verdicts(records: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in records:
        out[r["verdict"]] = out.get(r["verdict"], 0) + 1
    return out


def check_constants(suite: Path, model: onnx.ModelProto | Path) -> int:
    """Every initializer of every case is the model's tensor it names (case.json source.inputs), byte for byte
    (its serialized data, name aside); returns how many were checked."""
    if not isinstance(model, onnx.ModelProto):
        model = onnx.load(str(model))
    held = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            held[node.output[0]] = node.attribute[0].t
    checked = 0
    for case_json in sorted(suite.glob("*/*/case.json")):
        meta = json.loads(case_json.read_text())
        case = onnx.load(str(case_json.parent / "model.onnx"))
        for init in case.graph.initializer:
            entry = meta["source"]["inputs"][init.name]
            original = held[entry["tensor"]]
            a, b = onnx.TensorProto(), onnx.TensorProto()
            a.CopyFrom(init)
            b.CopyFrom(original)
            a.name = b.name = ""
            assert a.SerializeToString() == b.SerializeToString(), f"{case_json.parent.name}: {init.name} differs"
            checked += 1
    return checked
