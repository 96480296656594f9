"""Results files -> a conformance report (HTML or Markdown) through the jinja2 templates in templates/.

    opconform report RESULTS.json [RESULTS.json ...] [-o report.html|report.md|-] [--format html|md] [--suite DIR]

One results file per backend (`pytest SUITE --backend B --report B.json`); several side by side make
a scoreboard. The page shows, per backend: name, version, settings and tier; counts per family and
verdict; the tiers met per family; a from-type x to-type grid for Cast and the promotion table for
ConvertPromoteTypes, colored by verdict; the failures per fault model (runners/diagnose.py: how many
failing items each fault model reproduces, and the errors / refusals a refusing fault model explains, per
backend); the failing items against a sentence of the texts apart from those against a reading (case.json
"reading", per family and reading: failure_bases); the first mismatches, the diagnosis and the reading of every
failing item; and the probe cases as a divergence matrix (what each backend returned where the spec
defines nothing). The HTML is one self-contained file: inline CSS, no scripts, no network. The Markdown
escapes every value it shows (a message can hold anything): no HTML, no link, image or autolink from data;
both show control and bidi characters escaped (runners/escape.py).

A results file is data: its records that runners.results.record_problem refuses (a field the report reads
of the wrong type, a verdict not in VERDICTS, nesting too deep) are left out one by one, each named in the
report's notes and on stderr (`opconform report` then exits 1); the rest is reported. `-o` writes only a new
path, an empty file or a report opconform wrote (MARK), atomically, never through a symbolic link or into a
FIFO (check_output).

The shards of one run (`--shard I/N` on several machines: same backend, version, settings, tier and
suite) merge into one column; shards that disagree on an item are refused. Columns that share a backend
name and version are labelled by the settings that differ, else by their files. The report notes (and
`opconform report` prints on stderr) missing shards, the cases of the suite a column did not judge, and
inputs that come from different suites.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup

from generator import dtypes
from runners.diagnose import NO_MATCH, fault_table, fault_whats
from runners.escape import printable
from runners.results import (HEAD, differing_settings, existing_file, head_format, load_results, settings_text,
                             sort_records, suite_hash)

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
# verdicts from best to worst: the color of a grid cell is its worst item's
ORDER = ("pass", "probe", "xfailed", "unsupported", "skipped", "fail", "error", "invalid-case", "timeout", "crash")
TIERS = ("strict", "tolerant")
MAX_FAILURES = 400  # failing items listed in full per backend (the rest are counted)
MAX_PROBE_ROWS = 300
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
               skipped=[f"{path}: {line}, skipped" for line in skipped])


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
    """What shards of one run share."""
    # the suites by manifest only: each CI machine may have checked the suite out at another path
    suites = sorted(str(h) for h in run.suites.values())
    return json.dumps([run.name, run.version, run.settings, run.tier, suites], sort_keys=True, default=str)


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
               skipped=[line for run in group for line in run.skipped])


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
    """One line per problem the report should carry: records skipped as malformed, missing shards, cases of
    the suite a column did not judge, inputs from different suites (other manifests, or other content for the same case). The
    suite is `suite` (a suite directory) or, per column, the suites its header names that are found here
    with the same manifest."""
    given = _suite(suite) if suite is not None else None
    notes = [line for run in runs for line in run.skipped]
    for run in runs:
        if run.shard_total:
            missing = sorted(set(range(1, run.shard_total + 1)) - set(run.shards))
            if missing:
                notes.append(f"{run.label}: shard(s) {', '.join(map(str, missing))} of {run.shard_total} missing "
                             f"(merged {len(run.shards)}: {', '.join(run.sources)})")
        notes += _unjudged(run, given)
    return notes + _different_suites(runs)


def _suite(path: Path | str) -> tuple[str, str, list[str]]:
    """(directory, manifest hash, case names) of a suite directory; ValueError (one line) if not one."""
    from generator.serialize import CaseError, read_manifest

    try:
        manifest = read_manifest(Path(path))
    except CaseError as exc:
        raise ValueError(f"--suite {path}: not a suite ({exc.problem}: {exc.path})") from None
    cases = manifest.get("cases") if isinstance(manifest, dict) else None
    if not isinstance(cases, list):
        raise ValueError(f"--suite {path}: not a suite (its manifest.json lists no cases)")
    names = [e["name"] for e in cases if isinstance(e, dict) and isinstance(e.get("name"), str)]
    return str(path), suite_hash(path), names


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
        missing = sorted(set(names) - judged)
        if missing:
            notes.append(f"{run.label}: {len(missing)} of {len(names)} case(s) of {path} not judged: "
                         f"{_names(missing)}")
    return notes


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


def _worst(verdicts) -> str:
    return max(verdicts, key=ORDER.index) if verdicts else ""


def _verdict(r: dict) -> str:
    return "xfailed" if r.get("outcome") == "xfailed" and r["verdict"] not in ("pass", "probe") else r["verdict"]


def family_counts(run: Run) -> dict[str, Counter]:
    out: dict[str, Counter] = defaultdict(Counter)
    for r in run.records:
        out[r.get("family") or r.get("op") or "(none)"][r["verdict"]] += 1
    return dict(sorted(out.items()))


def tiers_met(run: Run) -> dict[str, list[str]]:
    """Per family, the tiers in which every judged node / graph data set passes."""
    judged: dict[str, list[dict]] = defaultdict(list)
    for r in run.records:
        if r.get("kind") in ("node", "graph") and r["verdict"] not in ("unsupported", "skipped"):
            judged[r.get("family") or r.get("op") or "(none)"].append(r)
    return {f: [t for t in TIERS if all(t in (r.get("tiers_met") or ()) for r in rs)] for f, rs in sorted(judged.items())}


def placements(run: Run) -> dict | None:
    """Where the nodes under test ran (the records' `placement`, runners/execute.py): items per place (the
    providers / devices their nodes ran on, with any precision lower than declared), how many ran somewhere
    other than the place the run asked for, and how many ran in a lower precision. None when no record says."""
    places: Counter = Counter()
    elsewhere = lowered = recorded = 0
    for r in run.records:
        p = r.get("placement")
        nodes = [n for n in (p.get("nodes") or []) if isinstance(n, dict)] if isinstance(p, dict) else []
        if not nodes:
            continue
        recorded += 1
        ran = sorted({str(n.get("provider") or n.get("device") or "?") for n in nodes})
        low = sorted({f"{n.get('declared')} ran as {n.get('ran_as') or n.get('precision')}" for n in nodes
                      if n.get("lowered")})
        places[", ".join(ran) + (f" ({'; '.join(low)})" if low else "")] += 1
        elsewhere += p.get("requested") is not None and ran != [str(p.get("requested"))]
        lowered += bool(low)
    if not recorded:
        return None
    return {"rows": places.most_common(), "recorded": recorded, "elsewhere": elsewhere, "lowered": lowered}


def _type_order(names) -> list[str]:
    known = [d.name for d in dtypes.all_dtypes()]
    return sorted(names, key=lambda n: (known.index(n) if n in known else len(known), n))


def grid_families() -> dict[str, tuple]:
    """Families drawn as a grid: family -> its GRID (row parameter, column parameter, parameters naming one
    table), as the family module declares it."""
    from generator import families

    return {name: families.load(name).GRID for name in families.FAMILIES
            if getattr(families.load(name), "GRID", None)}


def grids(run: Run) -> list[dict]:
    """For each grid family (and each table of it): rows x cols of worst verdict and a tooltip."""
    out = []
    for family, (rk, ck, table_keys) in grid_families().items():
        cells: dict[tuple, dict[tuple, list[str]]] = defaultdict(lambda: defaultdict(list))
        for r in run.records:
            p = r.get("params") or {}
            if r.get("family") != family or rk not in p or ck not in p:
                continue
            table = tuple((k, p.get(k)) for k in table_keys)
            cells[table][(str(p[rk]), str(p[ck]))].append(_verdict(r))
        for table, grid in sorted(cells.items(), key=lambda kv: str(kv[0])):
            rows = _type_order({a for a, _ in grid})
            cols = _type_order({b for _, b in grid})
            body = []
            for a in rows:
                line = []
                for b in cols:
                    vs = grid.get((a, b), [])
                    c = Counter(vs)
                    line.append({"verdict": _worst(vs), "title": f"{a} -> {b}: " + ", ".join(
                        f"{n} {v}" for v, n in sorted(c.items(), key=lambda kv: ORDER.index(kv[0])))})
                body.append((a, line))
            title = family + (" (" + ", ".join(f"{k}={v}" for k, v in table) + ")" if table else "")
            out.append({"title": title, "row_key": rk, "col_key": ck, "cols": cols, "rows": body})
    return out


def failures(run: Run) -> tuple[list[dict], int]:
    bad = [r for r in run.records if r["verdict"] in ("fail", "error", "invalid-case", "timeout", "crash")]
    bad.sort(key=lambda r: (r.get("family") or "", r["case"], r["dataset"]))
    return bad[:MAX_FAILURES], len(bad)


SENTENCE = "a sentence of the texts"  # what a failing item's expectation rests on where its record has no reading


def _failing(r: dict) -> bool:
    """A wrong-value failure of a judged item (verdict fail of a node / graph data set)."""
    return r.get("verdict") == "fail" and r.get("kind") in ("node", "graph", None)


def failure_bases(runs: list[tuple[str, list[dict]]]) -> dict:
    """Failing items (verdict fail of node / graph data sets) per backend, apart by what their expectation rests
    on: a sentence of the texts, or a reading (the record's "reading", case.json's; docs/readings.md).

    {"backends": [labels], "rows": [{"family", "reading": None (a sentence) | its text, "counts": [per backend],
    "total"}], "sentence": [per backend], "reading": [per backend], "unrecorded": [labels of the columns where no
    record carries a reading]}; rows by family, the sentence row first, then the readings by their total (most
    first). A record from before readings were recorded counts as a sentence's: "unrecorded" names the columns
    that may be such a file (or ran a suite without readings)."""
    per: list[Counter] = []
    for _, records in runs:
        per.append(Counter((r.get("family") or r.get("op") or "(none)", r.get("reading") or None)
                           for r in records if _failing(r)))
    keys = {k for c in per for k in c}
    rows = []
    for family in sorted({f for f, _ in keys}):
        mine = [{"family": family, "reading": reading, "counts": [c.get((family, reading), 0) for c in per]}
                for f, reading in keys if f == family]
        for row in mine:
            row["total"] = sum(row["counts"])
        rows += sorted(mine, key=lambda row: (row["reading"] is not None, -row["total"], row["reading"] or ""))
    return {"backends": [label for label, _ in runs], "rows": rows,
            "sentence": [sum(n for (_, reading), n in c.items() if reading is None) for c in per],
            "reading": [sum(n for (_, reading), n in c.items() if reading is not None) for c in per],
            "unrecorded": [label for label, records in runs if not any(r.get("reading") for r in records)]}


def bases_markdown(table: dict) -> str:
    """failure_bases as Markdown (scripts/discrepancies.py)."""
    lines = ["| family | the expectation rests on | " + " | ".join(table["backends"]) + " |",
             "|---|---|" + "---:|" * len(table["backends"])]
    for row in table["rows"]:
        basis = SENTENCE if row["reading"] is None else "reading: " + " ".join(row["reading"].replace("|", "\\|").split())
        lines.append(f"| {row['family']} | {basis} | " + " | ".join(str(n or "") for n in row["counts"]) + " |")
    lines.append("| | failing items against a sentence | " + " | ".join(map(str, table["sentence"])) + " |")
    lines.append("| | failing items against a reading | " + " | ".join(map(str, table["reading"])) + " |")
    if table["unrecorded"]:
        lines += ["", UNRECORDED.format(", ".join(table["unrecorded"]))]
    return "\n".join(lines) + "\n"


UNRECORDED = ("No item of {} records a reading: a results file written before records carried one (its failures "
              "all count as a sentence's here), or a suite without readings.")


def diagnosis_text(r: dict, whats: dict[str, str]) -> str | None:
    """A failing item's diagnosis as one line ("consistent with: ..." / "matches no known fault"), None
    where it has none (not a wrong-value failure, no fault models, an older results file)."""
    names = r.get("diagnosis")
    if names is None:
        return None
    if not names:
        return NO_MATCH
    return "consistent with: " + "; ".join(f"{whats[n]} ({n})" if whats.get(n) else n for n in names)


def _diagnosed(items: tuple[list[dict], int], whats: dict[str, str]) -> tuple[list[dict], int]:
    listed, total = items
    return [dict(r, diagnosis_text=diagnosis_text(r, whats), message=r.get("message") or "") for r in listed], total


def _probe_key(r: dict) -> tuple[str, int]:
    return r["case"], r["dataset"]


def _elements(r: dict) -> list | None:
    """One probe output's elements as comparable values (bit patterns where there are any)."""
    if r["verdict"] != "probe" or not r.get("outputs"):
        return None
    out = []
    for o in r["outputs"]:
        out.extend(o.get("bits") or [repr(v) for v in o.get("values") or []])
    return out


def probe_matrix(runs: list[Run]) -> dict:
    """Rows: probe items; per backend what it returned (or raised); where the backends disagree."""
    by_item: dict[tuple, dict[int, dict]] = defaultdict(dict)
    for n, run in enumerate(runs):
        for r in run.records:
            if r.get("kind") == "probe":
                by_item[_probe_key(r)][n] = r
    rows = []
    for key in sorted(by_item):
        per = by_item[key]
        cells, elems = [], {}
        for n in range(len(runs)):
            r = per.get(n)
            if r is None:
                cells.append({"text": "not run", "cls": "none"})
                continue
            if r["verdict"] != "probe":
                cells.append({"text": r["verdict"], "cls": r["verdict"]})
                continue
            if r.get("error"):
                cells.append({"text": "raised: " + r["error"][:80], "cls": "raised"})
                continue
            e = _elements(r) or []
            elems[n] = e
            cells.append({"text": " ".join(map(str, e[:6])) + (" ..." if len(e) > 6 else ""), "cls": "value"})
        differing = 0
        if len(elems) > 1:
            columns = list(elems.values())
            n = min(len(c) for c in columns)
            differing = sum(1 for i in range(n) if len({c[i] for c in columns}) > 1)
            differing += max(len(c) for c in columns) - n
        # backends that did not run it (unsupported, skipped) neither agree nor diverge
        outcomes = {c["cls"] for c in cells if c["cls"] not in ("none", "unsupported", "skipped")}
        diverge = differing > 0 or len(outcomes) > 1
        rows.append({"case": key[0], "dataset": key[1], "cells": cells, "differing": differing, "diverge": diverge})
    rows.sort(key=lambda r: (not r["diverge"], r["case"]))
    return {"rows": rows[:MAX_PROBE_ROWS], "total": len(rows), "diverging": sum(r["diverge"] for r in rows)}


def build(runs: list[Run], notes: list[str] = ()) -> dict:
    families = sorted({f for run in runs for f in family_counts(run)})
    whats = fault_whats({n for run in runs for r in run.records for n in r.get("diagnosis") or ()})
    return {
        "runs": [{
            "run": run,
            "counts": dict(sorted(Counter(r["verdict"] for r in run.records).items(), key=lambda kv: ORDER.index(kv[0])
                                  if kv[0] in ORDER else len(ORDER))),
            "shards": f"{len(run.shards)} of {run.shard_total}" if run.shard_total else "",
            "families": family_counts(run),
            "tiers": tiers_met(run),
            "grids": grids(run),
            "placements": placements(run),
            "failures": _diagnosed(failures(run), whats),
        } for run in runs],
        "notes": list(notes),
        "faults": fault_table([(run.label, run.records) for run in runs]),
        "bases": failure_bases([(run.label, run.records) for run in runs]),
        "sentence": SENTENCE,
        "unrecorded": UNRECORDED,
        "families": families,
        "order": ORDER,
        "probes": probe_matrix(runs),
    }


def render(runs: list[Run], fmt: str = "html", notes: list[str] = ()) -> str:
    """The report as HTML (autoescaped) or Markdown (every value escaped by md_text, code spans by md_code);
    in both, control and bidi characters show escaped (runners/escape.py), and the text carries MARK."""
    return _template(fmt == "md").render(**build(runs, notes), mark=Markup(MARK))


@functools.lru_cache(maxsize=2)
def _template(md: bool) -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=not md,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, finalize=_md_finalize if md else _html_finalize)
    if md:
        env.filters["code"] = md_code
    return env.get_template("report.md.j2" if md else "report.html.j2")


# ---- what says a file is a report opconform wrote ----------------------------------------------------

# An HTML comment in every report (the HTML's second line, the Markdown's last): `-o` replaces a file that
# holds it, or an empty one, and refuses any other (a user's notes.md). GitHub hides it in a step summary.
MARK = "<!-- written by opconform report: it replaces this file when run again with -o -->"
_OLD_HEADS = (b"# opconform conformance report\n",  # reports from before MARK
              b'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
              b"<title>opconform conformance report</title>\n")
MARK_BYTES = 4096  # the head and the tail of a file looked at for MARK


def is_report(head: bytes, tail: bytes) -> bool:
    """Whether a file whose first and last MARK_BYTES bytes are `head` and `tail` is a report opconform wrote:
    MARK on one of its first two or last two lines, or the first lines of a report from before MARK."""
    mark = MARK.encode()
    lines = head.split(b"\n")[:2] + tail.rstrip(b"\n").split(b"\n")[-2:]
    return any(line.strip() == mark for line in lines) or head.startswith(_OLD_HEADS)


def check_output(path: Path | str) -> None:
    """`opconform report -o`'s policy, as `--report`'s: ValueError (one line) for a path the report must not
    be written to: a symbolic link, a directory, a FIFO or any file that is not a regular one (never opened
    in a way that blocks), an opconform data file (results, baseline, manifest), or an existing file that
    is not a report opconform wrote (MARK; an empty file may be written over)."""
    found = existing_file(path, HEAD + 1, MARK_BYTES)
    if found is None or not found[0]:
        return
    head, tail = found
    if head_format(head):
        raise ValueError(f"{path}: is an opconform data file, not a report (choose another path)")
    if not is_report(head, tail):
        raise ValueError(f"{path}: exists and is not a report opconform wrote; it would be overwritten "
                         "(choose another path)")


# ---- HTML: autoescaped, and control characters shown ----------------------------------------------

def _html_finalize(value):
    if isinstance(value, Markup):
        return Markup(printable(str(value), newlines=True))  # escapes add backslashes only: still safe HTML
    return printable("" if value is None else value, newlines=True)


# ---- Markdown escaping ----------------------------------------------------------------------------

class _Markdown(str):
    """Text already escaped for Markdown (what md_code returns)."""


# A backslash, a backtick or a pipe would end a code span or a table cell; HTML would be HTML; [ ] ! make
# links, images and footnotes (no link without a "[": parentheses stay as they are), * _ ~ emphasis, # a
# heading (at the start of a list item). A backslash escape works
# on any ASCII punctuation in GFM. Autolinks need "://" (url), "www." or "@" (e-mail, also after "mailto:" /
# "xmpp:"): GFM finds an e-mail address in text whatever its escapes, so "@" goes in a code span of its own.
_MD_ESCAPES = str.maketrans({"\\": "\\\\", "`": "\\`", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;",
                             "\n": " ", "[": "\\[", "]": "\\]", "!": "\\!",
                             "*": "\\*", "_": "\\_", "~": "\\~", "#": "\\#", "@": "`@`"})
_AUTOLINK = re.compile(r"(www)\.|:(?=//)", re.I)  # "www." and a scheme's "://" start GFM autolinks
_LIST_START = re.compile(r"^(\s*)(?:([-+])|([0-9]+)\.)")  # a list marker, were the text at a line's start


def md_text(value) -> str:
    """Any text shown in Markdown (a table cell, a list item, a heading): one line, control characters
    escaped, no HTML, no markup that ends a cell or opens a code span, no link, image or autolink."""
    text = printable(str(value).replace("\n", " ")).translate(_MD_ESCAPES)
    text = _AUTOLINK.sub(lambda m: f"{m.group(1)}\\." if m.group(1) else "\\:", text)
    return _LIST_START.sub(lambda m: m.group(1) + (f"\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\."),
                           text, count=1)


def md_code(value, cell: bool = False) -> _Markdown:
    """`value` as a code span (the text shown as it is, control characters escaped), on one line; in a table
    cell (`cell`), its pipes escaped as GFM requires. The fence is longer than any run of backticks in the
    text."""
    text = printable(str(value).replace("\n", " "))
    if not text:
        return _Markdown("")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if cell:
        text = text.replace("|", "\\|")
    return _Markdown(f"{fence}{pad}{text}{pad}{fence}")


def _md_finalize(value):
    if isinstance(value, (_Markdown, Markup)):
        return value
    return "" if value is None else md_text(value)
