"""MatMulInteger's fault models (generator/reference/matmul_integer_faults.py): each is the reference with one
deviation, its equivalence proofs hold on data, and the committed witness catalogue is what the search builds."""

import numpy as np
import pytest

from generator import sampling, witness
from generator.faults import Refusal
from generator.reference import matmul_integer as ref
from generator.reference import matmul_integer_faults as F
from generator.witness import matmul_integer as W

BY_NAME = {f.name: f for f in F.FAULTS}


def _run(fault, inputs):
    try:
        return fault.fn(list(inputs), {}, 10, [])[0]
    except Refusal:
        return None


def test_every_fault_is_named_described_and_says_where_it_was_seen():
    assert len(BY_NAME) == len(F.FAULTS) >= 20
    for f in F.FAULTS:
        assert f.name.startswith("matmul_integer.") and f.what and f.seen_in, f.name


def test_on_data_that_triggers_no_deviation_every_fault_gives_the_reference():
    """Zero points absent, small values (every product and sum within int16 and float32, no pair saturates), K a
    multiple of 16 (no tail), one type for A and B: each fault then computes exactly the reference's result."""
    s = sampling.Stream(7)
    for t in (np.uint8, np.int8):
        a = s.integers(0, 3, (2, 3, 32)).astype(t)
        b = s.integers(0, 3, (2, 32, 4)).astype(t)
        want = ref.matmul_integer(a, b)
        for f in F.FAULTS:
            assert np.array_equal(_run(f, [a, b, None, None]), want), f.name


@pytest.mark.parametrize("group", F.all_groups(), ids=lambda g: F.key_of(*g).replace(" ", "_"))
def test_a_fault_proved_equivalent_in_a_group_never_differs_there(group):
    """The group's witness data sets (every extreme the constructions use) and seeded random ones: a fault whose
    equivalent() gives a proof (or that does not apply) agrees with the reference on each."""
    mm = W.configuration(*group)
    params = dict(mm.params(), opset=10)
    quiet = [f for f in F.FAULTS if f.equivalent(params) is not None]
    sets = [inputs for _, inputs in W.candidates(mm)]
    s = sampling.Stream(sampling.case_seed(1, mm.name))
    at, bt = (np.iinfo(np.dtype(t)) for t in mm.types)
    for _ in range(4):
        a = s.integers(at.min, at.max, (3, 5)).astype(mm.types[0])
        b = s.integers(bt.min, bt.max, (5, 3)).astype(mm.types[1])
        _, _, az, bz = W.candidates(mm)[0][1]
        sets.append([a, b, az, bz])
    for inputs in sets:
        want = ref.matmul_integer(*inputs)
        for f in quiet:
            assert np.array_equal(_run(f, inputs), want), (f.name, F.key_of(*group))


def test_each_live_fault_differs_on_its_catalogued_witness():
    from generator.catalogue.matmul_integer import decode

    groups = witness.load("matmul_integer")["groups"]
    assert len(groups) == len(F.all_groups())
    for key, group in groups.items():
        types = (np.dtype(group["params"]["a_type"]), np.dtype(group["params"]["b_type"]))
        for name, entry in group["faults"].items():
            for wit in entry.get("witnesses", []):
                assert W.differs(BY_NAME[name], decode(wit, types)), (key, name)


def test_the_committed_witness_catalogue_is_what_the_constructions_build():
    assert W.find(10) == witness.load("matmul_integer")["groups"], \
        "regenerate: python -c \"from generator.witness import find, save; save(find('matmul_integer', 28, 0))\""


def test_the_int16_pair_saturation_of_onnxruntime_16105():
    """u8 x s8, a = [255, 255], b = [127, 127]: the pair 64770 saturates to 32767 (oneDNN#518's example)."""
    f = BY_NAME["matmul_integer.int16_pair_saturation"]
    a = np.array([[255, 255]], np.uint8)
    b = np.array([[127], [127]], np.int8)
    assert ref.matmul_integer(a, b).tolist() == [[64770]]
    assert _run(f, [a, b, None, None]).tolist() == [[32767]]


def test_int16_pairs_are_k_indices_2j_and_2j_plus_1():
    """MLAS's AVX2 U8S8 kernel packs 4 consecutive K indices per 32-bit lane (MlasGemmU8S8CopyPackAAvx2 copies A's
    rows, MlasGemmU8S8CopyPackBAvx2 interleaves 4 rows of B, zero padded to a multiple of 4), and VPMADDUBSW adds
    the products of bytes 2j and 2j + 1: pairs (0, 1), (2, 3); an odd K's last index pairs with a zero."""
    f = BY_NAME["matmul_integer.int16_pair_saturation"]
    a = np.full((1, 4), 255, np.uint8)
    b = np.array([[127, 127], [127, -128], [-128, -128], [-128, 127]], np.int8)
    assert ref.matmul_integer(a, b).tolist() == [[-510, -510]]
    # column 0: 64770 -> 32767 and -65280 -> -32768; column 1's pairs are -255 each (exact), though (1, 2) saturates
    assert _run(f, [a, b, None, None]).tolist() == [[-1, -510]]
    a3, b3 = np.full((1, 3), 255, np.uint8), np.full((3, 1), 127, np.int8)
    assert _run(f, [a3, b3, None, None]).tolist() == [[32767 + 32385]]  # (0, 1) saturates, index 2 alone


def test_the_along_k_fault_is_onnx_references_broadcasting():
    """[M] subtracted from [M, K] as numpy broadcasts it: along K when M == K, a refusal otherwise."""
    f = BY_NAME["matmul_integer.a_zero_point_along_k"]
    a = np.array([[1, 2], [3, 4]], np.uint8)
    b = np.eye(2, dtype=np.uint8)
    az = np.array([1, 3], np.uint8)
    assert ref.matmul_integer(a, b, az).tolist() == [[0, 1], [0, 1]]
    assert _run(f, [a, b, az, None]).tolist() == [[0, -1], [2, 1]]
    assert _run(f, [np.zeros((2, 3), np.uint8), np.zeros((3, 1), np.uint8), az, None]) is None


def test_float32_accumulation_rounds_an_odd_sum_beyond_2_24():
    f = BY_NAME["matmul_integer.accumulate_float32"]
    a = np.full((1, 261), 255, np.uint8)
    b = np.full((261, 1), 255, np.uint8)
    a[0, -1], b[-1, 0] = 1, 1  # 260 * 65025 + 1 = 16906501, odd, beyond 2**24: 16906500 or 16906502 in float32
    assert ref.matmul_integer(a, b).tolist() == [[16906501]]
    assert _run(f, [a, b, None, None]).tolist() in ([[16906500]], [[16906502]])


def test_tracts_1d_a_keeps_the_added_axis_and_its_1d_b_is_refused():
    """The numbers are tract 0.23.9's (test_matmulinteger_a_1d[0]): A [4] by B [4, 3] gives Y [1, 3] with the
    reference's values; by a batch of B [2, 4, 3], Y [2, 1, 3]. A 1-D B (alone or with a 1-D A) is refused."""
    kept, refused = BY_NAME["matmul_integer.a_1d_axis_kept"], BY_NAME["matmul_integer.b_1d_refused"]
    a = np.array([100, 195, 79, 157], np.uint8)
    b = np.array([23, 59, 41, 180, 195, 172, 16, 250, 166, 62, 130, 252], np.uint8).reshape(4, 3)
    zp = [np.uint8(84), np.uint8(122)]
    assert ref.matmul_integer(a, b, *zp).tolist() == [1004, 7039, 13524]
    assert _run(kept, [a, b, *zp]).tolist() == [[1004, 7039, 13524]]
    assert _run(kept, [a, np.stack([b, b]), None, None]).shape == (2, 1, 3)
    assert _run(refused, [b.T, a, None, None]) is None and _run(refused, [a, a, None, None]) is None
    # a 1-D B is no concern of the kept axis (a 1-D A by a 1-D B: [1]), nor a 1-D A of the refusal
    assert _run(kept, [b.T, a, None, None]).tolist() == ref.matmul_integer(b.T, a).tolist()
    assert _run(kept, [a, a, None, None]).shape == (1,)
    assert np.array_equal(_run(refused, [a, b, *zp]), ref.matmul_integer(a, b, *zp))


def test_a_saturating_int32_accumulator_sticks_where_a_partial_sum_leaves_int32():
    """uint8 x uint8 with zero points 1: 33287 products of 254 * 254 (the partial sum 2**31 + 60 leaves int32), then
    238 of -254: the exact total 2**31 - 8 fits; saturated at 2**31 - 1, then 238 * 254 less. Without zero points
    (every product >= 0) every partial sum lies below the total: the fault is the reference there."""
    f = BY_NAME["matmul_integer.accumulate_int32_saturating"]
    mm = W.configuration("uint8", "uint8", "tensor", "tensor")
    what, inputs = W.saturating(mm)
    a, b, az, bz = inputs
    assert a.shape == (1, 33525) and int(az) == int(bz) == 1 and (a == 255).all() and (b[33287:, 0] == 0).all()
    assert ref.matmul_integer(*inputs).tolist() == [[2**31 - 8]]
    assert _run(f, inputs).tolist() == [[2**31 - 1 - 238 * 254]]
    assert W.saturating(W.configuration("uint8", "uint8", "absent", "absent")) is None
    a = np.full((1, 33027), 255, np.uint8)
    b = np.full((33027, 2), 255, np.uint8)
    a[0, -2:], b[-2:, 1] = 0, 0  # 33025 * 65025 = 2147450625 in both columns, the sum rising all the way
    assert np.array_equal(_run(f, [a, b, None, None]), ref.matmul_integer(a, b))
