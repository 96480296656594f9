"""A MatMulIntegerToFloat configuration (Config), its one-node model, its drawn data sets and its cases.

Data sets by kind (kinds_for picks those a configuration needs to kill every fault model of its group):
  random   zero points drawn (nonzero, distinct per column / k), A and B uniform over their types, scales off
           float16's grid (core.scales; float32 products of two such often float16 subnormals), bias drawn
  ends     the zero points at their types' ends (data set i: the corners in turn)
  far      zero points at the ends, every element at the far end from its zero point: products of 255 * 255
  pairs    uint8 x int8: a = 255, B's raw extremes in blocks of 4 along K (core.pair_blocks): int16 pairs saturate
and, for a float32 T3 with a per-tensor A side, a companion case <what>_swamp (<what>_swamp_random for a random
configuration; swamp_case, A and B of cfg's ranks:
one group): dyadic scales, K - 64
products of the largest magnitude (a partial sum past 2**24 units), then 64 products of 1: a float32 sum in K
order drops them all, 64 units beyond the bound's 2 * (3 + bias) roundings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.matmul_integer_to_float import core
from generator.family import Family, split
from generator.reference import matmul_integer_to_float as ref

FAMILY = Family("matmul_integer_to_float", "MatMulIntegerToFloat", ref.SPEC_FILE, domain=ref.DOMAIN)
OPSET = core.OPSET
U8, I8 = "uint8", "int8"
REASON = ("dot-product bound (TOSA's dot-product compliance mode): the integer operands are exact; a per-tensor A "
          "side leaves an exact integer sum and abs_bound 2 * (3 (+1 with a bias)) T3 roundings (the sum's "
          "conversion, a_scale * b_scale, the product, the bias addition); a per-column-of-A side dequantizes "
          "first: 2 * (K + 2 (+1)) roundings")


@dataclass(frozen=True)
class Config:
    what: str
    a_shape: tuple = (3, 5)
    b_shape: tuple = (5, 4)
    a_type: str = U8
    b_type: str = I8
    t3: str = "float"
    a_zp: str = "tensor"  # absent | tensor (scalar) | one ([1]) | k ([K])
    a_scale: str = "tensor"  # tensor | one | k
    b_zp: str = "tensor"  # absent | tensor | one | column ([N])
    b_scale: str = "tensor"  # tensor | one | column
    bias: bool = False
    kinds: tuple = ()  # () for kinds_for(self)
    dims: dict | None = None  # declared shapes with symbolic dims by input name (data sets of several sizes)

    @property
    def k(self) -> int:
        return self.a_shape[-1]

    @property
    def n(self) -> int:
        return self.b_shape[-1]

    def shape_of(self, name: str):
        form = {"a_scale": self.a_scale, "a_zero_point": self.a_zp, "b_scale": self.b_scale,
                "b_zero_point": self.b_zp}.get(name)
        if name in ("A", "B"):
            return self.a_shape if name == "A" else self.b_shape
        if name == "bias":
            return (self.n,)
        return {"tensor": (), "absent": (), "one": (1,), "k": (self.k,), "column": (self.n,)}[form]

    @property
    def slots(self) -> list[str]:
        """The node inputs given, in order (the model's graph inputs)."""
        given = {"a_zero_point": self.a_zp != "absent", "b_zero_point": self.b_zp != "absent", "bias": self.bias}
        return [n for n in ref.INPUTS if given.get(n, True)]

    def type_of(self, name: str) -> str:
        return {"A": self.a_type, "a_zero_point": self.a_type, "B": self.b_type,
                "b_zero_point": self.b_type}.get(name, self.t3)

    @property
    def params(self) -> dict:
        return {"what": self.what, "a_shape": list(self.a_shape), "b_shape": list(self.b_shape),
                "a_type": self.a_type, "b_type": self.b_type, "t3": self.t3, "a_zp": self.a_zp,
                "a_scale": self.a_scale, "b_zp": self.b_zp, "b_scale": self.b_scale, "bias": self.bias}

    @property
    def per_k(self) -> bool:
        return "k" in (self.a_zp, self.a_scale)


def model(cfg: Config, shapes: dict | None = None, types: dict | None = None, y_shape="infer"):
    """The one-node model, the given inputs as graph inputs (an omitted optional one before a given one is "");
    shapes / types override the declared ones by name (negatives)."""
    shapes = {**{n: cfg.shape_of(n) for n in cfg.slots}, **(cfg.dims or {}), **(shapes or {})}
    types = {**{n: cfg.type_of(n) for n in cfg.slots}, **(types or {})}
    names = [n if n in cfg.slots else "" for n in ref.INPUTS]
    if y_shape == "infer":
        y_shape = None if cfg.dims else np.matmul(np.zeros(cfg.a_shape), np.zeros(cfg.b_shape)).shape
    return core.node_model(FAMILY.op, names, [(n, types[n], shapes[n]) for n in cfg.slots], types["a_scale"],
                           y_shape)


def _scale_exponents(cfg: Config, which: str) -> tuple[int, int]:
    """float32: a 2**-4 .. 2**-8, b 2**-6 .. 2**-10 (products 2**-10 .. 2**-18); float16: both 2**-4 .. 2**-6
    (products >= 2**-12, float16 normals; far sums stay below 65504)."""
    if cfg.t3 == "float16":
        return 4, 6
    return (4, 8) if which == "a" else (6, 10)


def draw(cfg: Config, s: sampling.Stream, kind: str, i: int = 0) -> list[np.ndarray]:
    """One data set of the given kind (module docstring), in cfg.slots order."""
    at, bt = dtypes.get(cfg.a_type), dtypes.get(cfg.b_type)
    ka, kb = cfg.shape_of("a_zero_point"), cfg.shape_of("b_zero_point")
    zp_how = "random" if kind == "random" else "ends"
    za = core.zero_points(s, cfg.a_type, max(1, int(np.prod(ka))), zp_how, (0, 1, 0, 1)[i % 4])
    zb = core.zero_points(s, cfg.b_type, max(1, int(np.prod(kb))), zp_how, (0, 1, 1, 0)[i % 4])
    za, zb = core.shaped(za, cfg.a_zp), core.shaped(zb, cfg.b_zp)
    za_eff = za if cfg.a_zp != "absent" else None
    zb_eff = zb if cfg.b_zp != "absent" else None
    if kind == "far":
        a = np.broadcast_to(core.far(cfg.a_type, za_eff), cfg.a_shape).astype(at.np_dtype)
        b = np.broadcast_to(core.far(cfg.b_type, zb_eff), cfg.b_shape).astype(bt.np_dtype)
    elif kind == "pairs":
        a = np.full(cfg.a_shape, at.int_max, at.np_dtype)
        b = np.broadcast_to(core.pair_blocks(cfg.b_type, cfg.k, cfg.n), cfg.b_shape).astype(bt.np_dtype)
    else:
        a = s.integers(at.int_min, at.int_max, cfg.a_shape, dtype=at.np_dtype)
        b = s.integers(bt.int_min, bt.int_max, cfg.b_shape, dtype=bt.np_dtype)
    lo, hi = _scale_exponents(cfg, "a")
    sa = core.shaped(core.scales(s, max(cfg.k, 1) if cfg.a_scale == "k" else 1, cfg.t3, lo, hi), cfg.a_scale)
    lo, hi = _scale_exponents(cfg, "b")
    sb = core.shaped(core.scales(s, max(cfg.n, 1) if cfg.b_scale == "column" else 1, cfg.t3, lo, hi), cfg.b_scale)
    data = {"A": np.asarray(a), "B": np.asarray(b), "a_scale": sa, "b_scale": sb, "a_zero_point": za,
            "b_zero_point": zb}
    if cfg.bias:
        typical = max(cfg.k, 1) * 128 * 128 * float(np.max(sa)) * float(np.max(sb))
        data["bias"] = core.bias(s, cfg.n, cfg.t3, typical)
    return [data[n] for n in cfg.slots]


def kinds_for(cfg: Config) -> tuple[str, ...]:
    """random (zero points, scales, bias, column faults), ends and far (sums past int16 and float16's range),
    pairs for uint8 x int8 with a per-tensor A side (int16 pair saturation)."""
    kinds = ["random", "ends", "far"]
    if (cfg.a_type, cfg.b_type) == (U8, I8) and not cfg.per_k:
        kinds.append("pairs")
    return tuple(kinds)


def datasets(cfg: Config, seed: int) -> list[list[np.ndarray]]:
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_{cfg.what}"))
    return [draw(cfg, s, kind, i) for i, kind in enumerate(cfg.kinds or kinds_for(cfg))]


def terms(cfg: Config, k: int | None = None) -> int:
    """The roundings the bound allows (REASON)."""
    k = cfg.k if k is None else k
    return (k + 2 if cfg.per_k else 3) + int(cfg.bias)


def as_reference(cfg: Config, dataset: list) -> list:
    """A data set in cfg.slots order as the reference's inputs (None where omitted)."""
    given = dict(zip(cfg.slots, dataset))
    return [given.get(n) for n in ref.INPUTS]


def meta(cfg: Config, seed: int, flags: list[str], k: int | None = None, **extra) -> dict:
    probe = [np.zeros(cfg.shape_of(n)) if n in cfg.slots else None for n in ref.INPUTS]
    reading = ref.readings(probe[2], probe[4], probe[3], probe[5], cfg.k if k is None else k)
    spec = core.dot_spec(FAMILY.name, cfg.slots, cfg.t3, terms(cfg, k), REASON)
    return FAMILY.meta(opset=OPSET, clause=ref.CLAUSE, compare=spec, flags=flags, seed=seed, params=cfg.params,
                       reading=reading, **extra)


def dataset_cases(cfg: Config, sets: list, seed: int, flags: list[str], **extra) -> Iterator[Case]:
    """The node case of the data sets the reference defines, and the probe case of the others."""
    outcomes = [ref.matmul_integer_to_float(as_reference(cfg, d)) for d in sets]
    k = max((np.shape(d[0])[-1] for d in sets), default=cfg.k)
    yield from split(f"{FAMILY.prefix}_{cfg.what}", sets, outcomes, lambda d: model(cfg),
                     meta(cfg, seed, flags, k=k if cfg.dims else None, **extra))


def swamp_case(cfg: Config, seed: int, flags: list[str]) -> Iterator[Case]:
    """The companion case <what>_swamp (module docstring): one row of A, N columns alike, dyadic scales."""
    at, bt = dtypes.get(cfg.a_type), dtypes.get(cfg.b_type)
    za = at.int_min if cfg.a_zp != "absent" else 0
    zb = bt.int_min if cfg.b_zp != "absent" else 0
    big_a = (at.int_max if at.int_max - za >= za - at.int_min else at.int_min)
    big_b = (bt.int_max if bt.int_max - zb >= zb - bt.int_min else bt.int_min)
    p = abs((big_a - za) * (big_b - zb))
    n_big = -(-(2**24) // p) + 4
    n_big += -n_big % 4  # the partial sum n_big * p a multiple of 4 in [2**24, 2**25): +1 is a tie, kept even
    k, n = n_big + 64, max(2, min(cfg.n, 3))
    # a random configuration's companion is random too: its name ends so (the seed changes only *_random cases)
    what = f"{cfg.what.removesuffix('_random')}_swamp" + ("_random" if cfg.what.endswith("_random") else "")
    big = replace(cfg, what=what, a_shape=cfg.a_shape[:-2] + (1, k), b_shape=cfg.b_shape[:-2] + (k, n),
                  kinds=(), dims=None)  # B's rank kept: its group is cfg's
    a = np.full(big.a_shape, za + 1, np.int64)
    a[..., :n_big] = big_a
    b = np.full(big.b_shape, zb + 1, np.int64)
    b[..., :n_big, :] = big_b
    vec = {"tensor": lambda v, m: np.array(v), "one": lambda v, m: np.array([v]), "k": lambda v, m: np.full(m, v),
           "column": lambda v, m: np.full(m, v)}
    data = {"A": a.astype(at.np_dtype), "B": b.astype(bt.np_dtype),
            "a_scale": vec[big.a_scale](2.0 ** -4, k).astype(np.float32),
            "b_scale": vec[big.b_scale](2.0 ** -5, n).astype(np.float32),
            "a_zero_point": vec.get(big.a_zp, vec["tensor"])(za, k).astype(at.np_dtype),
            "b_zero_point": vec.get(big.b_zp, vec["tensor"])(zb, n).astype(bt.np_dtype),
            "bias": np.full(n, 0.5, np.float32)}
    yield from dataset_cases(big, [[data[s] for s in big.slots]], seed, flags)


def cases(cfg: Config, seed: int = 0, flags: tuple = ("edge",)) -> Iterator[Case]:
    """The node case of cfg (test_matmulintegertofloat_<what>), its probe, and its swamp companion where a
    float32 K-order sum can differ (float32 T3, per-tensor A side, K > 0)."""
    yield from dataset_cases(cfg, datasets(cfg, seed), seed, list(flags))
    if cfg.t3 == "float" and not cfg.per_k and cfg.k > 0 and not cfg.dims:
        yield from swamp_case(cfg, seed, list(flags))
