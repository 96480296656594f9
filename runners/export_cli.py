"""`opconform export SUITE --format F OUT`: the suite in a form another runner reads (docs/exports.md). Reads only
the suite; writes only OUT, which must be new or empty."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FORMATS = ("onnx-backend-test", "iree")


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write the suite in a form another runner reads (ONNX's backend-test Runner)",
                       description="Write SUITE's cases to OUT in the layout of another runner: onnx-backend-test, "
                                   "the directories ONNX's loader (onnx.backend.test.loader.load_model_tests, kind "
                                   "'opconform') and Runner take, each with a data.json of the tolerances its "
                                   "comparison can express; iree, IREE's ONNX op-suite folders (model.mlir through "
                                   "IREE's importer, .npy inputs and outputs, test_data_flags.txt) and a config.json. "
                                   "The cases a consumer cannot judge as the suite does are left out, each named "
                                   "with why in OUT/left_out.json and counted in OUT/README.md.",
                       epilog="exit status: 0 written, 2 bad input (OUT not new or empty, SUITE no suite)")
    p.add_argument("suite", metavar="SUITE", help="a suite directory (gen-cases' output, e.g. cases)")
    p.add_argument("out", metavar="OUT", help="the directory to write (new or empty)")
    p.add_argument("--format", required=True, choices=FORMATS, help="the layout to write")
    p.add_argument("--xfails-from", default=None, metavar="R.json",
                   help="iree: a results file of an IREE run, whose failures become config.json's expected compile "
                        "and run failures")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from runners import export_iree
    from runners import export_onnx_backend as onnx_backend

    try:
        if args.format == "iree":
            done = export_iree.export(Path(args.suite), Path(args.out),
                                      Path(args.xfails_from) if args.xfails_from else None)
        elif args.xfails_from:
            raise onnx_backend.ExportError("--xfails-from: only with --format iree (its config.json)")
        else:
            done = onnx_backend.export(Path(args.suite), Path(args.out))
    except onnx_backend.ExportError as exc:
        print(f"opconform export: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"opconform export: error: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    left = sum(done["left_out"].values())
    extra = f"; {done['expected_failures']} expected failures in config.json" if "expected_failures" in done else ""
    print(f"opconform export: {done['exported']} cases ({done['items']} data sets) written to {args.out} as "
          f"{args.format}; {left} left out (README.md, left_out.json say why){extra}")
    return 0


def add_xfails_parser(sub) -> None:
    from runners.xfail_lists import FORMATS as LIST_FORMATS

    p = sub.add_parser("xfails", help="a results file's failing items as an expected-failure list (opconform's "
                                      "--xfails-file, pytest --deselect, onnxruntime's test filters)",
                       description="Write the failing items (fail, error, crash, timeout; --unsupported adds "
                                   "unsupported) of RESULTS.json as the expected-failure list a CI keeps: opconform "
                                   "(--xfails-file), pytest (--deselect lines for `pytest @FILE`), "
                                   "onnxruntime-filters (onnx_backend_test_series_filters.jsonc's shape, one regex "
                                   "per case for the tests of `opconform export --format onnx-backend-test`).",
                       epilog="exit status: 0 written, 2 bad input")
    p.add_argument("results", metavar="RESULTS.json", help="a results file (pytest/opconform run --report)")
    p.add_argument("--format", required=True, choices=LIST_FORMATS, help="the list's form")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write it (default -: stdout)")
    p.add_argument("--unsupported", action="store_true", help="list unsupported items too")
    p.set_defaults(func=cmd_xfails)


def cmd_xfails(args: argparse.Namespace) -> int:
    from runners.results import load_results
    from runners.xfail_lists import render

    try:
        doc, records, skipped = load_results(args.results)
    except (ValueError, OSError) as exc:
        print(f"opconform xfails: error: {exc}", file=sys.stderr)
        return 2
    text, n = render(doc, records, args.format, args.unsupported)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.output)
        if out.is_dir():
            print(f"opconform xfails: error: {out} is a directory", file=sys.stderr)
            return 2
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"opconform xfails: error: {out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"opconform xfails: {n} item(s) written to {out} ({args.format})"
              + (f"; {len(skipped)} bad record(s) of {args.results} left out" if skipped else ""), file=sys.stderr)
    return 0
