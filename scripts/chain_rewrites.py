"""Which rewrites fired on the chain cases, and the verdict of each at each optimization level.

    python scripts/chain_rewrites.py SUITE [--levels disable,all] [--no-openvino] [--json OUT]

For every graph case of the chains family in SUITE (gen-cases SUITE --family chains): the rewrite it targets
(case.json params "rewrite") and its inputs mode; for onnxruntime at each level, the node op types of the
model it optimized (SessionOptions.optimized_model_filepath) and the verdict (runners.execute, strict tier); for
OpenVINO (default settings of its backend, the CPU device), the runtime model's layer types
(compiled_model.get_runtime_model()) and the verdict. A rewrite fired where the op list differs from the case's
own. Prints a Markdown table, then a summary per targeted rewrite: at each level, in how many of its cases the
optimized model differs from the case's, the op types it introduced (com.microsoft::QLinearAdd, ...) and the verdicts
(--summary prints the summary alone); --json writes the rows.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import onnx  # noqa: E402

from generator.serialize import CaseError, read_case  # noqa: E402
from runners.backends.base import BackendOptionError, UnknownBackend  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402
from runners.execute import run_case_dataset  # noqa: E402


def ops(model: onnx.ModelProto) -> list[str]:
    return [n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}::{n.op_type}" for n in model.graph.node]


def ort_optimized_ops(model: onnx.ModelProto, level: str) -> list[str] | str:
    """The node op types of the model onnxruntime optimized at `level` (CPU provider), or the error's first line."""
    import onnxruntime as ort

    from runners.backends.onnxruntime import OPTIMIZATION_LEVELS

    with tempfile.TemporaryDirectory() as tmp:
        so = ort.SessionOptions()
        so.graph_optimization_level = OPTIMIZATION_LEVELS[level]
        so.optimized_model_filepath = str(Path(tmp) / "optimized.onnx")
        so.log_severity_level = 4
        try:
            ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            return ops(onnx.load(so.optimized_model_filepath))
        except Exception as exc:  # noqa: BLE001 - a refusal is what the row shows
            return f"refused: {str(exc).strip().splitlines()[0][:120]}"


def openvino_runtime_ops(backend, model: onnx.ModelProto) -> list[str] | str:
    """The layer types of OpenVINO's runtime model with their runtime precision (inputs, outputs and constants
    left out)."""
    import io

    try:
        ov_model = backend.core.read_model(io.BytesIO(model.SerializeToString()))
        compiled = backend.core.compile_model(ov_model, backend.config.device, backend.config.properties)
        layers = []
        for op in compiled.get_runtime_model().get_ordered_ops():
            info = op.get_rt_info()
            kind = info["layerType"].astype(str) if "layerType" in info else op.get_type_name()
            if kind not in ("Parameter", "Result", "Input", "Output", "Const", "Constant"):
                precision = info["runtimePrecision"].astype(str) if "runtimePrecision" in info else ""
                layers.append(f"{kind}({precision})" if precision else kind)
        return layers
    except Exception as exc:  # noqa: BLE001
        return f"refused: {str(exc).strip().splitlines()[0][:120]}"


def verdict(backend, case) -> str:
    verdicts = {run_case_dataset(backend, case, i, "strict", {}).verdict for i in range(len(case.inputs))}
    return "/".join(sorted(verdicts))


def rows(suite: Path, levels: list[str], openvino: bool) -> list[dict]:
    ort_backends = {lvl: get_backend("onnxruntime", {"graph_optimization_level": lvl}) for lvl in levels}
    ov = get_backend("openvino") if openvino else None
    out = []
    for case_dir in sorted((suite / "graph").iterdir()):
        try:
            case = read_case(case_dir)
        except CaseError as exc:
            print(f"chain_rewrites: skipping {case_dir.name}: {exc}", file=sys.stderr)
            continue
        meta = case.meta or {}
        if meta.get("family") != "chains":
            continue
        params = meta.get("params", {})
        row = {"case": case.name, "rewrite": params.get("rewrite"), "inputs": params.get("inputs"),
               "ops": ops(case.model), "onnxruntime": {}, "openvino": None}
        for lvl, backend in ort_backends.items():
            row["onnxruntime"][lvl] = {"ops": ort_optimized_ops(case.model, lvl), "verdict": verdict(backend, case)}
        if ov is not None:
            row["openvino"] = {"ops": openvino_runtime_ops(ov, case.model), "verdict": verdict(ov, case)}
        out.append(row)
    return out


def _shown(o) -> str:
    return o if isinstance(o, str) else " ".join(o) or "(none)"


def markdown(table: list[dict], levels: list[str]) -> str:
    head = ["case", "rewrite", "model"] + [f"ort {lvl}" for lvl in levels] + ["openvino"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in table:
        cells = [r["case"].removeprefix("test_chain_"), r["rewrite"], _shown(r["ops"])]
        for lvl in levels:
            e = r["onnxruntime"][lvl]
            fired = "" if e["ops"] == r["ops"] else " **rewritten**"
            cells.append(f"{e['verdict']}: {_shown(e['ops'])}{fired}")
        ovr = r["openvino"]
        cells.append("-" if ovr is None else f"{ovr['verdict']}: {_shown(ovr['ops'])}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _introduced(row: dict, ops_after) -> set[str]:
    return set() if isinstance(ops_after, str) else set(ops_after) - set(row["ops"])


def summary(table: list[dict], levels: list[str]) -> str:
    """Per targeted rewrite (params "rewrite"), per onnxruntime level: "fired k/n" (the optimized model differs from
    the case's in k of its n cases: fused, folded or pruned), "fused m into ..." (m of them hold op types the case
    does not: the nodes fused into), and the verdicts; OpenVINO's verdicts."""
    by_rewrite: dict[str, list[dict]] = {}
    for r in table:
        by_rewrite.setdefault(str(r["rewrite"]), []).append(r)
    head = ["rewrite", "cases"] + [f"ort {lvl}" for lvl in levels] + ["openvino"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def verdicts(entries) -> str:
        counts: dict[str, int] = {}
        for e in entries:
            counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
        return ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))
    for rewrite, rows_ in sorted(by_rewrite.items()):
        cells = [rewrite, str(len(rows_))]
        for lvl in levels:
            entries = [r["onnxruntime"][lvl] for r in rows_]
            fired = sum(e["ops"] != r["ops"] for e, r in zip(entries, rows_))
            introduced = [_introduced(r, e["ops"]) for e, r in zip(entries, rows_)]
            new = sorted(set().union(*introduced))
            names = " ".join(n.removeprefix("com.microsoft::") for n in new)
            into = f", fused {sum(map(bool, introduced))} into {names}" if new else ""
            cells.append(f"fired {fired}/{len(rows_)}{into}; {verdicts(entries)}")
        ovs = [r["openvino"] for r in rows_ if r["openvino"] is not None]
        cells.append(verdicts(ovs) if ovs else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("--levels", default="disable,all", help="onnxruntime levels, comma separated")
    ap.add_argument("--no-openvino", action="store_true")
    ap.add_argument("--json", type=Path, help="write the rows here too")
    ap.add_argument("--summary", action="store_true", help="print the per-rewrite summary alone")
    args = ap.parse_args(argv)
    if not (args.suite / "graph").is_dir():
        print(f"chain_rewrites: {args.suite} holds no graph/ folder (gen-cases SUITE --family chains)",
              file=sys.stderr)
        return 2
    levels = [lvl for lvl in args.levels.split(",") if lvl]
    try:
        table = rows(args.suite, levels, not args.no_openvino)
    except (BackendOptionError, UnknownBackend, KeyError, ValueError) as exc:
        print(f"chain_rewrites: {exc}", file=sys.stderr)
        return 2
    if not args.summary:
        print(markdown(table, levels))
    print(summary(table, levels), end="")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
