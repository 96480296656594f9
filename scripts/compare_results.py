"""Do two results files of the same suite and backend say the same thing?

    python scripts/compare_results.py BEFORE.json AFTER.json

Per item (case, data set): the verdict, the mismatch counts, the tiers met, the fault-model diagnosis
and, for probe items, the recorded outputs. Durations, messages that quote timings and the settings
in the header are not compared. Prints every difference (at most 50 per field) and exits 1 if there
is one, 0 if the two files agree item for item.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runners.results import read_results  # noqa: E402

FIELDS = ("verdict", "n_mismatch", "n_total", "tiers_met", "diagnosis", "outputs")
SHOWN = 50


def by_item(doc: dict) -> dict:
    return {(r.get("case"), r.get("dataset")): r for r in doc["records"]}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python scripts/compare_results.py BEFORE.json AFTER.json", file=sys.stderr)
        return 2
    before, after = (by_item(read_results(p)) for p in argv)
    problems = 0
    for name, keys in (("only in BEFORE", before.keys() - after.keys()), ("only in AFTER", after.keys() - before.keys())):
        if keys:
            problems += len(keys)
            print(f"{len(keys)} item(s) {name}: " + ", ".join(f"{c}[{i}]" for c, i in sorted(keys)[:SHOWN]))
    common = sorted(before.keys() & after.keys())
    for field in FIELDS:
        diff = [k for k in common if before[k].get(field) != after[k].get(field)]
        if diff:
            problems += len(diff)
            print(f"{len(diff)} item(s) differ in {field}:")
            for k in diff[:SHOWN]:
                b, a = before[k].get(field), after[k].get(field)
                print(f"  {k[0]}[{k[1]}]: {str(b)[:120]} -> {str(a)[:120]}")
    print(f"{len(common)} item(s) in both; {'no difference' if not problems else f'{problems} difference(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
