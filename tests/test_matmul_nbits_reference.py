"""The MatMulNBits reference (generator/reference/matmul_nbits.py) against the sentences of onnxruntime's contrib
docs: the bit order of a packed byte, the unused padding of the last block, the default zero point, the packed
zero points' row padding, typed zero points, g_idx, bias; and what validate / validate_shapes refuse."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes
from generator.reference import matmul_nbits as ref


def test_the_first_code_is_in_the_low_bits():
    """'for 4 bits, the first 4 bits are stored in the lower 4 bits of a byte, and the second 4 bits are stored in
    the higher 4 bits' (2 and 8 bits the same way)."""
    assert ref.pack(np.array([[1, 2]]), 4).tolist() == [[0x21]]
    assert ref.pack(np.array([[1, 2, 3, 0]]), 2).tolist() == [[0b00111001]]
    assert ref.pack(np.array([[7, 200]]), 8).tolist() == [[7, 200]]
    for bits in (2, 4, 8):
        codes = np.arange(24).reshape(2, 12) % (1 << bits)
        assert np.array_equal(ref.unpack(ref.pack(codes, bits), bits, 12), codes)


def _inputs(K=20, N=3, bs=16, bits=4, seed=0):
    rng = np.random.default_rng(seed)
    kb = ref.k_blocks(K, bs)
    codes = rng.integers(0, 1 << bits, (N, kb * bs))
    b = ref.pack(codes.reshape(N, kb, bs), bits).reshape(N, kb, -1)
    scales = (rng.integers(1, 8, (N, kb)) / 8).astype(np.float32)
    a = (rng.integers(-16, 16, (2, K)) / 8).astype(np.float32)
    return a, b, scales, codes, {"K": K, "N": N, "bits": bits, "block_size": bs}


def _naive(a, codes, scales, zp, attrs, g_idx=None, bias=None):
    """Element by element, as the text reads: W[n, k] = (code - zero point) * scale of k's block."""
    K, N, bs = attrs["K"], attrs["N"], attrs["block_size"]
    w = np.zeros((N, K))
    for n in range(N):
        for k in range(K):
            blk = k // bs if g_idx is None else g_idx[k]
            w[n, k] = (codes[n, k] - zp[n][blk]) * float(scales[n, blk])
    y = a.astype(np.float64) @ w.T
    return y + (0 if bias is None else bias.astype(np.float64))


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_default_zero_point_is_two_to_bits_minus_one_and_padding_codes_are_unused(bits):
    a, b, scales, codes, attrs = _inputs(bits=bits)
    zp = np.full((3, 2), 2 ** (bits - 1))
    y = ref.matmul_nbits([a, b, scales], attrs).outputs[0]
    assert np.array_equal(y, _naive(a, codes, scales, zp, attrs).astype(np.float32))
    other = ref.pack(np.where(np.arange(32) >= 20, (1 << bits) - 1 - codes, codes).reshape(3, 2, 16), bits)
    assert np.array_equal(ref.matmul_nbits([a, other.reshape(b.shape), scales], attrs).outputs[0], y)


def test_packed_zero_points_are_rows_padded_to_whole_bytes():
    """(N, ceil(k_blocks * bits / 8)): k_blocks = 3 at 4 bits is 2 bytes a row; the fourth code is padding."""
    a, b, scales, codes, attrs = _inputs(K=48, N=2)
    zp = np.array([[1, 2, 3], [4, 5, 6]])
    packed = ref.pack(np.concatenate([zp, [[15], [15]]], axis=1), 4)
    assert packed.shape == (2, ref.packed_zp_width(48, 16, 4)) == (2, 2)
    y = ref.matmul_nbits([a, b, scales, packed], attrs).outputs[0]
    assert np.array_equal(y, _naive(a, codes, scales, zp, attrs).astype(np.float32))


def test_typed_zero_points_may_be_fractional():
    a, b, scales, codes, attrs = _inputs()
    zp = np.array([[7.5, 0.5], [3.5, 8.0], [15.0, 1.5]], dtype=np.float32)
    y = ref.matmul_nbits([a, b, scales, zp], attrs).outputs[0]
    assert np.array_equal(y, _naive(a, codes, scales, zp, attrs).astype(np.float32))


def test_g_idx_names_the_block_of_each_k_and_bias_is_added():
    a, b, scales, codes, attrs = _inputs(K=32)
    g = np.array([(k * 7) % 2 for k in range(32)], dtype=np.int32)
    bias = np.array([1.5, -2.0, 0.25], dtype=np.float32)
    zp = np.full((3, 2), 8)
    y = ref.matmul_nbits([a, b, scales, None, g, bias], attrs).outputs[0]
    assert np.array_equal(y, _naive(a, codes, scales, zp, attrs, g, bias).astype(np.float32))
    natural = np.arange(32, dtype=np.int32) // 16
    assert np.array_equal(ref.matmul_nbits([a, b, scales, None, natural], attrs).outputs[0],
                          ref.matmul_nbits([a, b, scales], attrs).outputs[0])


@pytest.mark.parametrize("attrs, problem", [
    ({"K": 32, "N": 2, "block_size": 8}, "power of 2"), ({"K": 32, "N": 2, "block_size": 24}, "power of 2"),
    ({"K": 32, "N": 2, "block_size": 16, "bits": 1}, "bits"), ({"K": 32, "N": 2, "block_size": 16, "bits": 16}, "bits"),
    ({"K": 32, "N": 2, "block_size": 16, "accuracy_level": 5}, "accuracy_level"), ({"K": 32, "N": 2}, "required"),
    ({"K": -1, "N": 2, "block_size": 16}, "negative"), ({"K": 32, "N": 2, "block_size": 16, "weight_prepacked": 3},
                                                          "weight_prepacked"),
])
def test_validate_refuses_what_the_schema_rules_out(attrs, problem):
    from generator import dtypes
    f32, u8 = dtypes.get("float32"), dtypes.get("uint8")
    with pytest.raises(ValueError, match=problem):
        ref.validate(attrs, 21, [f32, u8, f32], [2, 3, 2])


def test_validate_shapes_checks_each_input():
    attrs = {"K": 40, "N": 3, "block_size": 16, "bits": 4}
    good = [(2, 40), (3, 3, 8), (3, 3), (3, 2), (40,), (3,)]
    ref.validate_shapes(good, attrs, 21)
    ref.validate_shapes(good[:3] + [(3, 3)], attrs, 21)  # typed zero points
    ref.validate_shapes(good[:4] + [(48,)] + good[5:], attrs, 21)  # g_idx padded to k_blocks * block_size
    for i, bad in [(0, (2, 41)), (1, (3, 2, 8)), (2, (3, 2)), (3, (3, 4)), (4, (41,)), (5, (4,))]:
        with pytest.raises(ValueError, match=ref.INPUTS[i]):
            ref.validate_shapes(good[:i] + [bad] + good[i + 1:], attrs, 21)


def test_an_omitted_projection_gives_zeros_or_the_bias_whatever_a_holds():
    """onnxruntime 1.32.0's text: B with a 0 in its packed shape (weight_prepacked 0) is an omitted projection, 'Y is
    filled with zeros (or the broadcast bias, if provided)', A's contents unused: +0 even for a negative A row and
    NaN; K = 0 (k_blocks 0) is one too."""
    attrs = {"K": 32, "N": 3, "block_size": 16, "bits": 4}
    a = np.array([[-1.0] * 32, [np.nan] * 32], np.float32)
    for b_shape in [(3, 0, 8), (3, 2, 0), (0, 2, 8)]:
        b = np.zeros(b_shape, np.uint8)
        y = ref.matmul_nbits([a, b, np.ones((3, 2), np.float32)], attrs).outputs[0]
        assert y.shape == (2, 3) and not np.signbit(y).any() and (y == 0).all()
        ref.validate_shapes([a.shape, b_shape, (3, 2)], attrs, 21)
    bias = np.array([1.5, -2.0, 0.25], np.float32)
    y = ref.matmul_nbits([a, np.zeros((3, 0, 8), np.uint8), np.zeros((3, 0), np.float32), None, None, bias],
                         attrs).outputs[0]
    assert y.tolist() == [bias.tolist()] * 2
    ref.validate_shapes([a.shape, (3, 0, 8), (3, 0), (3, 0), None, (3,)], attrs, 21)  # empty parameters too
    with pytest.raises(ValueError, match="B"):  # the other dimensions keep their values
        ref.validate_shapes([a.shape, (3, 0, 9)], attrs, 21)
    k0 = {"K": 0, "N": 3, "block_size": 16, "bits": 4}
    ref.validate(k0, 21, [dtypes.get("float32"), dtypes.get("uint8"), dtypes.get("float32")], [2, 3, 2])
    y = ref.matmul_nbits([np.zeros((2, 0), np.float32), np.zeros((3, 0, 8), np.uint8), np.zeros((3, 0), np.float32),
                          None, None, bias], k0).outputs[0]
    assert y.tolist() == [bias.tolist()] * 2
