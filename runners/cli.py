"""The `opconform` command.

    opconform backends [--json] [--options]
                                    the backends this installation knows, their versions, whether installed,
                                    and (--options) the --backend-option keys each takes
    opconform report RESULTS.json... [-o report.html|report.md|-] [--format html|md] [--suite DIR]
                                    results files of one or more backends as one report (runners/report.py);
                                    the shards of a run merge into one column; without -o (or -o -) the
                                    report goes to stdout, as Markdown unless --format html

Running a suite goes through pytest (`pytest SUITE --backend NAME`, runners/pytest_plugin.py).
Every error a user can cause ends with one line on stderr and a non-zero exit status
(2 for a bad command line), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys


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
    p = sub.add_parser("backends", help="list the backends, their versions and whether they are installed",
                       description="List the backends opconform knows (built in and from the "
                                   "opconform.backends entry point group); NAME is what --backend takes.")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.add_argument("--options", action="store_true",
                   help="also list each backend's --backend-option keys (pytest SUITE --backend-option KEY=VALUE)")
    p.set_defaults(func=cmd_backends)
    p = sub.add_parser("report", help="render results files (one per backend) as an HTML or Markdown report",
                       description="Render one or more results files (pytest SUITE --backend B --report B.json) "
                                   "side by side: scoreboard, counts and tiers per family, the Cast and "
                                   "ConvertPromoteTypes grids, failing items, probe divergence. Shards of one "
                                   "run (--shard I/N, same backend, version, settings and suite) merge into one "
                                   "column. Problems (missing shards, cases not judged, inputs from different "
                                   "suites) are printed on stderr and noted in the report.")
    p.add_argument("results", nargs="+", metavar="RESULTS.json")
    p.add_argument("-o", "--output", default="-", metavar="PATH",
                   help="where to write the report (default -: stdout)")
    p.add_argument("--format", choices=("html", "md"), default=None,
                   help="html or md (Markdown, for CI logs); default: md for stdout and a .md file, else html")
    p.add_argument("--suite", default=None, metavar="DIR",
                   help="the suite the results are of: its cases that no results file judged are named "
                        "(default: the suites the results files name, where found with the same manifest)")
    p.set_defaults(func=cmd_report)
    return parser


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
    from pathlib import Path

    from runners.report import load, problems, render
    from runners.results import document_format

    stdout = args.output == "-"
    out = Path(args.output)
    fmt = args.format or ("md" if stdout or out.suffix.lower() in (".md", ".markdown") else "html")
    if not stdout and (out.is_dir() or document_format(out)):
        what = "a directory" if out.is_dir() else "an opconform data file, not a report"
        print(f"opconform report: -o {out}: is {what} (choose another path)", file=sys.stderr)
        return 2
    try:
        runs = load(args.results)
        notes = problems(runs, args.suite)
    except ValueError as exc:
        print(f"opconform report: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"opconform report: warning: {note}", file=sys.stderr)
    text = render(runs, fmt, notes)
    if stdout:
        sys.stdout.write(text)
        return 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"opconform report: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    shards = "".join(f"; {run.label}: {len(run.shards)} of {run.shard_total} shards" for run in runs if run.shard_total)
    print(f"opconform report: wrote {out} ({fmt}, {len(runs)} column(s){shards})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.error("a command is required: backends, report")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("opconform: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `opconform backends | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
