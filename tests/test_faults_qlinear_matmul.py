"""QLinearMatMul's fault models (generator/reference/qlinear_matmul_faults.py): each is the reference with one
deviation; the committed witnesses (generator/witness/catalogue/qlinear_matmul.json) tell each from the reference and
are what the witness search finds today; each equivalence proof holds on random data of its class; the requantization
faults are QLinearConv's, read from the one table both families share."""

from __future__ import annotations

import numpy as np
import pytest

from generator import witness
from generator.catalogue import qlinear_matmul as codec
from generator.reference import qlinear_conv_faults as conv_faults
from generator.reference import qlinear_matmul as ref
from generator.reference import qlinear_matmul_faults as F
from generator.reference.requantize_variants import REQUANT_FAULTS
from generator.witness import qlinear_matmul as search

F32 = np.float32
BY_NAME = {f.name: f for f in F.FAULTS}


@pytest.fixture(scope="module")
def catalogue() -> dict:
    return witness.load("qlinear_matmul")


def _run(fault, inputs):
    return fault.fn(inputs, {}, 21, [])[0]


def test_every_fault_is_named_seen_and_described():
    assert len(BY_NAME) == len(F.FAULTS)
    for f in F.FAULTS:
        assert f.name.startswith("qlinear_matmul.") and f.what and f.seen_in


def test_the_requantization_faults_are_qlinear_convs():
    """One table (requantize_variants.REQUANT_FAULTS) names and describes them for both families."""
    conv = {f.name.split(".", 1)[1]: f.what for f in conv_faults.FAULTS}
    for name, _, what in REQUANT_FAULTS:
        assert BY_NAME[f"qlinear_matmul.{name}"].what == what == conv[name]


def test_the_catalogue_is_what_the_search_finds(catalogue):
    assert catalogue["groups"] == search.find(21, 0)


def test_every_class_has_a_witness_for_every_fault_that_can_differ(catalogue):
    groups = catalogue["groups"]
    assert set(groups) == {F.key_of(*g) for g in F.all_groups()}
    for key, group in groups.items():
        for f in F.FAULTS:
            entry = group["faults"][f.name]
            assert ("equivalent" in entry) == bool(f.equivalent(dict(group["params"], opset=21))), (key, f.name)
            for wit in entry.get("witnesses", []):
                inputs = codec.decode(wit, wit.get("params", group["params"]))  # K = 0: its own configuration
                want = ref.qlinear_matmul(*inputs)
                assert want.defined
                try:
                    got = _run(f, inputs)
                except F.Refusal:
                    continue
                assert got.shape != want.outputs[0].shape or (got != want.outputs[0]).any(), (key, f.name)


def _random(rng, a_shape, b_shape, row=False, col=False):
    a = rng.integers(0, 256, a_shape).astype(np.uint8)
    b = rng.integers(-128, 128, b_shape).astype(np.int8)
    aq = tuple(a_shape[:-1]) + (1,) if row else ()
    bq = tuple(b_shape[:-2]) + (1, b_shape[-1]) if col else ()
    return [a, rng.uniform(0.01, 0.1, aq).astype(F32), rng.integers(0, 256, aq).astype(np.uint8), b,
            rng.uniform(0.01, 0.1, bq).astype(F32), rng.integers(-128, 128, bq).astype(np.int8), F32(2.5),
            np.uint8(rng.integers(0, 256))]


@pytest.mark.parametrize("name, a_shape, b_shape", [
    ("qlinear_matmul.accumulator_wrap32", (3, 40), (40, 5)),
    ("qlinear_matmul.per_row_first", (3, 4), (4, 5)),
    ("qlinear_matmul.a_zero_point_per_column", (4, 4), (4, 5)),
    ("qlinear_matmul.per_column_first", (2, 3, 4), (2, 4, 5)),
    ("qlinear_matmul.batch_broadcast_modulo", (2, 3, 3, 4), (3, 4, 2)),  # b's batch leads: a broadcast, not wrong
    ("qlinear_matmul.one_d_axis_kept", (2, 4, 4), (4, 3)),
])
def test_equivalence_proofs_hold_on_their_classes(name, a_shape, b_shape):
    """Where equivalent() gives a proof for a class, the fault equals the reference on random data of it."""
    fault, rng = BY_NAME[name], np.random.default_rng(7)
    params = {"a_shape": list(a_shape), "b_shape": list(b_shape), "a_quant": "per_tensor", "b_quant": "per_tensor"}
    assert fault.equivalent(params)
    for _ in range(5):
        inputs = _random(rng, a_shape, b_shape)
        assert np.array_equal(_run(fault, inputs), ref.qlinear_matmul(*inputs).outputs[0])


def test_int16_pairs_is_exact_where_no_pair_saturates():
    """Values within 7 of the zero points: |pairs of raw products| stays far below 2**15 only for small raw values,
    so take zero points 0 and small values; the fault's algebra (zero points after) equals the reference's."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 8, (3, 9)).astype(np.uint8)
    b = rng.integers(-8, 8, (9, 4)).astype(np.int8)
    inputs = [a, F32(0.02), np.uint8(3), b, F32(0.03), np.int8(-2), F32(0.01), np.uint8(100)]
    assert np.array_equal(_run(BY_NAME["qlinear_matmul.int16_pair_saturation"], inputs),
                          ref.qlinear_matmul(*inputs).outputs[0])


def test_int16_pairs_are_k_indices_2j_and_2j_plus_1():
    """MLAS's AVX2 U8S8 kernel adds the products of K indices 2j, 2j + 1 (matmul_integer_faults says where its packing
    puts them): b = [127, 127, -128, -128] saturates both pairs (32767 - 32768), [127, -128, -128, 127] neither."""
    a = np.full((1, 4), 255, np.uint8)
    b = np.array([[127, 127], [127, -128], [-128, -128], [-128, 127]], np.int8)
    op = ref.operands(a, F32(1), np.uint8(0), b, F32(1), np.int8(0), F32(1), np.uint8(0))
    assert F.int16_pairs(op).tolist() == [[-1, -510]]


def test_int16_pairs_leave_other_type_pairs_exact():
    """VPMADDUBSW multiplies uint8 by int8 only: a uint8 x uint8 product (onnxruntime's U8U8 kernel, VPMADDWD on
    int16) is exact, though 255 * 255 pairs would leave int16: acc = 3 * 65025 = 195075, y = round(0.744) = 1."""
    inputs = [np.full((2, 3), 255, np.uint8), F32(1), np.uint8(0), np.full((3, 2), 255, np.uint8), F32(1),
              np.uint8(0), F32(2.0**18), np.uint8(0)]
    want = ref.qlinear_matmul(*inputs).outputs[0]
    assert want.tolist() == [[1, 1], [1, 1]]
    assert np.array_equal(_run(BY_NAME["qlinear_matmul.int16_pair_saturation"], inputs), want)


def test_shape_classes():
    assert F.shape_class((4,), (4, 2)) == F.shape_class((3, 4), (4,)) == "1d"
    assert F.shape_class((3, 4), (4, 2)) == "2d"
    assert F.shape_class((2, 3, 4), (4, 2)) == F.shape_class((1, 3, 3, 4), (2, 3, 4, 2)) == "batched"
    assert F.shape_class((3, 3, 4), (2, 1, 4, 2)) == F.shape_class((1, 2, 3, 4), (2, 1, 4, 2)) == "broadcast"


def test_as_stored_stepwise_by_hand():
    """tinygrad 0.14.0's numbers (CPU, clang 19) on two hand-made models: a per-row a_scale / a_zero_point [2, 1]
    with a 1-D b gives an [M, M] y whose diagonal is the expected y; bfloat16 scales requantized step by step in
    bfloat16 with c = (a_scale * b_scale) * (1 / y_scale), one off the exact result on five elements."""
    import ml_dtypes

    fault = {f.name: f for f in F.FAULTS}["qlinear_matmul.as_stored_stepwise_in_scale_type"]
    a, b = np.array([[1, 2, 3], [4, 5, 6]], np.uint8), np.array([7, 8, 9], np.uint8)
    inputs = [a, np.array([[0.01], [0.03]], np.float32), np.array([[1], [2]], np.uint8), b, np.array(0.1, np.float32),
              np.array(3, np.uint8), np.array(0.007, np.float32), np.array(4, np.int8)]
    y = fault.fn(inputs, {}, 21, [])[0]
    assert y.tolist() == [[6, 11], [11, 24]]
    assert np.diagonal(y).tolist() == ref.qlinear_matmul(*inputs).outputs[0].tolist() == [6, 24]
    bf = ml_dtypes.bfloat16
    a = np.array([[10, 20, 30, 40], [50, 60, 70, 80], [90, 100, 110, 120]], np.int8)
    b = np.arange(1, 21, dtype=np.int8).reshape(4, 5)
    inputs = [a, np.array(0.0123, bf), np.array(3, np.int8), b, np.array(0.0457, bf), np.array(-2, np.int8),
              np.array(0.0311, bf), np.array(5, np.int8)]
    y = fault.fn(inputs, {}, 21, [])[0]
    assert y.tolist() == [[26, 28, 30, 31, 33], [57, 61, 66, 71, 75], [87, 95, 102, 110, 117]]
    assert int(np.sum(y != ref.qlinear_matmul(*inputs).outputs[0])) == 5
    # a 1-D a_zero_point of M != K elements does not broadcast against a: refused, as tinygrad raises
    a = np.zeros((2, 3), np.uint8)
    inputs = [a, np.full(2, 0.1, np.float32), np.zeros(2, np.uint8), np.zeros((3, 2), np.uint8),
              np.array(0.1, np.float32), np.array(0, np.uint8), np.array(0.1, np.float32), np.array(0, np.uint8)]
    with pytest.raises(F.Refusal):
        fault.fn(inputs, {}, 21, [])


def test_per_column_zero_point_with_zero_point_before_rounding_gives_onnx_references_numbers():
    """onnx-reference 1.23.2, test_qlinearmatmul_witness_2d_per_row_per_tensor[3]: a_zero_point [0, 1, 2] read along
    a's columns and y_zero_point 1 added before rounding: y[:, 0] = 4 4 6 where 3 1 1 is due (acc 5 5 10 at c = 0.5,
    2.5 + 1 -> 4 instead of 2 + 1)."""
    inputs = [np.array([[1, 0, 0], [1, 1, 1], [2, 2, 2]], np.uint8), np.full(3, 2.0**-7, F32),
              np.array([0, 1, 2], np.uint8), np.array([[-123, -128, -128]] + [[-128] * 3] * 2, np.int8),
              F32(2.0**-8), np.int8(-128), F32(2.0**-14), np.uint8(1)]
    got = _run(BY_NAME["qlinear_matmul.a_zero_point_per_column_zero_point_before_rounding"], inputs)
    assert got[:, 0].tolist() == [4, 4, 6] and got[:, 1:].tolist() == [[1, 1]] * 3
    assert ref.qlinear_matmul(*inputs).outputs[0][:, 0].tolist() == [3, 1, 1]


def test_k_0_zero_leaves_y_zero_where_y_zero_point_is_due():
    """K = 0: the reference's y is y_zero_point (the empty sum); the fault's y is 0; with K > 0 it is the reference."""
    fault = BY_NAME["qlinear_matmul.k_0_zero"]
    empty = [np.zeros((3, 0), np.uint8), F32(0.1), np.uint8(3), np.zeros((0, 4), np.int8), F32(0.1), np.int8(0),
             F32(0.5), np.uint8(76)]
    assert (ref.qlinear_matmul(*empty).outputs[0] == 76).all() and (_run(fault, empty) == 0).all()
    full = [np.ones((3, 2), np.uint8), F32(0.1), np.uint8(3), np.ones((2, 4), np.int8), F32(0.1), np.int8(0),
            F32(0.5), np.uint8(76)]
    assert (_run(fault, full) == ref.qlinear_matmul(*full).outputs[0]).all()
