"""The CastLike family: CastLike(input, target_type) casts input to target_type's element type, with Cast's
rules and attributes (generator/reference/cast_like.py). Cast's family checks those rules at length; this one
checks that CastLike applies them, that it takes the type (and nothing else) from target_type, and that it
reads saturate / round_mode as Cast does.

One variant per (from, to, saturate, round_mode) pair of types CastLike accepts, at the first CastLike opset
accepting both (onnx.defs CastLike-15..25: CastLike has no float6). For each, Cast's case functions
(generator/families/cast.py) with fewer data than Cast's suite: the edge catalogue (strings with extreme
exponents apart), one probe of its undefined elements, the FNUZ Inf row once per semantics, the rows that state
the sign of NaN, and the witnesses of Cast's fault models (generator/witness/catalogue/cast_like.json, Cast's
catalogue group by group: generator/witness/cast_like.py). No exhaustive, random or shape cases but in the
exhaustive profile (exhaustive narrow sources and draws).

target_type is a tensor of the target type with a shape and values drawn from the case's seed (a scalar, an
empty tensor or a 2-d / 3-d one): never input's shape, so a backend that reads it for more than its type fails.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import onnx

from generator import dtypes, sampling
from generator.case import Case, node_model
from generator.dtypes import DType
from generator.families import cast
from generator.families.cast import Context, Form, Variant
from generator.family import Catalogue, Family

FAMILY = Family("cast_like", "CastLike", "Cast.txt")
GRID = cast.GRID
OPSETS = tuple(sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == FAMILY.op}))
MIN_OPSET = OPSETS[0]
NEWEST = OPSETS[-1]

PROFILES = {
    "quick": dict(cast.PROFILES["quick"]),
    "default": dict(cast.PROFILES["quick"]),  # edges and witnesses
    "exhaustive": dict(cast.PROFILES["default"], shapes=False),
}

# shapes of target_type: none is a 1-d input's, whatever its length
TARGET_SHAPES = ((), (0,), (2, 3), (3, 1, 2))
TARGET_TEXTS = ("", "0", "1.5", "NaN", "text")


def _accepted(opset: int) -> tuple[set[str], set[str]]:
    """The type names CastLike-<opset> accepts for input (T1) and target_type / output (T2)."""
    schema = onnx.defs.get_schema(FAMILY.op, opset)
    by = {c.type_param_str: {t[len("tensor("):-1] for t in c.allowed_type_strs} for c in schema.type_constraints}
    return by["T1"], by["T2"]


def first_opset(src: DType, to: DType) -> int | None:
    """The first CastLike opset accepting src as input and `to` as target type (None: none does)."""
    for opset in OPSETS:
        t1, t2 = _accepted(opset)
        if src.name in t1 and to.name in t2:
            return opset
    return None


def variants(max_opset: int) -> Iterator[Variant]:
    """Cast's variants (generator.families.cast.attribute_options) of every pair CastLike accepts."""
    types = dtypes.cast_types(cast.NEWEST_CAST)
    for src in types:
        for to in types:
            opset = first_opset(src, to)
            if opset is not None and opset <= max_opset:
                yield from (Variant(src, to, sat, mode, opset) for sat, mode in cast.attribute_options(to))


def target_type(to: DType, seed: int) -> np.ndarray:
    """An arbitrary tensor of `to`: a shape of TARGET_SHAPES and any bit patterns, from the seed."""
    s = sampling.Stream(seed)
    shape = TARGET_SHAPES[s.integers(0, len(TARGET_SHAPES) - 1)]
    n = int(np.prod(shape))
    if to.kind == "string":
        return np.array([s.choice(TARGET_TEXTS) for _ in range(n)], dtype=object).reshape(shape)
    return to.from_bits(s.bits(1 if to.kind == "bool" else to.bits, n)).reshape(shape)


def _model(v: Variant, inputs: list[np.ndarray], opset: int) -> onnx.ModelProto:
    x, target = inputs
    attrs = {k: a for k, a in v.attrs.items() if k != "to"}  # the type comes from target_type
    return node_model(FAMILY.op, [("input", v.src, x.shape), ("target_type", v.to, target.shape)],
                      [("output", v.to, x.shape)], attrs, opset)


CASTLIKE = Form(FAMILY, _model, lambda v, x, seed: [x, target_type(v.to, seed)])

# Cast's case functions that apply here, in Cast's order
CATALOGUE = Catalogue()
for _fn in (cast.data_sets, cast.fnuz_inf, cast.negative_nan, cast.witness):
    CATALOGUE(_fn)


def work(profile: str = "default", seed: int = 0, max_opset: int = NEWEST) -> list[Callable[[], Iterator[Case]]]:
    from generator import witness

    groups = witness.load(FAMILY.name)["groups"] if profile != "quick" else {}
    return cast.units(CASTLIKE, CATALOGUE, variants(max_opset), Context(PROFILES[profile], seed, max_opset, groups))


def hunt(max_opset: int = NEWEST):
    """Cast's hunt (one slice per variant, inputs biased to where its fault models part from the reference) as
    CastLike nodes; a target_type of a seeded shape and bits, which must not matter."""
    return cast.hunt(max_opset, CASTLIKE, variants) if max_opset >= MIN_OPSET else None


def rebuild(args: dict):
    """The hunt example `args` describes, as CastLike (cast.rebuild)."""
    return cast.rebuild(args, CASTLIKE, first_opset)
