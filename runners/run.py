"""`opconform run SUITE... --backend B`: run suites without pytest's per-item cost.

The same items, verdicts, results file and baseline as `pytest SUITE --backend B` (runners/pytest_plugin.py),
from the same code (runners/session.py: running a data set in the worker, the gate; runners/summary.py: the
results header), and the same exit status: 0 every item passed (or is skipped, xfailed, no worse than the
baseline), 1 some item failed, 2 the run was interrupted, 3 a results or baseline file could not be written,
4 a usage error (one line, no traceback), 5 no item selected. The options are the plugin's (same names,
defaults and meaning, runners/run_options.py); pytest's own -k / -m / -x and node ids are not offered. -j N
runs N workers side by side, each taking the next cases (default 2: see DEFAULT_JOBS).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from runners.escape import printable
from runners.run_options import OPTIONS, OptionError

# Workers side by side by default. The worker's verdict work (reading and checking the case, the comparison,
# the fault models' diagnosis) is what a run waits for; the runner itself idles. Measured on 2 shared cores,
# the whole committed suite (21706 items) on onnxruntime 1.32, one run each, alternated
# (benchmarks/runner_overhead.py --whole --parallel): -j 1 51.4 s, -j 2 37.1 s; the plugin 59.3 s in one
# process, 84.8 s with -n auto. Against a hand-written loop doing the same work (benchmarks/bare_loop.py,
# 16.8 s; --whole --parallel --no-plugin --repeats 2): -j 2 31.4 s (1.88x), -j 1 42.1 s (2.51x).
DEFAULT_JOBS = 2


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("run", help="run suites on a backend without pytest (same verdicts, results "
                                          "files and baselines as `pytest SUITE --backend B`)",
                              description=__doc__.split("\n\n")[1])
    fill_parser(p)
    p.set_defaults(func=main)
    return p


def fill_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="SUITE",
                   help="a suite, a kind folder of one, a case directory or a folder of ONNX node tests")
    for flags, kwargs in OPTIONS:
        kwargs = dict(kwargs)
        if flags[0] == "--backend":
            kwargs.update(required=True, help="the backend to run (`opconform backends` lists them)")
        p.add_argument(*flags, **kwargs)
    p.add_argument("-j", "--jobs", type=int, default=DEFAULT_JOBS, metavar="N",
                   help=f"workers side by side, each on its share of the cases (default {DEFAULT_JOBS}; "
                        "only with --isolation process)")


def main(args: argparse.Namespace) -> int:
    from runners import cancel

    cancel.install()
    cancel.defer()  # the set-up (the backend loads here: seconds) is not cut: a cancel waits for the run to exist
    try:
        return _main(args)
    except OptionError as exc:
        print(f"opconform run: error: {exc}", file=sys.stderr)
        return 4
    except KeyboardInterrupt:  # a second cancel during the set-up (cancel.defer): nothing ran, nothing to write
        print("opconform: interrupted before the run started: nothing was run or written", file=sys.stderr)
        return 2
    finally:
        cancel.uninstall()


def _main(args: argparse.Namespace) -> int:
    from runners import cancel
    from runners import run_options as o
    from runners.collect import collect
    from runners.session import RunCore
    from runners.worker import IsolatedRunner

    started = time.perf_counter()
    base = Path.cwd()
    if args.jobs < 1:
        raise OptionError(f"-j {args.jobs}: must be at least 1")
    for path in args.paths:
        if not os.path.exists(path):
            raise OptionError(printable(f"{path}: no such file or directory"))
    if args.report:
        try:
            cancel.discard_stale(args.report)
        except OSError as exc:
            raise OptionError(f"--report {args.report}: cannot remove the results file of an earlier run "
                              f"({exc.strerror or exc}): it would be left looking like this run's") from None
    options = o.parse_backend_options(args.backend_option)
    backend = o.load_backend(args.backend, options)
    families = o.check_families(args.family)
    xfails = o.read_patterns(args.xfails_file, "--xfails-file")
    skips = o.read_patterns(args.skips_file, "--skips-file")
    if args.report:
        o.check_report_path(args.report)
    timeout, memory = o.worker_limits(args.case_timeout, args.case_memory)
    o.check_isolation(args.isolation, args.baseline)
    mode = o.run_mode(args.inputs, args.shapes, args.max_opset)
    core = RunCore(backend, args.tier, mode, base)
    core.families = families
    want_records = o.configure_gate(core, args.report, args.baseline, args.update_baseline, args.shard)
    want_records = want_records or bool(args.report)
    from runners.gate_judge import Scope
    from runners.run_items import Runner
    from runners.summary import whole_suites
    from runners.suite_tree import Manifests, Selection

    manifests = Manifests()
    o.configure_claims(core, args.claims, args.paths, base, manifests)
    core.scope = Scope(whole=whole_suites(args.paths, base, manifests), families=families, shard=core.shard)
    jobs = args.jobs if args.isolation == "process" else 1
    workers = []
    if args.isolation == "none":
        from runners.in_process import LINE

        print(LINE, file=sys.stderr, flush=True)  # before any item: what is left of a run the backend ended
    if args.isolation == "process":
        workers = [IsolatedRunner(args.backend, timeout=timeout, memory=memory, options=options, mode=mode)
                   for _ in range(jobs)]
        for w in workers:
            w.launch()  # the workers load the backend while this process collects
    elsewhere = core.elsewhere_line()
    if elsewhere:
        print(elsewhere, flush=True)  # before any verdict: what the gate compares across
    try:
        runner = Runner(core, workers, xfails, skips, want_records, manifests)
        refused, status = [], "interrupted"
        cancel.resume()  # a cancel during the set-up: raised now, with a run to end
        # --family / --shard while collecting (a case of another family is never listed)
        items, refused = collect(args.paths, base, manifests, Selection(core.families, core.shard))
        status = runner.run(items)
    except KeyboardInterrupt:  # (runner.run takes those of the run itself)
        pass
    finally:
        cancel.hold()  # from here nothing cuts the workers' end, the results file, the baseline or the summary
        for w in workers:
            w.close()
    if args.isolation == "none":
        from runners.in_process import LINE

        print(LINE)  # (the summary's first line)
    status = "interrupted" if cancel.cancelled() else status
    code = runner.finish(status, args, refused, time.perf_counter() - started)
    # a results or baseline file not written is 3 even where items failed (finish makes only 0 a 3)
    unwritten = (args.report and not runner.written) or (
        args.update_baseline and core.baseline_path is not None and not runner.baseline_written)
    return cancel.settle(3 if unwritten and code in (1, 5) else code, args.report if runner.written else None)


def run_main(argv: list[str] | None = None) -> int:
    """`python -m runners.run SUITE --backend B ...` (what `opconform run` does)."""
    p = argparse.ArgumentParser(prog="opconform run", description=__doc__.split("\n\n")[1])
    fill_parser(p)
    return main(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run_main())
