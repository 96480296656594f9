"""MatMulNBits reference (com.microsoft MatMulNBits-1, onnxruntime docs/ContribOperators.md).

The text: "dequantized_weight = (quantized_weight - zero_point) * scale", then "Matrix multiplication between the
input matrix A and the dequantized weight matrix". The logical weight matrix is [N, K] (Y = A @ W^T), quantized
block-wise along K ("block_size": a power of 2, >= 16); "bits" (default 4) codes per element.

B (uint8) is [N, k_blocks, blob_size], k_blocks = ceil(K / block_size), blob_size = block_size * bits / 8:
each block's codes packed along K, "the first 4 bits are stored in the lower 4 bits of a byte, and the second
4 bits are stored in the higher 4 bits" (bits = 4; 2 and 8 alike: code i of a byte at bit bits * i). The codes
of the last block beyond K pad the block and are not used. scales (T1) are [N, k_blocks]. zero_points is
optional: packed uint8 [N, ceil(k_blocks * bits / 8)] ("same bit-packing method as Input B", each row of N
padded to whole bytes), or unpacked, T1-typed, [N, k_blocks]; "If not provided, a default zero point is used:
2^(bits - 1)". g_idx (int32 [K], deprecated) names the block of each k (onnxruntime's CPU kernel reads
scales[n, g_idx[k]] and the zero point of that block; the code stays at k). bias (T1) is [N].

B may be an omitted projection (onnxruntime 1.32.0's text: one or more dimensions of its packed shape 0, with
weight_prepacked 0): Y is then zeros, plus the broadcast bias; K = 0 and N = 0 are such cases too.

The dequantized weights are exact in float64 (a code minus a zero point is an integer or a T1 value; times a
T1 scale: at most 24 + 8 significant bits). Y is the float64 dot product (+ bias) rounded once to T1; what an
implementation may differ by is the arithmetic of the dot product, judged by generator/dot_bound.py.
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.outcome import Outcome

SPEC_FILE = "onnxruntime:docs/ContribOperators.md"
CLAUSE = "com.microsoft.MatMulNBits: Inputs (B, scales, zero_points, g_idx, bias), Attributes, formula"
DOMAIN = "com.microsoft"
DOMAIN_OPSET = 1
BITS = (2, 4, 8)  # the attribute's text: "Bit-width used to quantize the weights (supported values: 2, 4, 8)"
DEFAULT_BITS = 4
T1_TYPES = ("float", "float16", "bfloat16")  # dtypes names (float: float32)
INPUTS = ("A", "B", "scales", "zero_points", "g_idx", "bias")


def k_blocks(K: int, block_size: int) -> int:
    return -(-K // block_size)


def blob_size(block_size: int, bits: int) -> int:
    return block_size * bits // 8


def packed_zp_width(K: int, block_size: int, bits: int) -> int:
    """Bytes per row of packed zero points: ceil(k_blocks * bits / 8)."""
    return -(-k_blocks(K, block_size) * bits // 8)


def pack(codes: np.ndarray, bits: int) -> np.ndarray:
    """Codes (ints in [0, 2**bits)) packed along the last axis, code i of a byte at bit bits * i (the first in
    the low bits); the last axis is padded with zero codes to whole bytes."""
    codes = np.asarray(codes, dtype=np.uint8)
    per = 8 // bits
    n = codes.shape[-1]
    padded = np.zeros(codes.shape[:-1] + (-(-n // per) * per,), dtype=np.uint8)
    padded[..., :n] = codes
    groups = padded.reshape(codes.shape[:-1] + (padded.shape[-1] // per, per)).astype(np.uint16)
    shifts = (np.arange(per, dtype=np.uint16) * bits)
    return (groups << shifts).sum(axis=-1).astype(np.uint8)


def unpack(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` codes of each row of bytes (the inverse of pack), as int64."""
    packed = np.asarray(packed, dtype=np.uint8).astype(np.int64)
    per = 8 // bits
    shifts = np.arange(per, dtype=np.int64) * bits
    codes = (packed[..., None] >> shifts) & ((1 << bits) - 1)
    return codes.reshape(packed.shape[:-1] + (packed.shape[-1] * per,))[..., :count]


def block_of(K: int, block_size: int, g_idx: np.ndarray | None) -> np.ndarray:
    """The block whose scale and zero point each k uses: g_idx[k] when given, else k // block_size."""
    if g_idx is None:
        return np.arange(K) // block_size
    return np.asarray(g_idx, dtype=np.int64).reshape(-1)[:K]


def zero_points(zp: np.ndarray | None, N: int, K: int, block_size: int, bits: int) -> np.ndarray:
    """The zero point of each (n, block) as float64 [N, k_blocks]: unpacked from uint8, a T1 tensor as its
    values, or 2**(bits - 1) when absent."""
    kb = k_blocks(K, block_size)
    if zp is None:
        return np.full((N, kb), float(2 ** (bits - 1)))
    zp = np.asarray(zp)
    if zp.dtype == np.uint8:
        return unpack(zp.reshape(N, -1), bits, kb).astype(np.float64)
    return zp.astype(np.float64).reshape(N, kb)


def weights(b: np.ndarray, scales: np.ndarray, zp: np.ndarray | None, g_idx: np.ndarray | None,
            attrs: dict) -> np.ndarray:
    """The dequantized weights W [N, K] in float64, exact: (code - zero point) * scale of each k's block."""
    K, N, bits, bs = attrs["K"], attrs["N"], attrs.get("bits", DEFAULT_BITS), attrs["block_size"]
    kb = k_blocks(K, bs)
    if omitted(b, attrs):  # the text: "Y is filled with zeros (or the broadcast bias, if provided)"
        return np.zeros((N, K))
    codes = unpack(np.asarray(b).reshape(N, kb, blob_size(bs, bits)), bits, bs).reshape(N, kb * bs)[:, :K]
    blk = block_of(K, bs, g_idx)
    z = zero_points(zp, N, K, bs, bits)
    s = np.asarray(scales).astype(np.float64).reshape(N, kb)
    return (codes - z[:, blk]) * s[:, blk]


def omitted(b, attrs: dict) -> bool:
    """B an omitted projection: "When weight_prepacked is 0, B may represent an omitted projection by replacing one
    or more dimensions of its packed shape (N, k_blocks, blob_size) with 0 ... Y is filled with zeros (or the
    broadcast bias, if provided) ... The contents of A, scales, zero_points and g_idx are not used" (K = 0 or N = 0
    give such a B too, and the same Y)."""
    return attrs.get("weight_prepacked", 0) == 0 and 0 in np.shape(b)


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def dot_terms(inputs: list, attrs: dict, a_int8_block: int | None = None) -> tuple[np.ndarray, ...]:
    """Per element of Y, in float64: the exact result ref = sum_k a_k * w_k (+ bias), its bound
    bnd = sum_k |a_k * w_k| (+ |bias|), and, where A may be quantized to int8 in blocks of a_int8_block along
    K (accuracy_level 4), qerr = sum_k |w_k| * step_k / 2, step_k = max |a| over k's block / 127: half an int8
    step, what rounding to nearest loses (READING_INT8)."""
    a, b, scales, zp, g_idx, bias = _inputs(inputs)
    a = np.asarray(a).astype(np.float64)
    if omitted(b, attrs):  # +0 whatever A holds ("The contents of A ... are not used"): not A @ 0, whose
        ref = np.zeros(a.shape[:-1] + (attrs["N"],))  # negative rows would sum to -0
        bnd = np.zeros_like(ref)
    else:
        w = weights(b, scales, zp, g_idx, attrs)
        ref = np.matmul(a, w.T)
        bnd = np.matmul(np.abs(a), np.abs(w).T)
    if bias is not None:
        bias = np.asarray(bias).astype(np.float64)
        ref, bnd = ref + bias, bnd + np.abs(bias)
    qerr = np.zeros_like(ref)
    if a_int8_block and not omitted(b, attrs):
        w = weights(b, scales, zp, g_idx, attrs)
        K = a.shape[-1]
        blocks = -(-K // a_int8_block)
        padded = np.zeros(a.shape[:-1] + (blocks * a_int8_block,))
        padded[..., :K] = np.abs(a)
        amax = padded.reshape(a.shape[:-1] + (blocks, a_int8_block)).max(axis=-1)
        step = np.repeat(amax, a_int8_block, axis=-1)[..., :K] / 127.0 / 2
        qerr = np.matmul(step, np.abs(w).T)
    return ref, bnd, qerr


# What a judged case rests on where no sentence states it (case.json "reading", docs/readings.md).
READING_LEVEL_0 = ("accuracy_level 0 (unset; also when left out): the sum in A's own type at least (the bound's "
                   "accumulation is A's type): the text says only '0 means input A will not be quantized or "
                   "downcast', and names no precision for the sum")
# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)

READING_INT8 = ("accuracy_level 4: 'input A can be quantized with the same block_size to int8' read as symmetric "
                "int8 per block of A's row, scale max |a| / 127, rounded to nearest (as QuantizeLinear does): the "
                "bound allows half an int8 step of each block of A times |w|")
READING_LEVELS = ("accuracy_level: the text lists the values it 'can be: 0(unset), 1(fp32), 2(fp16), 3(bf16), or "
                  "4(int8)' and says nothing of others: read as a closed list, so that another value (5) makes the "
                  "model invalid (onnxruntime 1.32.0 accepts 5)")
READING_G_IDX = ("g_idx ('group_idx. This input is deprecated': the text says nothing more, no shape either) read "
                 "as onnxruntime's CPU kernel reads it: k takes the scale and zero point of block g_idx[k], its code "
                 "stays at k; g_idx has K entries, or k_blocks * block_size (the padded length onnxruntime's own "
                 "tests give it), of which the first K are read")


def readings(attrs: dict, g_idx: bool) -> str | None:
    """The readings a case of these attributes rests on ("; "-joined), None where none."""
    level = attrs.get("accuracy_level", 0)
    out = [READING_LEVEL_0] if level == 0 else [READING_INT8] if level == 4 else []
    return "; ".join(out + ([READING_G_IDX] if g_idx else [])) or None


UNDEF_G_IDX = ("g_idx names no block (a value outside 0 .. k_blocks - 1): the text, which calls the input "
               "deprecated, says nothing of it, and the CPU kernel reads scales out of bounds")


def matmul_nbits(inputs: list, attrs: dict) -> Outcome:
    """Y = A @ W^T (+ bias): the float64 result rounded once to A's type (com.microsoft MatMulNBits-1); every
    element undefined where g_idx names no block (computed with those k's block clamped, never read)."""
    a, b, scales, zp, g_idx, bias = _inputs(inputs)
    kb = k_blocks(attrs["K"], attrs["block_size"])
    why = None
    if g_idx is not None and (np.any(np.asarray(g_idx) < 0) or np.any(np.asarray(g_idx) >= kb)):
        why, g_idx = UNDEF_G_IDX, np.clip(g_idx, 0, kb - 1)
    y, _, _ = dot_terms([a, b, scales, zp, g_idx, bias], attrs)
    return Outcome.of([y.astype(np.asarray(a).dtype)], why)


# ---------------------------------------------------------------------------------------
# what the schema rules out (the opconform backend refuses it at prepare)
# ---------------------------------------------------------------------------------------
def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """The attributes and types the schema allows: K, N, block_size required; block_size a power of 2 >= 16;
    bits one of BITS; accuracy_level 0..4; A, scales, bias of one T1; B uint8; g_idx int32; zero_points uint8
    or T1."""
    for name in ("K", "N", "block_size"):
        if name not in attrs:
            raise ValueError(f"MatMulNBits: attribute {name} is required")
    bs, bits = attrs["block_size"], attrs.get("bits", DEFAULT_BITS)
    if bs < 16 or bs & (bs - 1):
        raise ValueError(f"MatMulNBits: block_size must be a power of 2 and >= 16, not {bs}")
    if bits not in BITS:
        raise ValueError(f"MatMulNBits: bits must be one of {BITS}, not {bits}")
    if not 0 <= attrs.get("accuracy_level", 0) <= 4:
        raise ValueError(f"MatMulNBits: accuracy_level must be 0..4, not {attrs['accuracy_level']}")
    if attrs["K"] < 0 or attrs["N"] < 0:  # 0 is an empty dimension (B's packed shape then has a 0)
        raise ValueError("MatMulNBits: K and N must not be negative")
    if attrs.get("weight_prepacked", 0) not in (0, 1, 2):
        raise ValueError(f"MatMulNBits: weight_prepacked must be 0, 1 or 2, not {attrs['weight_prepacked']}")
    types = [t.name if t is not None else None for t in _inputs(input_types)]
    t1 = types[0]
    if t1 not in T1_TYPES:
        raise ValueError(f"MatMulNBits: A must be one of {T1_TYPES}, not {t1}")
    for i, want in ((1, ("uint8",)), (2, (t1,)), (3, ("uint8", t1)), (4, ("int32",)), (5, (t1,))):
        if types[i] is not None and types[i] not in want:
            raise ValueError(f"MatMulNBits: {INPUTS[i]} must be {' or '.join(want)}, not {types[i]}")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """The shapes the text gives: A [..., K] (1-D too, as MatMul's A: Y then [N]), B [N, k_blocks, blob_size], scales [N, k_blocks], zero_points
    [N, ceil(k_blocks * bits / 8)] (uint8) or [N, k_blocks], g_idx [K] or [k_blocks * block_size] (READING_G_IDX),
    bias [N] (unknown shapes pass)."""
    K, N, bs, bits = attrs["K"], attrs["N"], attrs["block_size"], attrs.get("bits", DEFAULT_BITS)
    kb = k_blocks(K, bs)
    a, b, s, zp, g, bias = _inputs(shapes)
    want = {1: (N, kb, blob_size(bs, bits)), 2: (N, kb), 4: (K,), 5: (N,)}
    if g is not None and tuple(g) == (kb * bs,):  # the padded g_idx (READING_G_IDX): its first K entries read
        g = (K,)
    if a is not None and (len(a) < 1 or a[-1] != K):
        raise ValueError(f"MatMulNBits: A must be [..., K = {K}], not {list(a)}")
    if b is not None and len(b) == 3 and 0 in b and all(d in (0, w) for d, w in zip(b, want[1])):
        # an omitted projection: "All remaining dimensions must retain their normal values"; "the quantization
        # parameters may also be empty"
        s, zp, g = (None if x is None or 0 in x else x for x in (s, zp, g))
        b = None
    for i, shape in ((1, b), (2, s), (4, g), (5, bias)):
        if shape is not None and tuple(shape) != want[i]:
            raise ValueError(f"MatMulNBits: {INPUTS[i]} must be {list(want[i])}, not {list(shape)}")
    if zp is not None and tuple(zp) not in ((N, packed_zp_width(K, bs, bits)), (N, kb)):
        raise ValueError(f"MatMulNBits: zero_points must be [N, ceil(k_blocks * bits / 8)] or [N, k_blocks], "
                         f"not {list(zp)}")


def matmul_nbits_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                      input_types: list[DType]) -> list[np.ndarray]:
    """com.microsoft MatMulNBits-1 as a graph node (an undefined result: the clamped computation's)."""
    return list(matmul_nbits(inputs, attrs).outputs)


matmul_nbits_node.validate = validate
matmul_nbits_node.validate_shapes = validate_shapes
NODES = {(DOMAIN, "MatMulNBits"): matmul_nbits_node}
