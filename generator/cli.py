"""gen-cases: write a conformance suite, or check that a directory is exactly what it would write.

    gen-cases [OUT] [--family F ...] [--profile quick|default|exhaustive] [--seed N]
              [--max-opset N] [--replace] [--check]
    gen-cases --find-witnesses [--family F ...] [--budget EXAMPLES]
    gen-cases --from-model MODEL OUT [--calibration FILE.npz] [--dim NAME=SIZE ...] [--seed N]

Writing is atomic: the suite is built in a temporary directory beside OUT and swapped in whole,
so OUT is either the complete old suite or the complete new one (generator/outdir.py: mount points,
symlinks, leftovers of killed runs). A non-empty OUT that is not an opconform suite is refused, never
overwritten. --check regenerates with the options recorded in the suite's manifest.json.

What gen-cases replaces in OUT is the suite only: manifest.json, the kind folders (node/, graph/, negative/,
probe/) and tables/ (suite_entry), each whole. Every other entry of OUT (a vendor's baseline, ci/notes.md)
is not gen-cases' and is kept: carried over into the new OUT, named in a note; --check leaves it out too.
Put nothing of your own inside the suite's folders: they are replaced whole.

A regeneration that would drop cases of the suite in OUT says how many (by kind and by family). When it was
made with other options than the suite's (e.g. --family layout over a whole suite) it is refused, OUT
untouched, unless --replace says that is meant.

Heavy modules (onnx, the families' references) are imported inside the functions that need them, so that a
Ctrl-C while they load ends like any other: one line, exit 130.

This module dispatches; the work is done in gen_cases_args.py (the options), suite_write.py (writing OUT),
suite_check.py (--check), suite_generation.py (a suite generated into a directory), suite_entries.py (what
in OUT is the suite's) and find_witnesses.py (--find-witnesses).
"""

from __future__ import annotations

import sys
from pathlib import Path

from generator import outdir
from generator.find_witnesses import find_witnesses
from generator.gen_cases_args import DEFAULT_OUT, UsageError, from_model_problem, options, parser
from generator.suite_check import check, check_options
from generator.suite_write import write

# read from this module by tests of the families (not this module's to change)


def _main(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    if args.max_opset is not None and args.max_opset < 1:
        raise UsageError("--max-opset must be a positive opset number")
    problem = from_model_problem(args)
    if problem:
        raise UsageError(problem)
    if args.from_model is not None:
        from generator.from_model.suite import write as write_from_model
        return write_from_model(args.from_model, Path(args.out), dims=dict(args.dim), calibration=args.calibration,
                                seed=args.seed or 0)
    out = Path(args.out or DEFAULT_OUT)
    if args.find_witnesses:
        o = options(args)
        return find_witnesses(o["families"], o["max_opset"], args.budget)
    if args.check:
        o = check_options(out, args)
        return check(out, o["families"], o["profile"], o["seed"], o["max_opset"])
    o = options(args)
    return write(out, o["families"], o["profile"], o["seed"], o["max_opset"], replace=args.replace)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except UsageError as exc:
        print(f"gen-cases: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gen-cases: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        done = isinstance(exc, outdir.InterruptedAfterWrite)
        print(f"gen-cases: interrupted; {exc if done else 'the suite directory was left as it was'}",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
