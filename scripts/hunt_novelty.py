"""Which findings of a hunt the committed suite does not already fail on (docs/hunting.md, "Found on this
machine").

    python scripts/hunt_novelty.py HUNT_DIR SUITE RESULTS.json

HUNT_DIR: what `opconform hunt --backend B --out HUNT_DIR` wrote. RESULTS.json: `pytest SUITE --backend B
--report RESULTS.json` on the same backend. A finding is "known" when an item of the suite in the same
parameter group fails with the same signature (runners/hunt_findings.py: diagnoses sharing a fault model, else the same
mismatch shape / error / crash), "group fails otherwise" when items of its group fail with other signatures,
"new group, cause known" when no item of its group fails but items of other groups fail the same way (the
hunt draws opsets and shapes the suite does not hold), else "new". Prints one line per finding, then the
counts.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path

from runners import hunt_findings
from runners.results import FAILING, Result, read_results

FIELDS = {f.name for f in dataclasses.fields(Result)}


def suite_failures(suite: Path, results: Path) -> dict[str, list]:
    """group -> [(case, signature)] of the suite's failing items."""
    out: dict[str, list] = {}
    metas: dict[str, dict] = {}
    for rec in read_results(results)["records"]:
        if rec["verdict"] not in FAILING or rec["verdict"] == "invalid-case":
            continue
        name = rec["case"]
        if name not in metas:
            path = suite / rec["kind"] / name / "case.json"
            metas[name] = json.loads(path.read_text()) if path.exists() else {}
        meta = metas[name]
        if "family" not in meta:
            continue
        r = Result(**{k: v for k, v in rec.items() if k in FIELDS})
        out.setdefault(hunt_findings.group_of(meta), []).append((f"{name}[{rec['dataset']}]",
                                                                 hunt_findings.signature(r)))
    return out


def finding_signature(meta: dict):
    h = meta["hunt"]
    if h.get("diagnosis"):
        return frozenset(h["diagnosis"])
    return h["signature"]


def main(argv: list[str]) -> int:
    found, suite, results = map(Path, argv)
    failing = suite_failures(suite, results)
    tally = Counter()
    for kind in ("node", "graph", "negative"):
        for case in sorted((found / kind).glob("*")):
            meta = json.loads((case / "case.json").read_text())
            group, sig = meta["hunt"]["group"], finding_signature(meta)
            same = [c for c, s in failing.get(group, []) if hunt_findings.same_finding(s, sig)]
            elsewhere = [c for g, items in failing.items() for c, s in items if hunt_findings.same_finding(s, sig)]
            status = ("known" if same else "group fails otherwise" if group in failing
                      else "new group, cause known" if elsewhere else "new")
            tally[status] += 1
            where = f" (e.g. {same[0]})" if same else ""
            print(f"{status:22} {meta['family']:24} {group}: {hunt_findings.describe_signature(sig)}{where}")
    print(", ".join(f"{n} {s}" for s, n in sorted(tally.items())) or "no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
