"""The inputs of a report: results files read as columns, and the problems between them.

One column per results file, except that the shards of one run (`--shard I/N` on several machines: same
backend, version, settings, tier, suite and machine class) merge into one; shards that disagree on an item are
refused, and shards of one backend and N that differ in any of those stay apart with one line naming the difference.
Columns that share a backend name and version are labelled by the settings that differ, else by their files.
A results file is data: its records that runners.results.record_problem refuses are left out one by one,
each named (Run.skipped).

problems() names, one line each: records left out, missing shards, the cases a column was asked to judge
and has no result for, and inputs that come from different suites. What a column was asked to judge is its
header's "selection" (the run's --family, -k, -m, --shard and paths, and the case names selected, or null
for the whole suite); a results file from before "selection" was recorded is taken to have selected its
whole suite, as before.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from runners.commands import quoted
from runners.gate import shard_of
from runners.results import differing_settings, load_results, settings_text, sort_records, suite_hash

NAMES_SHOWN = 5  # case names quoted in a note


class ReportError(ValueError):
    """Results files that cannot make one report (shards that disagree); str() is one line."""


@dataclass
class Run:
    """One column of the report: one results file, or the shards of one run merged."""

    label: str
    name: str
    version: str
    settings: dict
    tier: str
    created: str
    records: list[dict]
    sources: list[str] = field(default_factory=list)  # the results files
    shard_total: int | None = None  # N of the header's "I/N": the column is (part of) a sharded run
    shards: list[int] = field(default_factory=list)  # the I of each shard merged
    suites: dict = field(default_factory=dict)  # suite directory -> its manifest's hash (header `suites`)
    skipped: list[str] = field(default_factory=list)  # "FILE: record N (case[i]): why", one per bad record
    selection: dict | None = None  # the header's "selection" (read_selection); None: an older file
    machine: dict | None = None  # the header's "machine" (runners/machine.py); None: an older file
    unmerged: list[str] = field(default_factory=list)  # one line per shard of a run it did not merge with, and why
    command: str = ""  # the command that made it: the header's "command", else its "args" as a command line

    @property
    def selected(self) -> set[str] | None:
        """The case names the run selected; None: every case of its suite (or an older file)."""
        return None if self.selection is None or self.selection["cases"] is None else set(self.selection["cases"])

    @property
    def source(self) -> str:
        return self.sources[0] + (f" and {len(self.sources) - 1} more" if len(self.sources) > 1 else "")


def load(paths: list[Path | str]) -> list[Run]:
    """The report's columns: one per results file, except that shards of one run (same backend, version,
    settings, tier, suites and N) merge into one. ReportError when two shards judge an item differently.
    Columns that share a backend name and version are labelled apart (their differing settings, else
    their files)."""
    groups: dict[tuple, list[Run]] = {}
    for i, p in enumerate(paths):
        run = _read(p)
        key = (_identity(run), run.shard_total) if run.shard_total else i
        groups.setdefault(key, []).append(run)
    runs = [_merge(group) for group in groups.values()]
    _unmerged(runs)
    _label(runs)
    return runs


def _read(path: Path | str) -> Run:
    """One results file as a column. Its records that record_problem refuses are left out, each named in
    Run.skipped; ValueError (one line) when the file as a whole is no results file."""
    doc, records, skipped = load_results(path)
    b = doc.get("backend") if isinstance(doc.get("backend"), dict) else {}
    name, version = _text(b.get("name")), _text(b.get("version"))
    shard, total = _shard(doc.get("shard"), path)
    settings = b.get("settings") if isinstance(b.get("settings"), dict) else {}
    suites = doc.get("suites") if isinstance(doc.get("suites"), dict) else {}
    return Run(label=f"{name} {version}", name=name, version=version, settings=settings,
               tier=_text(doc.get("tier")), created=_text(doc.get("created"), ""), records=records,
               sources=[str(path)], shard_total=total, shards=[shard] if shard else [], suites=suites,
               skipped=[f"{path}: {line}, skipped" for line in skipped], selection=read_selection(doc.get("selection")),
               machine=_machine(doc.get("machine")), command=_command(doc))


def _command(doc: dict) -> str:
    """The command a results file says made it ("" where it does not): its "command" (scripts/scoreboard.py writes
    one), else its "args" after `opconform` (a run) or `pytest`."""
    if isinstance(doc.get("command"), str):
        return doc["command"]
    args = doc.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args) or not args:
        return ""
    return ("opconform " if args[0] == "run" else "pytest ") + quoted(args)


def _machine(value) -> dict | None:
    """The header's machine record with its text fields as strings (None where absent or not an object)."""
    if not isinstance(value, dict):
        return None
    out = {k: _text(value.get(k), "unknown") for k in ("cpu", "arch", "os", "class")}
    features = value.get("features")
    out["features"] = [f for f in features if isinstance(f, str)] if isinstance(features, list) else []
    return out


SELECTION_LISTS = ("family", "paths")  # header "selection" fields that are lists of strings
SELECTION_TEXTS = ("k", "m", "shard")  # ... and that are a string or null


def read_selection(value) -> dict | None:
    """The header's "selection" with every field of the type the report uses: {"family": [str], "k": str |
    None, "m": str | None, "shard": str | None, "paths": [str], "cases": sorted [str] | None, "whole": bool}.
    None where the header has none (an older file) or it is not an object; a field of another type reads as absent."""
    if not isinstance(value, dict):
        return None
    out: dict = {}
    for key in SELECTION_LISTS:
        v = value.get(key)
        out[key] = [x for x in v if isinstance(x, str)] if isinstance(v, list) else []
    for key in SELECTION_TEXTS:
        v = value.get(key)
        out[key] = v if isinstance(v, str) else None
    cases = value.get("cases")
    out["cases"] = sorted({c for c in cases if isinstance(c, str)}) if isinstance(cases, list) else None
    out["whole"] = value.get("whole") is True  # whole suites (runners.summary.whole_suites): the gate's scope
    return out


def selection_text(selection: dict | None) -> str:
    """A column's selection as the options that made it: "whole suite", or "--family cast -k 'x' ...: N cases"
    (each value shell-quoted by runners/commands.py: a -k from a results file, pasted, runs nothing)."""
    if selection is None:
        return "not recorded"
    parts = [a for f in selection["family"] for a in ("--family", f)]
    parts += [a for k in ("k", "m") if selection[k] is not None for a in (f"-{k}", selection[k])]
    parts += ["--shard", selection["shard"]] if selection["shard"] else []
    parts += selection["paths"]
    cases = selection["cases"]
    what = "whole suite" if cases is None else f"{len(cases)} case(s)"
    return f"{quoted(parts)}: {what}" if parts else what


def _text(value, default: str = "?") -> str:
    """A header field shown as text: a string as it is, anything else as JSON, default when absent."""
    if value is None:
        return default
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _shard(text, path) -> tuple[int | None, int | None]:
    """(I, N) of the header's "I/N"; (None, None) for a run of every shard (or an older file)."""
    if text is None:
        return None, None
    try:
        i, n = (int(p) for p in str(text).split("/"))
    except ValueError:
        i = n = 0
    if not 1 <= i <= n:
        raise ReportError(f"{path}: not a results file (shard {text!r} is not I/N)")
    return i, n


def _identity(run: Run) -> str:
    """What shards of one run share: backend, version, settings, tier, suites and machine class."""
    return json.dumps(_parts(run), sort_keys=True, default=str)


def _parts(run: Run) -> dict:
    # the suites by manifest only: each CI machine may have checked the suite out at another path
    return {"version": run.version, "settings": run.settings, "tier": run.tier,
            "suites": sorted(str(h) for h in run.suites.values()),
            "machine class": (run.machine or {}).get("class", "not recorded"), "backend": run.name}


def _unmerged(runs: list[Run]) -> None:
    """For shards of one backend and N that stayed apart: one line each naming what differs (Run.unmerged)."""
    sharded = [run for run in runs if run.shard_total]
    for i, a in enumerate(sharded):
        for b in sharded[i + 1:]:
            if a.name != b.name or a.shard_total != b.shard_total:
                continue
            pa, pb = _parts(a), _parts(b)
            what = []
            for key in pa:
                if pa[key] == pb[key]:
                    continue
                if key == "settings":
                    keys = differing_settings([a.settings, b.settings])
                    what.append(f"settings ({settings_text(a.settings, keys)} against {settings_text(b.settings, keys)})")
                elif key == "suites":
                    what.append("suite (another manifest)")
                else:
                    what.append(f"{key} ({pa[key]} against {pb[key]})")
            line = (f"shards of {a.name} not merged: {a.source} (shard(s) {_shard_list(a)}) and {b.source} "
                    f"(shard(s) {_shard_list(b)}) differ in " + ", ".join(what))
            a.unmerged.append(line)


def _shard_list(run: Run) -> str:
    return ", ".join(map(str, run.shards)) + f" of {run.shard_total}"


def _merge(group: list[Run]) -> Run:
    """One column of the shards of one run. Shards do not overlap; an item in two of them (the same shard
    given twice, a shard run again) must have one verdict."""
    first = group[0]
    if len(group) == 1:
        return first
    seen: dict[tuple, tuple[dict, str]] = {}
    for run in group:
        for r in run.records:
            key = (r["case"], r["dataset"])
            if key not in seen:
                seen[key] = (r, run.sources[0])
                continue
            other, where = seen[key]
            if other["verdict"] != r["verdict"]:
                raise ReportError(f"shards disagree: {r['case']}[{r['dataset']}] is {other['verdict']} in {where} "
                                  f"and {r['verdict']} in {run.sources[0]}")
    return Run(label=first.label, name=first.name, version=first.version, settings=first.settings, tier=first.tier,
               created=max(run.created for run in group), records=sort_records([r for r, _ in seen.values()]),
               sources=[s for run in group for s in run.sources], shard_total=first.shard_total,
               shards=sorted({i for run in group for i in run.shards}), suites=first.suites,
               skipped=[line for run in group for line in run.skipped], selection=_merged_selection(group),
               machine=first.machine, command=first.command)


def _merged_selection(group: list[Run]) -> dict | None:
    """The selection of merged shards: the first's options, the union of the cases they selected (None where
    one selected its whole suite or recorded no selection)."""
    selections = [run.selection for run in group]
    if any(s is None for s in selections):
        return None
    cases = None if any(s["cases"] is None for s in selections) else sorted({c for s in selections
                                                                               for c in s["cases"]})
    shards = sorted({s["shard"] for s in selections if s["shard"]})
    return {**selections[0], "cases": cases, "shard": ", ".join(shards) or None}


def _label(runs: list[Run]) -> None:
    """Unique column labels: "name version", then the settings that differ between columns of the same
    name and version (and the tier), then their results files."""
    alike: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        alike[run.label].append(run)
    for same in alike.values():
        if len(same) == 1:
            continue
        keys = differing_settings([run.settings for run in same])
        tiers = len({run.tier for run in same}) > 1
        for run in same:
            parts = ([settings_text(run.settings, keys)] if keys else []) + ([f"tier {run.tier}"] if tiers else [])
            if parts:
                run.label += f" ({'; '.join(parts)})"
        clash = Counter(run.label for run in same)
        for run in same:
            if clash[run.label] > 1:
                run.label += f" [{run.source}]"
    clash = Counter(run.label for run in runs)  # the same file given twice
    for n, run in enumerate(runs):
        if clash[run.label] > 1:
            run.label += f" #{n + 1}"


# ---- problems between the inputs ------------------------------------------------------------------

def problems(runs: list[Run], suite: Path | str | None = None) -> list[str]:
    """One line per problem the report should carry: records skipped as malformed, missing shards, cases a
    column selected (Run.selected; every case of its suite where its header says none) and has no result
    for, inputs from different suites (other manifests, or other content for the same case). The suite is
    `suite` (a suite directory) or, per column, the suites its header names that are found here with the
    same manifest."""
    given = _suite(suite) if suite is not None else None
    notes = [line for run in runs for line in run.skipped]
    for run in runs:
        if run.shard_total:
            missing = sorted(set(range(1, run.shard_total + 1)) - set(run.shards))
            if missing:
                notes.append(f"{run.label}: shard(s) {', '.join(map(str, missing))} of {run.shard_total} missing "
                             f"(merged {len(run.shards)}: {', '.join(run.sources)})")
        notes += run.unmerged
        notes += _unjudged(run, given)
    return notes + _different_suites(runs)


def _suite(path: Path | str) -> tuple[str, str, list[str]]:
    """(directory, manifest hash, case names) of a suite directory; ValueError (one line) if not one."""
    digest = suite_hash(path)
    return str(path), digest, list(suite_cases(path, digest))


CASE_KINDS = ("node", "graph", "negative", "probe")  # the subdirectories of a suite that hold cases


@functools.lru_cache(maxsize=8)
def suite_cases(path: Path | str, digest: str | None = None) -> dict[str, str | None]:
    """{case name: its kind (None where the manifest names none a suite has)} of a suite's manifest, read once
    per manifest (`digest`: its hash, part of the cache key); ValueError (one line) if not a suite."""
    from generator.serialize import CaseError, read_manifest

    try:
        manifest = read_manifest(Path(path))
    except CaseError as exc:
        raise ValueError(f"--suite {path}: not a suite ({exc.problem}: {exc.path})") from None
    cases = manifest.get("cases") if isinstance(manifest, dict) else None
    if not isinstance(cases, list):
        raise ValueError(f"--suite {path}: not a suite (its manifest.json lists no cases)")
    return {e["name"]: e.get("kind") if e.get("kind") in CASE_KINDS else None
            for e in cases if isinstance(e, dict) and isinstance(e.get("name"), str)}


def _unjudged(run: Run, given: tuple | None) -> list[str]:
    if given is not None:
        path, digest, _ = given
        if run.suites and digest not in run.suites.values():
            return [f"{run.label}: was not run on {path} (the suite it ran has another manifest)"]
        suites = [given]
    else:
        suites = _found_suites(run)
    judged = {r["case"] for r in run.records}
    notes = []
    for path, _, names in suites:
        if run.selection is None:  # an older file: it may have selected its whole suite
            missing = sorted(set(names) - judged)
            if missing:
                notes.append(f"{run.label}: {len(missing)} of {len(names)} case(s) of {path} not judged: "
                             f"{_names(missing)}")
            continue
        selected = set(names) if run.selected is None else set(names) & run.selected
        if run.selected is None and run.shard_total:  # the whole suite, split: the merged shards' part of it
            selected = {c for c in selected if shard_of(c, run.shard_total) in run.shards}
        missing = sorted(selected - judged)
        if missing:
            notes.append(f"{run.label}: {len(missing)} of the {len(selected)} selected case(s) of {path} have "
                         f"no result: {_names(missing)}")
    return notes


def suites_here(run: Run, suite: Path | str | None = None) -> list[str]:
    """The suite directories a column's cases can be read from here: `suite` (unless the column ran another
    manifest), else the suites its header names that are here with the manifest the run had."""
    if suite is not None:
        digest = suite_hash(suite)
        return [str(suite)] if digest is not None and (not run.suites or digest in run.suites.values()) else []
    return [path for path, _, _ in _found_suites(run)]


def _found_suites(run: Run) -> list[tuple]:
    """The suites a column's header names that are here, with the manifest the run had."""
    found = []
    for path, digest in run.suites.items():
        if isinstance(digest, str) and suite_hash(path) == digest:
            try:
                found.append(_suite(path))
            except ValueError:
                pass  # the manifest it ran cannot be read: nothing to list
    return found


def _names(names: list[str]) -> str:
    return ", ".join(names[:NAMES_SHOWN]) + (f" ... ({len(names) - NAMES_SHOWN} more)" if len(names) > NAMES_SHOWN
                                             else "")


def _different_suites(runs: list[Run]) -> list[str]:
    """Columns that ran different suites: another manifest for the same suite directory, or another content
    hash for the same case."""
    notes = []
    by_path: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        for path, digest in run.suites.items():
            by_path[path][str(digest)].append(run.label)
    for path, digests in by_path.items():
        if len(digests) > 1:
            notes.append(f"inputs from different suites: {path} has " + "; ".join(
                f"manifest {d[:12]} in {', '.join(labels)}" for d, labels in digests.items()))
    contents = [{r["case"]: r["content"] for r in run.records if r.get("content")} for run in runs]
    for i, a in enumerate(runs):
        for j in range(i + 1, len(runs)):
            differ = sorted(c for c in contents[i].keys() & contents[j].keys() if contents[i][c] != contents[j][c])
            if differ:
                notes.append(f"inputs from different suites: {a.label} and {runs[j].label} ran other content for "
                             f"{len(differ)} case(s): {_names(differ)}")
    return notes


