#!/usr/bin/env python3
"""What changed between two suites on disk, per family: cases, items, bytes, and the cases added, removed or
changed (the same name, other bytes: new kills, labels or data sets).

    python scripts/suite_diff.py OLD NEW        (each a suite directory: node/, graph/, negative/, probe/)

An old suite comes from git: `git archive COMMIT cases | tar -x -C OLD`, then OLD/cases. Prints a Markdown table.
A directory that is no suite is one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

KINDS = ("node", "graph", "negative", "probe")


def cases(root: Path) -> dict[tuple[str, str], tuple[str, int, str, int]]:
    """(kind, name) -> (family, bytes, sha256 of its files, items) of every case under root."""
    out = {}
    for kind in KINDS:
        for case in sorted(p for p in (root / kind).glob("*") if p.is_dir()):
            try:
                family = json.loads((case / "case.json").read_text()).get("family") or ""
            except (OSError, ValueError):
                family = ""
            digest, size = hashlib.sha256(), 0
            for f in sorted(p for p in case.rglob("*") if p.is_file()):
                data = f.read_bytes()
                digest.update(f.relative_to(case).as_posix().encode() + b"\0" + data)
                size += len(data)
            sets = sum(1 for d in case.glob("test_data_set_*"))
            out[(kind, case.name)] = (family, size, digest.hexdigest(), max(sets, 1))
    return out


def table(old: dict, new: dict) -> str:
    rows = ["| family | cases old | cases new | items old | items new | MB old | MB new | added | removed | changed |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for fam in sorted({v[0] for v in (*old.values(), *new.values())}):
        o = {k: v for k, v in old.items() if v[0] == fam}
        n = {k: v for k, v in new.items() if v[0] == fam}
        added = sum(1 for k in n if k not in o)
        removed = sum(1 for k in o if k not in n)
        changed = sum(1 for k in n if k in o and n[k][2] != o[k][2])
        rows.append(f"| {fam or '(no case.json)'} | {len(o)} | {len(n)} | {sum(v[3] for v in o.values())} | "
                    f"{sum(v[3] for v in n.values())} | {sum(v[1] for v in o.values()) / 1e6:.2f} | "
                    f"{sum(v[1] for v in n.values()) / 1e6:.2f} | {added} | {removed} | {changed} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="suite_diff.py", description=__doc__.splitlines()[0])
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    args = p.parse_args(argv)
    found = []
    for root in (args.old, args.new):
        if not any((root / kind).is_dir() for kind in KINDS):
            print(f"suite_diff.py: error: {root} is no suite (no node/, graph/, negative/ or probe/)", file=sys.stderr)
            return 2
        found.append(cases(root))
    print(table(*found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
