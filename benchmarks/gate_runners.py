"""The gate's two runners on the same suite and baseline: `pytest SUITE --backend B --baseline F` against `opconform
run SUITE --backend B --baseline F`, in one run.

    python benchmarks/gate_runners.py [--suite cases] [--backend onnxruntime] [--repeats 3] [--jobs 2]

First one `opconform run ... --update-baseline` writes the baseline F (in a temporary directory); then the two gate
runs alternate (pytest, run, pytest, run, ...) so that load on the machine hits them alike, each a fresh process
with its defaults (one pytest process; `opconform run -j JOBS`). Prints each run's wall and CPU seconds (the command
and its children), the medians and the ratio pytest / run of the medians.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its children, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="cases")
    p.add_argument("--backend", default="onnxruntime")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = str(Path(tmp) / "gate.baseline.json")
        subprocess.run([sys.executable, "-m", "runners.cli", "run", args.suite, "--backend", args.backend,
                        "--baseline", base, "--update-baseline"], stdout=subprocess.DEVNULL, check=False)
        runs = {
            "pytest": [sys.executable, "-m", "pytest", args.suite, "--backend", args.backend, "--baseline", base,
                       "-p", "no:cacheprovider", "-q", "--tb=no", "-rN"],
            "run": [sys.executable, "-m", "runners.cli", "run", args.suite, "--backend", args.backend, "--baseline",
                    base, "-j", str(args.jobs)],
        }
        seen: dict[str, list[tuple[float, float, int]]] = {k: [] for k in runs}
        for i in range(args.repeats):
            for name, cmd in runs.items():
                seen[name].append(timed(cmd))
                wall, cpu, code = seen[name][-1]
                print(f"round {i + 1} {name:6s} wall {wall:7.1f} s  cpu {cpu:7.1f} s  exit {code}", flush=True)
    med = {k: (statistics.median(w for w, _, _ in v), statistics.median(c for _, c, _ in v)) for k, v in seen.items()}
    for k, (w, c) in med.items():
        print(f"median {k:6s} wall {w:7.1f} s  cpu {c:7.1f} s")
    print(f"pytest / run: wall {med['pytest'][0] / med['run'][0]:.2f}x, cpu {med['pytest'][1] / med['run'][1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
