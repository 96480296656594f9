"""Write the built-in claims builtin:onnx-node-tests (runners/claims_onnx.py says what they are).

    python scripts/onnx_node_test_claims.py [SUITE] [-o FILE] [--check]

SUITE defaults to the committed cases/, FILE to runners/claim_sets/onnx-node-tests.claims. --check exits 1 when
FILE differs from what would be written (tests/test_claims.py runs it on the pinned onnx).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import onnx  # noqa: E402

from runners.claims_make import claims_text  # noqa: E402
from runners.claims_onnx import onnx_signatures, signature  # noqa: E402
from runners.suite_tree import Manifests, manifest_entries  # noqa: E402

OUT = ROOT / "runners" / "claim_sets" / "onnx-node-tests.claims"


def build(suite: Path) -> str:
    entries = [e for e in manifest_entries(Manifests().manifest(suite)) if e["kind"] == "node"]
    ops = sorted({e["op"] for e in entries if isinstance(e.get("op"), str) and _onnx_op(e["op"])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # onnx's test builders overflow float casts on purpose
        known = onnx_signatures(ops)
    cases = []
    for e in entries:
        if e.get("op") in ops:
            model = onnx.load(suite / "node" / e["name"] / "model.onnx", load_external_data=False)
            cases.append((e["op"], e.get("opset"), e.get("params") or {}, signature(model) in known))
    heading = [f"opconform claims: the configurations ONNX {onnx.__version__}'s own node tests exercise "
               f"({len(known)} signatures of {', '.join(ops)})",
               "built-in: --claims builtin:onnx-node-tests; written by scripts/onnx_node_test_claims.py over the "
               "committed suite (runners/claims_onnx.py)"]
    return claims_text(cases, heading, unclaimed=False)  # the rest: not what ONNX's tests exercise


def _onnx_op(op: str) -> bool:
    try:
        onnx.defs.get_schema(op, "")
        return True
    except onnx.defs.SchemaError:
        return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", nargs="?", default=str(ROOT / "cases"))
    p.add_argument("-o", "--output", default=str(OUT))
    p.add_argument("--check", action="store_true", help="exit 1 when the file is not what would be written")
    args = p.parse_args(argv)
    text = build(Path(args.suite))
    out = Path(args.output)
    if args.check:
        current = out.read_text(encoding="utf-8") if out.is_file() else ""
        if current != text:
            print(f"{out}: not current (run python scripts/onnx_node_test_claims.py)", file=sys.stderr)
            return 1
        print(f"{out}: current")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
