#!/usr/bin/env python3
"""Cases and bytes per family of the committed suite at two commits (what a change of the generator costs).

    python scripts/suite_sizes.py OLD_COMMIT [NEW_COMMIT]      (default NEW_COMMIT: HEAD)

Reads cases/manifest.json at each commit for the family of each case and sums the sizes `git ls-tree -l` gives for
the files of its directory (the suite's tables and manifest are left out). Prints a Markdown table.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys


def sizes(commit: str) -> tuple[collections.Counter, collections.Counter]:
    show = subprocess.run(["git", "show", f"{commit}:cases/manifest.json"], capture_output=True, text=True, check=True)
    manifest = json.loads(show.stdout)
    family = {c["name"]: c["family"] for c in manifest["cases"]}
    tree = subprocess.run(["git", "ls-tree", "-r", "-l", commit, "cases/"], capture_output=True, text=True,
                          check=True).stdout
    size, count = collections.Counter(), collections.Counter(c["family"] for c in manifest["cases"])
    for line in tree.splitlines():
        meta, path = line.split("\t", 1)
        parts = path.split("/")
        if len(parts) >= 4 and parts[2] in family:
            size[family[parts[2]]] += int(meta.split()[3])
    return count, size


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        (n0, b0), (n1, b1) = sizes(argv[0]), sizes(argv[1] if len(argv) > 1 else "HEAD")
    except subprocess.CalledProcessError as exc:
        print(f"suite_sizes.py: {exc.stderr.strip() or exc}", file=sys.stderr)
        return 2
    print("| family | cases before | cases after | bytes before | bytes after | change |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [(f, n0[f], n1[f], b0[f], b1[f]) for f in sorted(set(n0) | set(n1))]
    rows.append(("**all**", sum(n0.values()), sum(n1.values()), sum(b0.values()), sum(b1.values())))
    for f, c0, c1, s0, s1 in rows:
        change = f"{100 * (s1 - s0) / s0:+.1f}%" if s0 else "new"
        print(f"| {f} | {c0} | {c1} | {s0:,} | {s1:,} | {change} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
