"""The report's conformance matrix and release history, from the columns' records.

Matrix: a row per operator and opset (the record's "opset", case.json's; for an older results file, the suite
manifest's where the suite is here), or per operator, opset and type group with `by="types"` (the op's type keys,
runners/claims_make.type_keys: Cast's from / to, QuantizeLinear's x / y / scale, ...); a column per report column
(backend x settings x release: runners/report_inputs.py labels them). A cell counts its items per verdict and gives
the judged pass rate (pass over the judged: pass, fail, error, invalid-case, timeout, crash; docs/design.md
"Verdicts"); it is conformant when it judged something and every judged item passed.

The main matrix has one column per backend and device at its newest release; a backend seen at several releases
(same name and device, other versions) gets its own matrix of every release, and a history: between each release
and the next, the items it fixed (failing -> pass), broke (pass -> failing), lost support for (judged ->
unsupported), newly judged (unsupported -> judged) and the failures that changed kind (fail -> crash ...).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from runners.claims import value_text
from runners.claims_make import type_keys
from runners.markdown import Markdown
from runners.report_inputs import Run, suites_here
from runners.report_tables import ORDER
from runners.results import FAILING

JUDGED = frozenset({"pass"}) | FAILING
SHOWN = ("fail", "error", "unsupported", "crash", "timeout", "invalid-case", "probe", "skipped")  # besides pass
LETTER = {"fail": "F", "error": "E", "unsupported": "U", "crash": "C", "timeout": "T", "invalid-case": "I",
          "probe": "P", "skipped": "S"}
DEVICE_KEYS = ("device", "providers", "execution_providers", "target")  # settings that name where a column ran
NAMES_MD = 8  # items a history entry names in the Markdown (the HTML names every one)


@dataclass
class Cell:
    counts: Counter = field(default_factory=Counter)

    @property
    def judged(self) -> int:
        return sum(n for v, n in self.counts.items() if v in JUDGED)

    @property
    def passed(self) -> int:
        return self.counts.get("pass", 0)

    @property
    def conformant(self) -> bool:
        return self.judged > 0 and self.passed == self.judged

    @property
    def worst(self) -> str:
        """The class the HTML colors the cell by."""
        if self.conformant:
            return "pass"
        if not self.judged:
            return "none"
        return max((v for v in FAILING if self.counts.get(v)), key=ORDER.index)  # the grids' order of worse

    @property
    def rate(self) -> str:
        if not self.judged:
            return "-"
        r = 100 * self.passed / self.judged
        return "100%" if self.conformant else f"{min(r, 99.9):.1f}%"  # never 100% with a failure in it

    @property
    def text(self) -> str:
        """"✓ 100% 420" (conformant), "98.1% 412/420 5F 3E 30U", "- 30U" (nothing judged), "" (no item)."""
        if not self.counts:
            return Markdown("")
        rest = " ".join(f"{self.counts[v]}{LETTER[v]}" for v in SHOWN if self.counts.get(v) and v != "pass")
        head = (f"✓ {self.rate} {self.passed}" if self.conformant else
                f"{self.rate} {self.passed}/{self.judged}" if self.judged else "-")
        return Markdown(f"{head} {rest}".strip())  # digits, letters, "%", "/", "-", "✓": nothing to escape in a cell

    @property
    def title(self) -> str:
        return ", ".join(f"{n} {v}" for v, n in sorted(self.counts.items()))


def version_key(version: str) -> tuple:
    """A release's place in order: its numbers in turn ("1.20.1" < "1.32.0"; "2026.4.1-22982-..." too)."""
    return tuple(int(n) for n in re.findall(r"\d+", version)[:4]) or (0,)


def device(run: Run) -> str:
    """Where a column ran, as its settings say (device, providers, ...); "" where they say nothing."""
    return "; ".join(f"{k}={value_text(run.settings[k])}" for k in DEVICE_KEYS if k in run.settings)


def series(runs: list[Run]) -> tuple[list[Run], list[list[Run]]]:
    """(the main matrix's columns, the release series): a series is the columns of one backend, device and tier
    at two or more versions, oldest first; the main matrix keeps each series' newest column."""
    groups: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        groups[run.name, device(run), run.tier].append(run)
    out = []
    for group in groups.values():
        if len({r.version for r in group}) > 1:
            out.append(sorted(group, key=lambda r: version_key(r.version)))
    older = {id(r) for s in out for r in s[:-1]}
    return [r for r in runs if id(r) not in older], out


class Rows:
    """The row key of each record: (op, opset, type group)."""

    def __init__(self, runs: list[Run], by: str | None, suite: Path | str | None = None):
        self.by = by
        self.known: dict[str, tuple] = {}  # case -> (op, opset) of the suite manifests here, for records without
        lacking = [run for run in runs if any(r.get("opset") is None or not r.get("op") for r in run.records)]
        for path in dict.fromkeys(p for run in lacking for p in suites_here(run, suite)):  # each suite read once
            self.known.update(_manifest_ops(path))
        self.keys: dict[str, list[str]] = {}
        if by == "types":
            params: dict[str, list[dict]] = defaultdict(list)
            for run in runs:
                for r in run.records:
                    params[self._op(r)].append(r.get("params") or {})
            self.keys = {op: type_keys(ps) for op, ps in params.items()}

    def _op(self, r: dict) -> str:
        return r.get("op") or self.known.get(r["case"], (None,))[0] or r.get("family") or "(no op)"

    def key(self, r: dict) -> tuple[str, str, str]:
        op = self._op(r)
        opset = r.get("opset") if r.get("opset") is not None else self.known.get(r["case"], (None, None))[1]
        group = ""
        if self.by == "types" and self.keys.get(op):
            p = r.get("params") or {}
            group = ", ".join(f"{k}={value_text(p.get(k))}" for k in self.keys[op])
        return op, "?" if opset is None else str(opset), group


def _manifest_ops(path: str) -> dict[str, tuple]:
    """{case: (op, opset)} of a suite's manifest (a value None where the manifest does not say)."""
    from generator.serialize import CaseError, read_manifest

    try:
        cases = read_manifest(Path(path)).get("cases") or []
    except (CaseError, AttributeError):
        return {}
    return {e["name"]: (e.get("op") if isinstance(e.get("op"), str) else None,
                        e.get("opset") if type(e.get("opset")) is int else None)
            for e in cases if isinstance(e, dict) and isinstance(e.get("name"), str)}


def _sort_key(row: tuple[str, str, str]) -> tuple:
    op, opset, group = row
    return op.lower(), int(opset) if opset.isdigit() else 1 << 30, group


def table(runs: list[Run], rows: Rows) -> dict:
    """{"columns": [{"label", "device", "machine"}], "rows": [{"op", "opset", "group", "cells": [Cell],
    "conformant": N}]}."""
    cells: dict[tuple, list[Cell]] = defaultdict(lambda: [Cell() for _ in runs])
    for i, run in enumerate(runs):
        for r in run.records:
            cells[rows.key(r)][i].counts[r["verdict"]] += 1
    body = [{"op": k[0], "opset": k[1], "group": k[2], "cells": cs, "conformant": sum(c.conformant for c in cs),
             "items": max(sum(c.counts.values()) for c in cs)} for k, cs in sorted(cells.items(), key=lambda kv: _sort_key(kv[0]))]
    total = [Cell(sum((c.counts for c in col), Counter())) for col in zip(*(row["cells"] for row in body))] if body else []
    return {"columns": [{"label": run.label, "device": device(run) or "-",
                         "machine": (run.machine or {}).get("class", "not recorded")} for run in runs],
            "rows": body, "total": total}


CHANGES = (("fixed", "failing -> pass"), ("broke", "pass -> failing"), ("lost", "judged -> unsupported"),
           ("gained", "unsupported -> judged"), ("changed", "one failing verdict -> another"))


def _change(a: str, b: str) -> str | None:
    if a == b:
        return None
    if a in FAILING and b == "pass":
        return "fixed"
    if a == "pass" and b in FAILING:
        return "broke"
    if a in JUDGED and b == "unsupported":
        return "lost"
    if a == "unsupported" and b in JUDGED:
        return "gained"
    if a in FAILING and b in FAILING:
        return "changed"
    return None


def history(runs: list[Run], rows: Rows) -> list[dict]:
    """Between each release of a series and the next: {"from", "to", "counts": {change: n}, "common": items in
    both, "rows": [{"op", "opset", "group", "counts": {change: n}, "items": {change: ["case[i] a -> b"]}}]}."""
    steps = []
    for a, b in zip(runs, runs[1:]):
        before = {(r["case"], r["dataset"]): r for r in a.records}
        per_row: dict[tuple, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        common = 0
        for r in b.records:
            old = before.get((r["case"], r["dataset"]))
            if old is None:
                continue
            common += 1
            what = _change(old["verdict"], r["verdict"])
            if what:
                per_row[rows.key(r)][what].append(f"{r['case']}[{r['dataset']}] {old['verdict']} -> {r['verdict']}")
        body = [{"op": k[0], "opset": k[1], "group": k[2], "counts": {c: len(v.get(c, ())) for c, _ in CHANGES},
                 "items": dict(v)} for k, v in sorted(per_row.items(), key=lambda kv: _sort_key(kv[0]))]
        steps.append({"from": a.label, "to": b.label, "common": common,
                      "only_new": len(b.records) - common, "only_old": len(a.records) - common,
                      "counts": {c: sum(row["counts"][c] for row in body) for c, _ in CHANGES}, "rows": body})
    return steps


def matrix_view(runs: list[Run], by: str | None = None, suite: Path | str | None = None) -> dict:
    """What the templates' matrix section renders: the main table, and per release series its table and history."""
    rows = Rows(runs, by, suite)
    main, many = series(runs)
    return {"main": table(main, rows), "by": by or "opset",
            "series": [{"name": s[0].name, "device": device(s[0]) or "-", "table": table(s, rows),
                        "history": history(s, rows)} for s in many],
            "changes": CHANGES, "letters": LETTER, "names_md": NAMES_MD}
