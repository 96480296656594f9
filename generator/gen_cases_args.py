"""gen-cases' command line: its options, their defaults, and a bad one as one line (UsageError; exit 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from generator import families

DEFAULT_OUT = "cases"
TABLES = "tables"  # the folder of a suite's tables (kill matrix, a family's extra_files)
DEFAULT_BUDGET = 500  # hypothesis examples per witness search
DEFAULTS = {"profile": "default", "seed": 0}  # and max_opset: the newest of the installed onnx


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + error otherwise)
        raise UsageError(message)


def _examples(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of examples (--budget counts "
                                         "hypothesis examples per search, not seconds)")
    return n


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gen-cases", description="Generate an opconform conformance suite.")
    p.add_argument("out", nargs="?", default=None, help=f"suite directory (default: {DEFAULT_OUT}; required with "
                                                         "--from-model)")
    p.add_argument("--family", action="append", choices=sorted(families.FAMILIES), metavar="F",
                   help=f"family to generate (repeatable; default: all of {', '.join(sorted(families.FAMILIES))})")
    # defaults are None: --check must know which options were given (see _check_options)
    p.add_argument("--profile", choices=families.PROFILES,
                   help="quick: edge cases only; default (the default): + exhaustive <= 8-bit inputs, random, "
                        "shapes; exhaustive: + every 16-bit input, more random")
    p.add_argument("--seed", type=int, help="base seed of the random inputs (default 0)")
    p.add_argument("--max-opset", type=int, metavar="N",
                   help="leave out cases that need a newer ai.onnx opset (default: the newest onnx knows)")
    p.add_argument("--replace", action="store_true",
                   help="replace the suite in OUT even though this generation drops some of its cases (made with "
                        "a narrower --family, --profile or --max-opset than the suite's); without it that is refused")
    p.add_argument("--check", action="store_true",
                   help="regenerate with the options recorded in OUT's manifest.json into a temporary directory "
                        "and fail unless OUT is byte-identical")
    p.add_argument("--find-witnesses", action="store_true",
                   help="search inputs that tell each fault model from the reference and write them to the "
                        "committed catalogues under generator/witness/catalogue/ (no suite is written)")
    p.add_argument("--budget", type=_examples, default=DEFAULT_BUDGET, metavar="EXAMPLES",
                   help="with --find-witnesses: hypothesis examples for each search, i.e. each (group, fault) pair "
                        f"that construction and enumeration leave open (default {DEFAULT_BUDGET}); a count, not a "
                        "time, so that the catalogues do not depend on the machine's speed or load")
    p.add_argument("--from-model", type=Path, metavar="MODEL",
                   help="write the suite of a model's nodes instead: every node a family covers, with the model's "
                        "constants, attributes, opset, types and shapes (docs/from_model.md)")
    p.add_argument("--calibration", type=Path, metavar="FILE.npz",
                   help="with --from-model: sample values of the model's tensors by name; each covered node's random "
                        "data is drawn in their range (default: the range its quantization can represent)")
    p.add_argument("--dim", action="append", type=_dim, default=[], metavar="NAME=SIZE",
                   help="with --from-model: the size of a symbolic dimension (repeatable; default 2 for each)")
    return p


def _dim(text: str) -> tuple[str, int]:
    name, eq, size = text.partition("=")
    try:
        n = int(size)
    except ValueError:
        n = 0
    if not eq or not name or n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=SIZE with a positive whole SIZE")
    return name, n


def from_model_problem(args) -> str | None:
    """What is wrong with a --from-model command line (options that belong to the whole suite), or None."""
    if args.from_model is None:
        given = [o for o, v in (("--calibration", args.calibration), ("--dim", args.dim)) if v]
        return f"{given[0]} goes with --from-model" if given else None
    if args.out is None:
        return "--from-model needs the suite directory OUT: gen-cases --from-model MODEL OUT"
    for opt, v in (("--family", args.family), ("--profile", args.profile), ("--max-opset", args.max_opset),
                   ("--check", args.check), ("--find-witnesses", args.find_witnesses)):
        if v:
            return f"{opt} does not go with --from-model (the model says what the suite holds)"
    return None


def newest_opset() -> int:
    import onnx

    return onnx.defs.onnx_opset_version()


def known_opset(max_opset: int, what: str) -> int:
    """max_opset, refused (one line) when the installed onnx stops at an older opset: its schemas decide
    which cases exist, so a suite written past them would quietly lack the newer cases its manifest claims."""
    import onnx

    newest = newest_opset()
    if max_opset > newest:
        raise UsageError(f"{what} {max_opset}: this onnx ({onnx.__version__}) knows ai.onnx opsets up to {newest}; "
                         f"install a newer onnx or ask for --max-opset {newest} or lower")
    return max_opset


def options(args) -> dict:
    """The generation options of a write: those given, defaults for the others."""
    return {"families": sorted(set(args.family or families.FAMILIES)),
            "profile": args.profile or DEFAULTS["profile"],
            "seed": DEFAULTS["seed"] if args.seed is None else args.seed,
            "max_opset": known_opset(args.max_opset, "--max-opset") if args.max_opset else newest_opset()}
