"""A column's failing items in groups, every one of them reachable: by family, then by fault model (the
records' "diagnosis": the fault models that reproduce the item's outputs, as one combination; or what
stands in for one: "matches no known fault", an error no fault model explains, a crash ...), then by
configuration (the type pair of a grid family, then the case's other scalar parameters), each group with its
count. The report draws each level as a collapsed group (HTML <details>; Markdown headed lists, capped).
"""

from __future__ import annotations

from collections import defaultdict

from runners.report_items import Cases, details
from runners.report_tables import diagnosis_text, grid_families

BAD = ("fail", "error", "invalid-case", "timeout", "crash")  # the verdicts listed as failing items
NOT_DIAGNOSED = {
    "fail": "wrong values, not diagnosed (no fault models for the family, or a results file older than the "
            "diagnosis)",
    "error": "the backend raised; no fault model that refuses the model explains it",
    "invalid-case": "the case cannot be read (the suite is damaged)",
    "timeout": "ran past the time limit",
    "crash": "the backend's worker process died",
}
NO_MATCH_LABEL = "wrong values no fault model reproduces (matches no known fault)"


def failing(records: list[dict]) -> list[dict]:
    return sorted((r for r in records if r["verdict"] in BAD),
                  key=lambda r: (r.get("family") or "", r["case"], r["dataset"]))


def fault_key(r: dict) -> tuple:
    """The fault group of a failing item: a refusal inside a claim (with the faults that refuse alike, where some
    do), its diagnosis as one combination, [] (no match) or its verdict."""
    names = r.get("diagnosis")
    if r.get("claim"):
        return ("claimed", tuple(names or ()))
    if names:
        return ("diagnosed", tuple(names))
    if names is not None and r["verdict"] == "fail":
        return ("no match",)
    return ("verdict", r["verdict"])


def fault_label(key: tuple) -> str:
    if key[0] == "claimed":
        alike = f"; consistent with {' + '.join(key[1])}" if key[1] else ""
        return f"claimed, refused: unsupported inside a claim (--claims){alike}"
    if key[0] == "diagnosed":
        return "consistent with " + " + ".join(key[1])
    if key[0] == "no match":
        return NO_MATCH_LABEL
    return f"{key[1]}: {NOT_DIAGNOSED.get(key[1], key[1])}"


def config_label(r: dict, grid: tuple | None = None) -> str:
    """The configuration of an item: its grid's row -> column first (the type pair), then its other
    parameters that are scalars or lists of names ("what", the case's own purpose, apart)."""
    params = r.get("params") if isinstance(r.get("params"), dict) else {}
    parts, used = [], {"what"}
    if grid and grid[0] in params and grid[1] in params:
        parts.append(f"{params[grid[0]]} -> {params[grid[1]]}")
        used |= {grid[0], grid[1]}
    for k in sorted(params):
        v = params[k]
        if k in used:
            continue
        if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            parts.append(f"{k}={'/'.join(v)}")
        elif isinstance(v, (str, int, float, bool)) or v is None:
            parts.append(f"{k}={v}")
    return ", ".join(parts) or "(no parameters)"


def _common_reading(records: list[dict]) -> str | None:
    """The reading every item of a group rests on (shown once for the group), None where they differ or none has."""
    readings = {r.get("reading") for r in records}
    return readings.pop() if len(readings) == 1 else None


def groups(records: list[dict], whats: dict[str, str], item=lambda r: r) -> list[dict]:
    """[{"family", "count", "faults": [{"label", "whats": [(name, what)], "text": the diagnosis as a message
    says it (None for the groups of no fault model), "count", "configs": [{"label",
    "count", "items": [item(r)], "reading": the one every item rests on, or None}]}]}]: every record given, each in one place; families by name, fault groups
    and configurations by count (most first)."""
    grid_of = grid_families()
    tree: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in records:
        family = r.get("family") or r.get("op") or "(none)"
        tree[family][fault_key(r)][config_label(r, grid_of.get(family))].append(r)
    out = []
    for family in sorted(tree):
        faults = []
        for key, configs in tree[family].items():
            rows = [{"label": label, "count": len(rs), "items": [item(r) for r in rs], "reading": _common_reading(rs)}
                    for label, rs in configs.items()]
            rows.sort(key=lambda c: (-c["count"], c["label"]))
            names = key[1] if key[0] in ("diagnosed", "claimed") else ()
            faults.append({"label": fault_label(key), "whats": [(n, whats.get(n, "")) for n in names],
                           "text": diagnosis_text({"diagnosis": list(names)}, whats) if names else None,
                           "count": sum(c["count"] for c in rows), "configs": rows})
        faults.sort(key=lambda f: (-f["count"], f["label"]))
        out.append({"family": family, "count": sum(f["count"] for f in faults), "faults": faults})
    return out


def failure_view(run, whats: dict[str, str], suites: list[str], cases: Cases, records: list[dict] | None = None
                 ) -> dict:
    """The failing items of a column (or `records` of it), grouped, each with its details (report_items)."""
    items = failing(run.records) if records is None else records

    def item(r: dict) -> dict:
        message = r.get("message") or ""
        diagnosis = diagnosis_text(r, whats)
        lines = message.split("\n")
        if diagnosis is not None and len(lines) > 1 and lines[-1] == diagnosis:
            lines.pop()  # the group it is shown in names the fault models
        first = lines[0].removeprefix(f"{r['case']}[{r['dataset']}]: ")  # the item is named beside it
        return dict(r, message=message, diagnosis_text=diagnosis, first_line=first, shown_message="\n".join(lines),
                    details=details(r, cases, suites, run.name, run.tier))

    return {"total": len(items), "groups": groups(items, whats, item)}
