"""The "allclose" compare mode the layout family states its tolerance in."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes
from runners.compare import compare_outputs, resolve_spec

F32 = dtypes.get("float")
SPEC = {"mode": "allclose", "rtol": 1e-4, "atol": 1e-3, "reason": "float32 sums"}


def _judge(expected, actual, t=F32, spec=SPEC):
    return compare_outputs([np.asarray(expected, t.np_dtype)], [np.asarray(actual, t.np_dtype)], ["y"], [t], spec,
                           "strict")


def test_within_atol_plus_rtol_passes_and_beyond_fails():
    e = np.array([0.0, 100.0, -5.0], np.float32)
    ok = _judge(e, e + np.array([9e-4, 1e-2 + 9e-4, -1e-3], np.float32))
    assert ok.ok, ok.message
    bad = _judge(e, e + np.array([0.0, 2e-2, 0.0], np.float32))
    assert not bad.ok and bad.n_mismatch == 1
    assert "|a - e| <= 0.001 + 0.0001 * |e|" in bad.message and "[1]" in bad.message


def test_nan_matches_nan_and_infinity_only_itself():
    assert _judge([np.nan, np.inf], [np.nan, np.inf]).ok
    assert not _judge([np.inf], [np.float32(3e38)]).ok
    assert not _judge([1.0], [np.nan]).ok


def test_integers_stay_exact():
    i32 = dtypes.get("int32")
    assert _judge([5], [5], i32).ok
    assert not _judge([5], [6], i32).ok


@pytest.mark.parametrize("missing", ["rtol", "atol"])
def test_both_parameters_are_required(missing):
    spec = {k: v for k, v in SPEC.items() if k != missing}
    with pytest.raises(ValueError, match=missing):
        resolve_spec(spec, "y", "strict")
