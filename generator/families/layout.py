"""The layout family: graph cases, each a pattern where NHWC <-> NCHW converters and NHWC backends go wrong
(layout-semantic-conversion.txt). Every case is written twice in its directory: the ONNX graph (NCHW), and
its NHWC twin as a TFLite model with its own data sets.

Each pattern is authored as a TFLite-form graph (generator.reference.layout); the propagation-based
converter of generator.reference.layout gives the ONNX form (with the explicit layout map where the pattern
needs one). Expected outputs are computed once, on the TFLite form with the kernels of
generator.reference.layout_kernels; the ONNX inputs and expected outputs are the same arrays with the
converter's layout map applied. Sizes are distinct primes (a wrong permutation changes the shape or the
values), plus deliberately ambiguous shapes (C == H == W; [1, 256, 256]) where converters guess. Data:
seeded uniform float32 in [-1, 2) (asymmetric, so that a sign or reversed order cannot pass).

Axes of generation (generator/axes.py; axis_variants below): each pattern that reshapes, transposes or convolves
also with equal sizes (C == H == W, H == W: onnx2tf #960), the TFLite RESHAPE with its new shape in the
options only (tflite2onnx #23), explicit and omitted default attributes, channel counts around vector widths
with the decisive last channel, NaN payloads through the ops that move data without arithmetic.

opconform hunt draws the same patterns with other sizes, windows and attribute values (`hunt`; each pattern
asks a Dims for them, which gives the suite's values to gen-cases), one data set each; case.json params
"pattern" / "sizes" rebuild such a case for the fault models.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from generator import axes, sampling
from generator.case import Case, Twin, finish_model
from generator.family import Catalogue, Family, split
from generator.hunting import Example
from generator.outcome import Outcome
from generator.reference import layout as L
from generator.tflite_writer import write_tflite

# op "Layout" names the cases (test_layout_...); each case.json "op" is its pattern's operator (Pattern.op)
FAMILY = Family("layout", "Layout", "layout-semantic-conversion.txt")
OPSET = 18  # ReduceMean / ReduceMax / Split / Pad / Slice take their parameters as inputs
PROFILES = {"quick": dict(datasets=1), "default": dict(datasets=2), "exhaustive": dict(datasets=4)}

RTOL = 1e-4
ATOL_PER_SCALE = 1e-4
COMPARE_REASON = (
    "float32 sums of up to a few hundred products, exp and tanh: backends accumulate in their own order (tiling, "
    "FMA, Winograd) and approximate exp, the reference rounds a float64 result once. rtol 1e-4; atol 1e-4 times "
    "the output's largest magnitude (rounded up to a power of two), since an element that cancels to near 0 "
    "keeps the rounding error of its large terms. A layout error changes values by O(1) of that scale")


def compare_spec(names: list[str], outputs: list[list[np.ndarray]]) -> dict:
    """The case's tolerance: allclose with a per-output atol from the largest expected magnitude."""
    per = {}
    for j, name in enumerate(names):  # NaN payloads pass through some patterns: the scale ignores them
        scale = max([1.0] + [float(np.nanmax(np.abs(ds[j]))) for ds in outputs if np.isfinite(ds[j]).any()])
        per[name] = {"atol": ATOL_PER_SCALE * 2.0 ** int(np.ceil(np.log2(scale)))}
    return {"mode": "allclose", "rtol": RTOL, "atol": ATOL_PER_SCALE, "reason": COMPARE_REASON, "outputs": per}


PROPAGATION = "Propagation based Approach"
EXPLICIT = "Explicit Layout"
BROADCAST = "Broadcast of Propagation"


@dataclass
class Pattern:
    op: str  # the operator the case is about (case.json "op")
    clause: str
    graph: L.Graph
    explicit: dict = field(default_factory=dict)
    what: str = ""
    fill: dict = field(default_factory=dict)  # graph input -> fn(rng, shape): its data (else seeded uniform)
    defaults: str = ""  # the ONNX model's default-valued attributes: "" as written, "explicit", "omitted"


# ---------------------------------------------------------------------------------------
# the ONNX form of a graph
# ---------------------------------------------------------------------------------------
def _ints(name: str, values) -> TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64).reshape(-1), name)


def _node(g: L.Graph, op: L.Op, inits: list) -> onnx.NodeProto:
    a, t, x, y = op.attrs, op.type, op.inputs, op.outputs
    name = y[0]

    def param(suffix: str, values) -> str:
        inits.append(_ints(f"{name}_{suffix}", values))
        return f"{name}_{suffix}"

    if t in L.IMPLICIT:
        pads = L.implicit_pads(op, g)
        flat = [b for b, _ in pads] + [e for _, e in pads]
        n = len(pads)
        common = dict(strides=list(a.get("strides", [1] * n)), pads=flat)
        if t == "max_pool":
            return helper.make_node("MaxPool", x, y, kernel_shape=list(a["kernel"]), **common)
        if t == "avg_pool":
            return helper.make_node("AveragePool", x, y, kernel_shape=list(a["kernel"]), count_include_pad=0, **common)
        w = g.tensors[x[1]]
        group = g.tensors[x[0]].shape[1] if t == "depthwise_conv" else 1
        return helper.make_node("Conv", x, y, kernel_shape=list(w.shape[2:]),
                                dilations=list(a.get("dilations", [1] * n)), group=group, **common)
    simple = {"add": "Add", "sub": "Sub", "mul": "Mul", "abs": "Abs", "relu": "Relu", "logistic": "Sigmoid",
              "tanh": "Tanh", "prelu": "PRelu"}
    if t in simple:
        return helper.make_node(simple[t], x, y)
    if t == "concat":
        return helper.make_node("Concat", x, y, axis=a["axis"])
    if t == "split":
        return helper.make_node("Split", [x[0], param("split", a["sizes"])], y, axis=a["axis"])
    if t == "pad":
        return helper.make_node("Pad", [x[0], param("pads", [b for b, _ in a["pads"]] + [e for _, e in a["pads"]])], y)
    if t in ("slice", "strided_slice"):
        begin = a["begin"]
        end = [b + s for b, s in zip(begin, a["size"])] if t == "slice" else a["end"]
        steps = [1] * len(begin) if t == "slice" else a["strides"]
        return helper.make_node("Slice", [x[0], param("starts", begin), param("ends", end),
                                          param("axes", range(len(begin))), param("steps", steps)], y)
    if t in ("mean", "reduce_max"):
        return helper.make_node("ReduceMean" if t == "mean" else "ReduceMax", [x[0], param("axes", a["axes"])], y,
                                keepdims=int(bool(a.get("keepdims", True))))
    if t == "softmax":
        return helper.make_node("Softmax", x, y, axis=a["axis"])
    if t == "transpose":
        return helper.make_node("Transpose", x, y, perm=list(a["perm"]))
    if t == "reshape":
        return helper.make_node("Reshape", [x[0], param("shape", a["shape"])], y)
    if t == "flatten":
        return helper.make_node("Flatten", x, y, axis=a.get("axis", 1))
    if t == "fully_connected":
        return helper.make_node("Gemm", x, y, transB=1)
    raise ValueError(f"no ONNX operator for {t!r}")


def _is_default(node: onnx.NodeProto, attr: onnx.AttributeProto, schema: dict) -> bool:
    """An attribute whose value is its default: the schema's, or (strides, dilations, pads, which the schema
    states in words only) all 1 / all 0."""
    value = helper.get_attribute_value(attr)
    if attr.name in schema:
        want = schema[attr.name]
        return value == (want.encode() if isinstance(want, str) else want)
    text_default = {"strides": 1, "dilations": 1, "pads": 0}.get(attr.name)
    return node.op_type in ("Conv", "MaxPool", "AveragePool") and text_default is not None and \
        all(v == text_default for v in value)


def _with_defaults(node: onnx.NodeProto, defaults: str) -> onnx.NodeProto:
    """The explicit-defaults axis (generator/axes.py): every attribute the schema gives a default written with
    it ("explicit"), or every attribute whose value is its default left out ("omitted"); "" as _node wrote it."""
    if not defaults:
        return node
    schema = axes.attribute_defaults(node.op_type, OPSET)
    if defaults == "explicit":
        return axes.with_defaults(node, schema)
    kept = [a for a in node.attribute if not _is_default(node, a, schema)]
    del node.attribute[:]
    node.attribute.extend(kept)
    return node


def onnx_model(g: L.Graph, name: str, defaults: str = "") -> onnx.ModelProto:
    """The ONNX model of a graph of form "onnx" (float32 everywhere), at opset OPSET; defaults: the
    explicit-defaults axis (_with_defaults)."""
    if g.form != "onnx":
        raise ValueError("an ONNX model holds a graph of form 'onnx'")
    inits: list = []
    nodes = [_with_defaults(_node(g, op, inits), defaults) for op in g.ops]
    used = {i for op in g.ops for i in op.inputs}
    weights = [numpy_helper.from_array(t.data.astype(np.float32), t.name) for t in g.tensors.values()
               if t.data is not None and t.name in used]

    def vi(n: str):
        return helper.make_tensor_value_info(n, TensorProto.FLOAT, list(g.tensors[n].shape))

    graph = helper.make_graph(nodes, name, [vi(n) for n in g.inputs], [vi(n) for n in g.outputs],
                              initializer=weights + inits)
    return finish_model(graph, OPSET)


# ---------------------------------------------------------------------------------------
# building the case
# ---------------------------------------------------------------------------------------
def _uniform(rng: sampling.Stream, shape) -> np.ndarray:
    return rng.uniform(-1.0, 2.0, size=shape).astype(np.float32)


class Dims:
    """The sizes and attribute values a pattern is built with, each asked for by name with the suite's value
    and the range a hunt draws it from:

      Dims()             the suite's values (what gen-cases writes; no range is consulted)
      Dims(draw=draw)    a hunt: hypothesis draws every value (`draw` of a composite strategy); `values`
                         records them, for case.json params["sizes"]
      Dims(values)       a hunted case rebuilt from its params["sizes"] (the fault models convert it)
      Dims(fixed=...)    the suite's values with some replaced (the variants of axis_variants); `values` records
                         every value, for case.json params["sizes"]

    Ranges start at their simplest value (size 1, kernel 1, stride 1, no pad), where hypothesis shrinks. A size
    is drawn from its range (one in four), from its range without 1 (half: a size-1 axis hides a wrong
    permutation), or equal to an earlier size above 1 (one in four), so that C == H == W, where converters
    that guess a layout from the shape go wrong, comes up often."""

    def __init__(self, values: dict | None = None, draw: Callable | None = None, fixed: dict | None = None):
        self.values: dict = {} if values is None else dict(values)
        self.replay = values is not None
        self._draw = draw
        self._fixed = dict(fixed or {})  # the suite's values, these replaced (an axis: equal sizes, tails)
        self._sizes: list[int] = []

    def _get(self, name: str, default, strategy: Callable):
        if self.replay:
            return self.values[name]
        if self._draw is None:
            self.values[name] = value = self._fixed.get(name, default)
            return value
        if name in self.values:
            raise ValueError(f"{name!r} drawn twice")
        self.values[name] = value = self._draw(strategy())
        return value

    def int(self, name: str, default: int, lo: int, hi: int) -> int:
        return self._get(name, default, lambda: _hypothesis_strategies().integers(lo, hi))

    def pick(self, name: str, default, choices: list):
        """One of choices (JSON values: a hunted case's params hold it), the first the simplest."""
        return self._get(name, default, lambda: _hypothesis_strategies().sampled_from(choices))

    def size(self, name: str, default: int, lo: int, hi: int) -> int:
        """A tensor size in [lo, hi] (see the class)."""
        def strategy():
            st = _hypothesis_strategies()
            above = max(lo, 2)
            ties = sorted({s for s in self._sizes if above <= s <= hi})
            if above > hi:
                return st.integers(lo, hi)
            return st.integers(0, 3).flatmap(lambda k: st.integers(lo, hi) if k == 0 else
                                             st.sampled_from(ties) if k == 3 and ties else st.integers(above, hi))

        tied = [s for s in self._sizes if max(lo, 2) <= s <= hi]
        value = self._get(name, default, strategy)  # drawn even where tied: a shrink that unties keeps its draws
        if tied and name not in self._fixed and not self.replay and self.equal_sizes():
            value = self.values[name] = tied[0]
        self._sizes.append(value)
        return value

    def equal_sizes(self) -> bool:
        """The equal-sizes axis: every size after the first that its range allows takes the first size above 1
        (C == H == W, where a converter that guesses layouts from shapes cannot tell NHWC from NCHW; onnx2tf
        #960). Drawn once by a hunt (half the draws), fixed["equal_sizes"] in the suite's variants."""
        if "equal_sizes" not in self.values:
            if self.replay:
                return False  # a case hunted before the axis existed
            self._get("equal_sizes", False, lambda: _hypothesis_strategies().booleans())
        return bool(self.values["equal_sizes"])

    def window(self, prefix: str, spatial, kernel, padding: str, strides, vary_padding: bool = True,
               vary_strides: bool = True, kernel_min: int = 1):
        """A conv / pool window: padding (VALID first), kernel sizes kernel_min to 3 (under VALID, smaller than
        the input unless it is 1: an axis the window collapses to 1 hides a wrong permutation), strides 1 or 2;
        one in four the identity window (kernel 1, stride 1), a shortcut backends take. The pattern's padding
        where vary_padding is False, its strides where vary_strides is False (SAME and stride 1 keep the
        shape)."""
        unit = self.int(f"{prefix}_unit", 0, 0, 3) == 3
        if vary_padding:
            padding = self.pick(f"{prefix}_padding", padding, ["VALID", "SAME"])
        if unit:
            kernel = (1,) * len(kernel)
        else:
            kernel = tuple(self.int(f"{prefix}_k{i}", k, kernel_min,
                                    max(kernel_min, min(3, s - 1)) if padding == "VALID" else 3)
                           for i, (k, s) in enumerate(zip(kernel, spatial)))
        if vary_strides:
            strides = (1,) * len(strides) if unit else tuple(self.int(f"{prefix}_s{i}", s, 1, 2)
                                                              for i, s in enumerate(strides))
        return kernel, padding, tuple(strides)


def _hypothesis_strategies():
    from hypothesis import strategies

    return strategies


def build(make: Callable[..., Pattern], name: str, seed: int, datasets: int) -> list[Case]:
    """Both forms of a pattern, the data sets, and the expected outputs from the TFLite form (assemble)."""
    cseed = sampling.case_seed(seed, name)
    rng = sampling.Stream(cseed)
    p = make(rng)  # draws the weights first
    data = [[p.fill.get(n, _uniform)(rng, p.graph.tensors[n].shape) for n in p.graph.inputs]
            for _ in range(datasets)]
    return assemble(p, name, cseed, data)


def build_case(make: Callable[..., Pattern], name: str, seed: int, datasets: int) -> Case:
    """The graph case of a pattern (build), whose seeded finite data sets are all defined."""
    cases = build(make, name, seed, datasets)
    if [c.kind for c in cases] != ["graph"]:
        raise ValueError(f"{name}: a data set's result is undefined ({cases[-1].meta.get('undefined')})")
    return cases[0]


def assemble(p: Pattern, name: str, seed: int, data: list[list[np.ndarray]],
             params: dict | None = None) -> list[Case]:
    """The graph case of a pattern, and the probe of its undefined data sets if any (generator.family.split):
    data holds the TFLite-form inputs of each data set; the expected outputs come from the TFLite form, the
    ONNX form's inputs and outputs are the same arrays with the converter's layout map applied. The graph
    case carries the TFLite form as its twin; a probe has none (a twin's data sets hold expected outputs).
    seed: case.json "seed" (the pattern's weights were drawn from a Stream of it); params: fields added to
    case.json "params"."""
    cv = L.convert(p.graph, p.explicit)
    tfl = p.graph

    def onnx_form(names: list[str], arrays) -> list[np.ndarray]:
        return [np.ascontiguousarray(a.transpose(cv.perm(n))) for n, a in zip(names, arrays)]

    outcomes = [L.run(tfl, xs) for xs in data]
    defined = [(xs, list(o.outputs)) for xs, o in zip(data, outcomes) if o.defined]

    meta = FAMILY.meta(
        op=p.op, opset=OPSET, clause=p.clause, compare=compare_spec(list(tfl.outputs), [y for _, y in defined]),
        flags=["random", "layout"], seed=seed,
        params={"what": p.what, "explicit_layouts": {k: list(v) for k, v in sorted(p.explicit.items())},
                "ops": [op.type for op in tfl.ops], **(params or {})})

    def with_twin(case: Case) -> Case:
        if case.kind != "graph":
            return case
        return replace(case, twin=Twin(
            format="tflite", model=write_tflite(tfl, description=name),
            input_names=list(tfl.inputs), output_names=list(tfl.outputs),
            input_perms=[list(L.inverse(cv.perm(n))) for n in tfl.inputs],
            output_perms=[list(L.inverse(cv.perm(n))) for n in tfl.outputs],
            inputs=[xs for xs, _ in defined], outputs=[ys for _, ys in defined]))

    return [with_twin(c) for c in split(name, [onnx_form(tfl.inputs, xs) for xs in data],
                                        [Outcome(tuple(onnx_form(tfl.outputs, o.outputs)), o.undefined)
                                         for o in outcomes],
                                        lambda _: onnx_model(cv.graph, name, p.defaults), meta, kind="graph")]


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


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """One unit per pattern, and one per variant of the axes (axis_variants). No case is written below opset
    OPSET."""
    if max_opset is not None and max_opset < OPSET:
        return []
    datasets = PROFILES[profile]["datasets"]
    units = [lambda n=n, m=m: iter(build(m, n, seed, datasets)) for n, m in sorted(CATALOGUE.items())]
    return units + [lambda v=v: iter(build_variant(v, seed, datasets)) for v in axis_variants()]


# ---------------------------------------------------------------------------------------
# the axes of generation (generator/axes.py) over the patterns
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# the patterns (TFLite form: NHWC, OHWI weights)
# ---------------------------------------------------------------------------------------
# A pattern: fn(rng, d=None) -> Pattern draws its weights from rng and takes its sizes and attribute values
# from d (Dims; None: the suite's); @CATALOGUE names its case test_layout_<fn name>.
CATALOGUE = Catalogue(FAMILY.prefix + "_")


class _B:
    """A TFLite-form graph under construction; output shapes come from running the kernels on zeros."""

    def __init__(self, rng: sampling.Stream, d: Dims | None = None):
        self.g = L.new_graph("tflite")
        self.rng = rng
        self.d = d if d is not None else Dims()

    def input(self, name: str, shape) -> str:
        self.g.add(name, shape)
        self.g.inputs.append(name)
        return name

    def const(self, name: str, shape) -> str:
        return self.g.const(name, self.rng.uniform(-1.0, 1.5, size=shape).astype(np.float32))

    def shape(self, name: str) -> tuple:
        return tuple(self.g.tensors[name].shape)

    def op(self, type_: str, inputs: list[str], outputs, **attrs) -> str | list[str]:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        probe = L.Op(type_, inputs, names, attrs)
        vals = [self.g.tensors[n].data if self.g.tensors[n].data is not None
                else np.zeros(self.g.tensors[n].shape, np.float32) for n in inputs]
        shapes = [r.shape for r in L.run_op(probe, vals, "tflite")]
        self.g.op(type_, inputs, [(n, s) for n, s in zip(names, shapes)], **attrs)
        return outputs

    def image(self, n: int = 2, h: int = 5, w: int = 7, c: int = 3, name: str = "x") -> str:
        """The NHWC graph input most patterns start from."""
        d = self.d
        return self.input(name, (d.size("N", n, 1, 3), d.size("H", h, 1, 9), d.size("W", w, 1, 9),
                                 d.size("C", c, 1, 8)))

    def conv(self, x: str, cout: int, name: str, k=(3, 3), padding="SAME", strides=(1, 1),
             vary_padding: bool = True) -> str:
        cin = self.g.tensors[x].shape[-1]
        k, padding, strides = self.d.window(name, self.shape(x)[1:-1], k, padding, strides, vary_padding,
                                            vary_padding)
        w = self.const(f"{name}_weights", (cout,) + tuple(k) + (cin,))
        b = self.const(f"{name}_bias", (cout,))
        return self.op("conv", [x, w, b], name, padding=padding, strides=list(strides), dilations=[1] * len(k))

    def image_conv(self, n: int = 2, h: int = 5, w: int = 7, c: int = 3, cout: int = 11, cout_min: int = 1,
                   padding: str = "SAME") -> str:
        """image -> conv: the NCHW region most patterns work in."""
        x = self.image(n, h, w, c)
        return self.conv(x, self.d.size("CO", cout, cout_min, 13), "conv", padding=padding)

    def done(self, *outputs: str) -> L.Graph:
        self.g.outputs = list(outputs)
        return self.g


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _window_text(values) -> str:
    return "x".join(str(v) for v in values)


def _stride_text(strides) -> str:
    return str(strides[0]) if len(set(strides)) == 1 else _window_text(strides)


@CATALOGUE
def conv_elementwise_chain(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    full = (1,) + b.shape(c)[1:]
    t = b.op("add", [c, b.const("bias_map", full)], "added")
    t = b.op("relu", [t], "relu")
    t = b.op("mul", [t, b.const("scale_map", full)], "scaled")
    t = b.op("sub", [t, c], "diff")
    t = b.op("abs", [t], "abs")
    t = b.op("logistic", [t], "sigmoid")
    t = b.op("tanh", [t], "y")
    return Pattern("Add", PROPAGATION, b.done(t), what="Conv -> Add / Relu / Mul / Sub / Abs / Sigmoid / Tanh: "
                   "transparent ops carry NCHW on, full-rank weights are transposed")


def _concat(b: _B, axis: int, other_c: int = 2, ambiguous: bool = False) -> L.Graph:
    d = b.d
    if ambiguous:  # C == H == W: SAME, stride 1 keeps them equal on the conv's output
        s = d.size("S", 4, 1, 6)
        x = b.input("x", (d.size("N", 1, 1, 3), s, s, s))
        c = b.conv(x, s, "conv", vary_padding=False)
        other_c = s
    else:
        c = b.image_conv(n=1)
        other_c = d.size("other", other_c, 1, 8)
    n, h, w, cout = b.shape(c)
    other = (n, h, w, other_c) if axis in (3, -1) else (n, other_c, w, cout)
    x2 = b.input("x2", other)
    return b.done(b.op("concat", [c, x2], "y", axis=axis))


@CATALOGUE
def conv_concat_channel_axis(rng, d=None) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(_B(rng, d), 3),
                   what="Concat axis 3 (C) of a Conv output and a graph input propagation reaches only through "
                        "the Concat: ONNX axis 1, the second input NCHW too")


@CATALOGUE
def conv_concat_negative_axis(rng, d=None) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(_B(rng, d), -1),
                   what="Concat axis -1 (C): ONNX axis -3")


@CATALOGUE
def conv_concat_height_negative_axis(rng, d=None) -> Pattern:
    g = _concat(_B(rng, d), -3, other_c=8)
    h, total = g.tensors["conv"].shape[1], g.tensors["y"].shape[1]
    return Pattern("Concat", PROPAGATION, g,
                   what=f"Concat axis -3 (H, {h} + {total - h} = {total}): ONNX axis -2")


@CATALOGUE
def conv_concat_ambiguous_4x4x4(rng, d=None) -> Pattern:
    g = _concat(_B(rng, d), 3, ambiguous=True)
    s = g.tensors["conv"].shape[1]
    return Pattern("Concat", PROPAGATION, g,
                   what=f"C == H == W == {s}: a converter that guesses the layout from the shape cannot tell")


def _reshape_form(b: _B) -> dict:
    """How the twin's RESHAPE takes its new shape: as a second input (TFLite's converter), or in its options
    only (one input: tflite2onnx #23 misses it); the op attribute tflite_writer reads."""
    form = b.d.pick("reshape_form", "input", ["input", "options"])
    return {} if form == "input" else {"tflite_shape": "options"}


def _conv_to_fc(b: _B, terminate: str) -> tuple[L.Graph, list[int]]:
    c = b.image_conv(n=1, padding="VALID")  # the suite's: (1, 3, 5, 11)
    n, h, w, cout = b.shape(c)
    shape = [n, h * w * cout]
    attrs = {"shape": shape} if terminate == "reshape" else {"shape": shape, "axis": 1}
    attrs.update(_reshape_form(b))
    f = b.op(terminate, [c], "flat", **attrs)
    units = b.d.size("units", 13, 1, 16)
    w, bias = b.const("fc_weights", (units, shape[1])), b.const("fc_bias", (units,))
    return b.done(b.op("fully_connected", [f, w, bias], "y")), shape


@CATALOGUE
def conv_reshape_fully_connected(rng, d=None) -> Pattern:
    g, shape = _conv_to_fc(_B(rng, d), "reshape")
    return Pattern("Reshape", PROPAGATION, g,
                   what=f"Conv -> Reshape {shape} -> FullyConnected: Reshape terminates; the flattened order is "
                        "NHWC's, so the ONNX graph must restore NHWC before it")


@CATALOGUE
def conv_flatten_fully_connected(rng, d=None) -> Pattern:
    g, _ = _conv_to_fc(_B(rng, d), "flatten")
    return Pattern("Flatten", PROPAGATION, g,
                   what="Conv -> Flatten -> FullyConnected (Gemm): as with Reshape")


@CATALOGUE
def reshape_conv(rng, d=None) -> Pattern:
    b = _B(rng, d)
    image = [b.d.size("N", 1, 1, 3), b.d.size("H", 5, 1, 9), b.d.size("W", 7, 1, 9), b.d.size("C", 3, 1, 8)]
    flat = [image[0], image[1] * image[2] * image[3]]
    x = b.input("x", tuple(flat))
    r = b.op("reshape", [x], "image", shape=image, **_reshape_form(b))
    return Pattern("Reshape", PROPAGATION, b.done(b.conv(r, b.d.size("CO", 11, 1, 13), "y")),
                   what=f"Reshape {flat} -> {image} -> Conv: the Reshape output is NHWC data the Conv needs "
                        "as NCHW; the graph input keeps its layout")


@CATALOGUE
def reshape_conv_explicit_pads(rng, d=None) -> Pattern:
    b = _B(rng, d)
    image = [b.d.size("N", 1, 1, 3), b.d.size("H", 7, 3, 9), b.d.size("W", 5, 3, 9), b.d.size("C", 3, 1, 8)]
    flat = [image[0], image[1] * image[2] * image[3]]
    r = b.op("reshape", [b.input("x", tuple(flat))], "image", shape=image)
    cout = b.d.size("CO", 11, 1, 13)
    w, bias = b.const("y_weights", (cout, 3, 3, image[3])), b.const("y_bias", (cout,))
    y = b.op("conv", [r, w, bias], "y", padding="EXPLICIT", pads=[[1, 1], [1, 1]], strides=[2, 2], dilations=[1, 1])
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"Reshape {flat} -> {image} -> Conv 3x3 / 2 with pads 1 on every side (SAME would pad "
                        "the end only): ONNX Conv pads [1, 1, 1, 1], TFLite PAD then CONV_2D VALID")


@CATALOGUE
def channel_tail(rng, d=None) -> Pattern:
    b = _B(rng, d)
    # sizes no tail length takes: C never equals H or W (the ambiguous shapes are the equal-sizes axis's)
    x = b.input("x", (1, b.d.size("H", 2, 1, 5), b.d.size("W", 6, 1, 7), 10))
    cout = b.d.size("CO", 9, 1, 65)
    c = b.conv(x, cout, "conv", k=(1, 1), padding="VALID", vary_padding=False)
    # the decisive channel is the last: its weights 0 and bias 40 exceed every other channel's
    # |w x + b| < 10 * 1.5 * 2 + 1.5
    b.g.tensors["conv_weights"].data[-1] = 0.0
    b.g.tensors["conv_bias"].data[-1] = 40.0
    y_max = b.op("reduce_max", [c], "y_max", axes=[-1], keepdims=False)
    y = b.op("softmax", [c], "y", axis=-1)
    return Pattern("Softmax", PROPAGATION, b.done(y, y_max),
                   what=f"Conv 1x1 to C = {cout} -> Softmax and ReduceMax over C (ONNX axis -3): the last channel "
                        "holds the maximum (40) and the largest softmax share")


def _nan_payloads(rng: sampling.Stream, shape) -> np.ndarray:
    """Seeded uniform data with every float32 NaN encoding (quiet, signalling, low and high payloads, both
    signs: generator/axes.py nan_values) at the first and at the last positions (a vector's tail)."""
    x = _uniform(rng, shape).ravel()
    _, nans = axes.nan_values("float32")
    k = min(len(nans), x.size // 2)
    x[:k], x[x.size - k:] = nans[:k], nans[::-1][:k]
    return x.reshape(shape)


@CATALOGUE
def concat_transpose_reshape_nan_payloads(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(n=1)
    n, h, w, _ = b.shape(c)
    x2 = b.input("x2", (n, h, w, b.d.size("other", 2, 1, 8)))
    cat = b.op("concat", [c, x2], "joined", axis=3)
    y = b.op("transpose", [cat], "y", perm=[0, 2, 1, 3])
    flat = b.op("reshape", [x2], "flat", shape=[n, int(np.prod(b.shape(x2)[1:]))])
    return Pattern("Transpose", PROPAGATION, b.done(y, flat), fill={"x2": _nan_payloads},
                   what="NaN payloads in a graph input that Concat (C), Transpose (swap H, W) and Reshape (with "
                        "its Transpose bracket) move without arithmetic: each NaN must stay a NaN at its place")


def _reshape_concat(rng, d, explicit: bool) -> Pattern:
    b = _B(rng, d)
    a = b.image_conv(n=1)
    n, h, w, cout = b.shape(a)
    r = b.op("reshape", [a], "reshaped", shape=[n, w, h, cout])
    c = b.input("c", (n, w, h, b.d.size("other", 2, 1, 8)))
    g = b.done(b.op("concat", [r, c], "y", axis=3))
    layouts = {"reshaped": L.last_to_first(4)} if explicit else {}
    return Pattern("Reshape", EXPLICIT, g, layouts,
                   what="Conv -> A -> Reshape -> B; Concat(B, C) -> D (the spec's example): " +
                        ("the explicit layout B: NHWC -> NCHW carries NCHW to C and D" if explicit else
                         "without an explicit layout B, C and D keep the TFLite arrangement"))


@CATALOGUE
def reshape_concat_explicit_layout(rng, d=None) -> Pattern:
    return _reshape_concat(rng, d, True)


@CATALOGUE
def reshape_concat_no_explicit_layout(rng, d=None) -> Pattern:
    return _reshape_concat(rng, d, False)


def _broadcast(b: _B, op: str, operand: Callable[[tuple], tuple], as_input: bool = False) -> L.Graph:
    c = b.image_conv()
    shape = operand(b.shape(c))
    x = b.input("operand", shape) if as_input else b.const("operand", shape)
    return b.done(b.op(op, [c, x], "y"))


@CATALOGUE
def add_broadcast_c(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "add", lambda s: (s[3],))
    y, c = g.tensors["y"].shape, g.tensors["y"].shape[3]
    return Pattern("Add", BROADCAST, g,
                   what=f"Conv {_shape_text(y)} + weight ({c},): lifted to (1, 1, 1, {c}), ONNX (1, {c}, 1, 1)")


@CATALOGUE
def mul_broadcast_wc(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "mul", lambda s: (s[2], s[3]))
    w, c = g.tensors["y"].shape[2:]
    return Pattern("Mul", BROADCAST, g,
                   what=f"Conv * weight (W, C) = ({w}, {c}): lifted to (1, 1, {w}, {c}), ONNX (1, {c}, 1, {w}) "
                        "with the data transposed")


@CATALOGUE
def add_broadcast_11c(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "add", lambda s: (1, 1, s[3]))
    c = g.tensors["y"].shape[3]
    return Pattern("Add", BROADCAST, g,
                   what=f"Conv + weight (1, 1, C): lifted to (1, 1, 1, {c}), ONNX (1, {c}, 1, 1)")


@CATALOGUE
def mul_broadcast_wc_graph_input(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "mul", lambda s: (s[2], s[3]), as_input=True)
    w, c = g.tensors["y"].shape[2:]
    return Pattern("Mul", BROADCAST, g,
                   what=f"Conv * graph input (W, C): the ONNX graph keeps the input ({w}, {c}), reshapes it to "
                        f"(1, 1, {w}, {c}) and transposes it to (1, {c}, 1, {w})")


def _reduce(b: _B, op: str, axes, keepdims: bool) -> tuple[L.Graph, str]:
    """The graph and its ONNX output shape (as text)."""
    c = b.image_conv()
    y = b.op(op, [c], "y", axes=list(axes), keepdims=keepdims)
    s = b.shape(y)
    return b.done(y), _shape_text((s[0], s[3], s[1], s[2]) if keepdims else s)


@CATALOGUE
def mean_hw_negative_axes_keepdims1(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "mean", [-3, -2], True)
    return Pattern("ReduceMean", PROPAGATION, g,
                   what=f"Mean over H, W as axes [-3, -2], keepdims 1: ONNX axes [-2, -1], output {out}")


@CATALOGUE
def mean_hw_keepdims0(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "mean", [1, 2], False)
    return Pattern("ReduceMean", PROPAGATION, g,
                   what=f"Mean over H, W, keepdims 0: output {out} in both layouts")


@CATALOGUE
def reduce_max_c_negative_axis_keepdims0(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "reduce_max", [-1], False)
    return Pattern("ReduceMax", PROPAGATION, g,
                   what=f"ReduceMax over C as axis -1, keepdims 0: ONNX axis -3, output {out}")


@CATALOGUE
def reduce_max_hc_keepdims1(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "reduce_max", [-1, 1], True)
    return Pattern("ReduceMax", PROPAGATION, g,
                   what=f"ReduceMax over C and H as axes [-1, 1], keepdims 1: ONNX axes [-3, 2], output {out}")


@CATALOGUE
def mean_h_keepdims0_softmax(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    m = b.op("mean", [c], "reduced", axes=[1], keepdims=False)
    return Pattern("ReduceMean", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what="Mean over H, keepdims 0 -> (N, W, C), ONNX (N, C, W): the layout stays on the reduced "
                        "tensor, so the Softmax on C (-1) becomes axis -2 (witness: a converter that drops it)")


@CATALOGUE
def pad_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    pads = [[b.d.int(f"pad{i}_begin", p, 0, 3), b.d.int(f"pad{i}_end", q, 0, 3)]
            for i, (p, q) in enumerate([[1, 0], [1, 2], [3, 0], [2, 1]])]
    y = b.op("pad", [c], "y", pads=pads)
    nchw = [pads[i] for i in L.last_to_first(4)]
    onnx_pads = ",".join(str(p) for p, _ in nchw) + ", " + ",".join(str(q) for _, q in nchw)
    return Pattern("Pad", PROPAGATION, b.done(y),
                   what="Pad with different pads per axis and side, the channel axis too: NHWC ["
                        + ",".join(f"[{p},{q}]" for p, q in pads) + f"] -> ONNX pads [{onnx_pads}]")


@CATALOGUE
def slice_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    begin, size = [], []
    for i, (dim, b0, s0) in enumerate(zip(b.shape(c), [1, 1, 2, 3], [1, 3, 4, 7])):
        begin.append(b.d.int(f"begin{i}", b0, 0, dim - 1))
        size.append(b.d.int(f"size{i}", s0, 1, dim - begin[-1]))
    y = b.op("slice", [c], "y", begin=begin, size=size)
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what=f"Slice begin {begin} size {size}: begin / size permuted with the layout")


@CATALOGUE
def strided_slice_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    begin, end, strides = [], [], []
    for i, (dim, s0, b0, e0) in enumerate(zip(b.shape(c), [1, -1, 3, 2], [1, 4, 1, 0], [2, 0, 7, 11])):
        s = b.d.pick(f"stride{i}", s0, [1, 2, 3, -1, -2] if dim > 1 else [1, 2, 3])
        if s > 0:
            begin.append(b.d.int(f"begin{i}", b0, 0, dim - 1))
            end.append(b.d.int(f"end{i}", e0, begin[-1] + 1, dim))
        else:  # from begin down to end + 1 (end >= 0: ONNX reads -1 as the last element)
            begin.append(b.d.int(f"begin{i}", b0, 1, dim - 1))
            end.append(b.d.int(f"end{i}", e0, 0, begin[-1] - 1))
        strides.append(s)
    y = b.op("strided_slice", [c], "y", begin=begin, end=end, strides=strides)
    back = ", ".join("NHWC"[i] for i, s in enumerate(strides) if s < 0)
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what=f"StridedSlice begin {begin} end {end} strides {strides}"
                        + (f" ({back} backwards)" if back else ""))


@CATALOGUE
def softmax_channel_axis(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [c], "y", axis=-1)),
                   what="TFLite Softmax (last axis = C) after Conv: ONNX Softmax axis -3 (C of NCHW)")


@CATALOGUE
def softmax_last_axis_1x256x256(rng, d=None) -> Pattern:
    b = _B(rng, d)
    shape = (1, b.d.size("H", 256, 1, 16), b.d.size("W", 256, 1, 16))
    x = b.input("x", shape)
    m = b.op("mul", [x, b.const("scale", shape[2:])], "scaled")
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what=f"{list(shape)} with no implicit op: nothing to convert, ONNX Softmax axis -1 on the same "
                        "shape; a converter that guesses NCW / NWC from the shape transposes it")


@CATALOGUE
def transpose_in_propagated_region(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    perm = b.d.pick("perm", [0, 2, 1, 3], [list(p) for p in itertools.permutations(range(4))])
    t = b.op("transpose", [c], "swapped", perm=perm)
    nchw = L.last_to_first(4)
    onnx_perm = list(L.compose(L.inverse(nchw), L.compose(perm, nchw)))
    return Pattern("Transpose", PROPAGATION, b.done(b.op("relu", [t], "y")),
                   what=f"Transpose {perm}" + (" (swap H, W)" if perm == [0, 2, 1, 3] else "")
                        + f" inside the NCHW region: ONNX perm {onnx_perm}")


@CATALOGUE
def prelu_per_channel_slope(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    _, h, w, cout = b.shape(c)
    form = b.d.pick("slope", "(1, 1, C)", ["(C,)", "(1, 1, C)", "(W, C)", "(H, W, C)"])
    shape = {"(C,)": (cout,), "(1, 1, C)": (1, 1, cout), "(W, C)": (w, cout), "(H, W, C)": (h, w, cout)}[form]
    lifted = (1,) * (4 - len(shape)) + shape
    onnx_shape = tuple(lifted[i] for i in L.last_to_first(4))
    return Pattern("PRelu", BROADCAST, b.done(b.op("prelu", [c, b.const("slope", shape)], "y")),
                   what=f"PRelu with slope {form}: ONNX slope {_shape_text(onnx_shape)}")


@CATALOGUE
def split_channel_axis(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(cout_min=2)
    cout = b.shape(c)[3]
    first = b.d.int("split", 8, 1, cout - 1)
    y1, y2 = b.op("split", [c], ["y1", "y2"], axis=3, sizes=[first, cout - first])
    return Pattern("Split", PROPAGATION, b.done(y1, y2),
                   what=f"Split on C into [{first}, {cout - first}]: ONNX axis 1, both outputs NCHW")


@CATALOGUE
def pool_max_then_average(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(h=11, w=13, cout=7)
    k1, pad1, s1 = b.d.window("max_pool", b.shape(c)[1:3], (2, 2), "VALID", (2, 2))
    p = b.op("max_pool", [c], "max_pooled", kernel=list(k1), strides=list(s1), padding=pad1)
    # SAME, and a kernel that pads unless it is the identity: the pattern's point
    k2, _, s2 = b.d.window("avg_pool", b.shape(p)[1:3], (3, 3), "SAME", (1, 1), vary_padding=False, kernel_min=2)
    y = b.op("avg_pool", [p], "y", kernel=list(k2), strides=list(s2), padding="SAME")
    return Pattern("AveragePool", PROPAGATION, b.done(y),
                   what=f"MaxPool {_window_text(k1)} / {_stride_text(s1)} {pad1} then AveragePool {_window_text(k2)} "
                        + ("" if s2 == (1, 1) else f"/ {_stride_text(s2)} ") + "SAME (padding not counted)")


@CATALOGUE
def depthwise_conv_multiplier2(rng, d=None) -> Pattern:
    b = _B(rng, d)
    x = b.image(n=1, h=9, w=13, c=3)
    c, m = b.shape(x)[3], b.d.size("M", 2, 1, 3)
    k, padding, strides = b.d.window("dw", b.shape(x)[1:3], (3, 3), "SAME", (2, 2))
    w, bias = b.const("dw_weights", (1,) + k + (c * m,)), b.const("dw_bias", (c * m,))
    y = b.op("depthwise_conv", [x, w, bias], "y", padding=padding, strides=list(strides), dilations=[1, 1])
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"Depthwise conv, multiplier {m}, stride {_stride_text(strides)}: weights "
                        f"{_shape_text((1,) + k + (c * m,))} -> {_shape_text((c * m, 1) + k)}, group {c}")


@CATALOGUE
def rank3_explicit_nwc(rng, d=None) -> Pattern:
    b = _B(rng, d)
    x = b.input("x", (b.d.size("N", 1, 1, 3), b.d.size("W", 11, 1, 12), b.d.size("C", 5, 1, 8)))
    m = b.op("mul", [x, b.const("scale", b.shape(x)[2:])], "scaled")
    axis = b.d.pick("axis", -2, [1, 2, 0, -1, -2, -3])
    y = b.op("mean", [m], "y", axes=[axis], keepdims=True)
    ncw = L.last_to_first(3)
    onnx_axis = L.inverse(ncw)[axis % 3] - (3 if axis < 0 else 0)
    return Pattern("ReduceMean", EXPLICIT, b.done(y), {"x": ncw},
                   what=f"3-D: explicit layout x NWC -> NCW; Mul by (C,) and Mean over {'NWC'[axis % 3]} "
                        f"(axis {axis} -> {onnx_axis})")


@CATALOGUE
def rank5_conv3d(rng, d=None) -> Pattern:
    b = _B(rng, d)
    sizes = [("N", 1, 3), ("D", 3, 6), ("H", 5, 6), ("W", 7, 6), ("C", 2, 4)]
    x = b.input("x", tuple(b.d.size(name, s, 1, hi) for name, s, hi in sizes))
    k, padding, strides = b.d.window("conv", b.shape(x)[1:4], (2, 3, 3), "SAME", (1, 1, 1))
    cout = b.d.size("CO", 11, 1, 8)
    w, bias = b.const("conv_weights", k + (b.shape(x)[4], cout)), b.const("conv_bias", (cout,))
    c = b.op("conv", [x, w, bias], "conv", padding=padding, strides=list(strides), dilations=[1, 1, 1])
    t = b.op("add", [c, b.const("shift", (cout,))], "shifted")
    axis = b.d.pick("axis", 1, [1, 2, 3])
    y = b.op("mean", [b.op("relu", [t], "relu")], "y", axes=[axis], keepdims=True)
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"5-D: CONV_3D (NDHWC, weights DHWIO) -> Add (C,) -> Relu -> Mean over {'NDHWC'[axis]}: "
                        f"NCDHW, axis {axis + 1}")


# ---------------------------------------------------------------------------------------
# hunting (opconform hunt; generator/hunting.py)
# ---------------------------------------------------------------------------------------
HUNT_DATA: dict[str, Callable[[sampling.Stream, tuple], np.ndarray]] = {
    # asymmetric ranges: a sign error or a reversed order cannot pass
    "uniform [-1, 2)": _uniform,
    "integers [-2, 3]": lambda rng, shape: rng.integers(-2, 3, size=shape).astype(np.float32),
    "uniform [-24, 40)": lambda rng, shape: rng.uniform(-24.0, 40.0, size=shape).astype(np.float32),
}


def hunted_cases(pattern: str, seed: int, d: Dims, data: str = "uniform [-1, 2)") -> list[Case]:
    """The graph case (or probe: assemble) of CATALOGUE[pattern] with the sizes d gives (drawn, or replayed
    from params "sizes"), its weights and then one data set drawn from a Stream of `seed` (values:
    HUNT_DATA[data]). case.json params carry "pattern", "sizes" and "data", from which source_pattern
    rebuilds it."""
    rng = sampling.Stream(seed)
    p = CATALOGUE[pattern](rng, d)
    xs = [HUNT_DATA[data](rng, p.graph.tensors[n].shape) for n in p.graph.inputs]
    params = {"pattern": pattern, "sizes": dict(sorted(d.values.items())), "data": data}
    return assemble(p, pattern, seed, [xs], params)


def hunt_order() -> list[str]:
    """The patterns, simplest first (fewest ops, then fewest input elements): where a hunt shrinks to."""
    def weight(name: str):
        g = CATALOGUE[name](sampling.Stream(0)).graph
        return len(g.ops), sum(int(np.prod(g.tensors[n].shape)) for n in g.inputs), name

    return sorted(CATALOGUE, key=weight)


def hunt(max_opset: int, patterns: Sequence[str] | None = None):
    """Graph cases for opconform hunt (generator/hunting.py), None below OPSET: one slice per pattern of the
    catalogue (simplest first); with `patterns` (names of CATALOGUE), one strategy over those, its sizes and
    attribute values (Dims: sizes from 1 up, equal sizes often; conv / pool windows with either padding, kernels
    1 to 3 and strides 1 or 2, so that SAME's odd pixel moves; the pattern's pads, slices, split, perm, slope
    shape, reduced axis), its weights and one data set from a drawn seed (shrinks toward 0), and the range of
    the data (HUNT_DATA). Every result is defined (finite float32 data, no empty tensor), so no example has a
    probe. Example.args: pattern, seed, sizes, data (rebuild)."""
    from hypothesis import strategies as st

    if max_opset < OPSET:
        return None
    if patterns is None:  # one slice per pattern: the hunter gives each its turn (generator/hunting.py)
        return {name.removeprefix("test_layout_"): hunt(max_opset, [name]) for name in hunt_order()}
    order = [n for n in hunt_order() if n in patterns]
    if patterns is not None and len(order) != len(set(patterns)):
        raise ValueError(f"no layout pattern {sorted(set(patterns) - set(order))}")

    @st.composite
    def examples(draw):
        pattern = draw(st.sampled_from(order))
        seed = draw(st.integers(0, 2**32 - 1))
        data = draw(st.sampled_from(list(HUNT_DATA)))
        d = Dims(draw=draw)
        cases = hunted_cases(pattern, seed, d, data)
        return _example(cases, {"pattern": pattern, "seed": seed, "sizes": d.values, "data": data})

    return examples()


def rebuild(args: dict) -> Example:
    """The hunted example args describe (generator/hunting.py), built again: same sizes, weights and data."""
    return _example(hunted_cases(args["pattern"], args["seed"], Dims(args["sizes"]), args["data"]), args)


def _example(cases: list[Case], args: dict) -> Example:
    kinds = {c.kind: c for c in cases}
    return Example(kinds.get("graph"), kinds.get("probe"), json.loads(json.dumps(args, sort_keys=True)))
