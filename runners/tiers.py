"""The tiers-met summary: per family, the node / graph data sets passing in each comparison tier."""

from __future__ import annotations

TIERS = ("strict", "tolerant")


def count_tiers(counts: dict[str, dict[str, int]], family: str, verdict: str, tiers_met: list[str]) -> None:
    """Add one node / graph data set to the per-family counts of the tiers-met summary."""
    c = counts.setdefault(family, {"judged": 0, "unsupported": 0, **{t: 0 for t in TIERS}})
    if verdict in ("unsupported", "skipped"):
        c["unsupported"] += verdict == "unsupported"
        return
    c["judged"] += 1
    for t in tiers_met:
        c[t] += 1


def tiers_entry(result) -> list | None:
    """[family, verdict, tiers met] of a node / graph Result (what count_tiers takes), else None."""
    if result.kind not in ("node", "graph"):
        return None
    return [str(result.family or result.op or "(no family)"), result.verdict, result.tiers_met or []]


def tiers_met_by_family(counts: dict[str, dict[str, int]]) -> dict[str, dict]:
    """family -> the counts and "met": the tiers in which every judged data set of the family passes."""
    return {family: dict(c, met=[t for t in TIERS if c["judged"] and c[t] == c["judged"]])
            for family, c in sorted(counts.items())}


def tier_summary(counts: dict[str, dict[str, int]], backend: str) -> list[str]:
    """Per family, the data sets passing in each tier and the tiers the backend meets (a tier is met when
    every judged data set of the family passes in it; unsupported data sets are counted apart)."""
    lines = [f"opconform: tiers met per family by {backend} (met: every judged data set passes in that tier)"]
    for family, c in tiers_met_by_family(counts).items():
        met = c["met"]
        parts = [f"{t} {c[t]}/{c['judged']}" for t in TIERS]
        if c["unsupported"]:
            parts.append(f"{c['unsupported']} unsupported")
        lines.append(f"  {family}: {', '.join(parts)} -> {', '.join(met) if met else 'none'}")
    return lines
