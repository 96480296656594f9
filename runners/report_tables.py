"""The tables of a report, each from the columns' records: verdict counts and tiers per family, where the
nodes ran, the type grids, failing items against a sentence or a reading, the probe divergence matrix.

A grid cell carries its counts as text ("3" where all its items pass; "2/5 F" where 2 of its 5 items do not
pass and fail is the worst verdict), so a screenshot, a printout and the Markdown show them; its color
is its worst verdict.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from generator import dtypes
from runners.diagnose import NO_MATCH
from runners.report_inputs import Run

# verdicts from best to worst: the color of a grid cell is its worst item's
ORDER = ("pass", "probe", "xfailed", "unsupported", "skipped", "fail", "error", "invalid-case", "timeout", "crash")
TIERS = ("strict", "tolerant")
GOOD = ("pass", "probe")
MAX_PROBE_ROWS = 300


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


# the letter a grid cell's text gives its worst verdict (the legend says which is which)
LETTERS = {"xfailed": "X", "unsupported": "U", "skipped": "S", "fail": "F", "error": "E", "invalid-case": "I",
           "timeout": "T", "crash": "C"}


def cell_text(verdicts: list[str]) -> str:
    """A grid cell's counts: "" (no item), "N" (all N pass), "K/N L" (K of its N items do not pass, L the letter
    of the worst of them: LETTERS)."""
    if not verdicts:
        return ""
    bad = [v for v in verdicts if v not in GOOD]
    return f"{len(bad)}/{len(verdicts)} {LETTERS.get(_worst(bad), '?')}" if bad else str(len(verdicts))


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
                    line.append({"verdict": _worst(vs), "text": cell_text(vs), "title": f"{a} -> {b}: " + ", ".join(
                        f"{n} {v}" for v, n in sorted(c.items(), key=lambda kv: ORDER.index(kv[0])))})
                body.append((a, line))
            title = family + (" (" + ", ".join(f"{k}={v}" for k, v in table) + ")" if table else "")
            out.append({"title": title, "row_key": rk, "col_key": ck, "cols": cols, "rows": body})
    return out


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
    """Rows: probe items; per backend what it returned (or raised); where the backends disagree. "compared":
    the columns with a probe result; "collapsed" where fewer than two have one (nothing to compare against:
    the report folds the matrix away)."""
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
    compared = [run.label for n, run in enumerate(runs)
                if any(n in per and per[n]["verdict"] == "probe" for per in by_item.values())]
    return {"rows": rows[:MAX_PROBE_ROWS], "total": len(rows), "diverging": sum(r["diverge"] for r in rows),
            "compared": compared, "collapsed": len(compared) < 2}


