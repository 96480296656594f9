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
              cases: list[str] | None, whole: bool = False) -> dict:
    """The results header's "selection": what the run chose to judge of the suites it was given. `cases`:
    the names of the cases selected, or None when every case of the suites given was. `whole`: the paths are
    whole suites, narrowed by nothing but the families and the shard (whole_suites), which the gate's scope
    reads (runners.gate_judge.Scope)."""
    return {"family": sorted(families), "k": k or None, "m": m or None, "shard": shard or None,
            "paths": list(paths), "cases": sorted(set(cases)) if cases is not None else None, "whole": whole}


def whole_suites(args: list[str], base: Path, manifests: Manifests, k: str | None = None,
                 m: str | None = None) -> bool:
    """Whether the run selects whole suites: every argument a suite directory (no kind folder, case or node id)
    and no -k / -m. The gate then expects every baseline item of the selected families and shard."""
    if k or m or not args:
        return False
    return all("::" not in a and manifests.manifest(Path(os.path.abspath(base / a))) is not None for a in args)


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
        "machine": core.machine,
    }


LIST_CAP = 100  # lines of each kind the gate's summary names; the rest are counted, and listed in full elsewhere


def gate_lines(core, suites: dict[str, str], report: str | os.PathLike | None = None) -> list[tuple[str, str | None]]:
    """The gate's summary (core.tally, after core.finish_gate()): (line, colour) pairs; colour is red, green,
    yellow or None. `report`: the run's results file, where the lists left out here are whole."""
    from runners.commands import command_line
    from runners.gate import other_suites
    from runners.gate_judge import BETTER, LOST, NEW, REFUSED, WORSE

    tally = core.tally
    n = tally.counts()
    head = (f"opconform gate: {tally.regressions} regression(s) against {core.baseline_path}"
            f" ({n[WORSE] + n[NEW]} worse or new failure(s), {n[LOST]} lost support), {n['vanished']} vanished, "
            f"{n[BETTER]} item(s) better than the baseline, {n[REFUSED]} now refused")
    lines = [(printable(head), "red" if tally.failed else None)]
    for line in other_suites(core.baseline, suites):
        lines.append((printable(f"  suite changed {line} (changed cases are judged as new)"), "yellow"))
    shown = command_line(["opconform", "report", report, "--baseline", core.baseline_path]) if report else None
    where = (f"the results file {report} has every item; {shown} lists them" if shown else
             f"the results file {report} has every item" if report else "run with --report FILE to keep every item")
    for label, items, colour in (("REGRESSION", sorted(tally.lines[WORSE] + tally.lines[NEW]), "red"),
                                 ("LOST      ", sorted(tally.lines[LOST]), "red"),
                                 ("better    ", sorted(tally.lines[BETTER]), "green"),
                                 ("refused   ", sorted(tally.lines[REFUSED]), "yellow")):
        lines += [(printable(f"  {label} {line}"), colour) for line in items[:LIST_CAP]]
        if len(items) > LIST_CAP:
            lines.append((printable(f"  ... and {len(items) - LIST_CAP} more {label.strip().lower()} ({where})"), colour))
    if tally.vanished:
        lines.append((f"  VANISHED   {len(tally.vanished)} item(s) the baseline judged are in this run's selection "
                      "and were not judged here:", "red"))
        lines += [(printable(f"    {line}"), "red") for line in tally.vanished_by_family()]
    records = _update_says(n)
    if records:
        lines.append((f"  (--update-baseline would record {records})", None))
    return lines


def _update_says(n: dict[str, int]) -> str:
    """What an update of the baseline from this run would record, from the gate's counts ("" for nothing)."""
    from runners.gate_judge import BETTER, LOST, NEW, REFUSED, WORSE

    parts = [f"{n[BETTER]} improvement(s)" if n[BETTER] else "",
             f"{n[WORSE] + n[NEW]} failure(s) as known" if n[WORSE] + n[NEW] else "",
             f"{n[LOST]} item(s) as unsupported (lost support)" if n[LOST] else "",
             f"{n[REFUSED]} failing item(s) as unsupported (now refused: no longer judged)" if n[REFUSED] else "",
             f"the {n['vanished']} vanished item(s) dropped" if n["vanished"] else ""]
    return ", ".join(p for p in parts if p)


def judged_line(core) -> tuple[str, bool]:
    """The run's judged / selected line, and whether nothing was judged (the run is then not green): probes
    are recorded, unsupported and skipped items not run; none of them is a verdict of the spec's."""
    judged, selected = core.judged()
    line = f"opconform: {judged} of {selected} selected item(s) judged"
    if judged or not selected:
        return line, False
    from runners.results import PROBE, SKIPPED, UNSUPPORTED

    parts = [f"{core.verdicts[v]} {v}" for v in (UNSUPPORTED, SKIPPED, PROBE) if core.verdicts.get(v)]
    return f"opconform: nothing judged: of {selected} selected item(s), {', '.join(parts)} (exit 5)", True


def update_line(path, records: list[dict], update: dict) -> str:
    """The line saying the baseline was written, and what the update recorded (`update`: what
    runners.gate.write_baseline answered)."""
    from runners.gate_judge import BETTER, LOST, NEW, REFUSED, WORSE, update_changes

    changes = update_changes(records, update)
    n = {c: changes.get(c, 0) for c in (BETTER, LOST, NEW, REFUSED, WORSE)}
    said = _update_says({**n, "vanished": changes.get("dropped", 0)})
    return printable(f"opconform: baseline written to {path} ({changes.get('items', 0)} item(s)"
                     + (f"; recorded {said}" if said else "") + ")")
