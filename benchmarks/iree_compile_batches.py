"""The IREE backend's batched compiles against one compile per case, on the same sample, in one run.

    python benchmarks/iree_compile_batches.py [--suite cases] [--per-family 16] [--batch 32] [--jobs 2]
        [--keep DIR] [--sample-only DIR]

A sample suite is copied from the suite: for every family and kind, `--per-family` cases in a row of its sorted
names, taken from the middle (the runners' order, so the adapter's look-ahead sees what a whole-suite run sees).
Then `opconform run SAMPLE --backend iree` runs twice, each with a fresh, empty compile cache: with
`batch=1` (one compile per case) and with `batch=N`. `iree-compile` is reached through a wrapper that counts and
times its invocations (IREE_TOOL_PATH, IREE's own way to name its tools). Prints, for each: wall and CPU seconds
(the run and its children, compiles included), compiler invocations per case, seconds per item, the seconds with
one compile running and with more at once (with -j 2, a worker waiting for its neighbour's batch leaves one
running), the workers' claim waits (how many, how long: timed by a sitecustomize of the benchmark's own), and the
verdict counts, which must be the same (a batch compiles the same functions), and a third run with the cache
filled (only loads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def sample(suite: Path, out: Path, per_family: int) -> int:
    """Copy `per_family` consecutive cases of each (family, kind) of the suite's manifest to `out`; how many."""
    manifest = json.loads((suite / "manifest.json").read_text())
    groups: dict[tuple, list[dict]] = {}
    for e in manifest["cases"]:
        groups.setdefault((e["family"], e["kind"]), []).append(e)
    chosen = []
    for (_family, _kind), entries in sorted(groups.items()):
        entries.sort(key=lambda e: e["name"])
        start = max(0, len(entries) // 2 - per_family // 2)
        chosen += entries[start:start + per_family]
    for e in chosen:
        shutil.copytree(suite / e["kind"] / e["name"], out / e["kind"] / e["name"])
    (out / "manifest.json").write_text(json.dumps({**manifest, "cases": chosen}, sort_keys=True, indent=1))
    return len(chosen)


def counting_tool(where: Path, log: Path) -> None:
    """An `iree-compile` in `where` that runs the real one and appends a line to `log` for each compile (not
    `--version`, which each worker runs once): when it started and ended. A compiler killed by a signal kills the
    wrapper with it (the adapter reads a crash from the signal)."""
    from iree.compiler.tools.binaries import find_tool

    where.mkdir(parents=True, exist_ok=True)
    real = find_tool("iree-compile")
    script = where / "iree-compile"
    script.write_text(f"#!/bin/sh\n[ \"$1\" = --version ] && exec '{real}' \"$@\"\n"
                      f"start=$(date +%s.%N)\n'{real}' \"$@\"\nrc=$?\n"
                      f"echo \"$start $(date +%s.%N)\" >> '{log}'\n"
                      "[ $rc -gt 128 ] && kill -$((rc - 128)) $$\nexit $rc\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


# The workers' claim waits (Cache.wait: a worker that needs a model another one is compiling), timed by a
# sitecustomize of the benchmark's own on the run's PYTHONPATH: each wait's seconds, a line in $IREE_BENCH_WAITS.
WAITS = """import os
if os.environ.get("IREE_BENCH_WAITS"):
    import time
    from runners.backends import iree_cache

    _wait = iree_cache.Cache.wait

    def wait(self, k, limit):
        start = time.monotonic()
        try:
            return _wait(self, k, limit)
        finally:
            with open(os.environ["IREE_BENCH_WAITS"], "a") as f:
                f.write(f"{time.monotonic() - start}\\n")

    iree_cache.Cache.wait = wait
"""


def overlap(log: Path) -> tuple[float, float]:
    """Seconds of the run with one compile running, and with two or more at once (from the wrapper's log)."""
    events = []
    for line in log.read_text().splitlines():
        start, end = map(float, line.split())
        events += [(start, 1), (end, -1)]
    one = more = 0.0
    running, last = 0, None
    for t, step in sorted(events):
        if last is not None:
            one += (t - last) * (running == 1)
            more += (t - last) * (running >= 2)
        running, last = running + step, t
    return one, more


def run(suite: Path, batch: int, cache: Path, jobs: int, tools: Path, log: Path, report: Path) -> dict:
    log.write_text("")
    waits = log.with_name("waits.log")
    waits.write_text("")
    (tools / "sitecustomize.py").write_text(WAITS)
    path = os.pathsep.join([str(tools), os.getcwd(), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "IREE_TOOL_PATH": str(tools), "IREE_BENCH_WAITS": str(waits), "PYTHONPATH": path}
    cmd = [sys.executable, "-m", "runners.cli", "run", str(suite), "--backend", "iree", "-j", str(jobs),
           "--backend-option", f"batch={batch}", "--backend-option", f"cache={cache}", "--report", str(report)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    records = json.loads(report.read_text())["records"] if report.exists() else []
    one, more = overlap(log)
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "code": code, "invocations": len(log.read_text().splitlines()), "items": len(records),
            "one": one, "more": more, "waits": [float(x) for x in waits.read_text().split()],
            "verdicts": Counter(r.get("verdict") for r in records),
            "by_item": {(r["case"], r["dataset"]): r.get("verdict") for r in records}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="cases", type=Path)
    p.add_argument("--per-family", type=int, default=16)
    p.add_argument("--batch", type=int, default=32, help="models per invocation (the adapter's default: 32)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", type=Path, help="keep the sample, caches and reports here")
    p.add_argument("--sample-only", type=Path, help="only write the sample suite to this directory")
    args = p.parse_args(argv)
    if args.sample_only:
        print(f"{sample(args.suite, args.sample_only, args.per_family)} cases in {args.sample_only}")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="iree-bench-")) if args.keep is None else args.keep
    tmp.mkdir(parents=True, exist_ok=True)
    suite = tmp / "sample"
    n = sample(args.suite, suite, args.per_family) if not suite.exists() else \
        len(json.loads((suite / "manifest.json").read_text())["cases"])
    counting_tool(tmp / "tools", tmp / "invocations.log")
    arms = [("one compile per case", 1, tmp / "cache-1"), (f"batch={args.batch}", args.batch, tmp / "cache-b"),
            (f"batch={args.batch}, cache filled", args.batch, tmp / "cache-b")]
    results = []
    for label, batch, cache in arms:
        if label.endswith("per case") or not label.endswith("filled"):
            shutil.rmtree(cache, ignore_errors=True)
        r = run(suite, batch, cache, args.jobs, tmp / "tools", tmp / "invocations.log", tmp / f"{cache.name}-{len(results)}.json")
        results.append((label, r))
        print(f"{label:28s} wall {r['wall']:7.1f} s  cpu {r['cpu']:7.1f} s  compiler invocations "
              f"{r['invocations']:5d} ({r['invocations'] / n:.2f} per case)  {r['wall'] / max(r['items'], 1):.3f} "
              f"s/item wall, {r['cpu'] / max(r['items'], 1):.3f} s/item cpu  ({n} cases, {r['items']} items; exit "
              f"{r['code']}); compiling: one at a time {r['one']:.1f} s, more at once {r['more']:.1f} s; claim waits "
              f"{len(r['waits'])}, {sum(r['waits']):.1f} s", flush=True)
    print("verdicts: " + "; ".join(f"{label}: " + ", ".join(f"{v} {k}" for k, v in sorted(r["verdicts"].items()))
                                   for label, r in results))
    one, batched = results[0][1]["by_item"], results[1][1]["by_item"]
    differ = sorted(k for k in one if batched.get(k) != one[k])
    print(f"items whose verdict differs between one compile per case and batch={args.batch}: {len(differ)}"
          + "".join(f"\n  {c}[{i}]: {one[(c, i)]} / {batched.get((c, i))}" for c, i in differ[:20]))
    if args.keep is None:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
