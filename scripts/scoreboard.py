#!/usr/bin/env python3
"""The published scoreboard: docs/scoreboard.md and docs/scoreboard.html, made from the runs kept in
docs/scoreboard/ (one compact results file a column) by `opconform report --view matrix`; never hand-edited.

    python scripts/scoreboard.py                 # render both pages from the kept runs
    python scripts/scoreboard.py --check         # exit 1 where a page differs from a render (tests run this)
    python scripts/scoreboard.py --run [NAME ...] [--suite cases] [--jobs 2]
                                                 # run the columns (all, or those named), keep them, render

A column is one backend at one release, run on the whole committed suite with `opconform run SUITE --backend B
--report RAW.json` (the run's own defaults: CPU, --inputs auto, strict tier). A column with `packages` runs that
release installed apart (`pip install --no-deps --target CACHE/<name> PACKAGES`, the target put first on
PYTHONPATH of the run, so every other package is this environment's); one without runs what is installed here,
its newest release when the environment was made from pyproject.toml. A release that cannot be installed or
imported here is left out with its reason (docs/scoreboard/skipped.json) rather than shown as a column of errors.

What is kept of a run (compact(): the header as written, each record's case, data set, kind, verdict, op,
family, opset and params, gzip-compressed without a timestamp) is what the matrix, its type groups and the
history need, and small enough to commit (about 100 kB a column); the messages, mismatches and outputs are not:
rerun the column (--run NAME) or run the release yourself for those.
"""

from __future__ import annotations

import argparse
from collections import Counter
import gzip
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runners/ and generator/ of this checkout
KEPT = ROOT / "docs" / "scoreboard"
PAGES = {"md": ROOT / "docs" / "scoreboard.md", "html": ROOT / "docs" / "scoreboard.html"}
CACHE = Path(os.environ.get("OPCONFORM_SCOREBOARD_CACHE", Path.home() / ".cache" / "opconform" / "scoreboard"))
RECORD_KEYS = ("case", "dataset", "verdict", "op", "opset")


@dataclass(frozen=True)
class Column:
    name: str  # the kept file's stem
    backend: str
    packages: tuple[str, ...] = ()  # installed apart for this column; () = this environment's
    options: tuple[str, ...] = field(default_factory=tuple)  # more `opconform run` arguments
    index: str = ""  # the package index to take `packages` from instead of the default one


ORT = ("1.20.1", "1.21.1", "1.22.1", "1.23.2", "1.24.4", "1.25.1", "1.26.0", "1.27.0", "1.28.0", "1.29.0", "1.30.0",
       "1.31.1", "1.32.0")  # the last patch release of each minor, 1.20 to 1.32
OPENVINO = ("2024.0.0", "2024.6.0", "2025.2.0", "2025.4.1", "2026.0.0", "2026.4.1")  # the first and last of each
# year, 2025's middle too: each OpenVINO column takes about 5 minutes (it compiles every model)
NEWEST = ("onnx-reference", "opconform", "onnxruntime-node", "onnxruntime-web", "tract", "tinygrad", "jax", "tvm",
          "iree", "litert", "openvino-tflite", "tflite2onnx+onnxruntime", "opconform-tflite", "onnx2tf+litert")

# The compilers compile every model: the whole suite takes IREE 37 minutes and TVM about 35 on 2 cores
# (docs/backends_iree.md, docs/backends_tvm.md), so their columns are one shard in four, named as such on the page
# (its notes list the shards missing); `--run tvm` with SHARDED emptied runs the whole suite.
SHARDED = {"tvm": "1/4", "iree": "1/4"}
# torch's CPU build (the version CI pins, .ci/constraints.txt; PyPI's Linux wheel pulls ~3 GB of CUDA libraries),
# from the package index here, with the dependencies this environment lacks
TORCH = Column("torch", "torch", ("torch==2.13.0+cpu", "sympy", "mpmath", "networkx", "filelock", "fsspec"))

COLUMNS = ([Column(f"onnxruntime-{v}", "onnxruntime", (f"onnxruntime=={v}",)) for v in ORT]
           + [Column(f"openvino-{v}", "openvino", (f"openvino=={v}",)) for v in OPENVINO]
           + [Column(name.replace("+", "-"), name, options=("--shard", SHARDED[name]) if name in SHARDED else ())
              for name in NEWEST] + [TORCH])


def compact(raw: dict, suite: Path | None = None) -> dict:
    """A results document with each record cut to RECORD_KEYS (the header kept, its paths as `cases`), and the op
    and opset of a record that lacks them (a crash's, from an older runner) taken from the suite's manifest, so
    that rendering needs no suite."""
    from generator.serialize import read_manifest

    known = {}
    if suite is not None:
        known = {e["name"]: e for e in read_manifest(suite)["cases"]}
    out = {k: v for k, v in raw.items() if k != "records"}
    records = []
    for r in raw.get("records", []):
        r = {k: r[k] for k in RECORD_KEYS if r.get(k) is not None}
        entry = known.get(r["case"], {})
        for k in ("op", "opset"):
            if k not in r and entry.get(k) is not None:
                r[k] = entry[k]
        records.append(r)
    out["records"] = records
    if isinstance(out.get("selection"), dict):
        out["selection"] = {**out["selection"], "paths": ["cases"]}
    out["args"] = ["run", "cases", "--backend", str((raw.get("backend") or {}).get("name")), "--report", "R.json"]
    out["compacted"] = "records cut to " + ", ".join(RECORD_KEYS) + " by scripts/scoreboard.py"
    return out


def write_kept(doc: dict, path: Path) -> None:
    data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
        z.write(data)
    tmp.replace(path)


def kept_files() -> list[Path]:
    """The kept runs in column order (COLUMNS), then any others by name."""
    order = {c.name: i for i, c in enumerate(COLUMNS)}
    return sorted(KEPT.glob("*.json.gz"), key=lambda p: (order.get(p.name[:-8], len(order)), p.name))


def _install(column: Column) -> Path | None:
    target = CACHE / column.name
    if (target / ".complete").exists():
        return target
    index = ["--index-url", column.index] if column.index else []
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *index,
                    *column.packages], check=True)
    (target / ".complete").write_text(" ".join(column.packages))
    return target


def run_column(column: Column, suite: Path, jobs: int, log) -> str | None:
    """Run one column and keep it; the reason (one line) where it could not be run."""
    env = dict(os.environ)
    if column.packages:
        try:
            target = _install(column)
        except subprocess.CalledProcessError as exc:
            return f"pip install {' '.join(column.packages)} failed (exit {exc.returncode})"
        env["PYTHONPATH"] = os.pathsep.join([str(target)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    listed = subprocess.run(["opconform", "backends", "--json"], env=env, capture_output=True, text=True)
    known = {b["name"]: b for b in json.loads(listed.stdout or "[]")}
    if column.backend in known and not known[column.backend]["installed"]:
        return f"not installed here: {known[column.backend]['detail']}"
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.json"
        cmd = ["opconform", "run", str(suite), "--backend", column.backend, "--report", str(raw), "-j", str(jobs),
               *column.options]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        took = time.monotonic() - t0
        tail = proc.stdout.strip().splitlines()[-1:] or [""]
        print(f"{column.name}: exit {proc.returncode} in {took:.0f} s: {tail[0][:200]}", file=log, flush=True)
        if not raw.exists():
            return f"no results file (exit {proc.returncode}): {tail[0][:300]}"
        doc = json.loads(raw.read_text())
    if doc.get("records") and all(r["verdict"] == "unsupported" for r in doc["records"]):  # not installed here
        whys = Counter(str(r.get("message", "")).split(": unsupported", 1)[-1].lstrip(": ") for r in doc["records"])
        return f"every item unsupported, most often: {whys.most_common(1)[0][0][:300]}"
    doc = compact(doc, suite)
    doc["command"] = command_of(column, jobs)
    doc["scoreboard"] = {"column": column.name, "wall_s": round(took), "python": platform.python_version()}
    write_kept(doc, KEPT / f"{column.name}.json.gz")
    return None


def command_of(column: Column, jobs: int = 2) -> str:
    """The command a column's run was, as the page shows it (the suite as `cases`, the results file as R.json)."""
    shown = ["opconform", "run", "cases", "--backend", column.backend, "--report", "R.json", "-j", str(jobs),
             *column.options]
    where = f"PYTHONPATH=DIR (pip install --no-deps --target DIR {' '.join(column.packages)}) " if column.packages else ""
    return where + shlex.join(shown)


def notes() -> list[str]:
    """The page's notes: where it comes from, and the columns left out with their reasons."""
    skipped_path = KEPT / "skipped.json"
    skipped = json.loads(skipped_path.read_text()) if skipped_path.exists() else {}
    out = ["Made by python scripts/scoreboard.py from the runs kept in docs/scoreboard/ (one compact results file a "
           "column: its case, data set, verdict, op and opset per item); regenerated, never edited by hand. "
           "Each column's machine and command are listed below. The opconform column is the project's own "
           "references run as a backend: every item passes by construction (it shows the suite is consistent, "
           "it judges no runtime)."]
    out += [f"Left out: {name}: {why}" for name, why in sorted(skipped.items())]
    return out


def render(check: bool = False) -> int:
    """Both pages from the kept runs, loaded once, through opconform report's own code (--view matrix)."""
    from runners.report import render as page
    from runners.report_inputs import load, problems

    os.chdir(ROOT)  # the kept runs named as docs/scoreboard/..., the suite they name as cases
    files = kept_files()
    if not files:
        print("scoreboard: no kept runs in docs/scoreboard/ (run with --run)", file=sys.stderr)
        return 1
    runs = load([p.relative_to(ROOT) for p in files])
    lines = notes() + problems(runs)
    status = 0
    for fmt, path in PAGES.items():
        text = page(runs, fmt, lines, view="matrix", title="opconform scoreboard")
        if check:
            if not path.exists() or path.read_text() != text:
                print(f"scoreboard: {path.relative_to(ROOT)} is not what its kept runs render "
                      "(python scripts/scoreboard.py)", file=sys.stderr)
                status = 1
        else:
            path.write_text(text)
    return status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", nargs="*", metavar="NAME", help="run these columns (none named: all), then render")
    ap.add_argument("--suite", type=Path, default=ROOT / "cases")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 where a page is not current")
    ap.add_argument("--recompact", action="store_true",
                    help="cut the kept runs' records to RECORD_KEYS again (after RECORD_KEYS changed), then render")
    args = ap.parse_args(argv)
    if args.run is not None:
        names = set(args.run)
        unknown = names - {c.name for c in COLUMNS}
        if unknown:
            ap.error(f"no such column: {', '.join(sorted(unknown))} (columns: {', '.join(c.name for c in COLUMNS)})")
        skipped_path = KEPT / "skipped.json"
        skipped = json.loads(skipped_path.read_text()) if skipped_path.exists() else {}
        for column in COLUMNS:
            if names and column.name not in names:
                continue
            why = run_column(column, args.suite, args.jobs, sys.stderr)
            if why:
                skipped[column.name] = why
                print(f"{column.name}: left out: {why}", file=sys.stderr)
            else:
                skipped.pop(column.name, None)
            KEPT.mkdir(parents=True, exist_ok=True)
            skipped_path.write_text(json.dumps(skipped, indent=1, sort_keys=True) + "\n")
    if args.recompact:
        for path in kept_files():
            with gzip.open(path) as f:
                doc = compact(json.load(f), args.suite)
            column = {c.name: c for c in COLUMNS}.get(path.name[:-len(".json.gz")])
            if column is not None:
                doc["command"] = command_of(column)
            doc.get("scoreboard", {}).pop("command", None)
            write_kept(doc, path)
    return render(args.check)


if __name__ == "__main__":
    sys.exit(main())
