"""`gen-cases --from-model MODEL OUT`: the suite of a user's model, one node case (and probe) per covered node.

Every node is accounted for: covered (a case), skipped (a family takes the operator but not this configuration: one
reason each) or not covered (no family takes the operator: counted by operator). The manifest's "model" says which,
node by node, and one summary line says it on the terminal. OUT is written as gen-cases writes any suite
(generator/outdir.py: swapped in whole; the entries of OUT that are not a suite's are kept).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from generator import outdir
from generator.from_model import chains, model_source, node_cases
from generator.from_model.model_source import ModelError, Source
from generator.from_model.plan import Context, adapters
from generator.gen_cases_args import UsageError
from generator.suite_entries import suite_entry

ENTRY_KEYS = ("name", "kind", "op", "family", "opset", "params", "flags")


@dataclass
class Tally:
    """What became of each node."""
    nodes: int = 0
    covered: Counter = field(default_factory=Counter)  # op -> nodes with a case
    skipped: list = field(default_factory=list)  # {"index", "node", "op", "why"}
    uncovered: Counter = field(default_factory=Counter)  # op -> nodes no family takes
    cases: int = 0
    data_sets: int = 0
    bytes: int = 0
    untold: Counter = field(default_factory=Counter)  # fault -> covered nodes where no input told it apart
    chains: int = 0  # chains written as graph cases (Q -> DQ, DQ -> Conv / MatMul / Add / ... -> Q)

    def summary(self, model: str) -> str:
        def ops(c: Counter) -> str:
            return ", ".join(f"{op} {n}" for op, n in sorted(c.items())) or "none"
        line = (f"gen-cases: {model}: {self.nodes} nodes; covered {sum(self.covered.values())} "
                f"({ops(self.covered)}); not covered {sum(self.uncovered.values())} ({ops(self.uncovered)})")
        if self.chains:
            line += f"; {self.chains} chains (Q -> DQ, DQ -> op -> Q)"
        if self.skipped:
            line += f"; skipped {len(self.skipped)} (reasons in manifest.json \"model\")"
        return line


def calibration_ranges(path: Path | None) -> dict[str, tuple[float, float]]:
    """--calibration FILE.npz: tensor name -> (lo, hi) of its finite values (UsageError: one line)."""
    if path is None:
        return {}
    try:
        with np.load(path, allow_pickle=False) as data:
            ranges = {}
            for name in data.files:
                v = np.asarray(data[name], dtype=np.float64).ravel()
                v = v[np.isfinite(v)]
                if v.size:
                    ranges[name] = (float(v.min()), float(v.max()))
            return ranges
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"--calibration {path}: not a numpy .npz of arrays by tensor name ({exc})") from None


def write(model: Path, out: Path, *, dims: dict[str, int], calibration: Path | None, seed: int,
          ) -> int:
    try:
        source = model_source.read(model, dims)
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    ctx = Context(calibration_ranges(calibration))
    tally = Tally()

    def build(target: Path) -> int:
        _write_into(target, source, ctx, seed, tally, options={
            "from_model": source.path.name, "sha256": source.sha256, "seed": seed, "dims": dict(sorted(dims.items())),
            "calibration": calibration.name if calibration else None})
        return tally.cases

    try:
        n = outdir.replace(out, build, _from_model_suite, own=suite_entry)
    except outdir.Refused as exc:
        raise UsageError(str(exc)) from None
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    print(tally.summary(source.path.name))
    print(f"gen-cases: wrote {n} cases ({tally.data_sets} data sets, {tally.bytes} bytes) to {out}")
    return 0


def _from_model_suite(path: Path) -> bool:
    """OUT may be replaced when it holds a suite (any suite gen-cases wrote)."""
    from generator.serialize import is_suite
    return is_suite(path)


def _write_into(target: Path, source: Source, ctx: Context, seed: int, tally: Tally, options: dict) -> None:
    from generator.kill_matrix import KillMatrix
    from generator.serialize import write_case, write_manifest

    table = adapters()
    plans = []
    for site in source.sites:
        tally.nodes += 1
        adapter = table.get(site.key)
        if adapter is None:
            tally.uncovered[_op(site)] += 1
            continue
        try:
            plan = adapter.plan(site, ctx)
        except ModelError:
            raise
        except (ValueError, KeyError, TypeError) as exc:  # a configuration the family's code cannot take
            plan = f"{type(exc).__name__}: {exc}"
        if isinstance(plan, str):
            tally.skipped.append({"index": site.index, "node": site.name, "op": _op(site), "why": plan})
        else:
            plans.append((site, plan))
    chain_notes = []
    for q, dq in chains.pairs(source):
        try:
            plan = chains.plan(q, dq, ctx)
        except (ValueError, KeyError, TypeError) as exc:
            plan = f"{type(exc).__name__}: {exc}"
        if isinstance(plan, str):
            chain_notes.append({"nodes": [q.name, dq.name], "why": plan})
        else:
            plans.append((q, plan))
    for chain in chains.op_chains(source):
        try:
            plan = chains.plan_op_chain(chain, ctx)
        except (ValueError, KeyError, TypeError) as exc:
            plan = f"{type(exc).__name__}: {exc}"
        if isinstance(plan, str):
            chain_notes.append({"nodes": [s.name for s in chain], "why": plan})
        else:
            first = next(s for s in chain if s not in plan.chain)
            plans.append((first, plan))
    kills = KillMatrix(sorted({p.family for _, p in plans}))
    entries, nodes = [], []
    for site, plan in plans:
        try:
            cases = node_cases.build(site, plan, source, ctx, seed)
        except ValueError as exc:
            tally.skipped.append({"index": site.index, "node": site.name, "op": _op(site), "why": str(exc)})
            continue
        if plan.chain:
            tally.chains += 1
        else:
            tally.covered[_op(site)] += 1
        names = []
        for case in cases:
            kills.add(case)
            meta = write_case(case, target)
            entries.append({k: meta[k] for k in ENTRY_KEYS if k in meta})
            names.append(case.name)
            tally.cases += 1
            tally.data_sets += len(case.inputs)
            tally.untold.update(case.meta.get("untold", ()))
        if plan.chain:
            chain_notes.append({"nodes": [s.name for s in [site, *plan.chain]], "cases": names})
        else:
            nodes.append({"index": site.index, "node": site.name, "op": _op(site), "cases": names})
    files = kills.files()
    for rel, data in sorted(files.items()):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(data)
    model = {"file": source.path.name, "sha256": source.sha256, "opsets": source.opsets, "nodes": tally.nodes,
             "dims": dict(sorted(source.dims.items())), "covered": nodes, "skipped": tally.skipped,
             "not_covered": dict(sorted(tally.uncovered.items())), "chains": chain_notes}
    write_manifest(target, options, entries, extra={"model": model})
    tally.bytes = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())


def _op(site) -> str:
    return f"{site.domain}.{site.op}" if site.domain else site.op


def note(text: str) -> None:
    print(f"gen-cases: note: {text}", file=sys.stderr)
