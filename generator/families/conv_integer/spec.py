"""One ConvInteger case's configuration (CI), its model, the reference's outcome of a data set, and the node and
probe cases of given data sets: what every other part of the family builds on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
from onnx import helper

from generator import dtypes
from generator.case import Case, finish_model, value_info
from generator.family import Catalogue, Family, split
from generator.outcome import Outcome
from generator.reference import conv_integer as ref

FAMILY = Family("conv_integer", "ConvInteger", ref.SPEC_FILE)
OPSET = ref.OPSET
NAMES = ref.NAMES
CATALOGUE = Catalogue()
PROBES = Catalogue()
# the report's grid: x_zero_point form x w_zero_point form, one table per type pair (worst verdict per cell)
GRID = ("x_zp", "w_zp", ("x_type", "w_type"))
U8, I8 = "uint8", "int8"

PROFILES = {
    # datasets: per case; random: seeded random configurations
    "quick": dict(datasets=1, random=0),
    "default": dict(datasets=2, random=12),
    "exhaustive": dict(datasets=6, random=96),
}
COMPARE = {"mode": "exact", "reason": "integer output: one exact int32 per element (the exact sum of exact products)"}
CLAUSE = ("Summary (\"The production MUST never overflow. The accumulation may overflow if and only if in 32 bits.\"); "
          "inputs x, w, x_zero_point, w_zero_point; attributes auto_pad, dilations, group, kernel_shape, pads, "
          "strides; type constraints T1, T2, T3")
ATTRS = ("auto_pad", "pads", "strides", "dilations", "group", "kernel_shape")


@dataclass(frozen=True)
class CI:
    """One case: shapes, attributes, types, the zero points' forms, and how its data sets are made (data.py)."""

    what: str = ""  # the case is test_convinteger_<what>
    x_shape: tuple = (1, 3, 7, 7)
    kernel: tuple = (3, 3)
    m: int = 4
    attrs: dict = field(default_factory=dict)  # auto_pad, pads, strides, dilations, group, kernel_shape
    types: tuple = (U8, U8)  # x, w
    x_zp: str = "tensor"  # absent | tensor (scalar) | one ([1])
    w_zp: str = "tensor"  # absent | tensor | one | channel ([M])
    data: str = "random"
    opset: int = OPSET
    dims: dict | None = None  # declared shapes with symbolic dims, by input name (one model, data sets of sizes)

    @property
    def group(self) -> int:
        return int(self.attrs.get("group", 1))

    @property
    def w_shape(self) -> tuple:
        return (self.m, self.x_shape[1] // self.group) + tuple(self.kernel)

    @property
    def name(self) -> str:
        return f"{FAMILY.prefix}_{self.what}"

    def zp_shapes(self) -> tuple[tuple | None, tuple | None]:
        xz = {"absent": None, "tensor": (), "one": (1,)}[self.x_zp]
        wz = {"absent": None, "tensor": (), "one": (1,), "channel": (self.m,)}[self.w_zp]
        return xz, wz

    def params(self) -> dict:
        p = {"x_shape": list(self.x_shape), "w_shape": list(self.w_shape), "x_type": self.types[0],
             "w_type": self.types[1], "x_zp": self.x_zp, "w_zp": self.w_zp, "data": self.data}
        p.update({k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in self.attrs.items()})
        return p


def ci_of(what: str, params: dict, **extra) -> CI:
    """The configuration params (CI.params()) describe."""
    w_shape = tuple(params["w_shape"])
    return CI(what, tuple(params["x_shape"]), w_shape[2:], w_shape[0], {k: params[k] for k in ATTRS if k in params},
              (params["x_type"], params["w_type"]), params["x_zp"], params["w_zp"], params.get("data", "random"),
              **extra)


def y_shape(ci: CI) -> tuple:
    _, _, out, _, _ = ref.geometry(ci.x_shape, ci.w_shape, ci.attrs)
    return (ci.x_shape[0], ci.m) + tuple(out)


def model(ci: CI, input_shapes: list | None = None, input_types: list | None = None,
          y: tuple | str | None = "infer"):
    """The one-node model: x, w and the zero points present as graph inputs; an absent x_zero_point before a present
    w_zero_point is the empty name. input_shapes / input_types override the declared ones (x, w, x_zero_point,
    w_zero_point), y the output's shape ("infer": the reference geometry's, None: unknown) (negative cases)."""
    xz, wz = ci.zp_shapes()
    xt, wt = (dtypes.get(t) for t in ci.types)
    shapes = [ci.x_shape, ci.w_shape, xz, wz]
    if ci.dims:
        shapes = [ci.dims.get(n, s) for n, s in zip(NAMES, shapes)]
    shapes = list(input_shapes) if input_shapes is not None else shapes
    types = list(input_types) if input_types is not None else [xt, wt, xt, wt]
    present = [True, True, xz is not None, wz is not None]
    n_in = 4 if present[3] else (3 if present[2] else 2)
    names = [n if present[i] else "" for i, n in enumerate(NAMES[:n_in])]
    graph_inputs = [value_info(n, types[i], shapes[i]) for i, n in enumerate(names) if n]
    out = y if y != "infer" else (ci.dims.get("y") if ci.dims else y_shape(ci))
    node = helper.make_node(FAMILY.op, names, ["y"], **dict(ci.attrs))
    graph = helper.make_graph([node], "convinteger", graph_inputs, [value_info("y", dtypes.get("int32"), out)])
    return finish_model(graph, ci.opset)


def feed(ci: CI, x, w, xz=None, wz=None) -> list[np.ndarray]:
    """A data set in the model's graph-input order: x, w, then each zero point the model has."""
    s_xz, s_wz = ci.zp_shapes()
    return [x, w] + ([xz] if s_xz is not None else []) + ([wz] if s_wz is not None else [])


def as_reference(ci: CI, dataset: list) -> list:
    """A data set in graph-input order back to (x, w, x_zero_point, w_zero_point), None where absent."""
    s_xz, _ = ci.zp_shapes()
    rest = list(dataset[2:])
    xz = rest.pop(0) if s_xz is not None else None
    wz = rest.pop(0) if rest else None
    return [dataset[0], dataset[1], xz, wz]


def expected(ci: CI, dataset: list) -> Outcome:
    """The reference's Outcome of one data set (graph-input order)."""
    return ref.conv_integer(*as_reference(ci, dataset), **ci.attrs)


def reading(ci: CI, datasets: list) -> str:
    """case.json "reading" (reference readings()): from the data sets' own shapes where the model's are symbolic."""
    x_shape = tuple(np.shape(datasets[0][0])) if datasets else ci.x_shape
    w_shape = tuple(np.shape(datasets[0][1])) if datasets else ci.w_shape
    k = max((int(np.prod(np.shape(d[1])[1:])) for d in datasets), default=0)
    forms = (ci.x_zp, ci.w_zp)
    out = ref.readings(ci.attrs, x_shape, w_shape, forms)
    if k * 255 * 255 > ref.INT32_MAX and ref.READING_EXACT not in out:
        out.append(ref.READING_EXACT)
    return "; ".join(out)


def dataset_cases(ci: CI, datasets: list[list[np.ndarray]], seed: int, flags: list[str], **extra) -> Iterator[Case]:
    """The node case of the data sets (graph-input order) the text defines, and the probe case of the others."""
    meta = FAMILY.meta(opset=ci.opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=seed, params=ci.params(),
                       reading=reading(ci, datasets), **extra)
    outcomes = [expected(ci, d) for d in datasets]
    yield from split(ci.name, datasets, outcomes, lambda _: model(ci), meta)
