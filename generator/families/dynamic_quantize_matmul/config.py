"""A DynamicQuantizeMatMul configuration (Config), its one-node model, its drawn data sets and its cases.

A's data sets by kind (kinds_for: every configuration takes the kinds that kill its group's fault models); "on the
grid" means A = (q - zp) * u exactly, u = 2**-4, q in 0 .. 255 with both 0 and 255 present, so that
DynamicQuantizeLinear's scale is u and its zero point zp exactly and the bound's qerr is 0:
  grid       both signs on the grid (zp drawn in 1 .. 254), row 0 holding q = 0 and 255, the other rows narrower
             (a per-row quantization moves them)
  positive   on the grid, q in 1 .. 255: A > 0 (DynamicQuantizeLinear widens the range to 0; zero point 0)
  negative   on the grid, zp 255, q in 0 .. 254: A < 0 (zero point 255)
  truncated  q + 3/4 steps (q in 0 .. 253, one element at 255 and one at 0 fixing the range), B's weights all
             positive: truncating a / scale loses 3/4 of a step a term where rounding gains 1/4
  pairs      uint8 x int8: A all equal (q = 255 throughout) and B's raw extremes in int16-saturating pairs
  wide       magnitudes 2**-10 .. 2**10 of both signs, off the grid (qerr > 0: the reading's allowance)
  random     uniform in [-4, 4], off the grid
  zeros      A all zeros: DynamicQuantizeLinear's scale is 0 (undefined: the probe)
  nan        one NaN in A (undefined: the probe)
B, its zero points and scales as MatMulIntegerToFloat's (core.py); bias the size of the product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.matmul_integer_to_float import core
from generator.family import Family, split
from generator.reference import dynamic_quantize_matmul as ref

FAMILY = Family("dynamic_quantize_matmul", "DynamicQuantizeMatMul", ref.SPEC_FILE, domain=ref.DOMAIN)
OPSET = core.OPSET
U8, I8 = "uint8", "int8"
STEP = 2.0 ** -4
REASON = ("dot-product bound (TOSA's dot-product compliance mode) around the product of DynamicQuantizeLinear(A) "
          "[READING_A_QUANT]: abs_bound 2 * (K + 2 (+1 with a bias)) float32 roundings (a float sum, the scales' "
          "product), plus qerr = sum_k |a_k - dequantized a_k| * |w_k| (0 for A on the quantization grid)")


@dataclass(frozen=True)
class Config:
    what: str
    a_shape: tuple = (3, 5)
    b_shape: tuple = (5, 4)
    b_type: str = I8
    b_zp: str = "tensor"  # absent | tensor | one | column
    b_scale: str = "tensor"  # tensor | one | column
    bias: bool = False
    kinds: tuple = ()  # () for kinds_for(self)
    dims: dict | None = None

    @property
    def k(self) -> int:
        return self.a_shape[-1]

    @property
    def n(self) -> int:
        return self.b_shape[-1]

    def shape_of(self, name: str):
        if name in ("A", "B"):
            return self.a_shape if name == "A" else self.b_shape
        if name == "bias":
            return (self.n,)
        form = self.b_scale if name == "b_scale" else self.b_zp
        return {"tensor": (), "absent": (), "one": (1,), "column": (self.n,)}[form]

    @property
    def slots(self) -> list[str]:
        given = {"b_zero_point": self.b_zp != "absent", "bias": self.bias}
        return [n for n in ref.INPUTS if given.get(n, True)]

    def type_of(self, name: str) -> str:
        return self.b_type if name in ("B", "b_zero_point") else "float"

    @property
    def params(self) -> dict:
        return {"what": self.what, "a_shape": list(self.a_shape), "b_shape": list(self.b_shape),
                "b_type": self.b_type, "b_zp": self.b_zp, "b_scale": self.b_scale, "bias": self.bias}


def model(cfg: Config, shapes: dict | None = None, types: dict | None = None, y_shape="infer"):
    """The one-node model (as MatMulIntegerToFloat's: core.node_model)."""
    shapes = {**{n: cfg.shape_of(n) for n in cfg.slots}, **(cfg.dims or {}), **(shapes or {})}
    types = {**{n: cfg.type_of(n) for n in cfg.slots}, **(types or {})}
    names = [n if n in cfg.slots else "" for n in ref.INPUTS]
    if y_shape == "infer":
        y_shape = None if cfg.dims else np.matmul(np.zeros(cfg.a_shape), np.zeros(cfg.b_shape)).shape
    return core.node_model(FAMILY.op, names, [(n, types[n], shapes[n]) for n in cfg.slots], "float", y_shape)


def _on_grid(q: np.ndarray, zp: int) -> np.ndarray:
    return ((q.astype(np.float64) - zp) * STEP).astype(np.float32)


def draw_a(cfg: Config, s: sampling.Stream, kind: str) -> np.ndarray:
    """A of the given kind (module docstring)."""
    shape, size = cfg.a_shape, int(np.prod(cfg.a_shape))
    if kind in ("zeros", "nan"):
        a = np.zeros(shape, np.float32)
        if kind == "nan" and size:
            a.reshape(-1)[s.integers(0, size - 1)] = np.nan
        return a
    if kind == "wide":
        mag = 2.0 ** s.integers(-10, 10, shape).astype(np.float64) * (1 + s.integers(0, 1023, shape) / 1024)
        return (np.where(s.integers(0, 1, shape) == 1, -mag, mag)).astype(np.float32)
    if kind == "random":
        return (s.integers(-2**20, 2**20, shape).astype(np.float64) * 2.0 ** -18).astype(np.float32)
    if kind == "pairs":
        return np.full(shape, 255 * STEP, np.float32)  # q = 255 throughout, the scale STEP exactly
    lo, hi, zp = {"grid": (0, 255, s.integers(1, 254)), "positive": (1, 255, 0), "negative": (0, 254, 255),
                  "truncated": (0, 253, 0)}[kind]
    if kind == "grid":  # rows after the first in a narrower band around the zero point
        q = s.integers(max(0, zp - 40), min(255, zp + 40), shape)
    else:
        q = s.integers(lo, hi, shape)
    flat = q.reshape(-1)
    if size >= 2:  # the range's ends present: the scale is u exactly
        flat[0], flat[1] = (0, 255) if kind in ("grid", "truncated") else (lo, hi)
    a = _on_grid(q, zp)
    if kind == "truncated":
        a = ((q.astype(np.float64) + np.where(np.isin(np.arange(size), (0, 1)).reshape(shape), 0, 0.75)) *
             STEP).astype(np.float32)
    return a


def draw(cfg: Config, s: sampling.Stream, kind: str) -> list[np.ndarray]:
    """One data set of the given kind, in cfg.slots order."""
    bt = dtypes.get(cfg.b_type)
    nz = cfg.n if cfg.b_zp == "column" else 1
    if kind == "truncated":  # b_zero_point low enough that b in zb + 1 .. zb + 60 fits B's type
        zb = np.array(s.sample(range(bt.int_min, bt.int_max - 60), max(nz, 1)), bt.np_dtype)
    else:
        zb = core.zero_points(s, cfg.b_type, max(nz, 1), "random")
    zb = core.shaped(zb, cfg.b_zp)
    zb_eff = zb if cfg.b_zp != "absent" else np.zeros((), np.int64)
    if kind == "pairs":
        b = np.broadcast_to(core.pair_blocks(cfg.b_type, cfg.k, cfg.n), cfg.b_shape).astype(bt.np_dtype)
    elif kind == "truncated":  # b > b_zero_point: every weight positive
        b = (np.asarray(zb_eff, np.int64) + 1 + s.integers(0, 59, cfg.b_shape)).astype(bt.np_dtype)
    else:
        b = s.integers(bt.int_min, bt.int_max, cfg.b_shape, dtype=bt.np_dtype)
    sb = core.shaped(core.scales(s, max(cfg.n, 1) if cfg.b_scale == "column" else 1, "float", 6, 10), cfg.b_scale)
    a = draw_a(cfg, s, kind)
    data = {"A": a, "B": np.asarray(b), "b_scale": sb, "b_zero_point": zb}
    if cfg.bias:
        data["bias"] = core.bias(s, cfg.n, "float", max(cfg.k, 1) * 8 * 128 * float(np.max(sb)))
    return [data[n] for n in cfg.slots]


def kinds_for(cfg: Config) -> tuple[str, ...]:
    kinds = ["grid", "positive", "negative", "truncated", "wide", "random"]
    if cfg.b_type == I8:
        kinds.append("pairs")
    return tuple(kinds)


def datasets(cfg: Config, seed: int) -> list[list[np.ndarray]]:
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_{cfg.what}"))
    return [draw(cfg, s, kind) for kind in (cfg.kinds or kinds_for(cfg))]


def as_reference(cfg: Config, dataset: list) -> list:
    given = dict(zip(cfg.slots, dataset))
    return [given.get(n) for n in ref.INPUTS]


def meta(cfg: Config, seed: int, flags: list[str], k: int | None = None, **extra) -> dict:
    k = cfg.k if k is None else k
    spec = core.dot_spec(FAMILY.name, cfg.slots, "float", k + 2 + int(cfg.bias), REASON)
    return FAMILY.meta(opset=OPSET, clause=ref.CLAUSE, compare=spec, flags=flags, seed=seed, params=cfg.params,
                       reading=ref.READING_A_QUANT, **extra)


def dataset_cases(cfg: Config, sets: list, seed: int, flags: list[str], **extra) -> Iterator[Case]:
    """The node case of the data sets the reference defines, and the probe case of the others."""
    outcomes = [ref.dynamic_quantize_matmul(as_reference(cfg, d)) for d in sets]
    k = max((np.shape(d[0])[-1] for d in sets), default=cfg.k)
    yield from split(f"{FAMILY.prefix}_{cfg.what}", sets, outcomes, lambda d: model(cfg),
                     meta(cfg, seed, flags, k=k, **extra))


def cases(cfg: Config, seed: int = 0, flags: tuple = ("edge",)) -> Iterator[Case]:
    """The node case of cfg (test_dynamicquantizematmul_<what>) and its probe."""
    yield from dataset_cases(cfg, datasets(cfg, seed), seed, list(flags))
