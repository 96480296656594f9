"""Writing claims (runners/claims.py): `opconform claims SOURCE --suite DIR` claims every configuration a backend
implemented in a results file or a baseline, and scripts/onnx_node_test_claims.py the configurations ONNX's own node
tests exercise (runners/claim_sets/onnx-node-tests.claims).

A configuration is an op, an opset and the values of the case's type keys (params keys whose values are element
type names: Cast's from / to, QuantizeLinear's x / y / scale, ...). A configuration every judged case of which was
implemented (a verdict other than unsupported) is claimed whole; one the backend refused in every case is listed as a
comment; one it implemented in some cases only is split by its other params (fewest values first) until each part
is one or the other, so a claims file made from a run never turns that same run's refusals into failures. Claims
that differ in one key's values only are merged (`from=float|float16`).
"""

from __future__ import annotations

import json
import shlex
from collections import defaultdict

from generator import dtypes
from runners.claims import value_text

MAX_VALUES = 64  # a params key with more values than this among one op's cases describes data, it is no option


def _is_type(value) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_type(v) for v in value)
    return isinstance(value, str) and dtypes.find(value) is not None


def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _survey(params_list: list[dict]) -> tuple[list[str], dict[str, set[str]], dict[str, set[str]]]:
    """(the keys every params dict has, the value texts of each key, the kinds of value of each key)."""
    values: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, set[str]] = defaultdict(set)
    present: dict[str, int] = defaultdict(int)
    for params in params_list:
        for k, v in params.items():
            present[k] += 1
            values[k].add(value_text(v))
            kinds[k].add("type" if _is_type(v) else "null" if v is None else "scalar" if _scalar(v) else "other")
    return [k for k in values if present[k] == len(params_list)], values, kinds


def type_keys(params_list: list[dict]) -> list[str]:
    """The type keys of one op's cases: the keys every case has whose values are all type names (or null)."""
    every, _, kinds = _survey(params_list)
    return sorted(k for k in every if kinds[k] <= {"type", "null"} and "type" in kinds[k])


def _keys(cases: list[tuple[dict, bool]]) -> tuple[list[str], list[str]]:
    """(type keys, refining keys) of one op's cases: the refining keys are the other keys every case has, with
    scalar values and at most MAX_VALUES of them, fewest values first."""
    params_list = [p for p, _ in cases]
    every, values, kinds = _survey(params_list)
    types = type_keys(params_list)
    refine = sorted((k for k in every if k not in types and kinds[k] <= {"type", "null", "scalar"}
                     and 1 < len(values[k]) <= MAX_VALUES), key=lambda k: (len(values[k]), k))
    return types, refine


def configurations(cases: list[tuple[str, int, dict, bool]]) -> tuple[list[dict], list[str]]:
    """(claims as {"op", "opset": {values}, key: {values}}, comment lines) for cases given as (op, opset, params,
    implemented)."""
    by_op: dict[str, list[tuple[dict, bool]]] = defaultdict(list)
    for op, opset, params, implemented in cases:
        by_op[op].append(({**params, "opset": opset}, implemented))
    claims, comments = [], []
    for op, group in sorted(by_op.items()):
        types, refine = _keys(group)
        split = defaultdict(list)
        for params, implemented in group:
            split[tuple(value_text(params[k]) for k in ["opset", *types])].append((params, implemented))
        for key, part in sorted(split.items()):
            fixed = dict(zip(["opset", *types], key))
            _claim_part(op, fixed, part, refine, claims, comments)
    return _merged(claims), comments


def _claim_part(op: str, fixed: dict, part: list, refine: list[str], claims: list, comments: list) -> None:
    done = sum(1 for _, implemented in part if implemented)
    if done == len(part):
        claims.append({"op": op, **{k: {v} for k, v in fixed.items()}})
        return
    shown = _line(op, {k: {v} for k, v in fixed.items()})
    if done == 0:
        comments.append(f"# refused ({len(part)} case(s)): {shown}")
        return
    key = next((k for k in refine if len({value_text(p[k]) for p, _ in part}) > 1), None)
    if key is None:
        comments.append(f"# partly implemented ({done} of {len(part)} case(s)): {shown}")
        return
    rest = [k for k in refine if k != key]
    by_value = defaultdict(list)
    for params, implemented in part:
        by_value[value_text(params[key])].append((params, implemented))
    for value, sub in sorted(by_value.items()):
        _claim_part(op, {**fixed, key: value}, sub, rest, claims, comments)


def _merged(claims: list[dict]) -> list[dict]:
    """Claims that differ in one key's values only, merged into one (repeated until none merges)."""
    changed = True
    while changed:
        changed = False
        keys = sorted({k for c in claims for k in c if k != "op"})
        for key in keys:
            groups: dict[tuple, list[dict]] = defaultdict(list)
            for c in claims:
                if key not in c:
                    groups[("-", id(c))].append(c)
                    continue
                rest = tuple(sorted((k, tuple(sorted(v)) if k != "op" else v) for k, v in c.items() if k != key))
                groups[rest].append(c)
            out = []
            for same in groups.values():
                if len(same) > 1:
                    changed = True
                    out.append({**same[0], key: set().union(*(c[key] for c in same))})
                else:
                    out.append(same[0])
            claims = out
    return sorted(claims, key=claim_line)


def _opsets(values: set[str]) -> str:
    return "|".join(sorted(values, key=int))


def _line(op: str, claim: dict) -> str:
    parts = [op]
    if "opset" in claim:
        parts.append(f"opset={_opsets(claim['opset'])}")
    for key in sorted(k for k in claim if k not in ("op", "opset")):
        token = f"{key}={'|'.join(sorted(claim[key]))}"
        parts.append(token if all(c.isalnum() or c in "_.|=-" for c in token) else shlex.quote(token))
    return " ".join(parts)


def claim_line(claim: dict) -> str:
    return _line(claim["op"], claim)


def claims_text(cases: list[tuple[str, int, dict, bool]], heading: list[str], unclaimed: bool = True) -> str:
    """A claims file: the heading (comment lines), one claim a line, then (unclaimed) the configurations not
    claimed, as comments."""
    claims, comments = configurations(cases)
    lines = [f"# {h}" for h in heading]
    lines.append(f"# {len(claims)} claim(s) covering {sum(1 for *_, done in cases if done)} of {len(cases)} case(s); "
                 f"configurations not claimed: {len(comments)}")
    lines += [claim_line(c) for c in claims]
    lines += comments if unclaimed else []
    return "\n".join(lines) + "\n"


def from_verdicts(verdicts: dict[str, list[str]], entries: dict[str, dict]) -> list[tuple[str, int, dict, bool]]:
    """(op, opset, params, implemented) of each node / graph case a run judged: `verdicts` {case: its items'
    verdicts}, `entries` {case: its manifest entry}. Implemented: some item got a verdict other than unsupported
    (skipped items are not judged)."""
    out = []
    for case, seen in sorted(verdicts.items()):
        e = entries.get(case)
        judged = [v for v in seen if v != "skipped"]
        if not e or e.get("kind") not in ("node", "graph") or not judged or not isinstance(e.get("op"), str):
            continue
        out.append((e["op"], e.get("opset"), e.get("params") or {}, any(v != "unsupported" for v in judged)))
    return out


def verdicts_of(doc: dict) -> dict[str, list[str]]:
    """{case: verdicts} of a results document (its records) or a baseline (read_baseline's items)."""
    out: dict[str, list[str]] = defaultdict(list)
    if "records" in doc:
        for r in doc["records"]:
            out[r["case"]].append(r["verdict"])
    else:
        for key, e in doc["items"].items():
            out[key.rpartition("[")[0]].append(e["verdict"])
    return dict(out)


def describe_source(doc: dict) -> str:
    b = doc.get("backend") or {}
    return f"{b.get('name', '?')} {b.get('version', '?')}" + (
        f" ({json.dumps(b['settings'], sort_keys=True)})" if b.get("settings") else "")
