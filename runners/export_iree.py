"""`opconform export SUITE --format iree OUT [--xfails-from R.json]`: the suite in the layout of IREE's ONNX op
test suite (iree-org/iree-test-suites onnx_ops; docs/exports.md), run by `iree-compile` and
`iree-run-module --flagfile`.

    OUT/<case>/ or OUT/<case>_<i>/ (one folder a data set: the layout holds one)
        model.mlir              the model through IREE's ONNX importer (iree.compiler.extras.onnx_importer, what
                                `iree-import-onnx` runs), local functions inlined first as the ONNX spec defines them
        input_<j>.npy, output_<j>.npy
        test_data_flags.txt     --input=@input_<j>.npy, --expected_output=@output_<j>.npy, and the float thresholds
                                0 (iree-run-module's are absolute; integers compare exactly)
    OUT/config.json             the suite's config: compile and run flags (llvm-cpu, local-sync, f64 kept), and
                                expected_compile_failures / expected_run_failures from --xfails-from R.json (an IREE
                                run's results file: errors at prepare are compile failures, the rest run failures)
    OUT/left_out.json, OUT/README.md

Kept: the suite's exact cases, where every input and output is a type .npy holds (numpy's own: no bfloat16, float8,
float4, float6, int4 / int2 of ml_dtypes, no strings), judged with threshold 0: a NaN matches a NaN there, but -0
equals +0, so a case whose expected outputs hold a -0 is left out, as are NaN signs, the other compare modes,
negatives, probes and twins.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import dtypes
from runners.compare import resolve_spec
from runners.export_onnx_backend import ExportError, expects_negative_zero, unjudged

FORMAT = "iree"
COMPILE_FLAGS = ["--iree-hal-target-backends=llvm-cpu", "--iree-input-demote-f64-to-f32=false"]
RUN_FLAGS = ["--device=local-sync"]
THRESHOLDS = ["--expected_f16_threshold=0", "--expected_f32_threshold=0", "--expected_f64_threshold=0"]

REASONS = {
    "negative": "a negative case: the op suite has no way to expect a refusal",
    "probe": "a probe: its outputs are recorded, never judged",
    "twin": "judged on a twin in another format, not on its ONNX model",
    "nan_sign": "the sign of NaN is compared (nan_sign): iree-run-module matches any NaN",
    "mode": "its compare mode ({mode}) is no exact one (iree-run-module's thresholds are absolute)",
    "npy": "an input or output of a type .npy files do not hold ({type})",
    "negative_zero": "an expected -0: iree-run-module's threshold 0 takes -0 and +0 as equal",
    "importer": "IREE's ONNX importer refuses the model",
}


def _reason_text(key: str) -> str:
    head, _, arg = key.partition(":")
    if head == "mode":
        return REASONS["mode"].format(mode=arg)
    if head == "npy":
        return REASONS["npy"].format(type=arg)
    return REASONS[head]


def _keep(case_dir: Path, meta: dict, model: onnx.ModelProto) -> str | None:
    """None where the case is exported, else the reason key."""
    why = unjudged(case_dir, meta)
    if why:
        return why
    for out in model.graph.output:
        spec = resolve_spec(meta.get("compare"), out.name, "strict")
        if spec.get("mode", "exact") != "exact":
            return f"mode:{spec.get('mode')}"
        if spec.get("nan_sign"):
            return "nan_sign"
    return None


def _numpy_native(t: dtypes.DType) -> bool:
    """A type of numpy's own (.npy holds it), not one of ml_dtypes' (saved as raw V1 / V2 records)."""
    return t.kind != "string" and np.dtype(t.np_dtype).isbuiltin == 1


def _import(model: onnx.ModelProto) -> str:
    from runners.backends.iree_import import import_models

    mod = import_models({"main": model})
    if mod.refused:
        raise ValueError(mod.refused["main"])
    return mod.text


def _failures(results: Path, names: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(expected compile failures, expected run failures) of an IREE results file, as test folder names."""
    from runners.results import load_results

    try:
        _, records, _ = load_results(results)
    except (ValueError, OSError) as exc:
        raise ExportError(f"--xfails-from {results}: {exc}") from None
    compile_, run = set(), set()
    for r in records:
        folders = names.get(str(r.get("case")))
        if not folders or r.get("verdict") not in ("fail", "error", "crash", "timeout", "unsupported"):
            continue
        i = int(r.get("dataset") or 0)
        folder = folders[i] if i < len(folders) else None
        if folder is None:
            continue
        at_prepare = r.get("verdict") in ("error", "unsupported") and "prepare" in (r.get("message") or "")
        (compile_ if at_prepare else run).add(folder)
    return sorted(compile_), sorted(run - compile_)


def export(suite: Path, out: Path, xfails_from: Path | None = None) -> dict:
    if not (suite / "manifest.json").is_file():
        raise ExportError(f"{suite} is no suite (no manifest.json)")
    if xfails_from is not None and not xfails_from.is_file():
        raise ExportError(f"--xfails-from {xfails_from}: no such results file")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} exists and is not an empty directory: give a new one")
    out.mkdir(parents=True, exist_ok=True)
    left, names, items = [], {}, 0
    for kind in ("node", "graph", "negative", "probe"):
        for case_dir in sorted(p for p in (suite / kind).glob("*") if p.is_dir()):
            meta = json.loads((case_dir / "case.json").read_text())
            model = onnx.load(str(case_dir / "model.onnx"))
            why = _keep(case_dir, meta, model)
            if why is None:
                why = _types_or_values(case_dir, model)
            mlir = None
            if why is None:
                try:
                    mlir = _import(model)
                except Exception as exc:  # noqa: BLE001 - the importer raises its own, onnx's and MLIR's
                    why = "importer"
                    left.append({"case": case_dir.name, "kind": kind, "family": meta.get("family"), "why": why,
                                 "detail": str(exc)[:300]})
                    continue
            if why is not None:
                left.append({"case": case_dir.name, "kind": kind, "family": meta.get("family"), "why": why})
                continue
            sets = sorted(case_dir.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))
            folders = [case_dir.name if len(sets) == 1 else f"{case_dir.name}_{i}" for i in range(len(sets))]
            names[case_dir.name] = folders
            for folder, ds in zip(folders, sets):
                _write_folder(out / folder, mlir, ds)
                items += 1
    compile_failures, run_failures = _failures(xfails_from, names) if xfails_from else ([], [])
    config = {"config_name": "opconform_cpu_llvm_sync", "iree_compile_flags": COMPILE_FLAGS,
              "iree_run_module_flags": RUN_FLAGS, "skip_compile_tests": [], "skip_run_tests": [],
              "expected_compile_failures": compile_failures, "expected_run_failures": run_failures}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    counts = Counter(e["why"] for e in left)
    (out / "left_out.json").write_text(json.dumps({"format": FORMAT, "suite": str(suite), "exported": len(names),
                                                   "items": items, "left_out": left}, indent=1) + "\n")
    (out / "README.md").write_text(_readme(len(names), items, counts))
    return {"exported": len(names), "items": items, "left_out": dict(counts),
            "expected_failures": len(compile_failures) + len(run_failures)}


def _types_or_values(case_dir: Path, model: onnx.ModelProto) -> str | None:
    for v in (*model.graph.input, *model.graph.output):
        t = dtypes.get(v.type.tensor_type.elem_type)
        if not _numpy_native(t):
            return f"npy:{t.name}"
    outs = [(o.name, dtypes.get(o.type.tensor_type.elem_type)) for o in model.graph.output]
    return "negative_zero" if expects_negative_zero(case_dir, outs) else None


def _write_folder(folder: Path, mlir: str, ds: Path) -> None:
    folder.mkdir()
    (folder / "model.mlir").write_text(mlir)
    flags = []
    for kind in ("input", "output"):
        files = sorted(ds.glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
        for j, f in enumerate(files):
            np.save(folder / f"{kind}_{j}.npy", numpy_helper.to_array(onnx.load_tensor(str(f))))
            flags.append(f"--{'input' if kind == 'input' else 'expected_output'}=@{kind}_{j}.npy")
    (folder / "test_data_flags.txt").write_text("\n".join(flags + THRESHOLDS) + "\n")


def _readme(exported: int, items: int, counts: Counter) -> str:
    rows = "\n".join(f"| {_reason_text(k)} | {n} |" for k, n in counts.most_common())
    return f"""# opconform cases in IREE's ONNX op-suite layout

{exported} cases, one folder a data set ({items} folders), each with model.mlir (IREE's ONNX importer), the inputs
and expected outputs as .npy and test_data_flags.txt (float thresholds 0). Run one:

    iree-compile FOLDER/model.mlir {' '.join(COMPILE_FLAGS)} -o model.vmfb
    iree-run-module --module=model.vmfb {' '.join(RUN_FLAGS)} --flagfile=FOLDER/test_data_flags.txt

(the flagfile's paths are relative: run from FOLDER), or point iree-test-suites' onnx_ops runner at this directory with
config.json. Left out (`left_out.json` names each case):

| why | cases |
|---|---:|
{rows}
"""
