"""Data sets of a MatMulInteger configuration (MM.data says how they are made), and the random configurations
(seeded PCG64 draws, generator.sampling; the only cases --seed changes).

  random      zero points drawn (distinct per row / column), A and B uniform over their types
  ends        zero points at the ends of their types (data set i: the corners in turn), A and B uniform
  far         zero points at the ends, every element at the far end from its zero point (|a - za| = 255 where
              the type allows; 128 for an int8 operand without one): the largest products, of one sign, so the
              sum leaves int16 and each product does where both reach 255
  pairs       raw extremes for a u8 x s8 kernel: a = 255, and b's columns along K, in blocks of 4: 127 everywhere, then
              (-128, -128, 127, 127), then (127, -128, -128, 127). MLAS's AVX2 kernel adds the products of K indices
              2j and 2j + 1 (VPMADDUBSW): they saturate int16 in columns 0 and 1 (+-2 * 255 * 127 or 128), cancel
              (-255) in column 2, where a pairing shifted by one would saturate instead; zero points drawn
  float32     far, but the product before last +-1 and the last 0: the exact sum (K - 2) p +- 1 is odd and beyond
              2**24 (K - 2 even), so no float32 holds it
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.matmul_integer.spec import FAMILY, MM, I8, U8, dataset_cases, feed


def _ends(t: dtypes.DType) -> tuple[int, int]:
    return t.int_min, t.int_max


def _zero_points(mm: MM, s: sampling.Stream, i: int) -> tuple:
    """(a_zero_point, b_zero_point) arrays of the model's shapes (None where absent)."""
    at, bt = (dtypes.get(t) for t in mm.types)
    s_az, s_bz = mm.zp_shapes()
    out = []
    for t, shape, corner in ((at, s_az, (0, 1, 0, 1)[i % 4]), (bt, s_bz, (0, 1, 1, 0)[i % 4])):
        if shape is None:
            out.append(None)
            continue
        n = int(np.prod(shape, dtype=np.int64))
        if mm.data in ("ends", "far", "float32"):
            v = np.full(n, _ends(t)[corner], dtype=np.int64)
        elif n > 1:  # distinct values per row / column
            v = np.array(s.sample(range(t.int_min, t.int_max + 1), n), dtype=np.int64)
        else:
            v = np.array([s.integers(t.int_min, t.int_max)], dtype=np.int64)
        out.append(v.reshape(shape).astype(t.np_dtype))
    return out[0], out[1]


def _far(t: dtypes.DType, zp: np.ndarray | None, shape: tuple, row_axis: int | None) -> np.ndarray:
    """Every element at the end of t farthest from its zero point (zp broadcast: per row of A / column of B)."""
    z = np.zeros(shape, np.int64) if zp is None else np.broadcast_to(
        np.asarray(zp, np.int64).reshape(-1, 1) if row_axis is not None and np.ndim(zp) == 1 and np.size(zp) > 1
        else np.asarray(zp, np.int64), shape)
    lo, hi = _ends(t)
    return np.where(hi - z >= z - lo, hi, lo).astype(t.np_dtype)


def draw_dataset(mm: MM, s: sampling.Stream, i: int) -> list[np.ndarray]:
    """The inputs of data set i in graph-input order (A, B, then the zero points the model has)."""
    at, bt = (dtypes.get(t) for t in mm.types)
    az, bz = _zero_points(mm, s, i)
    if mm.data in ("far", "float32"):
        a = _far(at, az, mm.a_shape, row_axis=0)
        b = _far(bt, None if bz is None else bz, mm.b_shape, row_axis=None)
        if mm.data == "float32":  # the product before last +-1, the last 0
            a, b = a.astype(np.int64), b.astype(np.int64)
            za = 0 if az is None else int(np.asarray(az).reshape(-1)[0])
            zb = 0 if bz is None else int(np.asarray(bz).reshape(-1)[0])
            a[..., -2] = za + (1 if za < at.int_max else -1)
            a[..., -1] = za
            if b.ndim > 1:
                b[..., -2, :] = zb + (1 if zb < bt.int_max else -1)
            else:
                b[-2] = zb + (1 if zb < bt.int_max else -1)
            a, b = a.astype(at.np_dtype), b.astype(bt.np_dtype)
    elif mm.data == "pairs":
        a = np.full(mm.a_shape, at.int_max, at.np_dtype)
        lo, hi = _ends(bt)
        blocks = np.array([[hi, hi, hi, hi], [lo, lo, hi, hi], [hi, lo, lo, hi]], np.int64)  # per column, along K
        if len(mm.b_shape) > 1:
            k, n = mm.b_shape[-2:]
            b = np.broadcast_to(np.resize(blocks, (n, 4))[:, np.arange(k) % 4].T, mm.b_shape)
        else:  # a 1-D B is one column: the second's blocks, saturating only in the kernel's pairs
            b = blocks[1][np.arange(mm.b_shape[0]) % 4]
        b = b.astype(bt.np_dtype)
    else:
        a = s.integers(at.int_min, at.int_max, mm.a_shape, dtype=at.np_dtype)
        b = s.integers(bt.int_min, bt.int_max, mm.b_shape, dtype=bt.np_dtype)
    return feed(mm, np.asarray(a), np.asarray(b), az, bz)


def mm_cases(mm: MM, n_datasets: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """The node case of n drawn data sets the spec defines, and the probe case of the others."""
    s = sampling.case_seed(seed, mm.name)
    stream = sampling.Stream(s)
    yield from dataset_cases(mm, [draw_dataset(mm, stream, i) for i in range(n_datasets)], s, flags)


def _shape_pair(s: sampling.Stream) -> tuple[tuple, tuple]:
    """Shapes numpy.matmul takes: 1-D, 2-D, batched with broadcasting dimensions of 1."""
    m, k, n = s.integers(1, 6), s.integers(1, 9), s.integers(1, 6)
    kind = s.choice(["2d", "2d", "batch", "broadcast", "a1d", "b1d"])
    if kind == "a1d":
        return (k,), (k, n)
    if kind == "b1d":
        return (m, k), (k,)
    if kind == "2d":
        return (m, k), (k, n)
    d = s.integers(2, 3)
    if kind == "batch":
        return (d, m, k), (d, k, n)
    return (d, 1, m, k), (s.integers(1, 3), k, n)


def configuration(s: sampling.Stream) -> MM:
    a_shape, b_shape = _shape_pair(s)
    a_forms = ["absent", "tensor", "tensor"] + (["row", "row_nd"] if len(a_shape) > 1 else [])
    b_forms = ["absent", "tensor", "tensor"] + (["column", "column_nd"] if len(b_shape) > 1 else [])
    if len(a_shape) != 2:
        a_forms = [f for f in a_forms if f != "row"]
    if len(b_shape) != 2:
        b_forms = [f for f in b_forms if f != "column"]
    return MM("random", a_shape, b_shape, (s.choice([U8, I8]), s.choice([U8, I8])), s.choice(a_forms),
              s.choice(b_forms), s.choice(["random", "random", "ends"]))


def random_configurations(n: int, seed: int) -> list[MM]:
    """The first n distinct configurations (by everything but sizes) of one seeded stream."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    chosen, seen = [], set()
    for _ in range(64 * n):
        if len(chosen) == n:
            break
        c = configuration(s)
        key = (len(c.a_shape), len(c.b_shape), c.types, c.a_zp, c.b_zp, c.data)
        if key not in seen:
            seen.add(key)
            chosen.append(c)
    return [replace(c, what=f"config_{i:03d}_random") for i, c in enumerate(chosen)]
