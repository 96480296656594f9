#!/usr/bin/env python3
"""Write the small float and quantized ONNX models of tests/quantized_models.py into a folder.

    python scripts/make_test_models.py OUT_DIR

Writes each model as OUT_DIR/<name>.onnx and prints one line per model: its name and its nodes by operator
("domain:Op" outside ai.onnx). A model whose optional quantizer package is missing (cnn_nncf_s8 needs nncf) is
reported as skipped, with the package to install.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import quantized_models  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    start = time.perf_counter()
    for name in quantized_models.NAMES:
        try:
            path = quantized_models.build(name, out_dir)
        except quantized_models.MissingPackage as missing:
            print(f"{name}: skipped ({missing.package} is not installed)")
            continue
        counts = quantized_models.op_counts(path)
        print(f"{name}: {sum(counts.values())} nodes: " + ", ".join(f"{op} {n}" for op, n in sorted(counts.items())))
    print(f"built in {time.perf_counter() - start:.1f} s into {out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
