"""The axes of generation (generator/axes.py) over the patterns: equal sizes, the RESHAPE form, vector tails over
the channels, explicit and omitted defaults; and a case's pattern rebuilt from its case.json (source_pattern)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from generator import sampling
from generator.case import Case
from generator.families.layout.cases import _uniform, assemble
from generator.families.layout.dims import Dims
from generator.families.layout.pattern import Pattern
from generator.families.layout.patterns import CATALOGUE


@dataclass(frozen=True)
class Variant:
    """A pattern built with some of its sizes replaced (`fixed`, Dims) and / or a form changed (`variant`:
    _VARIANT_FORMS); its case is test_layout_<pattern>_<suffix>."""

    pattern: str  # the CATALOGUE name (test_layout_...)
    suffix: str
    axis: str  # which axis it belongs to (case.json params "axis")
    fixed: tuple = ()  # ((size name, value), ...)
    variant: str = ""
    one_dataset: bool = False  # the structure or a constant decides, not the data: one data set is enough

    @property
    def name(self) -> str:
        return f"{self.pattern}_{self.suffix}"


# Equal sizes: a converter that decides layouts from shapes cannot tell NHWC from NCHW where C == H == W, nor
# H from W where H == W (onnx2tf #960: Conv straight from a Reshape, C == H == W, explicit pads; onnx2tf
# 1.29.24 gets all 128 values wrong while its own check says "Matches"). The patterns that reshape,
# transpose or convolve get the coincidence on the tensor the layout decision is made on.
EQUAL_SIZES: dict[str, dict[str, dict[str, int]]] = {
    "reshape_conv": {"equal_chw": dict(H=4, W=4, C=4, CO=4), "equal_hw": dict(H=5, W=5)},
    "reshape_conv_explicit_pads": {"equal_chw": dict(H=8, W=8, C=8, CO=8)},  # onnx2tf #960's own sizes
    "conv_reshape_fully_connected": {"equal_chw": dict(H=6, W=6, CO=4)},  # VALID 3x3: the conv output 4x4x4
    "conv_flatten_fully_connected": {"equal_chw": dict(H=6, W=6, CO=4)},
    "transpose_in_propagated_region": {"equal_chw": dict(H=5, W=5, CO=5), "equal_hw": dict(H=7, W=7)},
}
# Vector tails over C, the axis channel-last kernels (TFLite / XNNPACK, OpenVINO's nhwc) vectorize, the decisive
# channel the last: below one vector of 4 and of 8 (1, 3, 5, 7), whole vectors (8, 16), a tail of 1 after one
# vector of 8 / 16 / 32 / 64 (9, 17, 33, 65), one short of 16 (15). Even remainders take the same scalar tail
# loop as odd ones; 31 / 63 were left out for size (33 / 65 cross the same boundaries).
CHANNEL_TAILS: tuple[int, ...] = (1, 3, 5, 7, 8, 9, 15, 16, 17, 33, 65)
# Explicit defaults: the patterns whose ONNX models hold every layout operator with a defaulted attribute
# (Conv auto_pad / group / strides / dilations / pads, MaxPool ceil_mode / storage_order, AveragePool
# count_include_pad, Flatten axis, Gemm alpha / beta / transA, ReduceMean keepdims / noop_with_empty_axes),
# each written explicitly and each left out (ReduceMax has ReduceMean's attributes; Reshape allowzero and
# Pad mode were left out for size). One data set each: the model's attributes are what varies.
DEFAULTS_PATTERNS: tuple[str, ...] = ("pool_max_then_average", "conv_flatten_fully_connected",
                                      "mean_hw_negative_axes_keepdims1")


_VARIANT_FORMS: dict[str, Callable[[Pattern], Pattern]] = {
    "": lambda p: p,
    "defaults_explicit": lambda p: replace(p, defaults="explicit",
                                           what=p.what + "; every defaulted ONNX attribute written explicitly"),
    "defaults_omitted": lambda p: replace(p, defaults="omitted",
                                          what=p.what + "; every ONNX attribute at its default left out"),
}


def _variant(p: Pattern, variant: str) -> Pattern:
    return _VARIANT_FORMS[variant](p)


def axis_variants() -> list[Variant]:
    """The variants the axes add to the catalogue, each a case test_layout_<pattern>_<suffix>."""
    pre = CATALOGUE.prefix
    out = [Variant(pre + name, suffix, "equal sizes", tuple(sorted(fixed.items())))
           for name, by in sorted(EQUAL_SIZES.items()) for suffix, fixed in by.items()]
    out += [Variant(pre + name, "reshape_options", "reshape form", (("reshape_form", "options"),))
            for name in ("reshape_conv", "conv_reshape_fully_connected")]
    out += [Variant(pre + "channel_tail", f"c{c}", "vector tails", (("CO", c),), one_dataset=True)
            for c in CHANNEL_TAILS]
    out += [Variant(pre + name, f"defaults_{how}", "explicit defaults", variant=f"defaults_{how}",
                    one_dataset=True)
            for name in DEFAULTS_PATTERNS for how in ("explicit", "omitted")]
    return out


def build_variant(v: Variant, seed: int, datasets: int) -> list[Case]:
    """The case of a variant: its pattern built with Dims(fixed=...) and its form, data as build's; case.json
    params "pattern", "sizes", "variant" rebuild it (source_pattern)."""
    cseed = sampling.case_seed(seed, v.name)
    rng = sampling.Stream(cseed)
    d = Dims(fixed=dict(v.fixed))
    p = _variant(CATALOGUE[v.pattern](rng, d), v.variant)
    data = [[p.fill.get(n, _uniform)(rng, p.graph.tensors[n].shape) for n in p.graph.inputs]
            for _ in range(1 if v.one_dataset else datasets)]
    params = {"pattern": v.pattern, "sizes": dict(sorted(d.values.items())), "variant": v.variant, "axis": v.axis}
    return assemble(p, v.name, cseed, data, params)



_BY_WHAT: dict[str, str] = {}


def source_pattern(meta: dict) -> Pattern:
    """The pattern of a graph case (its TFLite-form source graph and explicit layouts) rebuilt as it was made:
    a hunted case from its params "pattern" and "sizes" (hunted_cases); a suite case as build made it,
    CATALOGUE[name] drawing from numpy's PCG64 seeded with the case's seed. The name is case.json's "name",
    or for an in-memory case the pattern whose "what" the params carry. Fault models convert it
    (generator/reference/layout_faults.py)."""
    params = meta.get("params") or {}
    if "pattern" in params:  # a hunted case, or a variant of an axis (axis_variants)
        p = CATALOGUE[params["pattern"]](sampling.Stream(meta["seed"]), Dims(params["sizes"]))
        return _variant(p, params.get("variant", ""))
    name = meta.get("name")
    if name is None:
        if not _BY_WHAT:
            _BY_WHAT.update((m(sampling.Stream(0)).what, n) for n, m in CATALOGUE.items())
        name = _BY_WHAT[params["what"]]
    return CATALOGUE[name](sampling.Stream(meta["seed"]))
