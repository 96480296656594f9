"""The report against a gate's baseline (`opconform report ... --baseline B.baseline.json`): per column of the
baseline's backend, what the gate fails on (new or worse failures, lost support: pass / probe -> unsupported,
vanished items), the known failures, the fixed ones, and the items now refused (failing -> unsupported, neither
better nor a regression). The judgement is the gate's own, through the same functions (runners/gate_judge.py:
judge_item, Tally, Scope), so the report and the gate give the same counts item for item.

A baseline applies to the columns of its backend and settings (check_baseline_backend; another version is
what a gate compares); a baseline that matches no column is a usage error, one line.
"""

from __future__ import annotations

from pathlib import Path

from runners.gate import GateError, check_baseline_backend, item_key, read_baseline
from runners.gate_judge import BETTER, KNOWN, LOST, NEW, REFUSED, SAME, WORSE, Scope, Tally, judge_item
from runners.report_inputs import Run
from runners.results import UNSUPPORTED


def judge(run: Run, baseline: dict) -> dict:
    """The gate's judgement of one column (runners.gate_judge: the classes and the vanished items the gate
    itself finds, through the same Tally): {"new": [failing records, each with "was"], "lost": [{"item", "was",
    "words"}], "refused": [...], "known": [records], "fixed": [{"item", "was", "now"}], "vanished": [lines per
    family], "counts": the gate's counts (Tally.counts), "regressions": their number, "failed": whether the
    gate fails, "not_run": baseline items this column has no record for}."""
    from runners.diagnose import cpu_paths
    from runners.execute import unsupported_reason

    tally = Tally(baseline)
    new, known, fixed, lost, refused = [], [], [], [], []
    for r in run.records:
        key = item_key(r["case"], r["dataset"])
        cls, was = judge_item(baseline, key, r["verdict"], r.get("content"))
        words = unsupported_reason(r.get("error")) if r["verdict"] == UNSUPPORTED else ""
        cpu = "; ".join(cpu_paths(r.get("diagnosis") or ())) if r.get("diagnosis") and cls != SAME else ""
        tally.count(key, cls, was, r["verdict"], words, cpu)
        if cls in (NEW, WORSE):
            new.append(dict(r, was=was if cls == WORSE else f"{was} case"))
        elif cls in (LOST, REFUSED):
            (lost if cls == LOST else refused).append({"item": key, "was": was, "words": words})
        elif cls == BETTER:
            fixed.append({"item": key, "was": was, "now": r["verdict"]})
        elif cls == KNOWN:
            known.append(r)
    tally.finish(Scope.of_selection(run.selection))
    seen = set(tally.seen)
    from runners.machine import differences

    elsewhere = differences(baseline.get("machine"), baseline.get("backend"), run.machine or {},
                            {"name": run.name, "version": run.version}) if run.machine else None
    return {"elsewhere": elsewhere.removeprefix("opconform gate: ") if elsewhere else None,
            "new": new, "lost": lost, "refused": refused, "known": known, "fixed": fixed,
            "lost_by_words": by_words(lost), "refused_by_words": by_words(refused),
            "vanished": tally.vanished_by_family(), "counts": tally.counts(), "regressions": tally.regressions,
            "failed": tally.failed, "not_run": len(baseline["items"].keys() - seen)}


def by_words(entries: list[dict]) -> list[dict]:
    """Lost-support or now-refused items grouped by the backend's words: [{"words", "items"}], most items first
    (a release that lost a type loses hundreds of items for one reason)."""
    groups: dict[str, list[dict]] = {}
    for e in entries:
        groups.setdefault(e["words"], []).append(e)
    return [{"words": w, "items": items} for w, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


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
