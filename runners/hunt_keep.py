"""`opconform hunt --keep`: the findings added to the committed witness catalogue ("hunted"), whence gen-cases
rebuilds them from what was drawn."""

from __future__ import annotations

import hashlib
import json

from generator import families as family_registry
from runners.hunt_findings import describe_signature
from runners.hunt_search import Hunt


def keep(hunt: Hunt) -> list[str]:
    """Add the findings to the committed witness catalogue ("hunted"); lines saying what was kept."""
    from generator import witness

    lines, by_family = [], {}
    for f in hunt.findings:
        by_family.setdefault(f.family, []).append(f)
    for family, found in sorted(by_family.items()):
        module = family_registry.load(family)
        if getattr(module, "rebuild", None) is None:
            lines.append(f"{family}: not kept ({len(found)} finding(s)): the family has no rebuild(args)")
            continue
        catalogue = witness.load(family)
        hunted = catalogue.setdefault("hunted", [])
        have = {json.dumps(e["args"], sort_keys=True) for e in hunted}
        added = 0
        for f in found:
            if f.args is None:
                continue
            text = json.dumps(f.args, sort_keys=True)
            if text in have:
                continue
            have.add(text)
            digest = hashlib.sha256(text.encode()).hexdigest()[:10]
            name, version, settings = hunt.bench.identity or (hunt.plan.backend, "unknown", {})
            hunted.append({"name": f"hunted_{digest}", "group": f.group, "args": f.args,
                           "found": {"backend": name, "backend_version": version, "verdict": f.result.verdict,
                                     "signature": describe_signature(f.signature)}})
            added += 1
        hunted.sort(key=lambda e: e["name"])
        path = witness.save(catalogue)
        lines.append(f"{family}: {added} finding(s) added to {path}")
    return lines
