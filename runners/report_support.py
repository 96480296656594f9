"""The report's support table: per op, of the configurations the suite holds (valid models: every node / graph
case is one the schema allows), how many each backend implements. A configuration is an op and the values of its
cases' type keys (runners/claims_make.py: Cast's from / to, QuantizeLinear's x / y / scale, ...); a backend
implements it when none of its items is unsupported, refuses it when every one is, and implements it in part
otherwise. Refusals a claim turned into failures (--claims) are counted apart: they are what the backend said it
implements."""

from __future__ import annotations

from collections import defaultdict

from runners.claims import value_text
from runners.claims_make import type_keys
from runners.report_inputs import Run

KINDS = ("node", "graph")


def _configs(run: Run) -> dict[str, dict[tuple, list[dict]]]:
    """{op: {configuration: records}} of a column's node / graph records."""
    by_op: dict[str, list[dict]] = defaultdict(list)
    for r in run.records:
        if r.get("kind") in KINDS and isinstance(r.get("op"), str) and r.get("verdict") != "skipped":
            by_op[r["op"]].append(r)
    out: dict[str, dict[tuple, list[dict]]] = {}
    for op, records in by_op.items():
        keys = type_keys([r.get("params") or {} for r in records])
        groups: dict[tuple, list[dict]] = defaultdict(list)
        for r in records:
            params = r.get("params") or {}
            groups[tuple(value_text(params.get(k)) for k in keys)].append(r)
        out[op] = groups
    return out


def support(runs: list[Run]) -> dict:
    """{"ops": [op], "cells": {(op, column label): {"configs", "implemented", "partly", "refused", "claimed"}}}."""
    cells: dict[tuple[str, str], dict] = {}
    ops = set()
    for run in runs:
        for op, groups in _configs(run).items():
            ops.add(op)
            c = {"configs": len(groups), "implemented": 0, "partly": 0, "refused": 0, "claimed": 0}
            for records in groups.values():
                refused = sum(1 for r in records if r["verdict"] == "unsupported")
                claimed = sum(1 for r in records if r.get("claim"))
                c["claimed"] += claimed
                refused += claimed
                c["implemented" if refused == 0 else "refused" if refused == len(records) else "partly"] += 1
            cells[op, run.label] = c
    return {"ops": sorted(ops), "cells": cells}


def cell_text(c: dict | None) -> str:
    """"12/14 (1 in part, 1 refused; 3 claimed items refused)", "-" where the column ran no case of the op."""
    if c is None:
        return "-"
    extra = [f"{c['partly']} in part" if c["partly"] else "", f"{c['refused']} refused" if c["refused"] else ""]
    extra = [e for e in extra if e]
    claimed = f"; {c['claimed']} claimed item(s) refused" if c["claimed"] else ""
    return f"{c['implemented']}/{c['configs']}" + (f" ({', '.join(extra)}{claimed})" if extra else "")
