"""The kill matrix of a suite: parameter groups x fault models, and the data sets that kill each pair.

gen-cases hands every case it writes to `KillMatrix.add`, which runs each fault model of the case's family
on each data set of a node / graph case and records, in case.json "kills", the faults each data set kills
(its outputs differ from the expected ones under the strict comparison). At the end `files()` gives the
suite's tables/kill_matrix.json and .md. Each (group, fault) pair has one status:

  killed          some node / graph data set tells the fault from the reference (they are listed), or a
                  negative case the fault accepts (families whose fault module has refuses(fault, model, meta))
  equivalent      no input can: the fault model's analytic proof, or the witness catalogue's (exhaustion)
  not applicable  the fault is no plausible implementation in this group (Fault.applies)
  survived        none of the above: a hole in the suite (tests/test_kill_matrix.py fails on any)

Mutation score of a family = killed / (killed + survived).
"""

from __future__ import annotations

import json
from collections import defaultdict

from generator import faults, witness
from generator.case import Case
from generator.serialize import graph_io_types

STATUSES = ("killed", "equivalent", "not applicable", "survived")


class KillMatrix:
    def __init__(self, families: list[str]):
        self.faults = {f: faults.catalogue(f) for f in families}
        self.modules = {f: faults.module(f) for f in families}
        self.catalogues = {f: witness.load(f) for f in families if self.faults[f]}
        self.killers: dict[str, dict[str, dict[str, list[str]]]] = defaultdict(lambda: defaultdict(dict))
        self.params: dict[str, dict[str, dict]] = defaultdict(dict)
        self.live: dict[str, dict[str, list]] = defaultdict(dict)

    def add(self, case: Case) -> None:
        """Record what each data set of a judged case kills, in case.meta["kills"] too."""
        family = case.meta.get("family")
        catalogue = self.faults.get(family)
        if not catalogue or case.kind not in ("node", "graph", "negative"):
            return
        if case.kind == "negative" and not hasattr(self.modules[family], "refuses"):
            return
        mod = self.modules[family]
        meta = dict(case.meta, name=case.name, kind=case.kind)
        key = mod.group_key(meta)
        if key not in self.live[family]:  # once per group: the proofs can be slow to decide
            params = self.params[family].setdefault(key, faults.group_params(meta))
            self.live[family][key] = [f for f in catalogue if f.applies(params) and f.equivalent(params) is None]
        live = self.live[family][key]
        _, outs = graph_io_types(case.model)
        types = [t for _, t in outs]
        killed_by = self.killers[family][key]
        kills = []
        if case.kind == "negative":  # the model must be refused: it kills every fault that accepts it
            here = [f.name for f in live if not _refuses(mod, f, case.model, meta)]
            for name in here:
                killed_by.setdefault(name, []).append(case.name)
            case.meta["kills"] = here
            case.meta["fault_group"] = key
            return
        for i, (inputs, expected) in enumerate(zip(case.inputs, case.outputs)):
            here = []
            for fault in live:
                if data_set_kills(mod, fault, case, meta, inputs, expected, types):
                    here.append(fault.name)
                    killed_by.setdefault(fault.name, []).append(f"{case.name}[{i}]")
            kills.append(here)
        case.meta["kills"] = kills
        case.meta["fault_group"] = key

    def state(self) -> dict:
        """What this matrix has seen, to merge into another (gen-cases runs blocks of units in processes)."""
        return {"killers": {f: {k: dict(v) for k, v in g.items()} for f, g in self.killers.items()},
                "params": {f: dict(g) for f, g in self.params.items()}}

    def merge(self, state: dict) -> None:
        """Add another matrix's state after what this one has (in unit order: first killers stay first)."""
        for family, groups in state["params"].items():
            for key, params in groups.items():
                self.params[family].setdefault(key, params)
        for family, groups in state["killers"].items():
            for key, row in groups.items():
                mine = self.killers[family][key]
                for fault, by in row.items():
                    mine.setdefault(fault, []).extend(by)

    # -----------------------------------------------------------------------------------
    def matrix(self) -> dict:
        """{family: {"groups": {key: {fault: {"status", "by" | "how"}}}, "score": {...}}}"""
        out = {}
        for family, catalogue in self.faults.items():
            if not catalogue:
                continue
            known = self.catalogues[family].get("groups", {})
            groups = {}
            counts = dict.fromkeys(STATUSES, 0)
            for key, params in sorted(self.params[family].items()):
                row = {}
                for fault in catalogue:
                    row[fault.name] = entry = _status(fault, params, self.killers[family][key].get(fault.name),
                                                      known.get(key, {}).get("faults", {}).get(fault.name))
                    counts[entry["status"]] += 1
                groups[key] = row
            judged = counts["killed"] + counts["survived"]
            out[family] = {"groups": groups, "counts": counts,
                           "score": round(counts["killed"] / judged, 4) if judged else 1.0,
                           "faults": {f.name: {"what": f.what, "seen_in": f.seen_in} for f in catalogue}}
        return out

    def files(self) -> dict[str, bytes]:
        m = self.matrix()
        if not m:
            return {}
        return {"tables/kill_matrix.json": compact_json(m).encode(), "tables/kill_matrix.md": markdown(m).encode()}


def compact_json(m: dict) -> str:
    """The matrix as JSON, small enough to commit: per family the fault list, counts, score, the distinct
    equivalence proofs once, and per group {"killed": {fault: [n, first killer]}, "equivalent": {proof index:
    [faults]}, "survived": [faults]}; faults not named in a group are not applicable there."""
    out = {}
    for family, fm in m.items():
        proofs: list[str] = []
        groups = {}
        for key, row in fm["groups"].items():
            g: dict = {}
            for fault, e in row.items():
                if e["status"] == "killed":
                    g.setdefault("killed", {})[fault] = [e["n"], e["by"][0]]
                elif e["status"] == "equivalent":
                    if e["how"] not in proofs:
                        proofs.append(e["how"])
                    g.setdefault("equivalent", {}).setdefault(str(proofs.index(e["how"])), []).append(fault)
                elif e["status"] == "survived":
                    g.setdefault("survived", []).append(fault)
            groups[key] = g
        out[family] = {"faults": fm["faults"], "counts": fm["counts"], "score": fm["score"], "proofs": proofs,
                       "groups": groups}
    lines = ["{"]
    for i, (family, fm) in enumerate(sorted(out.items())):
        head = {k: v for k, v in fm.items() if k != "groups"}
        lines.append(f" {json.dumps(family)}: {{")
        for k, v in sorted(head.items()):
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)},")
        lines.append('  "groups": {')
        rows = sorted(fm["groups"].items())
        for j, (key, g) in enumerate(rows):
            lines.append(f"   {json.dumps(key)}: {json.dumps(g, sort_keys=True)}{',' if j < len(rows) - 1 else ''}")
        lines.append("  }")
        lines.append(" }" + ("," if i < len(out) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def read_json(text: str) -> dict:
    """tables/kill_matrix.json back to {family: {"groups": {key: {fault: {"status", ...}}}, ...}}."""
    out = {}
    for family, fm in json.loads(text).items():
        groups = {}
        for key, g in fm["groups"].items():
            row = {f: {"status": "not applicable"} for f in fm["faults"]}
            for fault, (n, first) in g.get("killed", {}).items():
                row[fault] = {"status": "killed", "n": n, "by": [first]}
            for idx, names in g.get("equivalent", {}).items():
                for fault in names:
                    row[fault] = {"status": "equivalent", "how": fm["proofs"][int(idx)]}
            for fault in g.get("survived", []):
                row[fault] = {"status": "survived"}
            groups[key] = row
        out[family] = dict(fm, groups=groups)
    return out


def data_set_kills(mod, fault, case, meta, inputs, expected, types) -> bool:
    """Does the fault tell this data set (inputs, expected outputs) of the case from the reference?"""
    try:
        actual = faults.fault_outputs(fault, case.model, inputs, meta)
    except faults.Refusal:  # it raises where the case requires a result: an error verdict, never a pass
        return case.kind != "negative"
    except Exception:  # a fault model that cannot run here kills nothing
        return False
    custom = getattr(mod, "killed", None)
    if custom is not None:
        return bool(custom(fault, meta, expected, actual))
    return faults.differs(expected, actual, types, meta.get("compare"))


def _refuses(mod, fault, model, meta) -> bool:
    try:
        return bool(mod.refuses(fault, model, meta))
    except Exception:  # cannot tell: count it as refusing (no kill claimed)
        return True


def _status(fault, params: dict, by: list[str] | None, catalogued: dict | None) -> dict:
    if not fault.applies(params):
        return {"status": "not applicable"}
    proof = fault.equivalent(params)
    if proof is not None:
        return {"status": "equivalent", "how": proof}
    if by:
        return {"status": "killed", "by": by[:3], "n": len(by)}
    if catalogued and "equivalent" in catalogued:
        return {"status": "equivalent", "how": catalogued["equivalent"]}
    return {"status": "survived"}


def markdown(m: dict) -> str:
    lines = ["# Kill matrix", "",
             "Parameter groups x fault models: which data sets of this suite tell each fault model from the "
             "reference (generator/kill_matrix.py). Mutation score = killed / (killed + survived).", "",
             "| family | groups | faults | killed | equivalent | not applicable | survived | mutation score |",
             "|---|---|---|---|---|---|---|---|"]
    for family, fm in sorted(m.items()):
        c = fm["counts"]
        lines.append(f"| {family} | {len(fm['groups'])} | {len(fm['faults'])} | {c['killed']} | {c['equivalent']} | "
                     f"{c['not applicable']} | {c['survived']} | {fm['score']:.2%} |")
    for family, fm in sorted(m.items()):
        lines += ["", f"## {family}", "", "| fault | what | seen in | killed in groups | equivalent | survived |",
                  "|---|---|---|---|---|---|"]
        for name, info in fm["faults"].items():
            st = [row[name]["status"] for row in fm["groups"].values()]
            lines.append(f"| `{name}` | {_cell(info['what'])} | {_cell(info.get('seen_in')) or '-'} | "
                         f"{st.count('killed')} | {st.count('equivalent')} | {st.count('survived')} |")
        survivors = [(k, f) for k, row in fm["groups"].items() for f, e in row.items() if e["status"] == "survived"]
        if survivors:
            lines += ["", "Survived:", ""] + [f"- {k}: `{f}`" for k, f in survivors]
    return "\n".join(lines) + "\n"


def _cell(text) -> str:
    """Text in one Markdown table cell: one line, its pipes escaped (a seen_in may quote code)."""
    return " ".join(str(text or "").split()).replace("|", "\\|")
