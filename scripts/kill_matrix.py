"""The kill matrix of any suite on disk: which fault models its node / graph / negative cases kill.

    python scripts/kill_matrix.py SUITE [-o OUT.md]

gen-cases writes the matrix of the suites it makes (SUITE/tables/kill_matrix.md); this measures one made
otherwise: an older committed suite, or a directory of a vendor's own ONNX node tests with case.json. Prints
the Markdown summary (or writes it to OUT).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.families import FAMILIES
from generator.kill_matrix import KillMatrix, markdown
from generator.serialize import CaseError, read_case


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kill_matrix.py", description=__doc__.splitlines()[0])
    p.add_argument("suite", type=Path)
    p.add_argument("-o", "--out", type=Path)
    args = p.parse_args(argv)
    dirs = sorted(d for kind in ("node", "graph", "negative") for d in (args.suite / kind).glob("*") if d.is_dir())
    if not dirs:
        print(f"kill_matrix.py: error: {args.suite} has no node / graph / negative cases", file=sys.stderr)
        return 2
    km = KillMatrix(sorted(FAMILIES))
    for d in dirs:
        try:
            case = read_case(d)
        except CaseError as exc:
            print(f"kill_matrix.py: skipped: {exc}", file=sys.stderr)
            continue
        if case.meta:
            km.add(case)
    text = markdown(km.matrix())
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
