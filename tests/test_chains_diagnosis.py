"""The chains family's issue-21 pieces: the fault models that explain what onnxruntime 1.32, OpenVINO 2026.4 and
TVM 0.27 were measured doing on the chains (each reproduces the measured outputs), the vector-tail chain, the
readings in case.json, and a seen_in on every fault."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, faults
from generator.families import chains as fam
from generator.reference import cast as cast_ref
from generator.reference.cast_reasons import READING_TRUNCATION
from generator.reference import chains_faults as F

FAULTS = {f.name: f for f in F.FAULTS}


def _case(name: str):
    for fn in fam.CATALOGUE.values():
        for c in fn():
            if c.name == name:
                return c
    raise KeyError(name)


def _fault_y(fault: str, case):
    return faults.fault_outputs(FAULTS[fault], case.model, case.inputs[0], case.meta)


def test_every_fault_says_where_it_was_seen():
    assert all(f.seen_in.strip() for f in F.FAULTS)


@pytest.mark.parametrize("mode", ["fed", "constant"])
def test_e5m2_carry_nan_is_what_onnxruntime_gave(mode):
    c = _case(f"test_chain_cast_float_float8e5m2_float_nosat_{mode}")
    (y,) = _fault_y("chains.e5m2_carry_nan", c)
    x = c.inputs[0][0] if mode == "fed" else np.asarray(fam.F8_VALUES, np.float32)
    i = int(np.flatnonzero(x == 61440.0)[0])
    assert np.isinf(c.outputs[0][0][i]) and np.isnan(y[i])  # onnxruntime 1.32.0: 61440 -> NaN
    others = np.arange(x.size) != i
    assert np.array_equal(y[others], c.outputs[0][0][others], equal_nan=True)


def test_int64_through_int32_is_what_openvino_gave():
    c = _case("test_chain_cast_int64_float_int64_fed")
    x = c.inputs[0][0]
    (sat,) = _fault_y("chains.float_to_int64_via_int32_saturating", c)
    (ind,) = _fault_y("chains.float_to_int64_via_int32_indefinite", c)
    big = x > 2**31
    assert (sat[big] == 2**31 - 1).all() and (ind[big] == -(2**31)).all()  # folded / fed, OpenVINO 2026.4.1
    assert np.array_equal(sat[~big], c.outputs[0][0][~big]) and np.array_equal(ind[~big], c.outputs[0][0][~big])


def test_float8_bitwise_is_what_tvm_gave():
    """TVM 0.27.0, measured: float -> float8e4m3fn -> float of 500, 57344, 1e6, -1e6, -0.0, inf, -inf."""
    c = _case("test_chain_cast_float_float8e4m3fn_float_nosat_fed")
    x = c.inputs[0][0]
    (y,) = _fault_y("chains.float8_bitwise_normal_only", c)
    got = dict(zip(x.tolist(), y.tolist()))
    assert got[500.0] == -0.0078125 and got[57344.0] == -0.875 and got[1e6] == -15.0 and got[-1e6] == -15.0
    assert got[float("inf")] == 1.0 and got[float("-inf")] == -1.0
    assert y[np.flatnonzero((x == 0) & np.signbit(x))[0]] == 0.0078125
    e5 = dtypes.get("float8e5m2")
    assert F._f8_decode_normal(np.array([0x7C, 0x00]), "float8e5m2").tolist() == [65536.0, 2.0**-15]
    # normal values that round to a normal float8 are converted right
    v = np.array([1.0, 0.1, 3.0, -2.0, 1.1875], np.float32)
    assert np.array_equal(e5.from_bits(F._f8_encode_wrapping(v, "float8e5m2")), v.astype(e5.np_dtype))


@pytest.mark.parametrize("mode", ["fed", "initializers"])
def test_dql_step_is_openvinos_scale(mode):
    c = _case(f"test_chain_dql_matmulinteger_{mode}")
    y, scale, zp = _fault_y("chains.dql_scale_reciprocal_y_from_range", c)
    assert scale.view(np.uint32) == np.float32(0.05686275).view(np.uint32)  # OpenVINO 2026.4.1: 0x3d68e8ea
    assert scale != c.outputs[0][1]


def test_tail_chain_kills_the_tail_fault_only_there():
    (c, _) = [_case(f"test_chain_dql_matmulinteger_tail_{m}") for m in ("fed", "initializers")]
    a = c.inputs[0][0]
    assert a.size % 8 and a.reshape(-1)[-1] == a.min() and (a.reshape(-1)[:-1] > a.min()).all()
    types = [dtypes.from_numpy(o.dtype) for o in c.outputs[0]]
    assert faults.differs(c.outputs[0], _fault_y("chains.dql_min_max_skip_tail8", c), types)
    plain = _case("test_chain_dql_matmulinteger_fed")
    assert not faults.differs(plain.outputs[0], _fault_y("chains.dql_min_max_skip_tail8", plain), types)
    assert FAULTS["chains.dql_min_max_skip_tail8"].equivalent(dict(plain.meta["params"]))


def test_readings_are_written_where_a_step_rests_on_one():
    assert READING_TRUNCATION in _case("test_chain_cast_float_int32_float_fed").meta["reading"]
    assert cast_ref.READING_IEEE_RNE in _case("test_chain_cast_float_float16_float_fed").meta["reading"]
    assert "reading" not in _case("test_chain_cast_float16_float_float16_fed").meta
    assert "reading" not in _case("test_chain_dql_matmulinteger_fed").meta


@pytest.mark.parametrize("mode", ["fed", "initializers"])
def test_add_half_truncate_step_is_what_tinygrad_gave(mode):
    """tinygrad 0.14.0 (CPU, clang 14), measured: Q -> DQ to uint8 gives 0.25 for 0.0 at index 3 and -0.25 for -0.5
    at index 6 (its ties from 2.5 up rounded up, below 2 down), and every other element as expected; with the
    scale an initializer, the folded form (x * float32(1 / y_scale)) gives the same."""
    c = _case(f"test_chain_qdq_uint8_{mode}")
    (y,) = _fault_y("chains.requant_add_half_truncate", c)
    expected = c.outputs[0][0]
    assert (y[3], y[6], expected[3], expected[6]) == (0.25, -0.25, 0.0, -0.5)
    others = np.ones(y.size, bool)
    others[[3, 6]] = False
    assert np.array_equal(y[others], expected[others])


def test_add_half_truncate_step_in_the_conv_chain():
    """tinygrad 0.14.0, measured on DQ -> Conv -> Q (uint8, zero point 127, initializers): 14 of 75 elements one
    above the expected, among them [0, 0, 1, 3] 126 for 125 and [0, 1, 4, 2] 130 for 129."""
    c = _case("test_chain_dq_conv_q_initializers")
    (y,) = _fault_y("chains.requant_add_half_truncate", c)
    diff = y.astype(int) - c.outputs[0][0].astype(int)
    assert int((diff != 0).sum()) == 14 and set(diff[diff != 0].tolist()) == {1}
    assert (y[0, 0, 1, 3], y[0, 1, 4, 2]) == (126, 130)
