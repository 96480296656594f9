"""Fault models of MatMulNBits (docs/fault_models.md): plausible wrong implementations, with the reference's node
signature, each seen in a bug thread where one was found.

Groups (group_key) are the case's configuration: A's type, bits, block_size, K, N, the zero-point form, g_idx,
bias, accuracy_level. A fault is killed on a data set when its outputs fall outside the case's dot-product
bound (generator/dot_bound.py: compare mode "dot"), never merely when they differ in the last bits: `run` hands
`killed` the data set's inputs with the outputs, as the bound is computed from them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from generator import dot_bound, dtypes, faults
from generator.faults import Fault
from generator.interpret import compile_model, run_program
from generator.reference import lookup as reference_lookup
from generator.reference import matmul_nbits as ref


def _attrs(attrs: dict) -> tuple[int, int, int, int]:
    return attrs["K"], attrs["N"], attrs.get("bits", ref.DEFAULT_BITS), attrs["block_size"]


def _result(a: np.ndarray, w: np.ndarray, bias, dtype=None) -> list[np.ndarray]:
    """a @ w.T (+ bias) rounded once to dtype (default a's: pass A's type where a is a float64 stand-in)."""
    y = np.matmul(np.asarray(a).astype(np.float64), w.T)
    if bias is not None:
        y = y + np.asarray(bias).astype(np.float64)
    with np.errstate(over="ignore"):  # a fault's result may overflow A's type (float16): +-Inf, as a backend's
        return [y.astype(dtype or np.asarray(a).dtype)]


def _swap_codes(packed: np.ndarray, bits: int) -> np.ndarray:
    """Bytes with their codes in reverse order (the first code read from the high bits)."""
    per = 8 // bits
    codes = ref.unpack(packed, bits, packed.shape[-1] * per).reshape(packed.shape + (per,))[..., ::-1]
    return ref.pack(codes.reshape(packed.shape[:-1] + (-1,)), bits)


def _faulty(*, zp_default: float | None = None, swap_b: bool = False, swap_zp: bool = False,
            unpadded_zp: bool = False, row_stride: bool = False, round_zp: bool = False, ignore_g_idx: bool = False,
            ignore_bias: bool = False, zeros_above: int | None = None, a_int8: bool = False,
            fp16_blocks: bool = False, g_idx_default_zp: bool = False, g_idx_as_4bit: bool = False,
            signed_codes: bool = False, g_idx_first_code_only: bool = False, a_int8_rows: bool = False,
            a_int8_truncated: bool = False, a_type_sum: bool = False):
    """A node function: the reference with one thing done wrong."""
    def node(inputs, attrs, opset, input_types):
        a, b, scales, zp, g_idx, bias = ref._inputs(inputs)
        K, N, bits, bs = _attrs(attrs)
        kb = ref.k_blocks(K, bs)
        if ref.omitted(b, attrs):  # no codes, zero points or terms to get wrong: Y is zeros (+ bias)
            return _result(np.zeros(np.shape(a)[:-1] + (0,)), np.zeros((N, 0)), None if ignore_bias else bias,
                           np.asarray(a).dtype)
        if zeros_above is not None and bs > zeros_above:
            return [np.zeros(np.shape(a)[:-1] + (N,), dtype=np.asarray(a).dtype)]
        b = np.asarray(b).reshape(N, kb, -1)
        if swap_b:
            b = _swap_codes(b, bits)
        if row_stride:  # rows start every ceil(K * bits / 8) bytes, not every k_blocks * blob_size
            flat = np.zeros(N * kb * ref.blob_size(bs, bits) + N * kb * bs, dtype=np.uint8)
            flat[:b.size] = b.reshape(-1)
            stride = -(-K * bits // 8)
            b = np.stack([flat[n * stride:n * stride + kb * ref.blob_size(bs, bits)] for n in range(N)])
        if zp is not None and np.asarray(zp).dtype == np.uint8:
            zp = np.asarray(zp)
            if swap_zp:
                zp = _swap_codes(zp, bits)
            if unpadded_zp:  # one stream of N * k_blocks codes
                stream = ref.unpack(zp.reshape(-1), bits, N * kb).reshape(N, kb)
                zp = stream.astype(np.asarray(a).dtype)
        elif zp is not None and round_zp:
            zp = np.clip(np.round(np.asarray(zp, dtype=np.float64)), 0, 255).astype(np.uint8)
            zp = ref.pack(zp, bits)
        if g_idx is not None and g_idx_default_zp and zp is not None and np.asarray(zp).dtype == np.uint8:
            zp = None  # the uint8 zero point read into a local that is never used: 2**(bits - 1) instead
        if g_idx_first_code_only and g_idx is not None and bits < 8:  # the other codes of each byte read as 0
            b = np.asarray(b) & np.uint8((1 << bits) - 1)
        if signed_codes and zp is None:  # two's complement codes, no zero point: B's bytes re-read as signed
            codes = ref.unpack(b, bits, bs)
            signed = np.where(codes >= 1 << (bits - 1), codes - (1 << bits), codes) + (1 << (bits - 1))
            b = ref.pack(signed, bits)  # the reference then subtracts its default 2**(bits - 1): signed * scale
        if zp is None and zp_default is not None:
            zp = np.full((N, kb), zp_default, dtype=np.asarray(a).dtype)
        if g_idx_as_4bit and g_idx is not None and bits == 2:
            return _result(a, _as_4bit(b, scales, zp, g_idx, attrs), bias)
        w = ref.weights(b, scales, zp, None if ignore_g_idx else g_idx, attrs)
        bias = None if ignore_bias else bias
        t1 = np.asarray(a).dtype  # the int8 stand-ins of A are float64: Y still of A's type
        if a_int8:
            return _result(_int8_blocks(np.asarray(a), bs), w, bias, t1)
        if a_int8_rows:  # one int8 scale per row of A
            return _result(_int8_blocks(np.asarray(a), np.shape(a)[-1]), w, bias, t1)
        if a_int8_truncated:
            return _result(_int8_blocks(np.asarray(a), bs, np.trunc), w, bias, t1)
        if a_type_sum:
            return [_a_type_sum(np.asarray(a), w, bias)]
        if fp16_blocks:
            return [_fp16_block_sums(np.asarray(a), b, scales, zp, g_idx, bias, attrs)]
        return _result(a, w, bias)
    return node


def _as_4bit(b, scales, zp, g_idx, attrs) -> np.ndarray:
    """W as a 4-bit reader makes it of 2-bit B: code e (= n * k_blocks * block_size + k) the e-th nibble of B's
    bytes (0 past their end), zero point 8 unless typed ones are given; scales by g_idx."""
    K, N, bits, bs = _attrs(attrs)
    kb = ref.k_blocks(K, bs)
    nibbles = ref.unpack(np.asarray(b).reshape(-1), 4, np.asarray(b).size * 2)
    flat = np.zeros(N * kb * bs)
    flat[:min(flat.size, nibbles.size)] = nibbles[:flat.size]
    codes = flat.reshape(N, kb * bs)[:, :K]
    blk = ref.block_of(K, bs, g_idx)
    typed = zp is not None and np.asarray(zp).dtype != np.uint8
    z = np.asarray(zp, dtype=np.float64).reshape(N, kb) if typed else np.full((N, kb), 8.0)
    s = np.asarray(scales).astype(np.float64).reshape(N, kb)
    return (codes - z[:, blk]) * s[:, blk]


def _int8_blocks(a: np.ndarray, bs: int, rounding=np.round) -> np.ndarray:
    """A quantized to int8 in blocks of bs along K (scale max |a| / 127, rounding: half to even), back as
    float64."""
    K = a.shape[-1]
    blocks = -(-K // bs)
    x = np.zeros(a.shape[:-1] + (blocks * bs,))
    x[..., :K] = a.astype(np.float64)
    x = x.reshape(a.shape[:-1] + (blocks, bs))
    scale = np.abs(x).max(axis=-1, keepdims=True) / 127.0
    q = np.where(scale > 0, rounding(x / np.where(scale > 0, scale, 1.0)), 0.0)
    return (q * scale).reshape(a.shape[:-1] + (blocks * bs,))[..., :K]


def _a_type_sum(a: np.ndarray, w: np.ndarray, bias) -> np.ndarray:
    """sum_k a_k * w_k in k order, each product and partial sum (then + bias) rounded to A's type."""
    t, K = a.dtype, a.shape[-1]
    x = a.astype(np.float64).reshape(-1, K)
    acc = np.zeros((x.shape[0], w.shape[0]))
    with np.errstate(over="ignore"):
        for k in range(K):
            term = (x[:, k:k + 1] * w[None, :, k]).astype(t).astype(np.float64)
            acc = (acc + term).astype(t).astype(np.float64)
        if bias is not None:
            acc = (acc + np.asarray(bias).astype(np.float64)).astype(t).astype(np.float64)
    return acc.reshape(a.shape[:-1] + (w.shape[0],)).astype(t)


def _sum_finer_than_a(p: dict) -> bool:
    """accuracy_level asks for a sum finer than A's type (float16 / bfloat16 A at level 1, bfloat16 at 2)."""
    t1 = _p(p, "t1", "float32")
    acc = dot_bound.accumulation(t1, _p(p, "accuracy_level", 0))
    return dtypes.get(acc).mantissa_bits > dtypes.get(t1).mantissa_bits


def _fp16_block_sums(a, b, scales, zp, g_idx, bias, attrs) -> np.ndarray:
    """sum over blocks of scale * (sum over the block of a * (code - zero point), accumulated in float16), the
    block sums in float32: the scale applied after an float16 accumulation (the overflow of PR #29611)."""
    K, N, bits, bs = _attrs(attrs)
    kb = ref.k_blocks(K, bs)
    codes = ref.unpack(np.asarray(b).reshape(N, kb, -1), bits, bs).reshape(N, kb * bs)[:, :K]
    blk = ref.block_of(K, bs, g_idx)
    z = ref.zero_points(zp, N, K, bs, bits)
    s = np.asarray(scales).astype(np.float32).reshape(N, kb)
    q = (codes - z[:, blk]).astype(np.float16)
    a16 = a.astype(np.float16).reshape(-1, K)
    out = np.zeros((a16.shape[0], N), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(kb):
            ks = np.flatnonzero(blk == j)
            acc = np.zeros((a16.shape[0], N), dtype=np.float16)
            for k in ks:
                acc = (acc + a16[:, k:k + 1] * q[None, :, k]).astype(np.float16)
            out += acc.astype(np.float32) * s[None, :, j]
        if bias is not None:
            out += np.asarray(bias).astype(np.float32)
    return out.reshape(a.shape[:-1] + (N,)).astype(a.dtype)


def _same_stride(p: dict) -> str | None:
    """Why the row-stride fault cannot differ: one row, or ceil(K * bits / 8) == k_blocks * blob_size."""
    K, bs, bits = p.get("K", 0), p.get("block_size", 1), p.get("bits", ref.DEFAULT_BITS)
    if p.get("N", 1) == 1:
        return "one row of B: no stride is used"
    if -(-K * bits // 8) == ref.k_blocks(K, bs) * ref.blob_size(bs, bits):
        return "ceil(K * bits / 8) == k_blocks * blob_size: both strides agree"
    return None


def _p(params: dict, key: str, default=None):
    return params.get(key, default)


def _empty(params: dict, name: str) -> str | None:
    """Why a fault cannot differ where the product is empty: N = 0 (Y has no elements), or K = 0 (no codes, zero
    points or terms: Y is the bias, which only bias_ignored drops)."""
    if _p(params, "N", 1) == 0:
        return "N = 0: Y has no elements"
    if _p(params, "K", 1) == 0 and name != "matmul_nbits.bias_ignored":
        return "K = 0: no codes, zero points or terms of A; Y is the bias (or zeros)"
    return None


def _or_empty(f: Fault) -> Fault:
    own = f.equivalent
    return dataclasses.replace(f, equivalent=lambda p: _empty(p, f.name) or own(p))


FAULTS = tuple(map(_or_empty, (
    Fault("matmul_nbits.default_zero_point_zero", "takes an absent zero point as 0, not 2**(bits - 1)",
          _faulty(zp_default=0.0), applies=lambda p: _p(p, "zero_points") == "none",
          seen_in="ROCm/hip-ep#134 (hip_matmul_nbits: default zero point 0 instead of 2^(bits-1))"),
    Fault("matmul_nbits.signed_codes_without_zero_point", "without zero points, reads the codes as two's "
          "complement signed integers (zero point 0), not unsigned minus 2**(bits - 1)",
          _faulty(signed_codes=True), applies=lambda p: _p(p, "zero_points") == "none",
          seen_in="ROCm/hip-ep#178 (the no-zp GEMV / WMMA paths decoded nibbles as signed int4 via (nib << 28) >> 28)"),
    Fault("matmul_nbits.large_block_zeros", "outputs zeros for block_size above 256",
          _faulty(zeros_above=256), applies=lambda p: _p(p, "block_size", 0) > 256,
          seen_in="onnxruntime#28551 (ORT 1.26 CPU EP: block_size 512 silently outputs zeros)"),
    Fault("matmul_nbits.k_tail_row_stride", "reads the rows of B ceil(K * bits / 8) bytes apart, not "
          "k_blocks * blob_size (the padding of the last block not skipped)", _faulty(row_stride=True),
          equivalent=_same_stride,
          seen_in="ROCm/hip-ep#720 (dequant_u4_to_fp16 row stride K / 2, not k_blocks * block_size / 2); "
                  "onnxruntime#31152 (WebNN EP reshaped the dequantized weights to [N, K])"),
    Fault("matmul_nbits.b_code_order_swapped", "reads the codes of a byte of B from the high bits first",
          _faulty(swap_b=True), applies=lambda p: _p(p, "bits", 4) < 8,
          seen_in="not seen; the text fixes the order ('the first 4 bits are stored in the lower 4 bits')"),
    Fault("matmul_nbits.zero_point_order_swapped", "reads packed zero points from the high bits of a byte first",
          _faulty(swap_zp=True), applies=lambda p: _p(p, "zero_points") == "packed" and _p(p, "bits", 4) < 8,
          seen_in="not seen; modelled on the packed zero-point readers of ROCm/hip-ep#967 and onnxruntime#24546"),
    Fault("matmul_nbits.zero_point_rows_unpadded", "reads packed zero points as one stream of N * k_blocks codes, "
          "not rows padded to whole bytes", _faulty(unpadded_zp=True),
          applies=lambda p: _p(p, "zero_points") == "packed",
          equivalent=lambda p: None if _p(p, "N", 1) > 1 and ref.k_blocks(p["K"], p["block_size"]) * p["bits"] % 8
          else "one row, or rows of whole bytes: the stream and the padded rows agree",
          seen_in="onnxruntime#22253 (the spec's zero-point size formula without per-row padding); onnxruntime#24546 "
                  "(WebGPU: zero_blocks_per_col rounded up when n_blocks_per_col % (8 / nbits) != 0)"),
    Fault("matmul_nbits.typed_zero_point_rounded", "rounds T1-typed zero points to integers (stores them as uint8)",
          _faulty(round_zp=True), applies=lambda p: _p(p, "zero_points") == "typed",
          seen_in="onnxruntime#28354 (float zero points added to the 2-bit LUT GEMM path, which read uint8 ones)"),
    Fault("matmul_nbits.g_idx_ignored", "ignores g_idx: k uses block k // block_size", _faulty(ignore_g_idx=True),
          applies=lambda p: bool(_p(p, "g_idx")),
          seen_in="onnxruntime#24828 (g_idx deprecated; only the CPU and CUDA kernels still read it)"),
    Fault("matmul_nbits.g_idx_packed_zero_points_ignored", "with g_idx, uses the default zero point "
          "2**(bits - 1) instead of the packed uint8 zero points", _faulty(g_idx_default_zp=True),
          applies=lambda p: bool(_p(p, "g_idx")) and _p(p, "zero_points") == "packed",
          seen_in="onnxruntime 1.32.0 CPU EP (measured here: test_matmulnbits_g_idx; Dequantize4BitsKernelReOrder in "
                  "contrib_ops/cpu/quantization/matmul_nbits_impl.cc reads the uint8 zero point into a local "
                  "and dequantizes with zp_f = 8)"),
    Fault("matmul_nbits.g_idx_two_bit_read_as_four_bit", "with g_idx, decodes 2-bit B as 4-bit codes (the e-th "
          "nibble of B for element e, past B's end: modelled as 0) with zero point 8", _faulty(g_idx_as_4bit=True),
          applies=lambda p: bool(_p(p, "g_idx")) and _p(p, "bits") == 2,
          seen_in="onnxruntime 1.32.0 CPU EP (found here by opconform hunt: the g_idx path calls "
                  "DequantizeBlockwise<float, uint8_t>, whose kernel Dequantize4BitsKernelReOrder reads 4-bit codes "
                  "whatever bits is, past the end of B)"),
    Fault("matmul_nbits.g_idx_first_code_of_byte_only", "with g_idx, reads only the first (low-bits) code of "
          "each byte of B; the other codes of the byte read as 0", _faulty(g_idx_first_code_only=True),
          applies=lambda p: bool(_p(p, "g_idx")) and _p(p, "bits", 4) < 8,
          seen_in="OpenVINO 2026.4.1 CPU (measured here with --inputs initializers: the weights probed with unit rows "
                  "of A are (0 - zero point) * scale of block g_idx[k] at odd k of 4-bit B; it reproduces some data "
                  "sets of test_matmulnbits_g_idx exactly, others differ, and 2-bit ones vary from run to run)"),
    Fault("matmul_nbits.bias_ignored", "ignores the bias input", _faulty(ignore_bias=True),
          applies=lambda p: bool(_p(p, "bias")),
          seen_in="onnxruntime PR #28742 (the CPU LUT GEMM path, mlas.use_lut_gemm=1, dropped the optional bias)"),
    Fault("matmul_nbits.a_int8_at_any_level", "quantizes A to int8 in blocks whatever accuracy_level says",
          _faulty(a_int8=True), applies=lambda p: _p(p, "accuracy_level", 0) != 4,
          seen_in="not seen; the int8 path (accuracy_level 4) taken where the level asks for float"),
    Fault("matmul_nbits.a_int8_per_row", "at accuracy_level 4, quantizes A to int8 with one scale per row "
          "(max |a| over K / 127), not per block", _faulty(a_int8_rows=True),
          applies=lambda p: _p(p, "accuracy_level", 0) == 4,
          equivalent=lambda p: "one block along K: a row is a block" if ref.k_blocks(p["K"], p["block_size"]) == 1
          else None, seen_in="not seen; modelled as per-token dynamic int8 quantization of activations (one scale "
          "a row), where the text asks for A quantized 'with the same block_size'"),
    Fault("matmul_nbits.a_int8_truncated", "at accuracy_level 4, quantizes A to int8 per block truncating toward "
          "zero, not rounding to nearest", _faulty(a_int8_truncated=True),
          applies=lambda p: _p(p, "accuracy_level", 0) == 4,
          seen_in="not seen; modelled as a float -> int8 conversion that truncates (C's cast) where one rounds"),
    Fault("matmul_nbits.a_type_accumulation", "sums a * w in A's own type (float16, bfloat16), k in order, where "
          "accuracy_level asks for a finer sum (1: fp32)", _faulty(a_type_sum=True), applies=_sum_finer_than_a,
          seen_in="not seen; modelled as a float16 kernel whose accumulator is A's type whatever accuracy_level asks "
                  "(onnxruntime's own float16 tests allow less)"),
    Fault("matmul_nbits.float16_block_accumulation", "accumulates a * (code - zero point) over a block in float16 "
          "and applies the scale after (float16 overflow where the scaled sum is small)",
          _faulty(fp16_blocks=True), applies=lambda p: _p(p, "t1") == "float16",
          seen_in="onnxruntime PR #29611 / #29599 (WebGPU MatMulNBits float16 accumulators overflow on Intel)"),
)))


def group_key(meta: dict) -> str:
    """One group per configuration: A's type, bits, block_size, K, N, zero points, g_idx, bias, level."""
    p = meta.get("params") or {}
    return (f"{p.get('t1')}_bits{p.get('bits')}_bs{p.get('block_size')}_k{p.get('K')}_n{p.get('N')}_"
            f"zp-{p.get('zero_points')}_gidx{int(bool(p.get('g_idx')))}_bias{int(bool(p.get('bias')))}_"
            f"level{p.get('accuracy_level', 0)}")


class Outputs(list):
    """A fault's outputs with the data set's inputs, which the dot-product bound of `killed` is computed from."""
    inputs: list


_compiled: list = [None, None]


def run(fault: Fault, model, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The fault's outputs on one data set (its node function in the reference interpreter)."""
    if _compiled[0] is not model:
        _compiled[:] = [model, compile_model(model, reference_lookup)]
    program = _compiled[1]
    steps = [dataclasses.replace(st, fn=fault.fn) if st.node.op_type == "MatMulNBits" else st
             for st in program.steps]
    out = Outputs(run_program(dataclasses.replace(program, steps=steps), inputs))
    out.inputs = dot_bound.operands(model, inputs)
    return out


def killed(fault: Fault, meta: dict, expected: list[np.ndarray], actual: list[np.ndarray]) -> bool:
    """Would the case fail the fault's outputs? Outside the dot-product bound of the case's compare spec (the
    inputs come with `run`'s outputs); without inputs or a "dot" spec: any difference (faults.differs)."""
    compare = meta.get("compare") or {}
    types = [dtypes.from_numpy(np.asarray(y).dtype) for y in expected]
    inputs = getattr(actual, "inputs", None)
    if compare.get("mode") != "dot" or inputs is None:
        return faults.differs(expected, actual, types, compare)
    if len(actual) != len(expected):
        return True
    for y, z, t in zip(expected, actual, types):
        if np.shape(y) != np.shape(z) or np.asarray(y).dtype != np.asarray(z).dtype:
            return True
        if not dot_bound.check(compare, inputs, y, z, t).all():
            return True
    return False
