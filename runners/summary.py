"""What a run says at its end and writes: the verdict counts line, the gate's lines, the results file's header
(with the selection the run made) and the suites it judged. Shared by both runners; no pytest here."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from runners.escape import printable
from runners.suite_tree import Manifests, manifest_entries, relpath
from runners.tiers import tiers_met_by_family


def verdict_line(verdicts: dict[str, int], backend: str) -> str:
    """The run's items per verdict, in the report's order: pytest says only passed / failed / skipped."""
    from runners.report import ORDER

    order = {v: i for i, v in enumerate(ORDER)}
    parts = [f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]
    return f"opconform verdicts on {backend}: {', '.join(parts)}"


def suites_run(args: list[str], base: Path, manifests: Manifests | None = None) -> dict[str, str]:
    """{suite directory: sha256 of its manifest.json} for the suites the arguments name or lie in (a suite,
    a kind folder, a case directory, a model.onnx) or hold as direct subdirectories: what ties a results
    file to the suite it judged (the controller of an xdist run collects nothing, so not from collection).
    manifests: the run's, so that a manifest is parsed once (a whole suite's takes a second)."""
    from generator.serialize import MANIFEST
    from runners.results import suite_hash

    manifests = manifests or Manifests()

    def is_suite(path: Path) -> bool:
        return manifests.manifest(path) is not None

    found: dict[str, str] = {}
    for arg in args or ["."]:
        path = Path(os.path.abspath(base / arg.split("::", 1)[0]))
        # the nearest suite the argument is or lies in (no suite further up is read), else the suites it holds
        candidates = [next((c for c in [path, *list(path.parents)[:3]] if is_suite(c)), None)]
        if candidates[0] is None and path.is_dir():
            try:
                candidates = [p for p in path.iterdir() if (p / MANIFEST).is_file()]
            except OSError:
                candidates = []
        for c in filter(None, candidates):
            if is_suite(c) and suite_hash(c):
                found[relpath(c, base)] = suite_hash(c)
    return dict(sorted(found.items()))


def selection(families, k: str | None, m: str | None, shard: str | None, paths: list[str],
              cases: list[str] | None) -> dict:
    """The results header's "selection": what the run chose to judge of the suites it was given. `cases`:
    the names of the cases selected, or None when every case of the suites given was."""
    return {"family": sorted(families), "k": k or None, "m": m or None, "shard": shard or None,
            "paths": list(paths), "cases": sorted(set(cases)) if cases is not None else None}


def selected_cases(args: list[str], base: Path, records: list[dict], manifests: Manifests | None = None
                   ) -> list[str] | None:
    """The names of the cases the run judged (its records), or None when the arguments are all suites and
    every case their manifests list was judged (the whole suites given)."""
    manifests = manifests or Manifests()
    judged = {r.get("case") for r in records}
    paths = [Path(os.path.abspath(base / a.split("::", 1)[0])) for a in args or ["."]]
    if all("::" not in a for a in args) and all(manifests.manifest(p) is not None for p in paths):
        listed = {e["name"] for p in paths for e in manifest_entries(manifests.manifest(p))}
        if listed <= judged:
            return None
    return sorted(c for c in judged if isinstance(c, str))


def results_header(core, args: list[str], exitstatus: int, xfails_file: str | None, skips_file: str | None,
                   suites: dict[str, str], shard: str | None, chosen: dict) -> dict:
    """The header of the results file of a run (`core`: runners.session.RunCore)."""
    return {
        "backend": core.identity,
        "tier": core.tier,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "args": list(args),
        "exitstatus": int(exitstatus),
        "xfails_file": xfails_file,
        "skips_file": skips_file,
        "tiers_met_by_family": tiers_met_by_family(core.tier_counts),
        "suites": suites,
        "shard": shard,
        "selection": chosen,
    }


def gate_lines(core, suites: dict[str, str]) -> list[tuple[str, str | None]]:
    """The gate's summary: (line, colour) pairs; colour is red, green, yellow or None."""
    from runners.gate import other_suites

    lines = [(printable(f"opconform gate: {len(core.regressions)} regression(s) against {core.baseline_path}, "
                        f"{len(core.better)} item(s) better than the baseline"), None)]
    for line in other_suites(core.baseline, suites):
        lines.append((printable(f"  suite changed {line} (changed cases are judged as new)"), "yellow"))
    for line in sorted(core.regressions)[:100]:
        lines.append((printable(f"  REGRESSION {line}"), "red"))
    for line in sorted(core.better)[:100]:
        lines.append((printable(f"  better     {line}"), "green"))
    if core.better:
        lines.append(("  (record the improvements with --update-baseline)", None))
    return lines
