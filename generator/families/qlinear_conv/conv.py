"""One QLinearConv case's configuration (Conv), its model, the reference's outcome of a data set, and the node
and probe cases of given data sets: what every other part of the family builds on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from generator import dtypes
from generator.case import Case, node_model
from generator.family import Family, split
from generator.outcome import Outcome
from generator.reference import qlinear_conv as ref

FAMILY = Family("qlinear_conv", "QLinearConv", ref.SPEC_FILE)
OPSET = 10
NAMES = ("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B")

PROFILES = {
    # datasets: per case; random: seeded random configurations
    "quick": dict(datasets=1, random=0),
    "default": dict(datasets=3, random=16),
    "exhaustive": dict(datasets=8, random=128),
}

COMPARE = {
    "mode": "exact",
    "reason": "one result per input: the exact value acc * x_scale * w_scale / y_scale rounded half to even, "
              "plus y_zero_point, saturated",
    "tolerant": {"mode": "abs", "abs": 1, "reason": "fixed-point requantization is common practice: +-1"},
}
CLAUSE = "Summary; attributes auto_pad, dilations, group, kernel_shape, pads, strides; inputs x .. B"


@dataclass(frozen=True)
class Conv:
    """One case: shapes, attributes, types, and how its data sets are drawn."""

    what: str = ""  # the case is test_qlinearconv_<what> (a catalogue entry: its name)
    x_shape: tuple = (1, 3, 7, 7)
    kernel: tuple = (3, 3)
    m: int = 4
    attrs: dict = field(default_factory=dict)  # auto_pad, pads, strides, dilations, group, kernel_shape
    types: tuple = ("uint8", "uint8", "uint8")  # x, w, y
    per_channel: str | None = None  # None | "scale" (w_zero_point equal) | "zero_point" (both distinct)
    bias: str | None = None  # None | "random" | "negative" | "saturate" | "int32_overflow"
    scales: str = "random"  # "random" | "pow2" | "sixth" | "saturate" | "bad" | "nan" (every NaN kind in turn)
    zero_points: str = "random"  # "random" | "ends" (both ends of each type, in turn) | "middle"
    spread: int | None = None  # x and w within +-spread of their zero points (None: the whole type)
    opset: int = 10  # the model's ai.onnx opset (the opset-boundary axis: 11 and the newest, still QLinearConv-10)

    @property
    def group(self) -> int:
        return int(self.attrs.get("group", 1))

    @property
    def w_shape(self) -> tuple:
        return (self.m, self.x_shape[1] // self.group) + tuple(self.kernel)

    @property
    def name(self) -> str:
        return f"{FAMILY.prefix}_{self.what}"

    def params(self) -> dict:
        p = {"x_shape": list(self.x_shape), "w_shape": list(self.w_shape), "x_type": self.types[0],
             "w_type": self.types[1], "y_type": self.types[2], "bias": self.bias or "absent",
             "per_channel": self.per_channel or "no", "scales": self.scales}
        p.update({k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in self.attrs.items()})
        return p


def _type(name: str) -> dtypes.DType:
    return dtypes.get(name)


def geometry(conv: Conv) -> tuple:
    """(pads at the start, pads at the end, output spatial shape, strides, dilations) of conv's attributes, with
    auto_pad resolved (generator.reference.qlinear_conv.resolve_padding)."""
    a = conv.attrs
    nd = len(conv.kernel)
    strides, dilations = a.get("strides", [1] * nd), a.get("dilations", [1] * nd)
    begin, end, out = ref.resolve_padding(conv.x_shape[2:], conv.kernel, strides, dilations,
                                          a.get("auto_pad", "NOTSET"), a.get("pads"))
    return begin, end, out, strides, dilations


def expected(conv: Conv, inputs: list[np.ndarray]) -> Outcome:
    """The reference's Outcome of one data set (NAMES order) of conv."""
    a = conv.attrs
    return ref.qlinear_conv(*inputs[:8], inputs[8] if len(inputs) > 8 else None, y_type=conv.types[2],
                            auto_pad=a.get("auto_pad", "NOTSET"), dilations=a.get("dilations"),
                            group=conv.group, kernel_shape=a.get("kernel_shape"), pads=a.get("pads"),
                            strides=a.get("strides"))


def model(conv: Conv, input_shapes: list[tuple] | None = None, geometry_of: Conv | None = None):
    """The one-node model; input_shapes overrides the declared input shapes and geometry_of the conv whose
    output shape is declared (negative cases)."""
    xt, wt, yt = (_type(t) for t in conv.types)
    f32 = dtypes.get("float")
    per = (conv.m,) if conv.per_channel else ()
    shapes = [conv.x_shape, (), (), conv.w_shape, per, per, (), (), (conv.m,)]
    types = [xt, f32, xt, wt, f32, wt, f32, yt, dtypes.get("int32")]
    n = 9 if conv.bias else 8
    shapes = list(input_shapes or shapes[:n])
    _, _, out, _, _ = geometry(geometry_of or conv)
    y_shape = (conv.x_shape[0], conv.m) + tuple(out)
    return node_model(FAMILY.op, list(zip(NAMES[:n], types[:n], shapes)), [("y", yt, y_shape)], dict(conv.attrs),
                      conv.opset)


def dataset_cases(conv: Conv, datasets: list[list[np.ndarray]], s: int, flags: list[str],
                  **extra) -> Iterator[Case]:
    """The node case of the given data sets the spec defines (expected outputs from the reference), and the
    probe case of those it does not (generator.family.split); s: the seed case.json records, extra: more of
    case.json."""
    meta = FAMILY.meta(opset=conv.opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=s, params=conv.params(),
                       reading=conv_reading(conv.attrs), **extra)
    yield from split(conv.name, datasets, [expected(conv, inputs) for inputs in datasets], lambda _: model(conv), meta)


def conv_reading(attrs: dict) -> str:
    """case.json "reading" of a judged QLinearConv case (reference READING_*): every expected y rests on one."""
    return "; ".join(ref.readings(attrs.get("auto_pad", "NOTSET"), attrs.get("dilations")))
