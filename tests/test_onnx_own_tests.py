"""Our Cast reference against ONNX's own Cast node tests (built from the installed onnx).

Every ONNX test must pass on the opconform backend, except the differences the README lists under
"Differences from ONNX's own tests"; for those, every differing element must be of the justified
kind, so a new, unexplained difference fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes
from generator.serialize import read_case
from runners.backends.registry import get_backend
from runners.execute import run_case_dataset
from runners.onnx_node_tests import export


def _nan_input(x, idx) -> bool:
    return bool(np.isnan(np.asarray(x, dtype=np.float64)[idx]))


def _out_of_range_for(to: str):
    d = dtypes.get(to)

    def check(x, idx) -> bool:
        v = float(np.asarray(x, dtype=np.float64)[idx])
        return not d.int_min <= v <= d.int_max

    return check


# ONNX test name -> (why, predicate every mismatching element's input must satisfy)
JUSTIFIED = {
    "test_cast_FLOAT_to_FLOAT4E2M1": ("NaN -> float4e2m1 is undefined: ONNX's test expects -0 (ml_dtypes), "
                                      "its float4 note says 6", _nan_input),
    "test_cast_FLOAT16_to_FLOAT4E2M1": ("as above", _nan_input),
}
for _src in ("FLOAT", "FLOAT16"):
    for _to in ("INT4", "UINT4", "INT2", "UINT2"):
        JUSTIFIED[f"test_cast_{_src}_to_{_to}"] = (
            "ONNX expects wraparound for out-of-range floats; Cast: float -> fixed point is undefined if OOR",
            _out_of_range_for(_to.lower()))


@pytest.fixture(scope="module")
def onnx_cast_tests(tmp_path_factory):
    return export("Cast", tmp_path_factory.mktemp("onnx_cast"))


def test_our_reference_agrees_with_onnx_cast_tests_except_justified(onnx_cast_tests):
    backend = get_backend("opconform")
    assert len(onnx_cast_tests) >= 40
    failed = set()
    for d in onnx_cast_tests:
        case = read_case(d)
        for i in range(case.n_datasets):
            r = run_case_dataset(backend, case, i, "strict", {})
            if r.verdict == "pass":
                continue
            assert r.verdict == "fail", (case.name, r.verdict, r.message)
            assert case.name in JUSTIFIED, r.message
            failed.add(case.name)
            check = JUSTIFIED[case.name][1]
            x = case.inputs[i][0]
            assert r.n_mismatch == len(r.mismatches), "every differing element must be checked below"
            for m in r.mismatches:
                assert check(x, tuple(m["index"])), (case.name, m)
    # a justified difference that no longer occurs must leave the list (and the README)
    assert failed == set(JUSTIFIED), sorted(set(JUSTIFIED) - failed)


# ONNX's DynamicQuantizeLinear and QLinearConv node tests: every one passes on our references, without
# exceptions. The *_expanded variants run the function body node by node (ReduceMin, Clip, Round,
# QuantizeLinear ...), which is not this project's reference of DynamicQuantizeLinear: the opconform
# backend reports them unsupported unless it has every op of the body.
@pytest.mark.parametrize("op, at_least", [("DynamicQuantizeLinear", 3), ("QLinearConv", 1)])
def test_our_quantization_references_pass_onnx_own_tests(tmp_path, op, at_least):
    backend = get_backend("opconform")
    dirs = export(op, tmp_path)
    judged = 0
    for d in dirs:
        case = read_case(d)
        for i in range(case.n_datasets):
            r = run_case_dataset(backend, case, i, "strict", {})
            if case.name.endswith("_expanded") and r.verdict == "unsupported":
                continue
            assert r.verdict == "pass", (case.name, r.verdict, r.message)
            judged += 1
    assert judged >= at_least
