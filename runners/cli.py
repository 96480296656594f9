"""The `opconform` command.

    opconform run SUITE... --backend B [the plugin's options] [-j N]
                                    a suite run without pytest (runners/run.py): the same verdicts, results
                                    file and baseline as `pytest SUITE --backend B`, faster; exit statuses as
                                    pytest's (0 passed, 1 failed, 2 interrupted, 3 a file not written,
                                    4 bad usage, 5 nothing selected)
    opconform backends [--json] [--options]
                                    the backends this installation knows, their versions, whether installed,
                                    and (--options) the --backend-option keys each takes
    opconform report RESULTS.json... [-o report.html|report.md|-] [--format html|md] [--suite DIR]
                     [--baseline B.baseline.json ...] [--view full|matrix] [--by opset|types] [--title T]
                                    results files of one or more backends as one report (runners/report.py),
                                    first against a gate's baseline where one is given (new, known, fixed);
                                    the shards of a run merge into one column; the conformance matrix (a row
                                    per op and opset, a column per backend x device x release) and, for a
                                    backend at several releases, its history (--view matrix: those alone);
                                    without -o (or -o -) the
                                    report goes to stdout, as Markdown unless --format html; -o replaces
                                    only a report opconform wrote; exit 0: every record reported, 1: some
                                    malformed records left out (named), 2: an input or -o path refused

    opconform repro CASE_DIR[i] --backend B [--backend-option K=V] [--tier T] [--script FILE]
                                    one item run alone (runners/repro.py): its node, inputs, expected and
                                    actual outputs and verdict; or (--script) a standalone script that
                                    reproduces it with the runtime alone (Python; a .mjs for onnxruntime-node
                                    and -web); exit 0: it passes, 1: it does not, 2: bad input

    opconform hunt --backend B [--family F ...] [--max-examples N | --budget SECONDS] [--seed S]
                   [--tier T] [--database DIR] [--keep] --out DIR
                                    a live hypothesis search for the backend's discrepancies, each shrunk to a
                                    reproducer case written to the suite DIR (runners/hunt.py, docs/hunting.md);
                                    exit 0: no finding, 1: findings, 2: a bad command line

    opconform claims RESULTS.json|B.baseline.json --suite DIR [-o FILE]
                                    a claims file (for --claims): every configuration the backend implemented
                                    there (runners/claims_cli.py, docs/claims.md); exit 0, or 2: bad input
    opconform machine [--class | --json]
                                    this machine as results files and baselines record it; --class: its kernel
                                    class, what CI keys its baselines by (docs/gating.md)
    opconform js-install [DIR] [--version V] [--package P]
                                    the npm packages of the onnxruntime-node / onnxruntime-web backends,
                                    installed into the folder they are looked up in (runners/js_install.py)
    opconform export SUITE --format onnx-backend-test|iree OUT [--xfails-from R.json]
                                    the suite as ONNX backend-test directories for ONNX's Runner, or as IREE's ONNX
                                    op-suite folders and config, with what they cannot judge left out and named
                                    (runners/export_cli.py); exit 0, or 2
    opconform xfails RESULTS.json --format opconform|pytest|onnxruntime-filters [-o FILE] [--unsupported]
                                    the run's failing items as an expected-failure list (runners/xfail_lists.py)

A suite also runs through pytest (`pytest SUITE --backend NAME`, runners/pytest_plugin.py).
Every error a user can cause ends with one line on stderr and a non-zero exit status
(2 for a bad command line), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from runners import check_model, claims_cli, export_cli, js_install
from runners import run as run_command


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line (no usage block) and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog.split()[0]} --help)\n")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("opconform")
    except Exception:  # noqa: BLE001 - not installed as a distribution (source checkout)
        from generator.case import GENERATOR_VERSION

        return GENERATOR_VERSION


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="opconform",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="opconform: conformance suites for ML operators.",
        epilog="Run a suite with pytest:\n"
               "  pytest SUITE --backend NAME [--tier strict|tolerant] [--xfails-file F] [--skips-file F]\n"
               "         [--report results.json] [-n N]",
    )
    parser.add_argument("--version", action="version", version=f"opconform {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run_command.add_parser(sub)  # opconform run: runners/run.py
    check_model.add_parser(sub)  # opconform check-model: runners/check_model.py
    p = sub.add_parser("backends", help="list the backends, their versions and whether they are installed",
                       description="List the backends opconform knows (built in and from the "
                                   "opconform.backends entry point group); NAME is what --backend takes.")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.add_argument("--options", action="store_true",
                   help="also list each backend's --backend-option keys (pytest SUITE --backend-option KEY=VALUE)")
    p.set_defaults(func=cmd_backends)
    p = sub.add_parser("report", help="render results files (one per backend) as an HTML or Markdown report",
                       description="Render one or more results files (pytest SUITE --backend B --report B.json) "
                                   "side by side: against a --baseline first (new, known, fixed failures), "
                                   "scoreboard with each run's selection, counts and tiers per family, the type "
                                   "grids (counts in each cell), every failing item grouped by family, fault "
                                   "model and configuration (node, inputs, spec clause, node id, `opconform "
                                   "repro` command), probe divergence, the conformance matrix and release history. "
                                   "Shards of one run (--shard I/N, same backend, version, settings, suite and "
                                   "machine class) merge into one column. Problems "
                                   "(missing shards, selected cases without a result, inputs from different "
                                   "suites) are printed on stderr and noted in the report.")
    p.add_argument("results", nargs="+", metavar="RESULTS.json")
    p.add_argument("-o", "--output", default="-", metavar="PATH",
                   help="where to write the report (default -: stdout)")
    p.add_argument("--format", choices=("html", "md"), default=None,
                   help="html or md (Markdown, for CI logs); default: md for stdout and a .md file, else html")
    p.add_argument("--suite", default=None, metavar="DIR",
                   help="the suite the results are of: its cases that no results file judged are named "
                        "(default: the suites the results files name, where found with the same manifest)")
    p.add_argument("--baseline", action="append", default=[], metavar="B.baseline.json",
                   help="a gate's baseline (pytest --baseline): the report shows first the new, known and "
                        "fixed failures of the columns of its backend against it (repeatable: one per backend)")
    p.add_argument("--view", choices=("full", "matrix"), default="full",
                   help="full (default): everything below; matrix: only the columns, the conformance matrix (a row "
                        "per operator and opset, a column per backend, device and release) and, for a backend at "
                        "several releases, what each release fixed and broke")
    p.add_argument("--by", choices=("opset", "types"), default="opset",
                   help="the matrix's rows: per operator and opset (default), or per operator, opset and type group")
    p.add_argument("--title", default=None, help="the page's title (default: opconform conformance report)")
    p.add_argument("--note", action="append", default=[], metavar="TEXT",
                   help="a line to add to the report's notes (repeatable): where the runs come from, what was left out")
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("repro", help="run one item (CASE_DIR[i]) alone and print its inputs, expected and actual",
                       description="Run data set i of a case directory on a backend through the same execution "
                                   "and comparison a suite run uses, and print the node, its inputs, the expected "
                                   "and actual outputs and the verdict; the report gives this command per failing "
                                   "item. With --script, write a standalone script instead that needs only the "
                                   "runtime: Python with numpy, onnx and the runtime's package for onnxruntime, "
                                   "onnx-reference, tract, tinygrad, iree and openvino; JavaScript (FILE.mjs, run "
                                   "with node) for onnxruntime-node and onnxruntime-web.",
                       epilog="exit status: 0 the item passes, 1 it does not, 2 bad input")
    p.add_argument("item", metavar="CASE_DIR[i]", help="a case directory and a data set index, e.g. "
                                                      "cases/node/test_cast_float_to_int8_edge[0] (default [0])")
    p.add_argument("--backend", required=True, metavar="NAME", help="the backend to run it on (opconform backends)")
    p.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the backend, as pytest takes it (repeatable)")
    p.add_argument("--tier", choices=("strict", "tolerant"), default="strict", help="the tier to judge in")
    p.add_argument("--script", default=None, metavar="FILE",
                   help="write a standalone reproducer script to FILE instead of running the item (a "
                        ".mjs for onnxruntime-node / -web)")
    p.set_defaults(func=cmd_repro)
    from runners.hunt_plan import DEFAULT_MAX_EXAMPLES

    p = sub.add_parser("hunt", help="search a backend live for discrepancies; write each, shrunk, as a case",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Draw examples of each family with hypothesis (biased to where the fault "
                                   "models part from the reference), run them on the backend in an isolated "
                                   "worker, shrink each new failure to a minimal case, and write the findings "
                                   "as a suite: pytest DIR --backend B reproduces them (docs/hunting.md).",
                       epilog="exit status: 0 no finding, 1 findings (written to DIR), 2 a bad command line, "
                              "130 interrupted (what was found is written)")
    p.add_argument("--backend", required=True, metavar="NAME", help="the backend to hunt (opconform backends)")
    p.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the backend, as pytest takes it (repeatable)")
    p.add_argument("--family", action="append", default=None, metavar="F",
                   help="a family to hunt (repeatable; default: every family that has a hunt strategy)")
    p.add_argument("--only", action="append", default=[], metavar="GLOB",
                   help="hunt only the slices whose label matches (repeatable), e.g. 'float*_to_float8*' for Cast; "
                        "a family's slices are its parameter groups (docs/hunting.md)")
    p.add_argument("--max-examples", type=int, default=None, metavar="N",
                   help=f"examples per family (default {DEFAULT_MAX_EXAMPLES} without --budget)")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="seconds of search per family (shrinking a finding may run over it)")
    p.add_argument("--seed", type=int, default=0, help="hypothesis' seed: the same run again, for a given "
                                                       "hypothesis version and backend (default 0)")
    p.add_argument("--tier", choices=("strict", "tolerant"), default="strict",
                   help="the tier a finding fails in (default strict)")
    p.add_argument("--max-opset", type=int, default=None, metavar="N",
                   help="the newest ai.onnx opset drawn (default: the installed onnx's)")
    p.add_argument("--inputs", choices=("auto", "fed", "initializers", "constant"), default="auto",
                   help="how each example's model gets its inputs, as pytest's --inputs (default auto)")
    p.add_argument("--shapes", choices=("static", "dynamic"), default="static",
                   help="static or unknown dimensions, as pytest's --shapes (default static)")
    p.add_argument("--database", default=None, metavar="DIR",
                   help="keep hypothesis' examples in DIR, replayed first by the next run (default: none kept)")
    p.add_argument("--keep", action="store_true",
                   help="also add the findings to the witness catalogue of this source checkout "
                        "(generator/witness/catalogue/), whence gen-cases makes them regression cases")
    p.add_argument("--case-timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds one example may take on the backend (default 60)")
    p.add_argument("--case-memory", default=None, metavar="SIZE",
                   help="memory cap of the backend's worker, e.g. 4G (default), or none")
    p.add_argument("--isolation", choices=("process", "none"), default="process",
                   help="process (default): the backend runs in a worker process, so a crash or hang is a "
                        "finding; none: in this process (for debugging a backend)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the suite to write: a new or empty directory, or an earlier hunt's (replaced)")
    p.set_defaults(func=cmd_hunt)
    claims_cli.add_parsers(sub)  # opconform claims, opconform machine: runners/claims_cli.py
    js_install.add_parser(sub)  # opconform js-install: runners/js_install.py
    export_cli.add_parser(sub)  # opconform export: runners/export_cli.py
    export_cli.add_xfails_parser(sub)  # opconform xfails: runners/export_cli.py, runners/xfail_lists.py
    return parser



def cmd_hunt(args: argparse.Namespace) -> int:
    from pathlib import Path

    from runners import hunt
    from runners.hunt_plan import DEFAULT_MAX_EXAMPLES, check_only
    from runners.hunt_suite import check_out
    from runners.backends.base import parse_options
    from runners.input_modes import RunMode
    from runners.worker import DEFAULT_MEMORY, DEFAULT_TIMEOUT, check_timeout, parse_size

    def fail(text: str) -> int:
        print(f"opconform hunt: error: {text}", file=sys.stderr)
        return 2

    try:
        options = parse_options(args.backend_option)
    except ValueError as exc:
        return fail(str(exc))
    known = hunt.huntable()
    families = sorted(set(args.family)) if args.family else known
    bad = [f for f in families if f not in known]
    if bad:
        return fail(f"--family {bad[0]}: not a family with a hunt strategy ({', '.join(known)})")
    if args.max_examples is not None and args.max_examples < 1:
        return fail("--max-examples must be at least 1")
    if args.budget is not None and not 0 < args.budget < float("inf"):
        return fail("--budget must be a positive number of seconds")
    timeout = DEFAULT_TIMEOUT if args.case_timeout is None else args.case_timeout
    try:
        check_timeout(timeout)
    except ValueError as exc:
        return fail(f"--case-timeout {timeout:g}: {exc}")
    try:
        memory = DEFAULT_MEMORY if args.case_memory is None else parse_size(args.case_memory)
    except ValueError as exc:
        return fail(f"--case-memory {args.case_memory}: {exc}")
    import onnx

    newest = onnx.defs.onnx_opset_version()
    max_opset = args.max_opset or newest
    if not 1 <= max_opset <= newest:
        return fail(f"--max-opset {args.max_opset}: give an opset from 1 to {newest} (the installed onnx's newest)")
    database = Path(args.database) if args.database else None
    if database is not None and database.exists() and not database.is_dir():
        return fail(f"--database {database}: exists and is not a directory")
    out = Path(args.out)
    max_examples = args.max_examples
    if max_examples is None and args.budget is None:
        max_examples = DEFAULT_MAX_EXAMPLES
    try:
        check_out(out)
        check_only(families, args.only, max_opset)
        hunt.check_backend(args.backend, options)
        plan = hunt.Plan(backend=args.backend, options=options, families=families, max_examples=max_examples,
                         budget=args.budget, seed=args.seed, tier=args.tier, max_opset=max_opset,
                         database=database, only=args.only, mode=RunMode(args.inputs, args.shapes))
        return hunt.run(plan, out, args.keep, timeout, memory, isolation=args.isolation)
    except hunt.HuntUsageError as exc:
        return fail(str(exc))
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"opconform hunt: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def cmd_repro(args: argparse.Namespace) -> int:
    from runners.commands import NOT_SHOWN, command_line
    from runners.escape import printable
    from runners.repro import ReproError, repro, write_script

    try:
        if args.script:
            path = write_script(args.item, args.backend, args.backend_option, args.script)
            program = "node" if path.suffix == ".mjs" else "python"  # (the JS backends' scripts are JavaScript)
            run = command_line([program, f"./{path}" if str(path).startswith("-") else path])  # not an option
            print(printable(f"opconform repro: wrote {path} ({run or NOT_SHOWN})"))
            return 0
        return repro(args.item, args.backend, args.backend_option, args.tier)
    except ReproError as exc:
        print(printable(f"opconform repro: error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(printable(f"opconform repro: error: {where}{exc.strerror or exc}"), file=sys.stderr)
        return 2


def format_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    return "\n".join(lines)


def cmd_backends(args: argparse.Namespace) -> int:
    from runners.backends.registry import list_backends

    backends = list_backends()
    if args.json:
        print(json.dumps(backends, indent=1, sort_keys=True, default=str))
        return 0
    rows = [[b.get("name", "?"), b.get("version") or "-", "yes" if b.get("installed") else "no",
             " ".join(str(b.get("detail") or "").split())] for b in backends]
    print(format_table(rows, ["NAME", "VERSION", "INSTALLED", "DETAIL"]))
    if args.options:
        for b in backends:
            options = b.get("options")
            print(f"\n{b.get('name', '?')}:" + (" no --backend-option" if options == {} else
                                                " options unknown (not installed)" if options is None else ""))
            for key, text in (options or {}).items():
                print(f"  {key}: {' '.join(str(text).split())}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Exit status 0: the report holds every record; 1: it was made (written, or on stdout) but left out
    malformed records (each named in a warning and in the report's notes), or it could not be written;
    2: a bad command line, an input that is no results file, shards that disagree, or a refused -o path."""
    from pathlib import Path

    from runners.escape import printable
    from runners.report import render
    from runners.report_inputs import load, problems
    from runners.report_output import check_output
    from runners.results import write_atomically

    def say(line: str, file=sys.stderr) -> None:  # paths, labels and messages come from files: escaped
        print(printable(f"opconform report: {line}"), file=file)

    stdout = args.output == "-"
    out = Path(args.output)
    fmt = args.format or ("md" if stdout or out.suffix.lower() in (".md", ".markdown") else "html")
    try:
        if not stdout:
            check_output(out)  # before the work: a refused path is known at once
    except ValueError as exc:
        say(f"-o {exc}")
        return 2
    try:
        runs = load(args.results)
        notes = problems(runs, args.suite)
    except ValueError as exc:
        say(str(exc))
        return 2
    for note in notes:
        say(f"warning: {note}")
    notes = list(args.note) + notes
    skipped = sum(len(run.skipped) for run in runs)
    try:
        if args.baseline and args.view != "full":
            raise ValueError("--baseline needs --view full (the gate's view is part of the full report)")
        text = render(runs, fmt, notes, args.suite, args.baseline, args.view,
                      None if args.by == "opset" else args.by, args.title)
    except ValueError as exc:  # a --baseline that is no baseline, or of no column's backend
        say(str(exc))
        return 2
    if stdout:
        sys.stdout.write(text)
    else:
        try:
            check_output(out)  # again, just before: the path may have changed while the report was made
            write_atomically(out, text)
        except ValueError as exc:
            say(f"-o {exc}")
            return 2
        except OSError as exc:
            say(f"cannot write {out}: {exc.strerror or exc}")
            return 1
        shards = "".join(f"; {run.label}: {len(run.shards)} of {run.shard_total} shards"
                         for run in runs if run.shard_total)
        say(f"wrote {out} ({fmt}, {len(runs)} column(s){shards})", file=sys.stdout)
    return 1 if skipped else 0


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv)[:1] == ["run"]:
        from runners import cancel

        # before the parser is built: it imports numpy, whose thread pool would take the signals without
        # their sender (a backend's SIGTERM to the runner would cancel the run; runners/cancel.py)
        cancel.install()
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.error("a command is required: run, check-model, backends, report, repro, hunt, claims, machine, js-install")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("opconform: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `opconform backends | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
