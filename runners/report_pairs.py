"""The report's side-by-side view of one runtime under two settings (torch on cpu and on cuda, jax on cpu and gpu,
onnxruntime with two providers): the items whose results differ between the two columns.

Two columns pair up when they share a backend name and version and their settings differ (report_inputs labels
them by those settings). An item (case, data set) that both ran differs when the verdicts differ, or when both
failed with different outputs (the mismatching elements each recorded, their bits), or both are probes with
different outputs. Each differing item says, per column, its verdict and the first element where that column
went wrong (actual bits against expected), so a NaN sign lost or a subnormal flushed on one device shows.
"""

from __future__ import annotations

import json
from itertools import combinations

from runners.report_inputs import Run
from runners.results import differing_settings, settings_text

SHOWN = 500  # differing items listed per pair (the count is of all of them)


def _key(r: dict) -> tuple[str, int]:
    return r.get("case", ""), r.get("dataset", 0)


def _outcome(r: dict) -> str:
    """What a column did with the item, as compared: verdict plus the outputs that make it."""
    verdict = r.get("verdict")
    if verdict == "fail":
        return json.dumps([verdict, r.get("n_mismatch"), r.get("mismatches")], sort_keys=True, default=str)
    if verdict == "probe":
        return json.dumps([verdict, r.get("outputs"), r.get("error")], sort_keys=True, default=str)
    return json.dumps(verdict)


def _text(r: dict) -> str:
    """One column's result for a differing item: verdict, elements differing, the first one's bits."""
    verdict = r.get("verdict", "?")
    if verdict == "fail":
        first = (r.get("mismatches") or [{}])[0]
        where = (f"; first at {first.get('index')}: input {first.get('input')}, got {first.get('actual_bits')}, "
                 f"expected {first.get('expected_bits')}") if first else ""
        return f"fail ({r.get('n_mismatch')} of {r.get('n_total')}{where})"
    if verdict == "probe":
        outs = r.get("outputs") or []
        bits = outs[0].get("bits", [])[:8] if outs and isinstance(outs[0], dict) else []
        return f"probe ({' '.join(map(str, bits)) or r.get('error') or 'nothing'})"
    if verdict in ("unsupported", "error") and r.get("error"):
        return f"{verdict} ({str(r['error'])[:160]})"
    return verdict


def pairs(runs: list[Run]) -> list[dict]:
    """Per pair of columns of one runtime with different settings: their labels, the settings that differ
    ("device=cpu / device=cuda"), how many items both ran, and the items whose results differ (at most SHOWN,
    `total` counts them all)."""
    out = []
    for a, b in combinations(runs, 2):
        if (a.name, a.version) != (b.name, b.version) or a.settings == b.settings:
            continue
        keys = differing_settings([a.settings, b.settings])
        theirs = {_key(r): r for r in b.records}
        common = [(r, theirs[_key(r)]) for r in a.records if _key(r) in theirs]
        differ = [(ra, rb) for ra, rb in common if _outcome(ra) != _outcome(rb)]
        differ.sort(key=lambda p: _key(p[0]))
        out.append({
            "a": a.label, "b": b.label,
            "settings": f"{settings_text(a.settings, keys)} / {settings_text(b.settings, keys)}",
            "common": len(common), "total": len(differ),
            "rows": [{"case": ra.get("case"), "dataset": ra.get("dataset"), "a": _text(ra), "b": _text(rb)}
                     for ra, rb in differ[:SHOWN]],
        })
    return out
