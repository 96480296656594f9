#!/usr/bin/env python3
"""docs/discrepancies.md's known-discrepancies table from diagnosed results files.

    python scripts/discrepancies.py RESULTS.json [RESULTS.json ...] [--family F ...]     (one file per backend)

Each file is what `pytest SUITE --backend B --report RESULTS.json` writes. Prints a Markdown table:
one row per (family, fault model) that some failing item is consistent with, one column per backend,
each cell the number of failing items (node / graph data sets with wrong values) whose outputs that fault
model reproduces exactly (runners/diagnose.py); then, per family, the failing items that match no known
fault and those not diagnosed (a family without fault models, or a results file older than the diagnosis).
An item consistent with several fault models counts once for each; a fault's row also counts the errors and
refusals of the backend it explains (a fault model that refuses the same model), and two lines count those
errors / unsupported items and how many such a fault explains. A second table keeps the failing items against a
sentence of the texts apart from those against a reading (case.json "reading", docs/readings.md): per family,
one row for the sentences and one per reading. Columns are named by backend; the line under the tables gives
their versions. `--family F` (repeatable) keeps only those families' items (rows and
totals alike), so runs over different sets of families can each be tabulated over what they all ran.
scripts/example_report.sh runs it.
"""

from __future__ import annotations

import argparse
import sys

from runners.diagnose import fault_table, markdown
from runners.report import bases_markdown, failure_bases, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="discrepancies.py", description=__doc__.strip().splitlines()[0])
    parser.add_argument("results", nargs="+", metavar="RESULTS.json", help="results files, one per backend")
    parser.add_argument("--family", action="append", metavar="F",
                        help="only the items of this family (repeatable; default: every family)")
    args = parser.parse_args(argv)
    try:
        runs = load(args.results)
    except ValueError as exc:
        print(f"discrepancies.py: {exc}", file=sys.stderr)
        return 2
    keep = set(args.family or ())
    kept = [(run.name, [r for r in run.records if not keep or r.get("family") in keep]) for run in runs]
    sys.stdout.write(markdown(fault_table(kept)))
    sys.stdout.write("\nFailing items against a sentence of the texts and against a reading:\n\n")
    sys.stdout.write(bases_markdown(failure_bases(kept)))
    sys.stdout.write("\nBackends: " + ", ".join(f"{run.name} {run.version}" for run in runs) + ".\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
