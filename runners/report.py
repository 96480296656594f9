"""Results files -> a conformance report (HTML or Markdown) through the jinja2 templates in templates/.

    opconform report RESULTS.json [RESULTS.json ...] -o report.html [--format html|md]

One results file per backend (`pytest SUITE --backend B --report B.json`); several side by side make
a scoreboard. The page shows, per backend: name, version, settings and tier; counts per family and
verdict; the tiers met per family; a from-type x to-type grid for Cast and the promotion table for
ConvertPromoteTypes, colored by verdict; the failures per fault model (runners/diagnose.py: how many
failing items each fault model reproduces, per backend); the first mismatches and the diagnosis of every
failing item; and the probe cases as a divergence matrix (what each backend returned where the spec
defines nothing). The HTML is one self-contained file: inline CSS, no scripts, no network.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from generator import dtypes
from runners.diagnose import NO_MATCH, fault_table, fault_whats
from runners.results import read_results

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
# verdicts from best to worst: the color of a grid cell is its worst item's
ORDER = ("pass", "probe", "xfailed", "unsupported", "skipped", "fail", "error", "invalid-case", "timeout", "crash")
TIERS = ("strict", "tolerant")
# families drawn as a grid: family -> (row parameter, column parameter, parameters naming one table)
GRIDS = {
    "cast": ("from", "to", ()),
    "convert_promote_types": ("input_0", "input_1", ("promote_unsafe", "pytorch_scalar_promotion")),
}
MAX_FAILURES = 400  # failing items listed in full per backend (the rest are counted)
MAX_PROBE_ROWS = 300


@dataclass
class Run:
    """One results file."""

    label: str
    name: str
    version: str
    settings: dict
    tier: str
    created: str
    records: list[dict]
    counts: dict = field(default_factory=dict)


def load(paths: list[Path | str]) -> list[Run]:
    runs = []
    for p in paths:
        doc = read_results(p)
        b = doc.get("backend") or {}
        name, version = b.get("name", "?"), b.get("version", "?")
        runs.append(Run(label=f"{name} {version}", name=name, version=version, settings=b.get("settings") or {},
                        tier=doc.get("tier", "?"), created=doc.get("created", ""), records=doc.get("records", []),
                        counts=doc.get("counts", {})))
    return runs


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


def _type_order(names) -> list[str]:
    known = [d.name for d in dtypes.all_dtypes()]
    return sorted(names, key=lambda n: (known.index(n) if n in known else len(known), n))


def grids(run: Run) -> list[dict]:
    """For each grid family (and each table of it): rows x cols of worst verdict and a tooltip."""
    out = []
    for family, (rk, ck, table_keys) in GRIDS.items():
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
    return [dict(r, diagnosis_text=diagnosis_text(r, whats)) for r in listed], total


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
    by_item: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for run in runs:
        for r in run.records:
            if r.get("kind") == "probe":
                by_item[_probe_key(r)][run.label] = r
    rows = []
    for key in sorted(by_item):
        per = by_item[key]
        cells, elems = [], {}
        for run in runs:
            r = per.get(run.label)
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
            elems[run.label] = e
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


def build(runs: list[Run]) -> dict:
    families = sorted({f for run in runs for f in family_counts(run)})
    whats = fault_whats({n for run in runs for r in run.records for n in r.get("diagnosis") or ()})
    return {
        "runs": [{
            "run": run,
            "counts": dict(sorted(Counter(r["verdict"] for r in run.records).items(), key=lambda kv: ORDER.index(kv[0])
                                  if kv[0] in ORDER else len(ORDER))),
            "families": family_counts(run),
            "tiers": tiers_met(run),
            "grids": grids(run),
            "failures": _diagnosed(failures(run), whats),
        } for run in runs],
        "faults": fault_table([(run.label, run.records) for run in runs]),
        "families": families,
        "order": ORDER,
        "probes": probe_matrix(runs),
    }


def render(runs: list[Run], fmt: str = "html") -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=fmt == "html",
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.get_template("report.html.j2" if fmt == "html" else "report.md.j2")
    return template.render(**build(runs))
