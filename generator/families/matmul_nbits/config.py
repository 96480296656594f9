"""A MatMulNBits configuration (Config), its one-node model, its drawn data sets and its node case.

Data are exact in float64 and in A's type: A multiples of 2**-4, scales (1 + j / 8) * 2**-e, typed zero points
halves, bias multiples of 1/8; so the reference's only rounding is the final one to A's type. Each data set is
drawn for what it must kill (kinds): "random" (every code, zero point and padding code random: kills the layout
and zero-point faults), "int8" (each block of A one large element over a zero weight, the rest small: int8
quantization of A loses the small ones), "overflow" (float16: block sums of a * (code - zero point) beyond
65504 while the scaled result is small), "zero" (every code equal to its zero point: Y = bias exactly),
"typed_zp" (zero points 2j + 1/2), "typed_zp_mid" (every zero point 2**(bits - 1) - 1/2: 1.5 for 2 bits, the
symmetric one), "bias_only" (A = 0), "g_idx" (one term whose g_idx block has another scale than k // block_size's),
"g_idx_out_of_range" (undefined: the probe). Empty shapes (K, N or A's rows 0) and an omitted projection
(b_omitted: B's packed shape with a 0; Y = zeros or the broadcast bias) take the random kind. For accuracy_level 4: "int8_rows" (one block of A of 1024 .. 1920
(float16, bfloat16: 256 .. 480), the others below 1/4, the large block over zero weights but in the first row of
B (|w| = |scale| there): int8 per row of A loses the small blocks), "int8_round" (each block's max, 127 steps of
2**-e, over a zero weight, the others q + 3/4 steps, q in 0 .. 3, over positive weights: truncating loses 3/4 of a
step a term, rounding to nearest 1/4). For a sum finer than A's type (accuracy_level 1 on float16 / bfloat16 A):
"swamp" (a first term of 2**(mantissa bits + 1) in A's type, then terms of 1/4 .. 3/4, positive: a sum in A's
type drops every later term).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import onnx
from onnx import helper

from generator import dot_bound, dtypes, sampling
from generator.case import Case, finish_model, value_info
from generator.family import Family, split
from generator.reference import matmul_nbits as ref

FAMILY = Family("matmul_nbits", "MatMulNBits", ref.SPEC_FILE, domain=ref.DOMAIN)
OPSET = 21  # the ai.onnx import beside com.microsoft 1 (the model has no ai.onnx node)
CLAUSE = ref.CLAUSE
REASON = ("dot-product bound (TOSA dot-product compliance mode): the text fixes the weights ((q - zero_point) * "
          "scale) but not the order or precision of the sum; accumulation: the type accuracy_level names (1 fp32, "
          "2 fp16, 3 bf16), A's own at 0 (unset) and 4; abs_bound 2 * terms per sum; with accuracy_level 4 A may be "
          "int8 in blocks (half an int8 step a term)")


@dataclass(frozen=True)
class Config:
    what: str
    t1: str = "float32"
    bits: int | None = 4  # None: the attribute is left out (default 4)
    block_size: int = 16
    K: int = 32
    N: int = 4
    a_shape: tuple = (2,)  # A's dims before K
    zero_points: str = "none"  # none / packed / typed
    g_idx: bool = False
    bias: bool = False
    accuracy_level: int | None = None  # None: left out
    kinds: tuple = ()  # the data sets' kinds; () for kinds_for(self)
    extra_attrs: dict = field(default_factory=dict)  # written as they are (negatives: invalid values)
    b_omitted: tuple = ()  # B's packed dimensions (0 N, 1 k_blocks, 2 blob_size) given as 0: an omitted projection
    params_empty: bool = False  # with b_omitted: scales and zero_points empty too ([N, 0])
    g_idx_padded: bool = False  # g_idx of k_blocks * block_size entries (the tail's random, in range), not K

    @property
    def nbits(self) -> int:
        return ref.DEFAULT_BITS if self.bits is None else self.bits

    @property
    def attrs(self) -> dict:
        a = {"K": self.K, "N": self.N, "block_size": self.block_size}
        if self.bits is not None:
            a["bits"] = self.bits
        if self.accuracy_level is not None:
            a["accuracy_level"] = self.accuracy_level
        return {**a, **self.extra_attrs}

    @property
    def slots(self) -> list[str]:
        """The node inputs given, in order (the model's graph inputs)."""
        given = {"zero_points": self.zero_points != "none", "g_idx": self.g_idx, "bias": self.bias}
        return [n for n in ref.INPUTS if given.get(n, True)]

    @property
    def params(self) -> dict:
        p = {"what": self.what, "t1": self.t1, "bits": self.nbits, "block_size": self.block_size, "K": self.K,
             "N": self.N, "zero_points": self.zero_points, "g_idx": self.g_idx, "bias": self.bias,
             "accuracy_level": self.accuracy_level or 0}
        if self.b_omitted:
            p["b_omitted"] = list(self.b_omitted)
        return p


def model(cfg: Config, shapes: list[tuple]) -> onnx.ModelProto:
    """The one-node model: the given inputs as graph inputs with these shapes (omitted optional ones "")."""
    types = {"A": cfg.t1, "B": "uint8", "scales": cfg.t1, "g_idx": "int32", "bias": cfg.t1,
             "zero_points": "uint8" if cfg.zero_points == "packed" else cfg.t1}
    given = dict(zip(cfg.slots, shapes))
    last = max(i for i, n in enumerate(ref.INPUTS) if n in given)
    names = [n if n in given else "" for n in ref.INPUTS[:last + 1]]
    node = helper.make_node("MatMulNBits", names, ["Y"], domain=ref.DOMAIN, **cfg.attrs)
    y_shape = tuple(given["A"][:-1]) + (cfg.N,)
    graph = helper.make_graph([node], "matmulnbits", [value_info(n, dtypes.get(types[n]), given[n]) for n in cfg.slots],
                              [value_info("Y", dtypes.get(cfg.t1), y_shape)])
    return finish_model(graph, OPSET, {ref.DOMAIN: ref.DOMAIN_OPSET})


def _scales(s: sampling.Stream, shape, lo: int, hi: int) -> np.ndarray:
    """(1 + j / 8) * 2**-e, e in [lo, hi], random sign: exact in every float type."""
    j = s.integers(0, 7, shape).astype(np.float64)
    e = s.integers(lo, hi, shape).astype(np.float64)
    sign = np.where(s.integers(0, 1, shape) == 1, -1.0, 1.0)
    return sign * (1 + j / 8) * 2.0 ** -e


def draw(cfg: Config, s: sampling.Stream, kind: str) -> list[np.ndarray]:
    """One data set of the given kind (the module docstring), in cfg.slots order."""
    bits, bs, K, N = cfg.nbits, cfg.block_size, cfg.K, cfg.N
    kb, top = ref.k_blocks(K, bs), (1 << bits) - 1
    t1 = dtypes.get(cfg.t1).np_dtype
    g_idx = s.integers(0, kb - 1, (K,)).astype(np.int32) if cfg.g_idx else None
    blk = ref.block_of(K, bs, g_idx)  # the block of each k's scale and zero point
    codes = s.integers(0, top, (N, kb * bs)).astype(np.int64)
    scales = _scales(s, (N, kb), 2, 6)
    zp = s.integers(0, top, (N, kb)).astype(np.float64)
    if cfg.zero_points == "typed":
        zp = s.integers(0, 2 * top, (N, kb)).astype(np.float64) / 2
    a = s.integers(0, 32, cfg.a_shape + (K,)).astype(np.float64) / 16  # [0, 2]: no cancellation
    if kind == "zero":
        zp = np.round(zp)
        zpk = zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1))
        codes[:, :K] = zpk[:, blk]
    elif kind == "int8":
        zp = np.round(zp)
        zpk = (zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1)))[:, blk]
        codes[:, :K] = np.where(zpk < top, zpk + 1, zpk - 1)  # |w| = |scale|, one sign per row
        scales = np.abs(scales)
        a = np.full(cfg.a_shape + (K,), 0.1875)
        starts = np.arange(0, K, bs)
        a[..., starts] = 1000.0  # one int8 step of the block is 1000 / 127: the 0.1875s quantize to 0
        codes[:, starts] = zpk[:, starts]  # over a zero weight: the exact sum is the small ones'
    elif kind == "typed_zp":  # zero points 2j + 1/2, codes 2j: w = -scale / 2, 0 where zp is rounded
        zp = 2 * s.integers(0, (top - 1) // 2, (N, kb)).astype(np.float64) + 0.5
        codes[:, :K] = (zp - 0.5)[:, blk].astype(np.int64)
        scales = np.abs(scales)
    elif kind == "bias_only":  # A = 0: Y = bias exactly, and |bias| is the whole bound
        a = np.zeros(cfg.a_shape + (K,))
    elif kind == "g_idx":  # one term, at k = 0, whose block (g_idx) has a scale 16 times block 0's
        g_idx[0] = 1 % kb
        blk = ref.block_of(K, bs, g_idx)
        scales = 2.0 ** -(2 + 4 * (np.arange(kb)[None, :] % 2)) * np.ones((N, 1))
        zpk = (zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1)))[:, blk[0]]
        codes[:, 0] = np.where(np.floor(zpk) < top, np.floor(zpk) + 1, np.floor(zpk) - 1)
        a = np.zeros(cfg.a_shape + (K,))
        a[..., 0] = 1.5
    elif kind == "typed_zp_mid":  # the symmetric zero point: codes - 1.5 in {-1.5, -0.5, 0.5, 1.5} for 2 bits
        zp = np.full((N, kb), 2.0 ** (bits - 1) - 0.5)
    elif kind == "int8_rows":
        big = s.integers(0, kb - 1)  # the block of large A (A's blocks are k // block_size; the tail one too)
        zp = np.round(zp)
        zpk = zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1))
        in_big = np.arange(K) // bs == big
        codes[1:, :K] = np.where(in_big, zpk[1:][:, blk], codes[1:, :K])  # zero weights but in row 0
        a = s.integers(1, 16, cfg.a_shape + (K,)).astype(np.float64) / 64
        row0 = np.where(zpk[0, blk] < top, zpk[0, blk] + 1, zpk[0, blk] - 1)  # |w| = |scale|
        codes[0, :K] = np.where(in_big, row0, codes[0, :K])
        large = 2.0 ** (10 if cfg.t1 == "float32" else 8)  # row 0's large block sum stays finite in float16
        a[..., in_big] = large * (1 + s.integers(0, 7, cfg.a_shape + (int(in_big.sum()),)) / 8)
    elif kind == "int8_round":
        zp = np.minimum(np.round(zp), top - 1)
        zpk = (zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1)))[:, blk]
        codes[:, :K] = zpk + 1  # w = scale > 0: every term's rounding error of one sign
        scales = np.abs(scales)
        step = 2.0 ** -(1 + (np.arange(K) // bs) % 3)  # per block of A: steps large beside a bias
        a = (s.integers(0, 3, cfg.a_shape + (K,)) + 0.75) * step  # small: float16's allowance below 1/4 step
        starts = np.arange(0, K, bs)
        a[..., starts] = 127 * step[starts]  # the block's max: scale max / 127 = step exactly
        codes[:, starts] = zpk[:, starts]  # over a zero weight (in bnd it would outgrow the quarter step)
    elif kind == "swamp":  # a * w: 2**(frac + 1) first, then 1/4 .. 3/4; w = scale = 1/4 everywhere
        frac = dtypes.get(cfg.t1).mantissa_bits
        zp = np.minimum(np.round(zp), top - 1)
        zpk = (zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1)))[:, blk]
        codes[:, :K] = zpk + 1
        scales = np.full((N, kb), 0.25)
        a = s.integers(4, 12, cfg.a_shape + (K,)).astype(np.float64) / 4
        a[..., 0] = 2.0 ** (frac + 3)
    elif kind == "overflow":
        zpk = zp if cfg.zero_points != "none" else np.full((N, kb), 2.0 ** (bits - 1))
        if cfg.zero_points != "none":
            zp = np.zeros((N, kb))
            zpk = zp
        dq = top - int(zpk.max())
        a_mag = 2.0 ** int(np.ceil(np.log2(2 * 65504 / (min(bs, K) * dq))))
        codes = np.full((N, kb * bs), top)
        a = a_mag * (1 + s.integers(0, 7, cfg.a_shape + (K,)).astype(np.float64) / 8)
        e = int(np.round(np.log2(K * a_mag * dq / 256)))
        scales = np.full((N, kb), 2.0 ** -e)
    data = {"A": a.astype(t1), "B": ref.pack(codes.reshape(N, kb, bs), bits).reshape(N, kb, ref.blob_size(bs, bits)),
            "scales": scales.astype(t1)}
    if cfg.zero_points == "packed":
        row = ref.pack(zp.astype(np.int64), bits)
        spare = row.shape[1] * (8 // bits) - kb  # padding codes at the end of each row: random
        if spare and kind == "random":
            pad = s.integers(0, top, (N, spare)).astype(np.int64)
            row = ref.pack(np.concatenate([zp.astype(np.int64), pad], axis=1), bits)
        data["zero_points"] = row
    elif cfg.zero_points == "typed":
        data["zero_points"] = zp.astype(t1)
    if cfg.g_idx:
        data["g_idx"] = g_idx
        if cfg.g_idx_padded:
            data["g_idx"] = np.concatenate([g_idx, s.integers(0, kb - 1, (kb * bs - K,)).astype(np.int32)])
        if kind == "g_idx_out_of_range":  # the last k names block k_blocks, and the first -1
            data["g_idx"] = data["g_idx"].copy()
            data["g_idx"][K - 1], data["g_idx"][0] = kb, -1
    if cfg.bias:
        data["bias"] = (s.integers(-32, 32, (N,)).astype(np.float64) / 8).astype(t1)
    if cfg.b_omitted:  # the omitted projection: B's named dimensions 0, A's contents random (unused)
        data["B"] = np.zeros(tuple(0 if i in cfg.b_omitted else d for i, d in enumerate(data["B"].shape)), np.uint8)
        if cfg.params_empty:
            data["scales"] = np.zeros((N, 0), t1)
            if "zero_points" in data:
                data["zero_points"] = np.zeros((N, 0), data["zero_points"].dtype)
    return [data[n] for n in cfg.slots]


def kinds_for(cfg: Config) -> tuple[str, ...]:
    """The data sets a configuration needs to kill its faults: two random ones; "int8" where the accumulation
    type leaves a loose bound (float16, bfloat16: A's type or accuracy_level 2, 3); "overflow" for float16 (K >= 16: a block of >= 16 terms can overflow);
    "typed_zp" for typed zero points; "bias_only" with a bias, "g_idx" with g_idx (both decisive whatever the
    bound's looseness: float16 at large K allows 2K * 2**-11 of sum |a * w|); "int8_rows" and "int8_round" at
    accuracy_level 4; "swamp" where the level asks for a finer sum than A's type."""
    kinds = ["random", "random"]
    if dot_bound.accumulation(dtypes.get(cfg.t1).name, cfg.accuracy_level or 0) != "float":
        kinds.append("int8")
    if cfg.t1 == "float16":
        kinds.append("overflow")
    if cfg.zero_points == "typed":
        kinds.append("typed_zp")
    if cfg.bias:
        kinds.append("bias_only")
    if cfg.g_idx:
        kinds.append("g_idx")
    if cfg.accuracy_level == 4:
        kinds += ["int8_rows", "int8_round"]
    acc = dot_bound.accumulation(cfg.t1, cfg.accuracy_level or 0)
    if dtypes.get(acc).mantissa_bits > dtypes.get(cfg.t1).mantissa_bits:
        kinds.append("swamp")
    return tuple(kinds)


def datasets(cfg: Config, seed: int) -> list[list[np.ndarray]]:
    s = sampling.Stream(sampling.case_seed(seed, cfg.what))
    return [draw(cfg, s, kind) for kind in (cfg.kinds or kinds_for(cfg))]


def meta(cfg: Config, seed: int, flags: list[str]) -> dict:
    return FAMILY.meta(opset=OPSET, clause=CLAUSE, compare=dot_bound.spec_of(cfg.attrs, cfg.slots, cfg.t1, REASON),
                       flags=flags, seed=seed, params=cfg.params, reading=ref.readings(cfg.attrs, cfg.g_idx))


def cases(cfg: Config, seed: int = 0, flags: tuple = ("edge",)) -> Iterator[Case]:
    """The node case of cfg (test_matmulnbits_<what>)."""
    sets = datasets(cfg, seed)
    outcomes = [ref.matmul_nbits([dict(zip(cfg.slots, d)).get(n) for n in ref.INPUTS], cfg.attrs) for d in sets]
    yield from split(f"{FAMILY.prefix}_{cfg.what}", sets, outcomes,
                     lambda d: model(cfg, [np.shape(x) for x in d]), meta(cfg, seed, list(flags)))
