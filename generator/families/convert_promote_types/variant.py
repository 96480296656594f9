"""ConvertPromoteTypes' variants: an ordered pair of types, input ranks and attributes, with the reference's
decision; the matrix, the u64_integer_promotion_target pairs and the spec text's examples."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from generator import dtypes
from generator.dtypes import DType
from generator.family import Family
from generator.reference import convert_promote_types as ref

FAMILY = Family("convert_promote_types", ref.OP_TYPE, ref.SPEC_FILE, ref.DOMAIN,
                name_prefix="test_convert_promote_types")
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
