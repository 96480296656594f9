"""The ConvertPromoteTypes family (OpenVINO ConvertPromoteTypes-14, ../shared/spec/ConvertPromoteTypes-14.txt).

Every ordered pair of the element types the spec's rules cover x promote_unsafe x pytorch_scalar_promotion x
input ranks (dimensioned / scalar on each side), plus u64 + signed with several u64_integer_promotion_target
values, plus every example of the spec text with the spec's result.

  <name>           node/: both inputs converted to the common type (values of Cast); case.json "common_type"
  <name>_random    node/: seeded random values of the types wider than 8 bits (both inputs dimensioned)
  <name>[_random]_probe  probe/: the elements that conversion leaves undefined (outside the common type's range)
  <name>           negative/: safe mode must refuse the pair (phase prepare); only a native implementation
                   can, so case.json "native" makes every other backend report it not applicable

Names: test_convert_promote_types_<type 0>_<type 1>_<dim|scalar>_<dim|scalar>_<safe|unsafe>[_pytorch]
[_target_<t>], and test_convert_promote_types_example_<what> for the spec's examples. The promotion table is
written with the suite (extra_files). The model is one node ConvertPromoteTypes (domain org.openvinotoolkit, version 14) and a
model-local function of that name: two Casts to the common type (in a negative case, to the type unsafe mode
gives), so ONNX backends can run the value part. A scalar input gets one data set per value it takes.

`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py): one group and one data set per example,
built as the cases above, biased to the groups and values where the fault models part from the reference.

Expected values come from generator.reference.convert_promote_types (Cast: generator.reference.cast) only:
its Outcome per data set, which generator.family.split turns into the node case and the probe (the family
contract, generator/family.py); a pair safe mode refuses raises there and is a negative case instead.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import onnx
from onnx import helper

from generator import axes, dtypes, sampling
from generator.case import Case, node_model
from generator.dtypes import DType
from generator.family import Catalogue, Family, split, split_elements
from generator.reference import cast as cast_ref
from generator.reference import convert_promote_types as ref

FAMILY = Family("convert_promote_types", ref.OP_TYPE, ref.SPEC_FILE, ref.DOMAIN,
                name_prefix="test_convert_promote_types")
GRID = ("input_0", "input_1", ("promote_unsafe", "pytorch_scalar_promotion"))  # the report's grid
MIN_OPSET = 13  # ai.onnx opset of the function body: Cast-13 has bfloat16; newer types need newer Casts
FUNCTION_IR = 9  # model-local functions: IR 8; their attributes with default values: IR 9

PROFILES = {
    # all8: every bit pattern of a <= 8-bit type in a dimensioned input; random: seeded draws for wider types;
    # scalars: how many values (data sets) a scalar input takes
    # matrix: "all" the shapes x attributes of every pair, or "reduced" (dim_dim without and scalar_dim with
    # pytorch_scalar_promotion, both modes: the other shapes decide like these)
    "quick": dict(all8=False, random=0, scalars=2, matrix="reduced"),
    "default": dict(all8=True, random=24, scalars=3, matrix="all"),
    "exhaustive": dict(all8=True, random=256, scalars=5, matrix="all"),
}

# input ranks: 0 a scalar; a dimensioned input_0 is 1-d, a dimensioned input_1 2-d (shape (1, n))
SHAPES = {"dim_dim": (1, 2), "scalar_dim": (0, 2), "dim_scalar": (1, 0), "scalar_scalar": (0, 0)}
# u64 + signed, unsafe: targets beside the default f32 (float and integer, wider and narrower)
U64_TARGETS = ("f64", "f16", "bf16", "f8e4m3", "i64", "u64", "i32")

EXACT = {"mode": "exact", "reason": "Cast defines one result for every value inside the common type's range"}
NATIVE = {"ops": [f"{FAMILY.domain}::{FAMILY.op}"],
          "reason": "only a native ConvertPromoteTypes decides the common type; the model's function body (two "
                    "Casts) cannot refuse a pair"}


@dataclass(frozen=True)
class Variant:
    t0: DType
    t1: DType
    ranks: tuple[int, int]  # 0: scalar; 1 / 2: dimensioned
    unsafe: bool
    pytorch: bool
    target: str = ref.DEFAULT_TARGET
    name: str = ""  # set by the constructors below
    written: tuple[str, ...] | None = None  # attributes the node carries (None: all three)
    shapes: tuple | None = None  # dimensioned shapes to use instead of the value counts (spec examples)

    @property
    def options(self) -> dict:
        """The attributes as keyword arguments of the reference (ref.decide, ref.convert_promote_types)."""
        return {"promote_unsafe": self.unsafe, "pytorch_scalar_promotion": self.pytorch,
                "u64_integer_promotion_target": self.target}

    @property
    def decision(self) -> ref.Decision:
        return ref.decide(self.t0, self.t1, *self.ranks, **self.options)

    @property
    def unsafe_common(self) -> DType:
        return ref.common_type(self.t0, self.t1, *self.ranks, **dict(self.options, promote_unsafe=True))

    @property
    def attrs(self) -> dict:
        every = {"promote_unsafe": int(self.unsafe), "pytorch_scalar_promotion": int(self.pytorch),
                 "u64_integer_promotion_target": self.target}
        return {k: x for k, x in every.items() if self.written is None or k in self.written}

    @property
    def params(self) -> dict:
        shape = "_".join("scalar" if r == 0 else "dim" for r in self.ranks)
        return {"input_0": self.t0.name, "input_1": self.t1.name, "shapes": shape,
                "promote_unsafe": int(self.unsafe), "pytorch_scalar_promotion": int(self.pytorch),
                "u64_integer_promotion_target": self.target,
                "attributes": sorted(self.attrs)}


def variant_name(t0: DType, t1: DType, shapes: str, unsafe: bool, pytorch: bool,
                 target: str = ref.DEFAULT_TARGET) -> str:
    """test_convert_promote_types_<type 0>_<type 1>_<shapes>_<safe|unsafe>[_pytorch][_target_<t>]"""
    return (f"{FAMILY.prefix}_{dtypes.short(t0)}_{dtypes.short(t1)}_{shapes}_{'unsafe' if unsafe else 'safe'}"
            + ("_pytorch" if pytorch else "") + (f"_target_{target}" if target != ref.DEFAULT_TARGET else ""))


def matrix_variants() -> Iterator[Variant]:
    """Every ordered pair x promote_unsafe x pytorch_scalar_promotion x ranks."""
    for t0 in ref.spec_types():
        for t1 in ref.spec_types():
            yield from pair_variants(t0, t1)


def pair_variants(t0: DType, t1: DType, matrix: str = "all") -> Iterator[Variant]:
    for shape, (r0, r1) in SHAPES.items():
        for unsafe in (False, True):
            for pytorch in (False, True):
                if matrix == "reduced" and (shape, pytorch) not in (("dim_dim", False), ("scalar_dim", True)):
                    continue
                yield Variant(t0, t1, (r0, r1), unsafe, pytorch, name=variant_name(t0, t1, shape, unsafe, pytorch))


def target_variants() -> Iterator[Variant]:
    """u64 with each signed integer, both orders, for each u64_integer_promotion_target of U64_TARGETS."""
    u64 = dtypes.get("uint64")
    for target in U64_TARGETS:
        for s in ref.spec_types():
            if s.kind != "int":
                continue
            for t0, t1 in ((u64, s), (s, u64)):
                yield Variant(t0, t1, (1, 2), True, False, target,
                              name=variant_name(t0, t1, "dim_dim", True, False, target))


# The examples of the spec text: (what, input 0, input 1, ranks, attributes, the spec's result or None for
# "exceptions ... when promote_unsafe will be set to false"). Attributes absent are the defaults.
SPEC_EXAMPLES = (
    ("int8_float32", "i8", "f32", (1, 1), {}, "f32"),
    ("int32_uint8", "i32", "u8", (1, 1), {}, "i32"),
    ("float16_int64", "f16", "i64", (1, 1), {"promote_unsafe": True}, "f16"),
    ("float16_int64_safe", "f16", "i64", (1, 1), {}, None),
    ("float64_uint64", "f64", "u64", (1, 1), {"promote_unsafe": True}, "f64"),
    ("float64_uint64_safe", "f64", "u64", (1, 1), {}, None),
    ("int8_uint8", "i8", "u8", (1, 1), {"promote_unsafe": True}, "i16"),
    ("int8_uint8_safe", "i8", "u8", (1, 1), {}, None),
    ("float16_bfloat16", "f16", "bf16", (1, 1), {"promote_unsafe": True}, "f32"),
    ("float16_bfloat16_safe", "f16", "bf16", (1, 1), {}, None),
    ("float8e4m3fn_float8e5m2", "f8e4m3", "f8e5m2", (1, 1), {"promote_unsafe": True}, "f16"),
    ("float8e4m3fn_float8e5m2_safe", "f8e4m3", "f8e5m2", (1, 1), {}, None),
    ("uint64_int8", "u64", "i8", (1, 1), {"promote_unsafe": True}, "f32"),
    ("uint64_int8_safe", "u64", "i8", (1, 1), {}, None),
    ("scalar_int64_dim_uint8", "i64", "u8", (0, 1), {"pytorch_scalar_promotion": True, "promote_unsafe": True}, "u8"),
    ("scalar_int64_dim_uint8_safe", "i64", "u8", (0, 1), {"pytorch_scalar_promotion": True}, None),
    ("scalar_float16_dim_int8", "f16", "i8", (0, 1), {"pytorch_scalar_promotion": True}, "f16"),
    # Example 1 / 2 / 3 (XML): the attributes written out, the shapes of the example
    ("xml1_float16_float32", "f16", "f32", ((256, 56), (3,)),
     {"promote_unsafe": False, "pytorch_scalar_promotion": False, "u64_integer_promotion_target": "f32"}, "f32"),
    ("xml2_int16_uint32", "i16", "u32", ((256, 56), (3,)),
     {"promote_unsafe": True, "pytorch_scalar_promotion": False, "u64_integer_promotion_target": "f32"}, "i64"),
    ("xml3_int16_uint64", "i16", "u64", ((256, 56), (3,)),
     {"promote_unsafe": True, "pytorch_scalar_promotion": False, "u64_integer_promotion_target": "f32"}, "f32"),
)


def example_variants() -> Iterator[tuple[Variant, str | None]]:
    for what, n0, n1, ranks, attrs, result in SPEC_EXAMPLES:
        shapes = None
        if isinstance(ranks[0], tuple):
            shapes, ranks = ranks, tuple(len(s) for s in ranks)
        v = Variant(ref.element_type(n0), ref.element_type(n1), ranks, bool(attrs.get("promote_unsafe", False)),
                    bool(attrs.get("pytorch_scalar_promotion", False)),
                    attrs.get("u64_integer_promotion_target", ref.DEFAULT_TARGET),
                    name=f"{FAMILY.prefix}_example_{what}", written=tuple(attrs), shapes=shapes)
        yield v, result


# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------
def _float_types() -> list[DType]:
    return [t for t in ref.spec_types() if t.is_float]


def _as_type(values: list, t: DType) -> np.ndarray:
    """Python numbers as elements of t (floats rounded by Cast, saturating; integers out of range dropped)."""
    if t.kind == "bool":
        return np.array(sorted({bool(v) for v in values}), dtype=bool)
    if t.is_integer:
        ints = sorted({int(v) for v in values if t.int_min <= v <= t.int_max})
        return np.array(ints, dtype=object).astype(t.np_dtype)
    outcome = cast_ref.cast_outcome(np.array([float(v) for v in values], dtype=np.float64), "double", t)
    return outcome.outputs[0][~outcome.mask()]


def _unique(a: np.ndarray, t: DType) -> np.ndarray:
    _, idx = np.unique(t.to_bits(a), return_index=True)
    return a[np.sort(idx)]


def _int_candidates() -> list[int]:
    """Integers where conversion to a float type of the spec rounds or overflows."""
    out = [0, 1, -1, 2, -2, 3, -7, 100, -100]
    for f in _float_types():
        p = f.mantissa_bits + 1  # precision: 2**p + 1 is the first integer f cannot hold
        out += [(1 << p) - 1, 1 << p, (1 << p) + 1, (1 << p) + 3]
        if f.finite_max < 2.0**64:
            fmax = int(f.finite_max)
            half_ulp = 1 << (fmax.bit_length() - 1 - f.mantissa_bits - 1)
            out += [fmax, fmax + 1, fmax + half_ulp - 1, fmax + half_ulp, fmax + half_ulp + 1]
    out += [(1 << 31), (1 << 32) - 1, (1 << 63) - (1 << 10) + 1, (1 << 63) + (1 << 40) + 1]
    return out + [-v for v in out]


def _float_candidates(t: DType) -> list[float]:
    """+-0, +-1, thirds, the type's extremes, and the boundaries of every narrower float type of the spec
    (its largest value, the tie just above it, its smallest subnormal and half of it, mantissa ties)."""
    out = [0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 1 / 3, -1 / 3, t.finite_max, -t.finite_max, t.smallest_normal,
           t.smallest_subnormal, -t.smallest_subnormal]
    for f in _float_types():
        if f == t:
            continue
        big, sub, m = f.finite_max, f.smallest_subnormal, f.mantissa_bits
        ulp = 2.0 ** (math.floor(math.log2(big)) - m)
        out += [big, big + ulp / 2, big + ulp / 2 * (1 + 2.0**-20), -(big + ulp), sub, sub / 2, -sub * 0.75,
                1 + 2.0 ** -(m + 1), 1 + 3 * 2.0 ** -(m + 1)]
    return [v for v in out if abs(v) <= t.finite_max]  # (f64's own boundaries overflow to inf: dropped)


def _specials(t: DType) -> np.ndarray:
    """+-Inf, and every NaN encoding kind of t (the NaN-payload axis, generator.axes.nan_values: quiet and
    signalling, low-bit and full payloads, both signs, from bits): converted to the common type, each is NaN
    [CPT: values as Cast, which maps NaN to NaN]."""
    vals = [np.inf, -np.inf] if t.has_inf else []
    out = np.array(vals, dtype=np.float64).astype(t.np_dtype)
    return np.concatenate([out, axes.nan_values(t)[1]])


def signalling_nan(t: DType) -> np.ndarray:
    """t's signalling NaN with the lowest payload (float32 0x7F800001: an add-and-shift to bfloat16 makes it
    Inf), else its first NaN encoding: the NaN a scalar input takes."""
    labels, x = axes.nan_values(t)
    return x[labels.index("snan_min_payload") if "snan_min_payload" in labels else 0]


def edge_values(t: DType) -> np.ndarray:
    """The value catalogue of one type: extremes (u64 max, i64 min ...), integers that float types cannot
    hold exactly, the range boundaries of the narrower types, NaN and infinities."""
    if t.kind == "bool":
        return np.array([False, True])
    if t.is_integer:
        return _unique(_as_type(_int_candidates() + [t.int_min, t.int_max, t.int_min + 1, t.int_max - 1], t), t)
    return _unique(np.concatenate([_as_type(_float_candidates(t), t), _specials(t)]), t)


def random_values(t: DType, n: int, seed: int) -> np.ndarray:
    """n seeded draws (generator.sampling): integers each (1/3 alike) uniform over the whole range, spread
    over magnitudes (log_integers: small values too, which narrower types hold) or within 15 of either
    end of the range; floats as bit patterns (every exponent, NaNs)."""
    if n == 0 or t.kind == "bool":
        return np.array([], dtype=t.np_dtype)
    s = sampling.Stream(seed)
    if t.is_integer:
        kinds = s.integers(0, 2, n)
        uniform = s.integers(t.int_min, t.int_max, n, dtype=t.np_dtype)
        spread = s.log_integers(t.int_min, t.int_max, n).astype(t.np_dtype)
        off = s.integers(0, 15, n).tolist()
        ends = np.array([t.int_max - d if top else t.int_min + d for d, top in zip(off, s.booleans(n).tolist())],
                        dtype=object).astype(t.np_dtype)
        return np.where(kinds == 0, uniform, np.where(kinds == 1, spread, ends))
    return t.from_bits(s.bits(t.bits, n))


def scalar_values(t: DType, k: int) -> np.ndarray:
    """The first k values a scalar input takes, one data set each: the largest value, one inside every
    type's range, the smallest, then a value that float types cannot hold exactly (integers) or the
    smallest subnormal (floats), then zero."""
    if t.kind == "bool":
        picks: list = [True, False]
    elif t.is_integer:
        hard = [(1 << p) + 1 for p in (53, 24, 11, 8, 4, 3) if (1 << p) + 1 <= t.int_max]
        picks = [t.int_max, 5, t.int_min] + hard[:1] + [0]
    else:
        picks = [t.finite_max, -1.5, np.nan, -t.smallest_subnormal, 0.0]
    picks = picks[:k]
    if t.is_float:
        x = cast_ref.cast_outcome(np.array(picks, dtype=np.float64), "double", t).outputs[0]
        return np.where(t.isnan(x), signalling_nan(t), x)  # the NaN-payload axis: a signalling NaN, from bits
    return np.array(picks, dtype=object).astype(t.np_dtype)


class Values:
    """Per-type values of one generation, made once (a type's values are the same in every case)."""

    def __init__(self, profile: dict, seed: int):
        self.profile, self.seed = profile, seed
        self._dim: dict[str, np.ndarray] = {}
        self._random: dict[str, np.ndarray] = {}

    def dim(self, t: DType) -> np.ndarray:
        """The edge catalogue, plus every bit pattern of a <= 8-bit type (profiles default, exhaustive)."""
        if t.name not in self._dim:
            x = edge_values(t)
            if self.profile["all8"] and t.bits <= 8 and t.kind != "bool":
                x = np.concatenate([x, t.all_values()])
            self._dim[t.name] = _unique(x, t)
        return self._dim[t.name]

    def random(self, t: DType) -> np.ndarray:
        """Seeded draws for a type wider than 8 bits (empty for narrower ones: `dim` holds all of them)."""
        if t.name not in self._random:
            n = self.profile["random"] if t.bits > 8 else 0
            x = random_values(t, n, sampling.case_seed(self.seed, f"{FAMILY.prefix}_{t.name}"))
            self._random[t.name] = _unique(x, t) if x.size else x
        return self._random[t.name]

    def scalar(self, t: DType) -> np.ndarray:
        return scalar_values(t, self.profile["scalars"])


# ---------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------
def onnx_opset(*types: DType) -> int:
    """The ai.onnx opset of the function body: the first Cast accepting every type involved."""
    return max([MIN_OPSET] + [t.cast_since for t in types])


def _dim_shape(rank: int, n: int) -> tuple:
    return (n,) if rank == 1 else (1, n)


def model(v: Variant, common: DType, shapes: tuple[tuple, tuple]) -> onnx.ModelProto:
    """The ConvertPromoteTypes node and its model-local function: two Casts to `common`."""
    opset = onnx_opset(v.t0, v.t1, common)
    sat = {"saturate": 0} if common.is_float8 else {}  # the reference converts without saturation
    body = [helper.make_node("Cast", ["input_0"], ["output_0"], to=common.onnx, **sat),
            helper.make_node("Cast", ["input_1"], ["output_1"], to=common.onnx, **sat)]
    function = helper.make_function(FAMILY.domain, FAMILY.op, ["input_0", "input_1"], ["output_0", "output_1"],
                                    body, [helper.make_opsetid("", opset)],
                                    attribute_protos=[  # the spec's defaults, for a node that leaves one out
                                        helper.make_attribute("promote_unsafe", 0),
                                        helper.make_attribute("pytorch_scalar_promotion", 0),
                                        helper.make_attribute("u64_integer_promotion_target", ref.DEFAULT_TARGET)])
    m = node_model(FAMILY.op, [("input_0", v.t0, shapes[0]), ("input_1", v.t1, shapes[1])],
                   [("output_0", common, shapes[0]), ("output_1", common, shapes[1])], v.attrs, opset,
                   domain=FAMILY.domain, extra_opsets={FAMILY.domain: ref.VERSION}, functions=[function])
    m.ir_version = max(m.ir_version, FUNCTION_IR)
    return m


def meta_args(v: Variant, d: ref.Decision, seed: int, flags: list[str], opset: int, **fixed) -> dict:
    """What the case.json metadata of v's cases holds besides compare (Family.meta's arguments); `fixed` goes
    into it too."""
    return dict(opset=opset, clause=d.clause, flags=flags, seed=seed, params=v.params, domain_version=ref.VERSION,
                **fixed)


def negative_case(v: Variant, d: ref.Decision, seed: int, flags: list[str], name: str | None = None,
                  shapes: tuple | None = None) -> Case:
    """Safe mode must refuse the pair (phase prepare) [CPT: Note under integer types]. The function body casts
    to the type unsafe mode gives; the shapes are v's (a spec example's), else three elements a dimension."""
    unsafe = v.unsafe_common
    shapes = shapes or v.shapes or tuple(() if r == 0 else _dim_shape(r, 3) for r in v.ranks)
    return FAMILY.negative(name or v.name, model(v, unsafe, shapes), [], phase="prepare", error=d.error,
                           common_type=None, unsafe_common_type=unsafe.name, native=NATIVE,
                           **meta_args(v, d, seed, flags, onnx_opset(v.t0, v.t1, unsafe)))


def cases_of(v: Variant, d: ref.Decision, name: str, datasets: list[list[np.ndarray]], seed: int,
             flags: list[str], **extra) -> Iterator[Case]:
    """The node case <name> of the data sets the reference defines, the probe <name>_probe of the others
    (generator.family.split); case.json names the common type; `extra` goes into it too."""
    common = d.common
    outcomes = [ref.convert_promote_types(*ins, v.t0, v.t1, **v.options) for ins in datasets]
    meta = FAMILY.meta(compare=dict(EXACT), **meta_args(v, d, seed, flags, onnx_opset(v.t0, v.t1, common),
                                                      common_type=common.name,
                                                      common_type_openvino=ref.element_name(common), **extra))
    return split(name, datasets, outcomes, lambda ins: model(v, common, tuple(np.shape(x) for x in ins)), meta)


def value_cases(v: Variant, d: ref.Decision, name: str, candidates: list[np.ndarray], seed: int,
                flags: list[str]) -> Iterator[Case]:
    """The node case (defined values) and the probe case (undefined ones) of a pair that has a common type.

    candidates[k]: the values of input k: one tensor if it is dimensioned, one data set per value if a scalar.
    A probe data set holds the undefined values of each input beside the defined ones of the other."""
    good, bad = [], []
    for k, (t, r, x) in enumerate(zip((v.t0, v.t1), v.ranks, candidates)):
        ok, _, undefined, _ = split_elements(x, ref.convert(x, t, d.common))
        if r:
            shape = v.shapes[k] if v.shapes and not undefined.size else _dim_shape(r, ok.size)
            good.append([ok.reshape(shape)] if ok.size else [])
            bad.append([undefined.reshape(_dim_shape(r, undefined.size))] if undefined.size else [])
        else:
            good.append([np.asarray(e).reshape(()) for e in ok])
            bad.append([np.asarray(e).reshape(()) for e in undefined])
    probes = _datasets([b or g for b, g in zip(bad, good)]) if any(bad) else []
    yield from cases_of(v, d, name, _datasets(good) + probes, seed, flags)


def _datasets(per_input: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Data sets from each input's arrays: a dimensioned input has one, a scalar one per value; the j-th
    data set takes the j-th of each (cycling the shorter)."""
    if not per_input or not all(per_input):
        return []
    n = max(len(a) for a in per_input)
    return [[a[j % len(a)] for a in per_input] for j in range(n)]


def variant_cases(v: Variant, values: Values, seed: int, flags: list[str]) -> Iterator[Case]:
    """A negative case, or the cases of the values: the catalogue (<name>), seeded random values of the wider
    types (<name>_random, both inputs dimensioned), each with its probe."""
    d = v.decision
    s = sampling.case_seed(seed, v.name)
    if d.common is None:
        yield negative_case(v, d, s, flags)
        return
    if v.shapes:  # a spec example: its shapes, filled with the defined values of the catalogue, in turn
        fill = []
        for t, shape in zip((v.t0, v.t1), v.shapes):
            x = values.dim(t)
            fill.append(np.resize(split_elements(x, ref.convert(x, t, d.common))[0], shape))
        yield from value_cases(v, d, v.name, [f.reshape(-1) for f in fill], s, flags)
        return
    both_dim = 0 not in v.ranks
    # beside a scalar, a dimensioned input holds the edge catalogue only (the dim_dim cases hold the rest)
    cands = [(values.dim(t) if both_dim else edge_values(t)) if r else values.scalar(t)
             for t, r in zip((v.t0, v.t1), v.ranks)]
    yield from value_cases(v, d, v.name, cands, s, flags)
    rnd = [values.random(t) for t in (v.t0, v.t1)]
    if both_dim and any(x.size for x in rnd):
        cands = [x if x.size else values.dim(t) for x, t in zip(rnd, (v.t0, v.t1))]
        yield from value_cases(v, d, f"{v.name}_random", cands, s, flags + ["random"])


def example_case(v: Variant, result: str | None, values: Values, seed: int) -> Iterator[Case]:
    """The cases of one example of the spec text (v), whose common type the text gives (result; None: safe mode
    refuses the pair)."""
    d = v.decision
    want = None if result is None else ref.element_type(result)
    if d.common != want:  # the reference must agree with every example of the spec text
        raise AssertionError(f"{v.name}: the reference gives {d.common}, the spec says {result}")
    yield from variant_cases(v, values, seed, ["example"])


def example_cases(values: Values, seed: int) -> Iterator[Case]:
    for v, result in example_variants():
        yield from example_case(v, result, values, seed)


# ---------------------------------------------------------------------------------------
# the catalogue: fn(values, seed, matrix) -> the cases of one thing checked, each named for it: the matrix of
# one ordered pair (<type 0>_<type 1>: its shapes x attributes, matrix "all" or "reduced" as the profile says),
# the u64_integer_promotion_target pairs, one example of the spec text each (example_<what>)
# ---------------------------------------------------------------------------------------
CATALOGUE = Catalogue(FAMILY.prefix + "_")


def _pair_entry(t0: DType, t1: DType) -> Callable[[Values, int, str], Iterator[Case]]:
    def pair(values: Values, seed: int, matrix: str) -> Iterator[Case]:
        for v in pair_variants(t0, t1, matrix):
            yield from variant_cases(v, values, seed, ["matrix"])
    return pair


for _t0 in ref.spec_types():
    for _t1 in ref.spec_types():
        CATALOGUE.add(f"{dtypes.short(_t0)}_{dtypes.short(_t1)}", _pair_entry(_t0, _t1))


@CATALOGUE
def u64_target(values: Values, seed: int, matrix: str) -> Iterator[Case]:
    """u64 beside a signed integer, unsafe, with each target of U64_TARGETS."""
    for v in target_variants():
        yield from variant_cases(v, values, seed, ["u64_target"])


for _v, _result in example_variants():
    CATALOGUE.add(_v.name.removeprefix(CATALOGUE.prefix),
                  lambda values, seed, matrix, v=_v, result=_result: example_case(v, result, values, seed))


# ---------------------------------------------------------------------------------------
# the promotion table (written with the suite)
# ---------------------------------------------------------------------------------------
ERROR_MARKS = {ref.ERR_WIDENING: "W", ref.ERR_INT_TO_FLOAT: "F", ref.ERR_U64_SIGNED: "U", ref.ERR_LOWER_RANGE: "R"}


def promotion_table() -> str:
    """Markdown: the common type of every pair, safe and unsafe, without and with pytorch_scalar_promotion."""
    types = ref.spec_types()
    names = [ref.element_name(t) for t in types]
    lines = ["# ConvertPromoteTypes-14: common types", "",
             f"Written by gen-cases from generator/reference/convert_promote_types.py ({ref.SPEC_FILE}).",
             "Rows: input_0, columns: input_1 (the table is symmetric: the rules do not depend on order).",
             f"u64_integer_promotion_target = {ref.DEFAULT_TARGET}. Errors (promote_unsafe = false): "
             + "; ".join(f"**{mark}** {reason}" for reason, mark in ERROR_MARKS.items()) + ".", ""]
    tables = [("both inputs dimensioned (or both scalars, or pytorch_scalar_promotion = false)", (1, 1), False),
              ("pytorch_scalar_promotion = true, input_0 a scalar, input_1 dimensioned", (0, 1), True)]
    for title, ranks, pytorch in tables:
        for unsafe in (False, True):
            lines += [f"## promote_unsafe = {str(unsafe).lower()}; {title}", "",
                      "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
            for t0, n0 in zip(types, names):
                cells = []
                for t1 in types:
                    d = ref.decide(t0, t1, *ranks, promote_unsafe=unsafe, pytorch_scalar_promotion=pytorch)
                    cells.append(ref.element_name(d.common) if d.common else f"**{ERROR_MARKS[d.error]}**")
                lines.append(f"| **{n0}** | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines)


TABLE_PATH = "tables/convert_promote_types.md"


def extra_files(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> dict[str, bytes]:
    """Files written into the suite beside the cases (gen-cases --check covers them)."""
    return {TABLE_PATH: promotion_table().encode("utf-8")}


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: one per catalogue entry (an ordered pair of types, the targets, an example of the
    spec), one per type for the witness cases."""
    values = Values(PROFILES[profile], seed)
    newest = onnx.defs.onnx_opset_version() if max_opset is None else max_opset
    matrix = PROFILES[profile]["matrix"]

    def keep(cases: Iterator[Case]) -> Iterator[Case]:
        return (c for c in cases if c.meta["opset"] <= newest)

    units = [lambda fn=fn: keep(fn(values, seed, matrix)) for fn in CATALOGUE.values()]
    witnesses = [lambda a=a: keep(witness_cases(a, profile, values, seed)) for a in ref.spec_types()]
    return units + witnesses


# ---------------------------------------------------------------------------------------
# witness cases: the committed catalogue generator/witness/catalogue/convert_promote_types.json (written by
# gen-cases --find-witnesses from generator/witness/convert_promote_types.py) turned into cases
# ---------------------------------------------------------------------------------------
WITNESS = "_witness"


def _in_profile(v: Variant, matrix: str) -> bool:
    """Is the variant's group generated by a profile (the reduced matrix keeps two shape / pytorch settings)?"""
    if matrix != "reduced" or v.target != ref.DEFAULT_TARGET:
        return True
    return (v.params["shapes"], v.pytorch) in (("dim_dim", False), ("scalar_dim", True))


def _matrix_inputs(v: Variant, values: Values) -> list[np.ndarray]:
    """The values each input of the group's matrix case holds (variant_cases: the edge catalogue, every
    pattern of a <= 8-bit type beside a dimensioned input, a scalar's values)."""
    both_dim = 0 not in v.ranks
    return [(values.dim(t) if both_dim else edge_values(t)) if r else values.scalar(t)
            for t, r in zip((v.t0, v.t1), v.ranks)]


def _killed_by_matrix(fault, v: Variant, common: DType, values: Values) -> bool:
    """Does a defined value of the group's matrix case already tell the value fault from the reference?"""
    from generator.reference import convert_promote_types_faults as faults

    return any(faults.differing(fault.fn.convert, x, t, common).size
               for t, x in zip((v.t0, v.t1), _matrix_inputs(v, values)))


def _union(arrays: list[np.ndarray], t: DType) -> np.ndarray:
    if not arrays:
        return np.array([], dtype=t.np_dtype)
    return _unique(np.concatenate([np.asarray(a, dtype=t.np_dtype).reshape(-1) for a in arrays]), t)


def group_witness_cases(v: Variant, found: dict, values: Values, seed: int) -> Iterator[Case]:
    """The witness cases of one group, from its catalogue entry `found` (fault name -> {how, witnesses}):

    - `<name>_witness` (node): the values on which value faults differ (those the matrix case does not
      already hold make the case exist), and a one-element dimensioned input (shape (1,)) where the
      element-count fault needs one; a scalar or one-element input takes one data set per value;
    - `<name>_witness[_<i>]` (negative): a refusal whose shapes the matrix's negative case does not have
      (a one-element dimensioned input)."""
    from generator.reference import convert_promote_types_faults as faults
    from generator.witness import convert_promote_types as W

    d = v.decision
    types = (v.t0, v.t1)
    s = sampling.case_seed(seed, v.name + WITNESS)
    negative_shapes: list[tuple] = []
    one_element = [False, False]
    value_sets: list[list[np.ndarray]] = [[], []]
    needed, kills = False, []
    for name, entry in sorted(found.items()):
        fault = faults.BY_NAME.get(name)
        if fault is None:
            continue
        for w in entry.get("witnesses", []):
            shapes = [tuple(x) for x in w["shapes"]]
            if w.get("negative"):
                if any(len(sh) and int(np.prod(sh)) == 1 for sh in shapes) and shapes not in negative_shapes:
                    negative_shapes.append(shapes)
                continue
            if fault in faults.DECISION_FAULTS:
                for k, sh in enumerate(shapes):
                    if len(sh) and int(np.prod(sh)) == 1:
                        one_element[k] = needed = True
                        kills.append(name)
                continue
            for k, t in enumerate(types):
                value_sets[k].append(W.decode(w[f"input_{k}"], t))
            kills.append(name)
            if d.common is not None and not needed and not _killed_by_matrix(fault, v, d.common, values):
                needed = True
    for i, shapes in enumerate(negative_shapes):
        yield negative_case(v, d, s, ["witness"], v.name + WITNESS + (f"_{i + 1}" if i else ""), tuple(shapes))
    if d.common is None or not needed:
        return
    common = d.common
    per_set, fixed = [None, None], [None, None]
    for k, (t, r) in enumerate(zip(types, v.ranks)):
        x = _union(value_sets[k], t)
        x = split_elements(x, ref.convert(x, t, common))[0] if x.size else x
        if r == 0 or one_element[k]:
            per_set[k] = x if x.size else np.array([W.FILLER], dtype=object).astype(t.np_dtype)
        else:
            if x.size < 2:
                x = np.concatenate([x, np.array([W.FILLER] * (2 - x.size), dtype=object).astype(t.np_dtype)])
            fixed[k] = x.reshape(_dim_shape(r, x.size))
    n = max([len(p) for p in per_set if p is not None] or [1])
    sets = []
    for j in range(n):
        ins = []
        for k in range(2):
            if per_set[k] is not None:
                ins.append(per_set[k][j % len(per_set[k])].reshape(() if v.ranks[k] == 0 else (1,)))
            else:
                ins.append(fixed[k])
        sets.append(ins)
    yield from cases_of(v, d, v.name + WITNESS, sets, s, ["witness"], witness_for=sorted(set(kills)))


def witness_cases(t0: DType, profile: str, values: Values, seed: int) -> Iterator[Case]:
    """The witness cases of the groups whose input_0 is t0 (one generation unit per type)."""
    from generator import witness
    from generator.witness import convert_promote_types as W

    catalogue = witness.load(FAMILY.name)["groups"]
    groups = W.group_variants()
    for key, entry in sorted(catalogue.items()):
        v = groups.get(key)
        if v is None or v.t0 != t0 or not _in_profile(v, PROFILES[profile]["matrix"]):
            continue
        yield from group_witness_cases(v, entry["faults"], values, seed)



# ---------------------------------------------------------------------------------------
# live hunting (generator/hunting.py): one group and one data set per example, built as the cases above
# (Variant, negative_case, value_cases), biased to where the fault models part from the reference
# ---------------------------------------------------------------------------------------
HUNT_SHAPES = ("dim_dim", "scalar_dim", "dim_scalar", "scalar_scalar")
HUNT_COUNTS = (1, 2, 3, 4, 5, 6, 1, 1)  # elements of a dimensioned input
# the type each via_* value fault rounds through first
_VIA = {"via_float64": "double", "via_float32": "float", "via_float16": "float16"}


@functools.lru_cache(maxsize=None)
def hunt_groups(max_opset: int) -> dict[str, tuple[Variant, ...]]:
    """Fault name -> the family's parameter groups (their first variants, generator.witness.convert_promote_types)
    where the fault can differ from the reference (no `equivalent` proof), within max_opset."""
    from generator.reference import convert_promote_types_faults as faults
    from generator.witness import convert_promote_types as W

    out: dict[str, list[Variant]] = {f.name: [] for f in faults.FAULTS}
    for _, v in sorted(W.group_variants(max_opset).items()):
        params = W.group_params(v)
        for f in faults.FAULTS:
            if f.applies(params) and f.equivalent(params) is None:
                out[f.name].append(v)
    return {name: tuple(vs) for name, vs in out.items()}


def _bits_of(src: DType, v) -> int:
    """The bit pattern of a Python number as an element of src (hunting.as_elements; an integer beyond src's
    range is clamped to it)."""
    from generator import hunting

    if src.is_integer and isinstance(v, int):
        v = min(max(v, src.int_min), src.int_max)
    return int(src.to_bits(hunting.as_elements([v], src)).reshape(-1)[0])


def _ties(src: DType, grid: DType, inter: DType | None):
    """Elements of src (bit patterns) at or beside the midpoint of two neighbours of float type `grid`, the
    lower one (2**m + k) * 2**(e - m) (k at both ends of the binade first; e = min_exponent - 1: the
    subnormal binade, k * 2**(min_exponent - m)), where a conversion that rounds twice goes the other way:
      integers  the midpoint + d; aimed (inter given): binades where inter's ulp is 4 or more and
                1 <= |d| < inter's half ulp there (inter rounds midpoint + d onto the midpoint), d on the
                side the midpoint's tie (to even) does not round to; else any binade and d in -3..3;
      floats    the midpoint, one ulp of src beside it, or a quarter ulp of an intermediate (f64 / f32 / f16)
                beside it; aimed: a quarter ulp of inter, on the side the tie does not round to.
    None where src holds no such value (bool, or integers all exact in grid)."""
    from hypothesis import strategies as st

    from generator import hunting

    m = grid.mantissa_bits
    k = st.sampled_from([0, (1 << m) - 1]) | st.integers(0, (1 << m) - 1)
    top = math.floor(math.log2(grid.finite_max))
    off = (lambda k: 1 if k % 2 == 0 else -1)  # midpoint + off goes up / down where the tie goes to the even k

    def midpoint(e: int, k: int) -> float:
        lower = k if e < grid.min_exponent else (1 << m) + k
        try:
            return math.ldexp(lower + 0.5, max(e, grid.min_exponent) - m)
        except OverflowError:  # f64's overflow tie
            return math.inf

    if src.is_integer:
        lo, hi = m + 1, min(src.int_max.bit_length() - 1, top)
        if inter is not None:
            lo = max(lo, inter.mantissa_bits + 2)
        if lo > hi:
            return None
        sign = st.sampled_from([1, -1] if src.int_min < 0 else [1])
        e = st.sampled_from([lo, hi]) | st.integers(lo, hi)

        def integer(e, k, d, sign):
            mid = (((1 << m) + k) << (e - m)) + (1 << (e - m - 1))
            if inter is not None:  # 1 <= |d| < inter's half ulp at the midpoint: inter rounds onto it
                d = off(k) * (1 + d % max(1, (1 << (e - inter.mantissa_bits - 1)) - 1))
            return _bits_of(src, sign * (mid + d))

        d = st.integers(0, 1 << 16) if inter is not None else st.sampled_from([0, 1, -1, 2, -2, 3, -3])
        return st.builds(integer, e, k, d, sign)
    if not src.is_float:
        return None
    if inter is not None:
        moves = st.just(("quarter", inter))
    else:
        moves = st.sampled_from([("tie", None), ("up", None), ("down", None)]
                                + [(q, dtypes.get(n)) for n in _VIA.values() for q in ("quarter", "-quarter")])

    def floating(e, k, move, sign):
        mid = midpoint(e, k)
        how, t = move
        if how in ("up", "down"):
            with np.errstate(over="ignore"):
                x = np.array(sign * mid, dtype=np.float64).astype(src.np_dtype)
            return int(src.to_bits(np.nextafter(x, np.array(np.inf if how == "up" else -np.inf,
                                                             dtype=src.np_dtype)).reshape(1))[0])
        if how == "tie" or not math.isfinite(mid):
            return _bits_of(src, sign * mid)
        side = off(k) if inter is not None else (1 if how == "quarter" else -1)
        return _bits_of(src, sign * (mid + side * hunting.ulp(mid, t) / 4))

    e = st.sampled_from([0, grid.min_exponent - 1, top]) | st.integers(grid.min_exponent - 1, top)
    return st.builds(floating, e, k, moves, st.sampled_from([1.0, -1.0]))


def _within(src: DType, to: DType):
    """Elements of src (bit patterns) that the common type holds exactly, where it is narrower than src (the
    defined values: pytorch_scalar_promotion's dimensioned type, a narrower u64_integer_promotion_target): an
    integer of to's range; a float of `to` (any bit pattern, exact in the wider src). None elsewhere."""
    from hypothesis import strategies as st

    if src.is_integer and to.is_integer and (to.int_min > src.int_min or to.int_max < src.int_max):
        lo, hi = max(src.int_min, to.int_min), min(src.int_max, to.int_max)
        return st.integers(lo, hi).map(lambda v: _bits_of(src, v))
    if src.is_float and to.is_float and to.bits < src.bits:
        def exact(b: int) -> int:
            y = cast_ref.cast_outcome(to.from_bits(np.array([b], dtype=np.uint64)), to, src).outputs[0]
            return int(src.to_bits(np.asarray(y).reshape(1))[0])
        return st.integers(0, (1 << to.bits) - 1).map(exact)
    return None


@functools.lru_cache(maxsize=None)
def _hunt_values(src: DType, to: DType, focus: str | None) -> tuple[tuple, tuple, tuple]:
    """(pooled values, hints, specials) of src converted to `to`. Pooled: the boundaries of src and
    of the common type (hunting.pool: the simplest first), of int32 / uint32 beside a 64-bit integer common type
    (int64_held_in_32_bits), of f32 beside f64 (f64_held_in_f32). Hints: where each value fault that can
    differ here (the focused one only, if any) does: the fault module's exhaustive witnesses for a type of
    <= 16 bits, the witness search's constructions for a wider one. Specials: the bit patterns of NaN
    (payloads, signs), of +-Inf."""
    from generator import hunting
    from generator.reference import convert_promote_types_faults as faults
    from generator.witness import convert_promote_types as W

    pools = [hunting.pool(src), hunting.pool(to)]
    if to.is_integer and to.bits == 64:
        pools += [hunting.pool(dtypes.get("int32")), hunting.pool(dtypes.get("uint32"))]
    if to == dtypes.get("double"):
        pools.append(hunting.pool(dtypes.get("float")))
    hints: list = []
    for f in faults.VALUE_FAULTS:
        name = faults.short_name(f)
        if focus not in (None, f.name) or faults.value_can_differ(name, src, to) is not None:
            continue
        if src.bits <= 16 or src.kind == "bool":
            hints += faults.value_witnesses(name, src.name, to.name)
        elif name not in _VIA:  # (the via_* faults' midpoints: _ties)
            hints += W._constructed(name, src, to)
    specials: list[tuple[int, ...]] = []
    if src.is_float:
        specials.append(tuple(hunting.nan_patterns(src)))
        if src.has_inf:
            specials.append(tuple(int(b) for b in src.to_bits(np.array([np.inf, -np.inf]).astype(src.np_dtype))))
    return tuple(v for p in pools for v in p), tuple(hints), tuple(specials)


@functools.lru_cache(maxsize=None)
def _hunt_element(src: DType, to: DType, focus: str | None, aim: bool = False):
    """One element of src (its bit pattern) converted to `to`: a pooled value or any bit pattern, NaN or an
    infinity, a value `to` holds (_within), a hint (_hunt_values), a midpoint of `to` and its neighbours
    (_ties; integers at f32's midpoints too where `to` is f64). aim: only the values aimed at the focused
    value fault (its hints, the midpoints its intermediate rounds onto), where there are any."""
    from hypothesis import strategies as st

    from generator import hunting

    values, hints, specials = _hunt_values(src, to, focus)
    generic = [hunting.elements(src, values, any_bits=src.kind != "bool")] + [st.sampled_from(b) for b in specials]
    within = _within(src, to)
    if within is not None:
        generic.append(within)
    short = (focus or "").split(".")[-1]
    inter = dtypes.get(_VIA[short]) if short in _VIA else None
    aimed = [hunting.elements(src, hints, any_bits=False)] if hints else []
    if to.is_float:
        grids = [to] + ([dtypes.get("float")] if to == dtypes.get("double") else [])
        generic += [t for t in (_ties(src, g, None) for g in grids) if t is not None]
        if inter is not None:
            aimed += [t for t in (_ties(src, g, inter) for g in grids) if t is not None]
    if aim and aimed:
        return st.one_of(*aimed)
    return st.one_of(*generic, *aimed)


def _defined_element(src: DType, to: DType):
    """An element of src whose conversion to `to` is defined: a value `to` holds (_within), else 0, 1, -1 ...
    (every type holds 0 and 1)."""
    from generator import hunting

    within = _within(src, to)
    return within if within is not None else hunting.elements(src, [0, 1, -1, 2, 0.5], any_bits=False)


def _encode(x: np.ndarray, t: DType) -> list:
    """Values as plain JSON, exactly: integers and booleans as they are, floats as bit patterns ("0x7e00")."""
    if t.kind == "bool":
        return [bool(v) for v in x.tolist()]
    if t.is_integer:
        return [int(v) for v in x.tolist()]
    return [f"0x{int(b):0{(t.bits + 3) // 4}x}" for b in t.to_bits(x).reshape(-1).tolist()]


def _decode(values: list, t: DType) -> np.ndarray:
    if t.kind == "bool":
        return np.array(values, dtype=bool)
    if t.is_integer:
        return np.array(values, dtype=object).astype(t.np_dtype)
    return t.from_bits(np.array([int(v, 16) for v in values], dtype=np.uint64))


def hunt_example(v: Variant, values: list[np.ndarray]):
    """The hunt Example of a variant (its shapes drawn) and the values of its two inputs (1-D; a scalar's one
    data set per value): the negative case where safe mode refuses the pair, else value_cases' node case of
    the defined values and probe of the undefined ones. args: the variant and the values, plain JSON."""
    from generator.hunting import Example

    d = v.decision
    unsafe = v.unsafe_common
    args = {"opset": onnx_opset(v.t0, v.t1, d.common or unsafe),
            "params": {k: x for k, x in v.params.items() if k != "attributes"}, "written": v.written,
            "shapes": [list(sh) for sh in v.shapes],
            "input_0": _encode(values[0], v.t0), "input_1": _encode(values[1], v.t1)}
    if d.common is None:
        return Example(negative_case(v, d, 0, ["hunt"]), None, args)
    made = {c.kind: c for c in value_cases(v, d, v.name, values, 0, ["hunt"])}
    return Example(made.get("node"), made.get("probe"), args)


def _variant(t0: DType, t1: DType, shapes: tuple, unsafe: bool, pytorch: bool, target: str,
             written: tuple | None) -> Variant:
    ranks = tuple(len(sh) for sh in shapes)
    key = "_".join("scalar" if r == 0 else "dim" for r in ranks)
    return Variant(t0, t1, ranks, unsafe, pytorch, target, written=written, shapes=shapes,
                   name=variant_name(t0, t1, key, unsafe, pytorch, target) + "_hunt")


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same inputs, expected outputs from the reference."""
    p = args["params"]
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    written = None if args["written"] is None else tuple(args["written"])
    v = _variant(t0, t1, tuple(tuple(sh) for sh in args["shapes"]), bool(p["promote_unsafe"]),
                 bool(p["pytorch_scalar_promotion"]), p["u64_integer_promotion_target"], written)
    return hunt_example(v, [_decode(args["input_0"], t0), _decode(args["input_1"], t1)])


def hunt(max_opset: int):
    """The hunt strategy (generator/hunting.py): one group (pair, ranks, attributes) and one data set per
    example (hunt_example: the negative case where safe mode must refuse the pair, else the node case of the
    defined values and the probe of the undefined ones, built as every case here).

    Biases: 3 draws in 4 focus on a fault model and take a group where it can differ (hunt_groups); a value
    fault is focused on twice as often, half the time with every element aimed at it (_hunt_element). The
    others draw any pair of [CPT]'s types, ranks, attributes and u64_integer_promotion_target. A dimensioned
    input has 1 to 6 elements (one: what scalar_by_element_count takes for a scalar), rank 1 or 2; an input
    none of whose elements is defined gets one more that is (_defined_element), so that most draws judge
    something. Half the nodes leave out the attributes at their defaults. None below opset 13 (the function
    body's Cast needs bfloat16)."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    from generator import hunting
    from generator.reference import convert_promote_types_faults as faults

    groups = {name: vs for name, vs in hunt_groups(max_opset).items() if vs}
    # (fault, aim): a value fault also with every element aimed at it (_hunt_element)
    value_faults = {f.name for f in faults.VALUE_FAULTS}
    focuses = [(name, False) for name in sorted(groups)]
    focuses += [(name, True) for name in sorted(groups) if name in value_faults]
    types = [t for t in ref.spec_types() if t.cast_since <= max_opset]
    targets = [ref.DEFAULT_TARGET] + [n for n in U64_TARGETS if ref.element_type(n).cast_since <= max_opset]

    @st.composite
    def examples(draw):
        focus, aim = draw(st.sampled_from(focuses)) if draw(st.integers(0, 3)) else (None, False)
        if focus is None:
            t0, t1 = draw(st.sampled_from(types)), draw(st.sampled_from(types))
            ranks = SHAPES[draw(st.sampled_from(HUNT_SHAPES))]
            unsafe, pytorch, target = draw(st.booleans()), draw(st.booleans()), draw(st.sampled_from(targets))
        else:
            g = draw(st.sampled_from(groups[focus]))
            t0, t1, ranks, unsafe, pytorch, target = g.t0, g.t1, g.ranks, g.unsafe, g.pytorch, g.target
        # elements of each dimensioned input, one element often (3 in 8); where the focus is the fault that
        # takes a one-element tensor for a scalar, one dimensioned input has one element
        counts = [draw(st.sampled_from(HUNT_COUNTS)) if r else 0 for r in ranks]
        if focus == f"{FAMILY.name}.scalar_by_element_count" and any(ranks):
            counts[draw(st.sampled_from([k for k, r in enumerate(ranks) if r]))] = 1
        shapes = tuple(() if r == 0 else (n,) if draw(st.booleans()) else (1, n) for r, n in zip(ranks, counts))
        changed = {"promote_unsafe": unsafe, "pytorch_scalar_promotion": pytorch,
                   "u64_integer_promotion_target": target != ref.DEFAULT_TARGET}
        written = tuple(a for a, c in changed.items() if c) if draw(st.booleans()) else None
        v = _variant(t0, t1, shapes, unsafe, pytorch, target, written)
        d = v.decision
        cands = []
        for t, s in zip((t0, t1), shapes):
            if d.common is None:  # a negative case: no values
                cands.append(np.zeros(0, dtype=t.np_dtype))
                continue
            n = int(np.prod(s, dtype=np.int64))
            element = _hunt_element(t, d.common, focus if focus in value_faults else None, aim)
            x = hunting.array_of(t, draw(st.lists(element, min_size=n, max_size=n)))
            if ref.convert(x, t, d.common).mask().all():  # one more: a value the common type holds
                x = np.concatenate([x, hunting.array_of(t, [draw(_defined_element(t, d.common))])])
            cands.append(x)
        return hunt_example(v, cands)

    return examples()
