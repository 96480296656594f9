"""Judge the results files of .ci/run's oldest-versions subset; exit 1 with one line per problem.

usage: python .ci/oldest_check.py MIN_ITEMS SUITE RESULTS.json...

For every results file: at least MIN_ITEMS items, the same items in every file, no verdict that says
the run went wrong (error, crash, timeout, invalid-case), every family of SUITE's manifest among the items
and, per family, at least one item the backend ran (pass or fail: a family the backend refuses whole is
not running there). The opconform backend (the references) must pass every node / graph item.

Except what .ci/oldest_known.txt names, one line each with its reason: what an oldest release is known to do
(a bug of that release the suite rightly reports, a family it does not implement). An entry that matches
nothing is a problem too, so the list cannot outlive what it excuses.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

SHOWN = 12  # problems printed per results file
BROKEN = ("error", "crash", "timeout", "invalid-case")
KNOWN = Path(__file__).resolve().parent / "oldest_known.txt"


def known(path: Path = KNOWN) -> list[tuple[str, str, str, str]]:
    """(backend, verdict, what, why) per line "BACKEND VERDICT WHAT # why" of the known list: WHAT a case-name
    substring (items of that verdict), or family:NAME (the family may have no item run: all of that verdict)."""
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1) if path.is_file() else ():
        text, _, why = line.partition("#")
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 3 or not why.strip():
            raise SystemExit(f"oldest versions: {path}:{n}: expected BACKEND VERDICT WHAT # why")
        entries.append((*fields, why.strip()))
    return entries


def problems(min_items: int, suite: Path, paths: list[Path], excused: list[tuple] = ()) -> list[str]:
    families = {c["family"] for c in json.loads((suite / "manifest.json").read_text())["cases"]}
    out, items, used = [], {}, set()

    def excuse(backend: str, verdict: str, case: str | None = None, family: str | None = None) -> bool:
        for entry in excused:
            b, v, what = entry[:3]
            hit = (what == f"family:{family}") if family else (case is not None and what in case)
            if b == backend and v == verdict and hit:
                used.add(entry)
                return True
        return False

    for path in paths:
        results = json.loads(path.read_text())
        records = results["records"]
        name = results["backend"]["name"]
        backend = f"{name} {results['backend']['version']} ({path.name})"
        items[backend] = {(r["case"], r["dataset"]) for r in records}
        verdicts = Counter(r["verdict"] for r in records)
        print(f"{backend}: {len(records)} items: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
        if len(records) < min_items:
            out.append(f"{backend}: {len(records)} items, fewer than {min_items}")
        for r in records:
            if r["verdict"] in BROKEN and not excuse(name, r["verdict"], case=r["case"]):
                out.append(f"{backend}: {r['case']}[{r['dataset']}] {r['verdict']}: "
                           f"{(r.get('message') or '').splitlines()[0][:300] if r.get('message') else ''}")
        ran = {r["family"] for r in records if r["verdict"] in ("pass", "fail")}
        for family in sorted(families - {r["family"] for r in records}):
            out.append(f"{backend}: no item of family {family}")
        for family in sorted(families & {r["family"] for r in records} - ran):
            verdicts = {r["verdict"] for r in records if r["family"] == family}
            if len(verdicts) == 1 and excuse(name, verdicts.pop(), family=family):
                continue
            out.append(f"{backend}: family {family}: no item ran (all unsupported / probe / skipped)")
        if name == "opconform":
            out += [f"{backend}: {r['case']}[{r['dataset']}] {r['verdict']} on the references"
                    for r in records if r["kind"] in ("node", "graph") and r["verdict"] != "pass"]
    out += [f"{KNOWN.name}: {b} {v} {what} matched nothing: remove it ({why})"
            for b, v, what, why in excused if (b, v, what, why) not in used and b in ran_backends(paths)]
    first = next(iter(items.values()), set())
    out += [f"{b}: not the same items as the first file ({len(i ^ first)} differ)"
            for b, i in items.items() if i != first]
    return out


def ran_backends(paths: list[Path]) -> set[str]:
    return {json.loads(p.read_text())["backend"]["name"] for p in paths}


def main(argv: list[str]) -> int:
    paths = [Path(p) for p in argv[2:]]
    missing = [p for p in paths if not p.is_file()]
    found = [f"{p}: no results file (pytest did not run; its log is beside it)" for p in missing] or \
        problems(int(argv[0]), Path(argv[1]), paths, known())
    shown = Counter()
    for line in found:
        where = line.split(":", 1)[0]
        shown[where] += 1
        if shown[where] <= SHOWN:
            print(f"oldest versions: {line}", file=sys.stderr)
    for where, n in shown.items():
        if n > SHOWN:
            print(f"oldest versions: {where}: {n - SHOWN} more problems (the log beside its results file)",
                  file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
