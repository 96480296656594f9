"""`opconform claims SOURCE --suite DIR [-o FILE]`: a claims file (runners/claims.py) of everything a backend
implemented in a results file or a baseline; and `opconform machine [--class | --json]`: the machine record results
files and baselines keep (runners/machine.py), its class what CI keys its baselines by (docs/gating.md).

claims exit status: 0 written, 2 bad input (one line). `-o` writes only a new file, an empty one or a claims file
opconform wrote (its first line says so), atomically.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HEAD = "# opconform claims"  # the first line of every claims file opconform writes


def add_parsers(sub) -> None:
    p = sub.add_parser("claims", help="write a claims file: every configuration a backend implemented in a results "
                                      "file or a baseline (for --claims)",
                       description="Write the claims of a backend (one a line: op, opset, params values; "
                                   "docs/claims.md) from a results file or a baseline: every configuration of the "
                                   "suite it implemented (some item judged, none refused); configurations it "
                                   "refused, or implemented in part, follow as comments. A later run with --claims "
                                   "FILE fails an item a claim covers that the backend refuses.",
                       epilog="exit status: 0 written, 2 bad input")
    p.add_argument("source", metavar="RESULTS.json|B.baseline.json")
    p.add_argument("--suite", required=True, metavar="DIR",
                   help="the suite the source judged (its manifest gives each case's op, opset and params)")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default -: stdout)")
    p.set_defaults(func=cmd_claims)
    p = sub.add_parser("machine", help="this machine as results files and baselines record it (CPU, the features "
                                       "that select kernels, OS, its class)",
                       description="Print the machine record opconform keeps in results files and baselines; "
                                   "--class prints only its kernel class (e.g. x86_64-avx512-vnni-bf16), for CI "
                                   "that keeps one baseline per machine class: --baseline ci/ort-$(opconform "
                                   "machine --class).baseline.json.")
    p.add_argument("--class", dest="only_class", action="store_true", help="print only the machine class")
    p.add_argument("--json", action="store_true", help="print the record as JSON")
    p.set_defaults(func=cmd_machine)


def cmd_machine(args: argparse.Namespace) -> int:
    from runners.machine import machine

    m = machine()
    if args.only_class:
        print(m["class"])
    elif args.json:
        print(json.dumps(m, indent=1, sort_keys=True))
    else:
        print(f"cpu: {m['cpu']}\narch: {m['arch']}\nos: {m['os']}\nfeatures: {' '.join(m['features']) or '-'}\n"
              f"class: {m['class']}")
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    from runners.escape import printable

    try:
        text = claims_of(args.source, args.suite)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            _write(Path(args.output), text)
            print(printable(f"opconform claims: wrote {args.output}"))
    except ValueError as exc:
        print(printable(f"opconform claims: error: {exc}"), file=sys.stderr)
        return 2
    return 0


def claims_of(source: str, suite: str) -> str:
    """The claims file's text from a results file or a baseline and the suite it judged. ValueError (one line)."""
    from runners.claims_make import claims_text, describe_source, from_verdicts, verdicts_of
    from runners.gate import GateError, read_baseline
    from runners.results import load_results
    from runners.suite_tree import Manifests, manifest_entries

    try:
        doc = read_baseline(source)
    except GateError as exc:
        if "not a baseline file (format is not" not in str(exc):
            raise ValueError(str(exc).removeprefix("--baseline ")) from None
        doc, records, _ = load_results(source)
        doc = {**doc, "records": records}
    manifest = Manifests().manifest(Path(suite))
    if manifest is None:
        raise ValueError(f"--suite {suite}: not a suite (no readable manifest.json)")
    entries = {e["name"]: e for e in manifest_entries(manifest)}
    cases = from_verdicts(verdicts_of(doc), entries)
    if not cases:
        raise ValueError(f"{source}: judged no node or graph case of the suite {suite}")
    return claims_text(cases, [f"{HEAD.removeprefix('# ')}: what {describe_source(doc)} implemented in {source}",
                               f"suite {suite}; written by `opconform claims`; read by --claims (docs/claims.md)"])


def _write(path: Path, text: str) -> None:
    from runners.results import existing_file, write_atomically

    found = existing_file(path, len(HEAD), 0)
    if found is not None and found[0] and not found[0].startswith(HEAD.encode()):
        raise ValueError(f"-o {path}: exists and is not a claims file opconform wrote (choose another path)")
    write_atomically(path, text)
