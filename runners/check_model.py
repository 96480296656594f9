"""`opconform check-model MODEL --backend B`: the suite of a user's model (gen-cases --from-model) run on a backend,
and what it got wrong told node by node, in the model's own node names.

The suite is written to a temporary directory (removed at the end) or to --keep DIR; it is run as `opconform run`
runs a suite (the same options: --baseline, --claims, --inputs, ...; -j), and the exit status is the run's (0 every
item passed, or no regression with --baseline; 1 a failure or regression; 4 a usage error; 5 nothing judged). Then
one table: per covered node and per chain (Q -> DQ, DQ -> op -> Q), its operator, items and verdicts
and the fault models its failures are consistent with; per failing node, the first failure's message; and the nodes no family covers, by operator. --node-report FILE
writes that table as Markdown too.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from runners.escape import printable
from runners.run_options import OPTIONS

PROG = "opconform check-model"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("check-model", help="check a backend on the covered nodes of your own model "
                                                  "(gen-cases --from-model, then opconform run)",
                              description=__doc__.split("\n\n")[1])
    p.add_argument("model", type=Path, metavar="MODEL", help="the ONNX model")
    p.add_argument("--keep", type=Path, metavar="DIR", help="write the model's suite to DIR and keep it")
    p.add_argument("--calibration", type=Path, metavar="FILE.npz",
                   help="sample values of the model's tensors by name (gen-cases --calibration)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE",
                   help="the size of a symbolic dimension (repeatable; default 2)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the random inputs (default 0)")
    p.add_argument("--node-report", type=Path, metavar="FILE.md", help="write the per-node table as Markdown")
    for flags, kwargs in OPTIONS:
        kwargs = dict(kwargs)
        if flags[0] == "--backend":
            kwargs.update(required=True, help="the backend to check (`opconform backends` lists them)")
        p.add_argument(*flags, **kwargs)
    p.add_argument("-j", "--jobs", type=int, default=2, metavar="N", help="workers side by side (default 2)")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    from generator.gen_cases_args import UsageError
    from generator.from_model.suite import write

    with tempfile.TemporaryDirectory(prefix="opconform-check-model-") as tmp:
        suite = args.keep or Path(tmp) / "suite"
        try:
            dims = dict(_dim(d) for d in args.dim)
            write(args.model, suite, dims=dims, calibration=args.calibration, seed=args.seed)
        except UsageError as exc:
            print(printable(f"{PROG}: error: {exc}"), file=sys.stderr)
            return 4
        manifest = json.loads((suite / "manifest.json").read_text(encoding="utf-8"))
        if not manifest["cases"]:
            print(f"{PROG}: {args.model.name}: no node of the model is covered: nothing to run", file=sys.stderr)
            return 5
        report = args.report or Path(tmp) / "results.json"
        run_args = argparse.Namespace(**{k: v for k, v in vars(args).items()
                                         if k not in ("model", "keep", "calibration", "dim", "seed", "node_report",
                                                      "func", "command")})
        run_args.paths, run_args.report = [str(suite)], str(report)
        from runners import run
        code = run.main(run_args)
        if not Path(report).exists():
            return code
        results = json.loads(Path(report).read_text(encoding="utf-8"))
        text = node_table(manifest, results)
        print(text, end="")
        if args.node_report:
            try:
                args.node_report.write_text(text, encoding="utf-8")
            except OSError as exc:
                print(printable(f"{PROG}: error: --node-report {args.node_report}: {exc.strerror or exc}"),
                      file=sys.stderr)
                return 3
        return code


def _dim(text: str) -> tuple[str, int]:
    from generator.gen_cases_args import UsageError
    name, _, size = text.partition("=")
    if not name or not size.isdigit() or int(size) < 1:
        raise UsageError(f"--dim {text!r}: expected NAME=SIZE with a positive whole SIZE")
    return name, int(size)


def _cell(text) -> str:
    from runners.markdown import md_text
    return md_text(text)


def _name(text) -> str:
    from runners.markdown import md_code
    return md_code(text, cell=True)


def _chain_op(case: str) -> str:
    """A chain case's operators from its name (test_model_<i>_chain_qdq_..., ..._chain_dq_conv_q_...)."""
    import re
    m = re.search(r"_chain_(qdq|dq_([a-z]+)_q)(_|$)", case)
    if m is None:
        return "chain"
    return "chain (Q, DQ)" if m.group(1) == "qdq" else f"chain (DQ, {m.group(2).capitalize()}, Q)"


def node_table(manifest: dict, results: dict) -> str:
    """The per-node account of a run on a model's suite (Markdown, read as plain text on a terminal too)."""
    model = manifest.get("model") or {}
    by_case: dict[str, list[dict]] = {}
    for r in results.get("records", []):
        by_case.setdefault(r["case"], []).append(r)
    backend = f"{results.get('backend', {}).get('name', '?')} {results.get('backend', {}).get('version', '')}"
    lines = [f"## {_cell(model.get('file', '?'))} on {_cell(backend.strip())}", "",
             f"{model.get('nodes', 0)} nodes: {len(model.get('covered', []))} covered, "
             f"{len(model.get('skipped', []))} skipped, {sum(model.get('not_covered', {}).values())} not covered.",
             "", "| node | operator | items | verdicts | consistent with |", "|---|---|---|---|---|"]
    failing = []
    chain_rows = [dict(c, node=" -> ".join(c["nodes"]), op=_chain_op(c["cases"][0]))
                  for c in model.get("chains", []) if c.get("cases")]
    for node in [*model.get("covered", []), *chain_rows]:
        records = [r for c in node["cases"] for r in by_case.get(c, [])]
        counts = Counter(r["verdict"] for r in records)
        diagnosis = Counter(d for r in records if r["verdict"] != "pass" for d in (r.get("diagnosis") or []))
        shown = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "not run"
        why = ", ".join(f"{d} ({n})" for d, n in diagnosis.most_common(3)) or "-"
        lines.append(f"| {_name(node['node'])} | {_cell(node['op'])} | {len(records)} | {_cell(shown)} | "
                     f"{_cell(why)} |")
        bad = [r for r in records if r["verdict"] not in ("pass", "probe", "skipped")]
        if bad:
            failing.append((node, bad[0]))
    for s in model.get("skipped", []):
        lines.append(f"| {_name(s['node'])} | {_cell(s['op'])} | 0 | skipped: {_cell(s['why'])} | - |")
    if model.get("not_covered"):
        lines += ["", "Not covered (no family takes the operator): " +
                  ", ".join(f"{_cell(op)} {n}" for op, n in sorted(model["not_covered"].items())) + "."]
    for node, r in failing:
        message = [printable(m) for m in str(r.get("message") or r.get("error") or r["verdict"]).splitlines()[:8]]
        lines += ["", f"### {_name(node['node'])} ({_cell(node['op'])}): {r['verdict']}", "", "```",
                  *[m.replace("```", "'''") for m in message], "```"]
    return "\n".join(lines) + "\n"
