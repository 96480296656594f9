"""Run a suite on one backend under each input mode (and optionally each optimization level) and show how the
verdicts change (issue 20, item 2: "report per backend how many verdicts change between modes").

    python scripts/mode_matrix.py [SUITE] --backend onnxruntime [--inputs fed,initializers,constant]
        [--shapes static] [--level disable,all] [--backend-option K=V ...] [--family F ...] [--out DIR]

Each combination is one ordinary run (`pytest SUITE --backend B --inputs M --report ...`); --level L adds
--backend-option graph_optimization_level=L (onnxruntime). Prints, per family, the verdict counts of each
combination, then every item whose verdict is not the same under all of them. The results files stay in --out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ("pass", "fail", "error", "unsupported", "crash", "timeout", "probe", "invalid-case", "skipped")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", nargs="?", default=str(ROOT / "cases"))
    p.add_argument("--backend", required=True)
    p.add_argument("--inputs", default="fed,initializers,constant", help="comma-separated input modes")
    p.add_argument("--shapes", default="static", help="comma-separated shape modes (static, dynamic)")
    p.add_argument("--level", default="", help="comma-separated graph_optimization_level values (onnxruntime)")
    p.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--family", action="append", default=[])
    p.add_argument("--out", default="mode-matrix", help="folder for the results files (default mode-matrix/)")
    p.add_argument("--max-changes", type=int, default=50, help="changed items listed per family (default 50)")
    args = p.parse_args(argv)
    if not Path(args.suite).is_dir():
        p.error(f"{args.suite}: not a folder")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    combos = [(i, s, lv) for lv in (args.level.split(",") if args.level else [""])
              for s in args.shapes.split(",") for i in args.inputs.split(",")]
    runs: dict[str, dict] = {}
    for inputs, shapes, level in combos:
        label = "/".join(x for x in (inputs, shapes if shapes != "static" else "", level) if x)
        report = out / f"{args.backend.replace(':', '_')}-{label.replace('/', '-')}.json"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", args.suite, "--backend", args.backend,
               "--inputs", inputs, "--shapes", shapes, "--report", str(report)]
        for opt in args.backend_option + ([f"graph_optimization_level={level}"] if level else []):
            cmd += ["--backend-option", opt]
        for f in args.family:
            cmd += ["--family", f]
        t0 = time.monotonic()
        done = subprocess.run(cmd, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        took = time.monotonic() - t0
        if not report.is_file():
            print(f"{label}: no results (pytest exit {done.returncode}): {done.stderr.strip()[-400:]}", file=sys.stderr)
            return 1
        runs[label] = json.loads(report.read_text())
        print(f"{label}: {took:.0f} s, {runs[label].get('counts')}", file=sys.stderr)
    print_matrix(runs, args.max_changes)
    return 0


def items(data: dict) -> dict[str, tuple[str, str]]:
    """item -> (family, verdict) of one results file."""
    return {f"{r['case']}[{r['dataset']}]": (r.get("family") or r.get("op") or "(none)", r["verdict"])
            for r in data["records"]}


def print_matrix(runs: dict[str, dict], max_changes: int) -> None:
    labels = list(runs)
    per = {lb: items(runs[lb]) for lb in labels}
    counts: dict[str, dict[str, Counter]] = defaultdict(lambda: {lb: Counter() for lb in labels})
    for lb in labels:
        for fam, verdict in per[lb].values():
            counts[fam][lb][verdict] += 1
    changed: dict[str, list[str]] = defaultdict(list)
    for key in sorted(set().union(*per.values())):
        seen = [per[lb].get(key, ("?", "-"))[1] for lb in labels]
        if len(set(seen)) > 1:
            fam = next(per[lb][key][0] for lb in labels if key in per[lb])
            changed[fam].append(f"  {key}: " + ", ".join(f"{lb} {v}" for lb, v in zip(labels, seen)))
    used = [v for v in VERDICTS if any(c[lb][v] for c in counts.values() for lb in labels)]
    print("| family | mode | " + " | ".join(used) + " | changed |")
    print("|---|---|" + "---|" * (len(used) + 1))
    for fam in sorted(counts):
        for lb in labels:
            c = counts[fam][lb]
            print(f"| {fam} | {lb} | " + " | ".join(str(c[v]) for v in used) + f" | {len(changed[fam])} |")
    total = sum(len(v) for v in changed.values())
    print(f"\nitems whose verdict differs between {', '.join(labels)}: {total}")
    for fam in sorted(changed):
        print(f"{fam}: {len(changed[fam])}")
        for line in changed[fam][:max_changes]:
            print(line)
        if len(changed[fam]) > max_changes:
            print(f"  ... {len(changed[fam]) - max_changes} more")


if __name__ == "__main__":
    sys.exit(main())
