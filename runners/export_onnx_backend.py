"""`opconform export SUITE --format onnx-backend-test OUT`: the suite's cases as ONNX backend-test directories that
ONNX's own loader and Runner take as they are (docs/exports.md has the recipe).

    OUT/opconform/<case>/model.onnx, test_data_set_<i>/{input,output}_<j>.pb   the case's files, copied
    OUT/opconform/<case>/data.json     {"rtol": r, "atol": a}: the loader's tolerances (else rtol 1e-3, atol 1e-7)
    OUT/left_out.json, OUT/README.md   every case not exported, with why

The kind directory is `opconform`: `onnx.backend.test.loader.load_model_tests(data_dir=OUT, kind="opconform")`
reads it (kind "node" would return ONNX's own node tests, whatever data_dir says).

What the Runner's comparison (`Runner.assert_similar_outputs`: numpy.testing.assert_allclose(actual, expected, rtol,
atol), NaN equal to NaN; strings with assert_array_equal) can express, per case, from its strict compare spec:
  exact     rtol 0, atol 0: value equality, a NaN matching any NaN, as the suite's exact mode; but +0 equals -0 and
            integers are compared through float64, so a case whose expected outputs hold a -0, or an int64 / uint64
            beyond 2**53, is left out; bfloat16 outputs are left out too (the Runner widens rtol to 2**-6 for them)
  allclose  its rtol and atol, where every output resolves to the same pair (data.json has one)
Left out, each with its reason: negative and probe cases (the Runner has no refusal and no unjudged output),
NaN signs (nan_sign), the ulp, dot-product and parsed-text modes, cases with a twin (judged on another format).
Exact string outputs are kept: the loader reads text as str (onnx 1.23), as backends return it.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from generator import dtypes
from runners.compare import resolve_spec

KIND = "opconform"
FORMAT = "onnx-backend-test"
_INT53 = 2**53

REASONS = {
    "negative": "a negative case: the Runner has no way to expect a refusal",
    "probe": "a probe: its outputs are recorded, never judged",
    "twin": "judged on a twin in another format, not on its ONNX model",
    "nan_sign": "the sign of NaN is compared (nan_sign): assert_allclose matches any NaN",
    "mode": "its compare mode ({mode}) has no rtol / atol form",
    "outputs": "its outputs have different tolerances; data.json has one rtol / atol for the case",
    "bfloat16": "a bfloat16 output compared exactly: the Runner widens rtol to 2**-6 for bfloat16",
    "negative_zero": "an expected -0: assert_allclose takes -0 and +0 as equal, the suite's exact mode does not",
    "int53": "an int64 / uint64 beyond 2**53: assert_allclose compares integers through float64",
}


class ExportError(Exception):
    """Bad input: one line for the user (exit 2)."""


def _outputs(case_dir: Path) -> list[tuple[str, dtypes.DType]]:
    model = onnx.load(str(case_dir / "model.onnx"), load_external_data=False)
    return [(o.name, dtypes.get(o.type.tensor_type.elem_type)) for o in model.graph.output]


def _expected(case_dir: Path):
    """(output index, expected array) of every data set."""
    for f in sorted(case_dir.glob("test_data_set_*/output_*.pb")):
        yield int(f.stem.split("_")[1]), numpy_helper.to_array(onnx.load_tensor(str(f)))


def unjudged(case_dir: Path, meta: dict) -> str | None:
    """Why no other runner can judge the case as the suite does whatever its comparison ("negative", "probe",
    "twin"), else None (the IREE export asks it too)."""
    kind = meta.get("kind") or case_dir.parent.name
    if kind in ("negative", "probe"):
        return kind
    return "twin" if meta.get("twin") else None


def expects_negative_zero(case_dir: Path, outs: list[tuple[str, dtypes.DType]]) -> bool:
    """Does a float output of some data set expect a -0 (which a threshold or allclose compare takes as +0)?"""
    for j, y in _expected(case_dir):
        if outs[j][1].is_float:
            yf = np.asarray(y).astype(np.float64)
            if np.any((yf == 0) & np.signbit(yf)):
                return True
    return False


def tolerances(case_dir: Path, meta: dict) -> tuple[float, float] | tuple[str, str]:
    """(rtol, atol) the Runner judges this case with, or ("left_out", reason key / text)."""
    why = unjudged(case_dir, meta)
    if why:
        return "left_out", why
    outs = _outputs(case_dir)
    pairs = set()
    for name, t in outs:
        spec = resolve_spec(meta.get("compare"), name, "strict")
        mode = spec.get("mode", "exact")
        if mode not in ("exact", "allclose"):
            return "left_out", f"mode:{mode}"
        if mode == "exact":
            if spec.get("nan_sign"):
                return "left_out", "nan_sign"
            if t.name == "bfloat16":
                return "left_out", "bfloat16"
            pairs.add((0.0, 0.0))
        else:
            pairs.add((float(spec["rtol"]), float(spec["atol"])))
    if len(pairs) > 1:
        return "left_out", "outputs"
    if (0.0, 0.0) in pairs:
        if expects_negative_zero(case_dir, outs):
            return "left_out", "negative_zero"
        for j, y in _expected(case_dir):
            if not outs[j][1].is_float and outs[j][1].bits == 64 and y.size and \
                    max(abs(int(v)) for v in np.asarray(y).ravel()) > _INT53:
                return "left_out", "int53"
    return pairs.pop() if pairs else (0.0, 0.0)


def reason_text(key: str) -> str:
    if key.startswith("mode:"):
        return REASONS["mode"].format(mode=key.split(":", 1)[1])
    return REASONS[key]


def export(suite: Path, out: Path) -> dict:
    """Write the export; returns {"exported": n, "items": m, "left_out": {reason: count}}."""
    if not (suite / "manifest.json").is_file():
        raise ExportError(f"{suite} is no suite (no manifest.json)")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} exists and is not an empty directory: give a new one")
    target = out / KIND
    target.mkdir(parents=True)
    left, exported, items = [], 0, 0
    for kind in ("node", "graph", "negative", "probe"):
        for case_dir in sorted(p for p in (suite / kind).glob("*") if p.is_dir()):
            meta = json.loads((case_dir / "case.json").read_text())
            got = tolerances(case_dir, meta)
            if got[0] == "left_out":
                left.append({"case": case_dir.name, "kind": kind, "family": meta.get("family"), "why": got[1]})
                continue
            shutil.copytree(case_dir, target / case_dir.name)
            rtol, atol = got
            (target / case_dir.name / "data.json").write_text(json.dumps({"rtol": rtol, "atol": atol}) + "\n")
            exported += 1
            items += len(list(case_dir.glob("test_data_set_*")))
    counts = Counter(e["why"] for e in left)
    (out / "left_out.json").write_text(json.dumps({"format": FORMAT, "suite": str(suite), "exported": exported,
                                                   "items": items, "left_out": left}, indent=1) + "\n")
    (out / "README.md").write_text(_readme(exported, items, counts))
    return {"exported": exported, "items": items, "left_out": dict(counts)}


def _readme(exported: int, items: int, counts: Counter) -> str:
    rows = "\n".join(f"| {reason_text(k)} | {n} |" for k, n in counts.most_common())
    return f"""# opconform cases for ONNX's backend-test Runner

{exported} cases ({items} data sets) in `{KIND}/`, each with a `data.json` of the tolerances ONNX's Runner applies
(rtol 0, atol 0 for the suite's exact cases). Run them on a backend (an `onnx.backend.base.Backend`):

    import onnx.backend.test.runner
    from onnx.backend.test.loader import load_model_tests
    import onnxruntime.backend as backend

    runner = onnx.backend.test.runner.Runner(backend, __name__)
    runner._test_items.clear()  # ONNX's own tests out
    for test in load_model_tests(data_dir="THIS_DIRECTORY", kind="{KIND}"):
        runner._add_model_test(test, "Opconform")
    globals().update(runner.test_cases)

then `pytest that_file.py`. Left out (`left_out.json` names each case):

| why | cases |
|---|---:|
{rows}
"""
