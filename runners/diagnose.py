"""Diagnosis: which fault models reproduce a failing backend's outputs (docs/design.md, "Fault models,
witnesses, diagnosis"; issue 9, item 5).

When a backend fails a data set (verdict `fail`: wrong values; not error / unsupported / crash), each
fault model of the case's family (generator.faults.catalogue) that can differ in the case's parameter
group is run once on that data set (generator.faults.fault_outputs). Its outputs take the place of the
expected ones and are compared with what the backend returned by runners/compare.py in the strict tier
under the case's own compare spec, so the rules that judged the backend (NaN payloads, the sign of zero,
strings read back as values ...) also decide whether a fault explains it. A fault that raises or refuses
the model, or whose outputs have another count, element type or shape, is not consistent.

Errors and refusals get a diagnosis too where a refusing fault explains them: when the backend raised on a
node / graph data set (verdict `error`, at prepare or run; or `unsupported` because the backend itself refused
the model at prepare: not at run, where it had accepted the model and cannot take the data (TVM 0.27 copying
int4 inputs), nor a case it cannot take, such as another format's twin, nor a node placed elsewhere than asked),
each candidate
fault that refuses the same model and data set (generator.faults.refuses: its family's `refuses`, no outputs
from its family's `run`, or a Refusal it raises) is named. Where none does, the record stays without a
diagnosis: a backend that raises for a reason no fault models is not said to "match no known fault".

The verdict carries the result:
  message    a last line "consistent with: <what> (<name>)[; <what> (<name>) ...]", or
             "matches no known fault"
  record     "diagnosis": the consistent faults' names ([] when none is); absent where nothing was
             diagnosed: other verdicts, probe / negative kinds, a family without fault models, a fail on
             another format's twin, an error or refusal no fault explains
Cost: at most one run of each of the family's faults per failing data set; for an error or refusal, one per
fault that can refuse (a family `refuses` or `run`, or a fault with may_refuse); nothing for passing ones.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

from generator import dot_bound, faults as fault_models
from generator.faults import Fault
from generator.serialize import LoadedCase

NO_MATCH = "matches no known fault"
NOT_DIAGNOSED = "not diagnosed"  # a failure without a diagnosis (no fault models, an older results file)


_CANDIDATES: dict[tuple, tuple] = {}  # (family, group params, the catalogue's faults) -> (catalogue, candidates)
_CANDIDATES_KEPT = 4096


def candidates(meta: dict | None) -> list[Fault] | None:
    """The fault models of the case's family that can differ from the reference in its parameter group;
    None when the family has no fault models (or the case no case.json). They depend on the family's
    catalogue and the group's params only, so they are worked out once per group (the faults' `equivalent`
    and `applies` cost more than a run of small cases)."""
    family = (meta or {}).get("family")
    if not family:
        return None
    try:
        catalogue = fault_models.catalogue(family)
    except Exception:  # noqa: BLE001 - a broken fault module must not cost the verdict
        return None
    if not catalogue:
        return None
    params = fault_models.group_params(meta)
    try:  # the catalogue's faults by identity: the cache holds them, so no other object can take their ids
        key = (family, json.dumps(params, sort_keys=True), tuple(map(id, catalogue)))
    except (TypeError, ValueError):  # params that are no JSON: worked out each time
        return _candidates(catalogue, params)
    if key not in _CANDIDATES:
        if len(_CANDIDATES) >= _CANDIDATES_KEPT:
            _CANDIDATES.clear()
        _CANDIDATES[key] = (catalogue, tuple(_candidates(catalogue, params)))
    return list(_CANDIDATES[key][1])


def _candidates(catalogue: tuple[Fault, ...], params: dict) -> list[Fault]:
    out = []
    for f in catalogue:
        try:
            reason = f.equivalent(params)
        except Exception:  # noqa: BLE001 - cannot tell: try it
            reason = None
        if not reason and _applies(f, params):
            out.append(f)
    return out


def _applies(f: Fault, params: dict) -> bool:
    """Faults that are no plausible implementation in the group (the kill matrix's "not applicable") are
    not named."""
    try:
        return bool(f.applies(params))
    except Exception:  # noqa: BLE001 - cannot tell: try it
        return True


def consistent(fault: Fault, case: LoadedCase, inputs: list[np.ndarray], actual: list) -> bool:
    """Does a backend with exactly this fault output `actual` on these inputs (strict tier, the case's spec)?"""
    from runners.backends.base import as_declared
    from runners.compare import compare_outputs

    try:
        _, outs = case.io_types
        names, types = [n for n, _ in outs], [t for _, t in outs]
        produced = fault_models.fault_outputs(fault, case.model, [np.asarray(x) for x in inputs], case.meta or {})
        if len(produced) != len(types):  # [] is how a family's `run` says the fault refuses the model
            return False
        if len(produced) != len(actual) or not all(map(_same_type, produced, actual)):
            return False  # another element type than the backend's (a ConvertPromoteTypes decision)
        if any(np.asarray(y).dtype != t.np_dtype for y, t in zip(produced, types)):
            # the fault gives another element type than the declared one (an attribute naming the type left
            # unread) or a float type's bit patterns: the backend's tensors being the fault's, type and bits, is
            # consistent whatever the declared type; otherwise the declared type's comparison below decides
            if all(map(_identical, produced, actual)):
                return True
            if any(_retyped(y, t) for y, t in zip(produced, types)):
                return False
        produced = [as_declared(y, t) for y, t in zip(produced, types)]
        outcome = compare_outputs(produced, list(actual), names, types, (case.meta or {}).get("compare"),
                                  "strict", inputs=dot_bound.operands(case.model, [np.asarray(x) for x in inputs]),
                                  max_shown=0)
    except Exception:  # noqa: BLE001 - a fault that raises here is simply not what the backend did
        return False
    return bool(outcome.ok)


def _retyped(y, t) -> bool:
    """A fault's output of another element type than the declared one (a float type's bit patterns are its own)."""
    y = np.asarray(y)
    if t.kind == "string":
        return y.dtype.kind not in "OUS"
    return y.dtype != t.np_dtype and not (t.is_float and y.dtype == t.bits_dtype)


def _identical(y, a) -> bool:
    """The same element type, shape and bits, a NaN matching any NaN."""
    y, a = np.asarray(y), np.asarray(a)
    if y.shape != a.shape or y.dtype != a.dtype:
        return False
    if y.dtype.kind in "OUS":
        return bool((y == a).all())
    same = y.view(f"u{y.dtype.itemsize}") == a.view(f"u{a.dtype.itemsize}")
    try:
        same |= np.isnan(y.astype(np.float64)) & np.isnan(a.astype(np.float64))
    except (TypeError, ValueError):  # no float type
        pass
    return bool(same.all())


def _same_type(y, a) -> bool:
    """The same numpy element type (any two text forms count as one: str, bytes, object)."""
    y, a = np.asarray(y), np.asarray(a)
    return y.dtype == a.dtype or (y.dtype.kind in "OUS" and a.dtype.kind in "OUS")


def diagnose(case: LoadedCase, dataset: int | list[np.ndarray], actual: list,
             faults: Iterable[Fault] | None = None) -> list[Fault]:
    """The fault models that reproduce `actual` exactly on data set `dataset` of `case` (an index, or the
    inputs themselves). faults: the ones to try (default: `candidates(case.meta)`, [] without any)."""
    inputs = case.inputs[dataset] if isinstance(dataset, (int, np.integer)) else dataset
    if faults is None:
        faults = candidates(case.meta) or []
    return [f for f in faults if consistent(f, case, inputs, actual)]


def describe(found: list[Fault]) -> str:
    """The message line: "consistent with: <what> (<name>); ..." or "matches no known fault"."""
    if not found:
        return NO_MATCH
    return "consistent with: " + "; ".join(f"{described(f)} ({f.name})" for f in found)


def described(f) -> str:
    """A fault's one line, with the CPU path it shows on where it has one: an item it explains may pass on
    another machine class (a baseline is kept per class, docs/gating.md)."""
    return f.what + (f" [depends on the CPU: {f.cpu}]" if getattr(f, "cpu", "") else "")


def annotate(result, case: LoadedCase, dataset: int, actual: list, twin=None) -> None:
    """Diagnose a `fail` verdict of a node / graph data set in place: result.diagnosis (fault names) and
    the message's last line. Leaves every other result as it is (no `diagnosis`). twin: the twin whose data
    sets the backend was judged on; such outputs are in the twin's layout, which the fault models do not
    produce, so they are not diagnosed."""
    if result.verdict != "fail" or case.kind not in ("node", "graph") or twin is not None:
        return
    tried = candidates(case.meta)
    if tried is None:
        return
    found = diagnose(case, dataset, actual, tried)
    result.diagnosis = [f.name for f in found]
    result.message = f"{result.message}\n{describe(found)}"


def refusing(case: LoadedCase, dataset: int | list[np.ndarray], faults: Iterable[Fault] | None = None) -> list[Fault]:
    """The fault models that refuse data set `dataset` of `case` (an index, or the inputs themselves): a backend
    with one of them raises there. faults: the ones to ask (default: `candidates(case.meta)`)."""
    inputs = case.inputs[dataset] if isinstance(dataset, (int, np.integer)) else dataset
    if faults is None:
        faults = candidates(case.meta) or []
    found = []
    for f in faults:
        try:
            if fault_models.refuses(f, case.model, [np.asarray(x) for x in inputs], case.meta or {}):
                found.append(f)
        except Exception:  # noqa: BLE001 - cannot tell: no refusal is claimed
            continue
    return found


def annotate_refusal(result, case: LoadedCase, dataset: int) -> None:
    """Diagnose, in place, a node / graph data set on which the backend raised (an `error`, or an `unsupported`
    the backend itself said): result.diagnosis and a last message line "consistent with: ..." where some fault
    model refuses the same model; nothing otherwise."""
    if result.verdict not in ("error", "unsupported") or case.kind not in ("node", "graph"):
        return
    if not 0 <= dataset < case.n_datasets:
        return
    found = refusing(case, dataset, candidates(case.meta) or [])
    if found:
        result.diagnosis = [f.name for f in found]
        result.message = f"{result.message}\n{describe(found)}"


def accepting(case: LoadedCase, faults: Iterable[Fault] | None = None) -> list[Fault] | None:
    """The fault models that accept a negative case's model (a backend with one of them gives outputs where it
    must refuse): only for a family whose fault module decides refusals from the model (`refuses(fault, model,
    meta)`); None for the others, whose faults do not model what a backend accepts."""
    meta = case.meta or {}
    mod = fault_models.module(meta.get("family", "")) if meta.get("family") else None
    predicate = getattr(mod, "refuses", None)
    if predicate is None:
        return None
    if faults is None:
        faults = candidates(meta) or []
    found = []
    for f in faults:
        try:
            if not predicate(f, case.model, meta):
                found.append(f)
        except Exception:  # noqa: BLE001 - cannot tell: no acceptance is claimed
            continue
    return found


def annotate_acceptance(result, case: LoadedCase) -> None:
    """Diagnose, in place, a negative case the backend accepted (verdict fail): the fault models that accept the same
    model, or "matches no known fault"; nothing where the family's faults do not model acceptance."""
    if result.verdict != "fail" or case.kind != "negative":
        return
    found = accepting(case)
    if found is None:
        return
    result.diagnosis = [f.name for f in found]
    result.message = f"{result.message}\n{describe(found)}"


# ---------------------------------------------------------------------------------------
# diagnoses of a whole run (results records): the report's table and the README's discrepancies
# ---------------------------------------------------------------------------------------
def fault_whats(names: Iterable[str]) -> dict[str, str]:
    """name -> one-line description (described: with its CPU path), for the faults of the catalogues installed
    now (names from an older run whose fault is gone get none)."""
    families = {n.split(".", 1)[0] for n in names}
    out = {}
    for family in families:
        try:
            out.update((f.name, described(f)) for f in fault_models.catalogue(family))
        except Exception:  # noqa: BLE001
            continue
    return out


def cpu_paths(names: Iterable[str]) -> list[str]:
    """The CPU paths of the named faults that have one (sorted, each once)."""
    names = set(names)
    families = {n.split(".", 1)[0] for n in names}
    found = set()
    for family in families:
        try:
            found.update(f.cpu for f in fault_models.catalogue(family) if f.name in names and f.cpu)
        except Exception:  # noqa: BLE001 - a family gone since the run
            continue
    return sorted(found)


def _family(record: dict, name: str | None = None) -> str:
    return record.get("family") or (name.split(".", 1)[0] if name else None) or record.get("op") or "(none)"


def tally(records: Iterable[dict]) -> dict[tuple[str, str], int]:
    """(family, fault name | NO_MATCH | NOT_DIAGNOSED) -> failing items (verdict fail of node / graph data sets),
    and, under a fault's name, the errors and refusals it explains. An item consistent with several faults counts
    once for each."""
    counts: Counter = Counter()
    for r in records:
        if _raised(r):
            for name in r.get("diagnosis") or ():
                counts[(_family(r, name), name)] += 1
            continue
        if r.get("verdict") != "fail" or r.get("kind") not in ("node", "graph", None):
            continue
        diagnosis = r.get("diagnosis")
        if diagnosis is None:
            counts[(_family(r), NOT_DIAGNOSED)] += 1
        elif not diagnosis:
            counts[(_family(r), NO_MATCH)] += 1
        for name in diagnosis or ():
            counts[(_family(r, name), name)] += 1
    return dict(counts)


def fault_table(runs: list[tuple[str, list[dict]]]) -> dict:
    """Failing items per fault model and backend: runs are (backend label, records).

    {"backends": [labels], "rows": [{"family", "fault", "what", "counts": [per backend], "total"}],
     "failures": [failing node / graph items per backend], "diagnosed": [those consistent with some fault]};
    rows by family, then faults by their total (most first), then NO_MATCH and NOT_DIAGNOSED last in their
    family."""
    per = [tally(records) for _, records in runs]
    keys = sorted({k for t in per for k in t})
    whats = fault_whats(k[1] for k in keys if k[1] not in (NO_MATCH, NOT_DIAGNOSED))
    grouped: dict[str, list] = defaultdict(list)
    for family, fault in keys:
        counts = [t.get((family, fault), 0) for t in per]
        grouped[family].append({"family": family, "fault": fault, "what": whats.get(fault, ""),
                                "counts": counts, "total": sum(counts)})
    tail = {NO_MATCH: 1, NOT_DIAGNOSED: 2}
    rows = []
    for family in sorted(grouped):
        rows += sorted(grouped[family], key=lambda row: (tail.get(row["fault"], 0), -row["total"], row["fault"]))
    failing = [[r for r in records if r.get("verdict") == "fail" and r.get("kind") in ("node", "graph", None)]
               for _, records in runs]
    raised = [[r for r in records if _raised(r)] for _, records in runs]
    return {"backends": [label for label, _ in runs], "rows": rows, "failures": [len(f) for f in failing],
            "diagnosed": [sum(1 for r in f if r.get("diagnosis")) for f in failing],
            "raised": [len(e) for e in raised], "raised_diagnosed": [sum(1 for r in e if r.get("diagnosis")) for e in raised]}


def _raised(r: dict) -> bool:
    """An error or unsupported verdict of a node / graph data set (the backend raised, or cannot take the case)."""
    return r.get("verdict") in ("error", "unsupported") and r.get("kind") in ("node", "graph", None)


def unmatched(runs: list[tuple[str, list[dict]]]) -> dict:
    """The measure of how much of a run the fault models explain, per backend and per family:
    {"backends": [labels], "rows": [{"family" (None: every family), "cells": [per backend {"failing", "no_match",
    "not_diagnosed", "share", "raised", "raised_diagnosed"}]}]}; share = no_match / failing (None without failing
    items). failing: fail verdicts of node / graph data sets; raised: their error / unsupported verdicts, of which
    raised_diagnosed some refusing fault model explains."""
    families = sorted({_family(r) for _, records in runs for r in records
                       if r.get("verdict") == "fail" or _raised(r)})
    rows = []
    for family in [None] + families:
        cells = []
        for _, records in runs:
            mine = [r for r in records if family is None or _family(r) == family]
            failing = [r for r in mine if r.get("verdict") == "fail" and r.get("kind") in ("node", "graph", None)]
            raised = [r for r in mine if _raised(r)]
            no_match = sum(1 for r in failing if r.get("diagnosis") == [])
            cells.append({"failing": len(failing), "no_match": no_match,
                          "not_diagnosed": sum(1 for r in failing if r.get("diagnosis") is None),
                          "share": no_match / len(failing) if failing else None,
                          "raised": len(raised), "raised_diagnosed": sum(1 for r in raised if r.get("diagnosis"))})
        rows.append({"family": family, "cells": cells})
    return {"backends": [label for label, _ in runs], "rows": rows}


def unmatched_markdown(table: dict) -> str:
    """The measure as Markdown: per backend, "no match / failing (share)", not diagnosed, and "explained /
    errors + unsupported"."""
    backends = table["backends"]
    lines = ["| family | " + " | ".join(f"{b}: matches no known fault | {b}: errors / unsupported explained"
                                          for b in backends) + " |",
             "|---|" + "---:|---:|" * len(backends)]
    for row in table["rows"]:
        cells = []
        for c in row["cells"]:
            share = f" ({c['share']:.1%})" if c["share"] is not None else ""
            nd = f", {c['not_diagnosed']} not diagnosed" if c["not_diagnosed"] else ""
            cells.append(f"{c['no_match']} of {c['failing']}{share}{nd}" if c["failing"] else "")
            cells.append(f"{c['raised_diagnosed']} of {c['raised']}" if c["raised"] else "")
        lines.append(f"| {row['family'] or '**all**'} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown(table: dict) -> str:
    """The fault table as Markdown (the README's known-discrepancies table)."""
    backends = table["backends"]
    lines = ["| family | fault model | " + " | ".join(backends) + " |",
             "|---|---|" + "---:|" * len(backends)]
    for row in table["rows"]:
        fault = row["fault"] if row["fault"] in (NO_MATCH, NOT_DIAGNOSED) else f"`{row['fault']}`"
        if row["what"]:
            fault += f": {row['what']}"
        lines.append(f"| {row['family']} | {fault} | " + " | ".join(str(n or "") for n in row["counts"]) + " |")
    lines.append("| | failing items (node / graph data sets) | " + " | ".join(map(str, table["failures"])) + " |")
    lines.append("| | of which consistent with some fault model | " + " | ".join(map(str, table["diagnosed"])) + " |")
    if any(table.get("raised") or ()):
        lines.append("| | errors and unsupported (node / graph data sets) | " + " | ".join(map(str, table["raised"])) + " |")
        lines.append("| | of which a fault model that refuses the model explains | "
                     + " | ".join(map(str, table["raised_diagnosed"])) + " |")
    return "\n".join(lines) + "\n"
