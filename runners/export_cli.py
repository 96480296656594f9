"""`opconform export SUITE --format F OUT`: the suite in a form another runner reads (docs/exports.md). Reads only
the suite; writes only OUT, which must be new or empty."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FORMATS = ("onnx-backend-test",)


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write the suite in a form another runner reads (ONNX's backend-test Runner)",
                       description="Write SUITE's cases to OUT in the layout of another runner: onnx-backend-test, "
                                   "the directories ONNX's loader (onnx.backend.test.loader.load_model_tests, kind "
                                   "'opconform') and Runner take, each with a data.json of the tolerances its "
                                   "comparison can express; the cases it cannot judge as the suite does are left "
                                   "out, each named with why in OUT/left_out.json and counted in OUT/README.md.",
                       epilog="exit status: 0 written, 2 bad input (OUT not new or empty, SUITE no suite)")
    p.add_argument("suite", metavar="SUITE", help="a suite directory (gen-cases' output, e.g. cases)")
    p.add_argument("out", metavar="OUT", help="the directory to write (new or empty)")
    p.add_argument("--format", required=True, choices=FORMATS, help="the layout to write")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from runners import export_onnx_backend as onnx_backend

    try:
        done = onnx_backend.export(Path(args.suite), Path(args.out))
    except onnx_backend.ExportError as exc:
        print(f"opconform export: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"opconform export: error: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    left = sum(done["left_out"].values())
    print(f"opconform export: {done['exported']} cases ({done['items']} data sets) written to {args.out} as "
          f"{args.format}; {left} left out (README.md, left_out.json say why)")
    return 0
