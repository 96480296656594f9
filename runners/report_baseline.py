"""The report against a gate's baseline (`opconform report ... --baseline B.baseline.json`): per column of the
baseline's backend, the new failures (what the gate fails on: an item worse than the baseline recorded, a
failing item the baseline does not know or recorded for other content of its case), the known ones (failing
no worse than recorded), and the fixed ones (recorded failing, now better). The judgement is the gate's own
(runners/gate.py: read_baseline, baseline_verdict, is_worse, is_better), so the report and the gate agree.

A baseline applies to the columns of its backend and settings (check_baseline_backend; another version is
what a gate compares); a baseline that matches no column is a usage error, one line.
"""

from __future__ import annotations

from pathlib import Path

from runners.gate import (RANK, GateError, baseline_verdict, check_baseline_backend, is_better, is_worse, item_key,
                          no_verdict_reason, read_baseline)
from runners.report_inputs import Run
from runners.results import FAIL


def _failing(verdict: str | None) -> bool:
    return verdict in RANK and RANK[verdict] >= RANK[FAIL]


def judge(run: Run, baseline: dict) -> dict:
    """{"new": [records, each with "was": the baseline's verdict or "new case" / "changed case"], "known":
    [records], "fixed": [{"item", "was", "now"}], "not_run": baseline items this column has no record for}."""
    new, known, fixed = [], [], []
    seen = set()
    for r in run.records:
        key = item_key(r["case"], r["dataset"])
        seen.add(key)
        was = baseline_verdict(baseline, key, r.get("content"))
        if is_worse(r["verdict"], was):
            new.append(dict(r, was=was or f"{no_verdict_reason(baseline, key)} case"))
        elif _failing(r["verdict"]):
            known.append(r)
        elif is_better(r["verdict"], was) and _failing(was):
            fixed.append({"item": key, "was": was, "now": r["verdict"]})
    return {"new": new, "known": known, "fixed": fixed, "not_run": len(baseline["items"].keys() - seen)}


def against(runs: list[Run], paths: list[Path | str]) -> list[dict]:
    """One entry per (baseline, column of its backend): {"path", "run", "new", "known", "fixed", "not_run"}.
    ValueError (one line) for a file that is no baseline, or a baseline of no column's backend and settings."""
    out = []
    for path in paths:
        try:
            baseline = read_baseline(path)
        except GateError as exc:
            raise ValueError(str(exc)) from None
        matched = []
        for run in runs:
            try:
                check_baseline_backend(baseline, {"name": run.name, "settings": run.settings}, path)
            except GateError:
                continue
            matched.append(run)
        if not matched:
            backend = baseline["backend"].get("name")
            raise ValueError(f"--baseline {path}: recorded for backend {backend} with other settings or no results "
                             f"file of it given (columns: {', '.join(run.label for run in runs)})")
        out += [{"path": str(path), "run": run, **judge(run, baseline)} for run in matched]
    return out
