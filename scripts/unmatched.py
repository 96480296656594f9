#!/usr/bin/env python3
"""How much of a run the fault models explain: the share of failing items that match no known fault.

    python scripts/unmatched.py RESULTS.json [RESULTS.json ...] [--family F ...]     (one file per backend)

Each file is what `pytest SUITE --backend B --report RESULTS.json` writes. Prints a Markdown table, one row for
every family together and one per family, two columns per backend:
  matches no known fault            "N of M (share)": failing items (verdict fail of node / graph data sets)
                                    whose outputs no fault model reproduces, of all failing items; ", K not
                                    diagnosed" where some were not (a case run on another format's twin, a
                                    results file older than the diagnosis)
  errors / unsupported explained    "N of M": error / unsupported items of node / graph data sets that a fault
                                    model refusing the same model explains (runners/diagnose.py)
`--family F` (repeatable) keeps only those families' items. A bad file is one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys

from runners.diagnose import unmatched, unmatched_markdown
from runners.report import load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="unmatched.py", description=__doc__.strip().splitlines()[0])
    parser.add_argument("results", nargs="+", metavar="RESULTS.json", help="results files, one per backend")
    parser.add_argument("--family", action="append", metavar="F",
                        help="only the items of this family (repeatable; default: every family)")
    args = parser.parse_args(argv)
    try:
        runs = load(args.results)
    except ValueError as exc:
        print(f"unmatched.py: {exc}", file=sys.stderr)
        return 2
    keep = set(args.family or ())
    sys.stdout.write(unmatched_markdown(unmatched([(run.name, [r for r in run.records
                                                              if not keep or r.get("family") in keep])
                                                  for run in runs])))
    sys.stdout.write("\nBackends: " + ", ".join(f"{run.name} {run.version}" for run in runs) + ".\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
