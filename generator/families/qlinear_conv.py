"""The QLinearConv family (ONNX QLinearConv-10): quantized 1-D, 2-D and 3-D convolution.

One Conv per case (test_qlinearconv_<what>; the fixed ones are CATALOGUE's functions, the probes PROBES'):
a model, and data sets drawn for it (inputs uniform over their types unless the entry says otherwise; scales
log-uniform, y_scale set from the accumulator so outputs spread over the output range). Every listed
attribute is its own case:
  padding      pads absent / zero / symmetric / asymmetric, auto_pad NOTSET / VALID, SAME_UPPER and
               SAME_LOWER with odd and even total padding, strides 1 and 2, dilations 1 and 2
  kernel       kernel_shape given, 1x1, even, odd, as large as the padded input
  channels     group 2, depthwise, depthwise with a channel multiplier, batch 3; 1-D and 3-D
  quantization per-output-channel w_scale (and w_zero_point, distinct per channel); every x / w / y
               type pair with zero points at both ends of their ranges; x_zero_point != 0 with padding
  bias         present, negative, large enough to saturate; outputs saturating at both ends
  rounding     exact requantization ties (power-of-two scales; and a multiplier 1/6 that is no float)
               and random scales
  config_<i>_random   configurations from seeded PCG64 draws (generator.sampling; the only cases --seed changes)
  explicit_defaults    the explicit-defaults axis: auto_pad "NOTSET", group 1, strides / dilations 1, pads 0 and
               kernel_shape written with their default values
  vector_tail  the vector-tail axis: one 1-D model of symbolic width and channel count, a tie or a saturating
               accumulation at the last output position, widths 1..17, 31..33, 63..65 and channel counts around 8, 16
  pads_symmetric_opset<n>   the opset-boundary axis: opset 11 and the newest (both QLinearConv-10)
  witness_<class>  one case per configuration class of qlinear_conv_faults.group_key: data sets on which the
               fault models differ from the reference, from the committed catalogue (generator/witness/catalogue/)
  negative_*   (negative/) models the spec rules out; the backend must refuse them at prepare
  *_probe      (probe/) data whose result the spec leaves undefined: acc beyond int32, bad scales

hunt(max_opset) is the strategy of `opconform hunt` (generator/hunting.py): tiny configurations and one data
set each, drawn by hypothesis toward the fault models' boundaries, built into cases by the same functions
(dataset_cases, the negative builders); rebuild(args) builds a drawn example again.

Every judged case carries case.json "reading" (the text writes no formula for y: reference READING_*).
Expected values come from generator.reference.qlinear_conv only.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

import numpy as np

import onnx

from generator import axes, dtypes, sampling, witness
from generator.case import Case, node_model
from generator.family import Catalogue, Family, split
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


# ---------------------------------------------------------------------------------------------
# the catalogue: one function per fixed case, returning its Conv (CATALOGUE; PROBES: data the spec leaves
# undefined, whole data sets go to probe/); the case is test_qlinearconv_<function name>
# ---------------------------------------------------------------------------------------------
CATALOGUE = Catalogue()
PROBES = Catalogue()
U8, I8 = "uint8", "int8"


@CATALOGUE
def pads_absent():
    return Conv()


@CATALOGUE
def pads_zero():
    return Conv(attrs={"pads": [0, 0, 0, 0]})


@CATALOGUE
def pads_symmetric():
    return Conv(attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def pads_asymmetric():
    return Conv(attrs={"pads": [2, 0, 1, 3]})


@CATALOGUE
def auto_pad_notset():
    return Conv(attrs={"auto_pad": "NOTSET", "pads": [1, 2, 1, 2]})


@CATALOGUE
def auto_pad_valid():
    return Conv(x_shape=(1, 3, 8, 7), attrs={"auto_pad": "VALID"})


@CATALOGUE
def auto_pad_valid_strides():
    return Conv(x_shape=(1, 3, 8, 7), attrs={"auto_pad": "VALID", "strides": [2, 3]})


def _same_padding() -> None:
    """SAME_UPPER / SAME_LOWER for strides 1, 2 and dilations 1, 2, with odd and even total padding (per axis:
    (stride, dilation, parity) -> (kernel, input) giving that parity; stride 1 with dilation 2 pads
    2 * (k - 1), never odd). W is H + 2, which keeps the parity, so a swapped axis shows."""
    grid = {(1, 1, "even"): (3, 6), (1, 1, "odd"): (4, 6), (1, 2, "even"): (3, 7), (2, 1, "even"): (3, 7),
            (2, 1, "odd"): (3, 6), (2, 2, "even"): (3, 7), (2, 2, "odd"): (3, 6)}
    for mode in ("SAME_UPPER", "SAME_LOWER"):
        for (s, d, parity), (k, h) in grid.items():
            attrs = {"auto_pad": mode, "strides": [s, s], "dilations": [d, d]}
            CATALOGUE.add(f"{mode.lower()}_s{s}_d{d}_{parity}",
                          lambda h=h, k=k, attrs=attrs: Conv(x_shape=(1, 2, h, h + 2), kernel=(k, k), m=3, attrs=attrs))


_same_padding()


@CATALOGUE
def strides_2():
    return Conv(x_shape=(1, 3, 9, 8), attrs={"strides": [2, 2], "pads": [1, 1, 1, 1]})


@CATALOGUE
def dilations_2():
    return Conv(x_shape=(1, 3, 9, 8), attrs={"dilations": [2, 2], "pads": [2, 1, 2, 1]})


@CATALOGUE
def strides_dilations_per_axis():
    return Conv(x_shape=(1, 3, 9, 10), attrs={"strides": [1, 2], "dilations": [2, 1], "pads": [1, 0, 0, 1]})


@CATALOGUE
def kernel_shape_given():
    return Conv(attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})


@CATALOGUE
def explicit_defaults():
    """The explicit-defaults axis (generator/axes.py): every attribute written with its default value: the schema's
    (auto_pad "NOTSET", group 1: axes.attribute_defaults) and the text's (strides and dilations 1, pads 0,
    kernel_shape W's), on a kernel that is not square: an implementation that reads a present attribute wrongly
    (qlinear_conv.auto_pad_present_as_same_upper) changes the output."""
    kernel = (2, 3)
    attrs = dict(axes.attribute_defaults("QLinearConv", OPSET), strides=[1, 1], dilations=[1, 1], pads=[0, 0, 0, 0],
                 kernel_shape=list(kernel))
    return Conv(x_shape=(1, 3, 6, 7), kernel=kernel, attrs=attrs, bias="random")


@CATALOGUE
def kernel_1x1():
    return Conv(kernel=(1, 1))


@CATALOGUE
def kernel_even():
    return Conv(kernel=(2, 4), attrs={"pads": [1, 1, 0, 2]})


@CATALOGUE
def kernel_odd():
    return Conv(kernel=(3, 5), attrs={"pads": [1, 2, 1, 2]})


@CATALOGUE
def kernel_full_padded():
    return Conv(x_shape=(1, 3, 5, 4), kernel=(7, 6), attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def kernel_full_valid():
    return Conv(x_shape=(1, 3, 5, 4), kernel=(5, 4), attrs={"auto_pad": "VALID"})


@CATALOGUE
def group_2():
    return Conv(x_shape=(1, 4, 6, 6), m=6, attrs={"group": 2, "pads": [1, 1, 1, 1]})


@CATALOGUE
def depthwise():
    return Conv(x_shape=(1, 4, 6, 6), m=4, attrs={"group": 4, "pads": [1, 1, 1, 1]})


@CATALOGUE
def depthwise_multiplier():
    return Conv(x_shape=(1, 3, 6, 6), m=6, attrs={"group": 3, "pads": [1, 1, 1, 1]})


@CATALOGUE
def batch_3():
    return Conv(x_shape=(3, 3, 6, 6), attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def conv1d():
    return Conv(x_shape=(1, 3, 11), kernel=(3,), attrs={"pads": [1, 2], "strides": [2]})


@CATALOGUE
def conv1d_same_lower_dilation():
    return Conv(x_shape=(2, 2, 9), kernel=(3,), m=3, attrs={"auto_pad": "SAME_LOWER", "dilations": [2]})


@CATALOGUE
def conv3d():
    return Conv(x_shape=(1, 2, 4, 5, 6), kernel=(3, 2, 3), m=3, attrs={"pads": [1, 0, 1, 1, 1, 0]})


@CATALOGUE
def conv3d_same_upper_strides():
    return Conv(x_shape=(1, 2, 5, 4, 6), kernel=(2, 3, 3), m=3,
                attrs={"auto_pad": "SAME_UPPER", "strides": [2, 1, 2]})


@CATALOGUE
def per_channel_scale():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale")


@CATALOGUE
def per_channel_zero_point():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="zero_point")


@CATALOGUE
def per_channel_zero_point_int8():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), per_channel="zero_point")


@CATALOGUE
def x_zero_point_padding():
    return Conv(attrs={"pads": [2, 2, 2, 2]}, zero_points="ends")


@CATALOGUE
def x_zero_point_padding_int8():
    return Conv(attrs={"pads": [2, 2, 2, 2]}, types=(I8, I8, I8), zero_points="ends")


@CATALOGUE
def bias():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="random")


@CATALOGUE
def bias_negative():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="negative")


@CATALOGUE
def bias_saturate():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="saturate")


@CATALOGUE
def bias_saturate_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), bias="saturate")


@CATALOGUE
def saturate_both_ends():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="saturate", zero_points="middle")


@CATALOGUE
def saturate_both_ends_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), scales="saturate", zero_points="middle")


@CATALOGUE
def ties_pow2():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_per_channel():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale", scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_bias():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="pow2", spread=3, bias="random")


@CATALOGUE
def ties_inexact_multiplier():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="sixth", spread=2)


@CATALOGUE
def random_scales():
    return Conv(x_shape=(2, 3, 6, 6), attrs={"pads": [1, 1, 1, 1]})


def _type_triples() -> None:
    """Every x / w / y type triple, zero points at both ends of their types."""
    for x in (U8, I8):
        for w in (U8, I8):
            for y in (U8, I8):
                CATALOGUE.add(f"x_{x}_w_{w}_y_{y}",
                              lambda t=(x, w, y): Conv(attrs={"pads": [1, 1, 1, 1]}, types=t, zero_points="ends"))


_type_triples()


@PROBES
def bias_int32_overflow_probe():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="int32_overflow")


@PROBES
def scale_probe():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="bad")


@PROBES
def nan_scale_probe():
    """The NaN-payload axis: every float32 NaN encoding kind (quiet, signalling, payloads, both signs) as x_scale,
    w_scale or y_scale in turn: a scale that is no positive number is undefined [reference: UNDEF_SCALE]."""
    return Conv(x_shape=(1, 2, 4, 4), m=2, attrs={"pads": [1, 1, 1, 1]}, scales="nan")


def catalogue(entries: Catalogue = CATALOGUE) -> list[Conv]:
    """The Conv of every entry of a catalogue (CATALOGUE: every fixed case; PROBES), named for its entry."""
    return [replace(build(), what=name) for name, build in entries.items()]


# ---------------------------------------------------------------------------------------------
# data sets
# ---------------------------------------------------------------------------------------------
def _type(name: str) -> dtypes.DType:
    return dtypes.get(name)


def _zero_points(conv: Conv, s: sampling.Stream, i: int) -> tuple[int, np.ndarray, int]:
    xt, wt, yt = (_type(t) for t in conv.types)
    if conv.zero_points == "ends" and i > 0:  # data set 0 draws them; the rest go round the four corners
        corner = [(0, 0, 0), (1, 1, 1), (0, 1, 0), (1, 0, 1)][(i - 1) % 4]
        xz, wz, yz = ((t.int_min, t.int_max)[c] for t, c in zip((xt, wt, yt), corner))
    elif conv.zero_points == "middle":  # x and w centred on their zero points: acc of both signs
        xz, wz = ((t.int_min + t.int_max + 1) // 2 for t in (xt, wt))
        yz = s.integers(yt.int_min, yt.int_max)
    else:
        xz, wz, yz = (s.integers(t.int_min, t.int_max) for t in (xt, wt, yt))
    if conv.per_channel == "zero_point":  # distinct values per output channel
        wzs = np.array(s.sample(range(wt.int_min, wt.int_max + 1), conv.m), dtype=np.int64)
    else:
        wzs = np.full(conv.m if conv.per_channel else 1, wz)
    return xz, wzs, yz


def _draw_ints(t: dtypes.DType, shape: tuple, zp, spread: int | None, s: sampling.Stream) -> np.ndarray:
    if spread is None:
        return s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
    v = np.asarray(zp).reshape((-1,) + (1,) * (len(shape) - 1)) + s.integers(-spread, spread, shape)
    return np.clip(v, t.int_min, t.int_max).astype(t.np_dtype)


def _f32(v) -> np.ndarray:
    """float32 values; float32 ones kept bit for bit (a float64 round trip quiets a signalling NaN)."""
    a = np.asarray(v)
    return a if a.dtype == np.float32 else a.astype(np.float64).astype(np.float32)


def _log_uniform(s: sampling.Stream, lo: int, hi: int, n: int | None = None):
    """float32 scales log-uniform over the octaves [2**lo, 2**hi) (sampling.Stream.octaves: exact, no pow)."""
    return _f32(s.octaves(lo, hi, n))


def geometry(conv: Conv) -> tuple:
    """(pads at the start, pads at the end, output spatial shape, strides, dilations) of conv's attributes, with
    auto_pad resolved (generator.reference.qlinear_conv.resolve_padding)."""
    a = conv.attrs
    nd = len(conv.kernel)
    strides, dilations = a.get("strides", [1] * nd), a.get("dilations", [1] * nd)
    begin, end, out = ref.resolve_padding(conv.x_shape[2:], conv.kernel, strides, dilations,
                                          a.get("auto_pad", "NOTSET"), a.get("pads"))
    return begin, end, out, strides, dilations


def draw_dataset(conv: Conv, s: sampling.Stream, i: int) -> list[np.ndarray]:
    """The inputs of data set i (NAMES order; B only when the case has a bias)."""
    xt, wt, _ = (_type(t) for t in conv.types)
    xz, wzs, yz = _zero_points(conv, s, i)
    x = _draw_ints(xt, conv.x_shape, xz, conv.spread, s)
    w = _draw_ints(wt, conv.w_shape, wzs if conv.per_channel else wzs[0], conv.spread, s)
    begin, end, out, strides, dilations = geometry(conv)
    acc, _ = ref.accumulate(x, xz, w, wzs, conv.group, begin, end, out, strides, dilations)
    spread = max(1.0, float(np.percentile(np.abs(acc), 95)))  # the accumulator's typical size
    n_ws = conv.m if conv.per_channel else None
    bias = None
    if conv.scales == "pow2":  # c = 2**-e with e >= 1: exact float32 products, ties at acc = 2**(e-1) mod 2**e
        e = max(1, int(np.ceil(np.log2(spread / 60))))
        xs = _f32(np.ldexp(1.0, s.integers(-8, -2)))
        ws = _f32(np.ldexp(1.0, s.integers(-8, -2, n_ws if n_ws else (), dtype=np.int32)))
        ys = _f32(float(xs) * (ws.max() if n_ws else float(ws)) * 2.0**e)
    elif conv.scales == "sixth":  # c = 0.5 * 0.25 / 0.75 = 1/6 (no float): ties where acc = 3 mod 6
        xs, ws, ys = _f32(0.5), _f32(0.25), _f32(0.75)
    else:
        xs = _log_uniform(s, -10, -2)
        ws = _log_uniform(s, -10, -3, n_ws)
        target = s.uniform(60, 250) if conv.scales != "saturate" else s.uniform(2000, 20000)
        ys = _f32(float(xs) * float(np.max(ws)) * spread / target)
        if conv.scales == "nan":  # the NaN-payload axis: NaN kind i (axes.nan_values) in one of the three scales
            _, nans = axes.nan_values("float")
            which, v = ("x_scale", "w_scale", "y_scale")[i % 3], nans[i % nans.size]
            xs, ws, ys = (np.full(np.shape(old), v, dtype=np.float32) if which == name else old
                          for name, old in (("x_scale", xs), ("w_scale", ws), ("y_scale", ys)))
        if conv.scales == "bad":
            bad = [("y_scale", 0.0), ("y_scale", -float(ys)), ("x_scale", np.inf), ("w_scale", np.nan),
                   ("x_scale", -0.0)][i % 5]
            xs, ws, ys = (_f32(bad[1]) if bad[0] == name else v
                          for name, v in (("x_scale", xs), ("w_scale", ws), ("y_scale", ys)))
    if conv.bias:
        q = int(spread)
        if conv.bias == "random":
            bias = s.integers(-2 * q, 2 * q, conv.m)
        elif conv.bias == "negative":
            bias = -s.integers(1, 2 * q, conv.m)
        elif conv.bias == "saturate":  # both signs, far beyond the output range, acc + B still in int32
            bias = s.integers(1 << 20, (1 << 28) - 1, conv.m) * np.resize([1, -1], conv.m)
        else:  # int32_overflow: acc + B crosses the int32 range for most elements
            bias = np.resize([ref.INT32_MAX - q // 4, ref.INT32_MIN + q // 4], conv.m)
        bias = bias.astype(np.int32)
    ws = np.asarray(ws, dtype=np.float32).reshape((conv.m,) if n_ws else ())
    wzs = wzs.astype(wt.np_dtype).reshape((conv.m,) if conv.per_channel else ())
    yt = _type(conv.types[2])
    inputs = [x, _f32(xs).reshape(()), np.array(xz, xt.np_dtype), w, ws, wzs, _f32(ys).reshape(()),
              np.array(yz, yt.np_dtype)]
    return inputs + ([bias] if bias is not None else [])


def expected(conv: Conv, inputs: list[np.ndarray]) -> Outcome:
    """The reference's Outcome of one data set (NAMES order) of conv."""
    a = conv.attrs
    return ref.qlinear_conv(*inputs[:8], inputs[8] if len(inputs) > 8 else None, y_type=conv.types[2],
                            auto_pad=a.get("auto_pad", "NOTSET"), dilations=a.get("dilations"),
                            group=conv.group, kernel_shape=a.get("kernel_shape"), pads=a.get("pads"),
                            strides=a.get("strides"))


# ---------------------------------------------------------------------------------------------
# models and cases
# ---------------------------------------------------------------------------------------------
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


def conv_cases(conv: Conv, n_datasets: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """The node case of the data sets the spec defines, and the probe case of those it does not."""
    s = sampling.case_seed(seed, conv.name)
    stream = sampling.Stream(s)
    yield from dataset_cases(conv, [draw_dataset(conv, stream, i) for i in range(n_datasets)], s, flags)


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


def negative_cases(seed: int) -> Iterator[Case]:
    """Models the spec rules out [QLinearConv-10: w, w_scale, w_zero_point, B, group]. The declared shapes
    make them invalid before any data; the one data set has those shapes, for backends that only look
    at run time."""
    base = Conv("negative", m=4, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale", bias="random")
    for what in BAD_LENGTHS:
        conv = replace(base, what=what)
        inputs = draw_dataset(conv, sampling.Stream(sampling.case_seed(seed, conv.name)), 0)
        yield bad_length_case(conv, inputs, seed)
    # "pads cannot be used simultaneously with auto_pad" [auto_pad]
    conv = Conv("negative_pads_with_auto_pad", attrs={"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]})
    valid = replace(conv, attrs={"auto_pad": "SAME_UPPER"})
    inputs = draw_dataset(valid, sampling.Stream(sampling.case_seed(seed, conv.name)), 0)
    yield pads_with_auto_pad_case(valid, inputs, seed, conv.what)
    # 3 input channels cannot be split into 2 groups: w has C / group = 1 channel, and 1 * 2 != 3
    conv = Conv("negative_group_channels", (1, 3, 7, 7), m=4, attrs={"group": 2, "pads": [1, 1, 1, 1]})
    s = sampling.Stream(sampling.case_seed(seed, conv.name))
    inputs = draw_dataset(replace(conv, x_shape=(1, 2, 7, 7)), s, 0)
    inputs[0] = s.integers(0, 255, conv.x_shape, dtype=np.uint8)
    yield group_channels_case(conv, inputs, seed)


BAD_LENGTHS = ("negative_w_scale_length", "negative_w_zero_point_length", "negative_bias_length")


def bad_length_case(conv: Conv, inputs: list[np.ndarray], seed: int) -> Case:
    """conv.what one of BAD_LENGTHS; conv per channel with a bias, inputs a data set of it: the one input
    given a length the spec rules out (w_scale / w_zero_point neither 1 nor M elements, B not M)."""
    m = conv.m
    n_ws, n_wz = (m - 1 if m > 2 else m + 1), (2 if m != 2 else 3)
    j, n, why = {
        "negative_w_scale_length": (4, n_ws, f"w_scale has {n_ws} elements: 1 or M = {m} [w_scale]"),
        "negative_w_zero_point_length": (5, n_wz, f"w_zero_point has {n_wz} elements: 1 or M = {m} [w_zero_point]"),
        "negative_bias_length": (8, m + 1, f"B has {m + 1} elements: it must have M = {m} [B]"),
    }[conv.what]
    inputs = list(inputs)
    inputs[j] = np.resize(inputs[j], (n,))
    return _negative(conv, inputs, [np.shape(v) for v in inputs], why, seed)


def pads_with_auto_pad_case(valid: Conv, inputs: list[np.ndarray], seed: int,
                            what: str = "negative_pads_with_auto_pad") -> Case:
    """valid: a conv with auto_pad SAME_UPPER / SAME_LOWER and no pads, inputs a data set of it: the model
    given pads too [auto_pad: "pads cannot be used simultaneously"]."""
    mode, nd = valid.attrs["auto_pad"], len(valid.kernel)
    conv = replace(valid, what=what, attrs=dict(valid.attrs, pads=[1] * (2 * nd)))
    return _negative(conv, inputs, [np.shape(v) for v in inputs],
                     f"pads together with auto_pad {mode}: they cannot be used together [pads]", seed, valid)


def group_channels_case(conv: Conv, inputs: list[np.ndarray], seed: int) -> Case:
    """conv: group > 1 and x channels no multiple of it (w has x channels // group per group), inputs a data
    set of it (x with those channels)."""
    c, g = conv.x_shape[1], conv.group
    return _negative(conv, inputs, [np.shape(v) for v in inputs],
                     f"x has {c} channels, w {c // g} per group with group {g}: X.shape[1] == W.shape[1] * group "
                     "[w, group]", seed)


def _negative(conv: Conv, inputs: list[np.ndarray], shapes: list[tuple], why: str, seed: int,
              geometry_of: Conv | None = None) -> Case:
    # the spec says what is invalid, not when it must be refused: a refusal when preparing or when running
    # (before any output) both count
    return FAMILY.negative(conv.name, model(conv, shapes, geometry_of), [inputs], phase="run", opset=OPSET,
                           clause=CLAUSE, seed=sampling.case_seed(seed, conv.name), flags=["negative"],
                           params=conv.params(), invalid=why)


# ---------------------------------------------------------------------------------------------
# random configurations (seeded PCG64 draws, generator.sampling)
# ---------------------------------------------------------------------------------------------
def configuration(s: sampling.Stream) -> Conv:
    """A valid configuration: 1 to 3 spatial axes, groups, kernel, strides, dilations, padding, types.
    Each choice is uniform over what is listed (a value listed twice is twice as likely)."""
    nd = s.integers(1, 3)
    group = s.choice([1, 1, 2, 3])
    cg, mg = s.integers(1, 3), s.integers(1, 3)
    kmax = 4 if nd < 3 else 3
    kernel = tuple(s.integers(1, kmax) for _ in range(nd))
    strides = [s.integers(1, 3) for _ in range(nd)]
    dilations = [s.integers(1, 2) for _ in range(nd)]
    auto_pad = s.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
    attrs: dict = {"strides": strides, "dilations": dilations}
    if group > 1:
        attrs["group"] = group
    pads = [0] * (2 * nd)
    if auto_pad == "NOTSET":
        if s.booleans():
            pads = [s.integers(0, 2) for _ in range(2 * nd)]
            attrs["pads"] = pads
    else:
        attrs["auto_pad"] = auto_pad
    if s.booleans():
        attrs["kernel_shape"] = list(kernel)
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    top = 9 if nd < 3 else 5
    spatial = tuple(s.integers(max(1, e - pads[a] - pads[a + nd]), max(1, e - pads[a] - pads[a + nd]) + top)
                    for a, e in enumerate(extent))
    types = tuple(s.choice(["uint8", "int8"]) for _ in range(3))
    batch = s.integers(1, 2)
    return Conv("random", (batch, cg * group) + spatial, kernel, mg * group, attrs, types,
                per_channel=s.choice([None, None, "scale", "zero_point"]),
                bias=s.choice([None, None, "random", "negative"]))


def random_configurations(n: int, seed: int) -> list[Conv]:
    """The first n distinct configurations (by everything but the shapes' sizes) of one seeded stream."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    chosen, seen = [], set()
    for _ in range(64 * n):
        if len(chosen) == n:
            break
        c = configuration(s)
        key = repr((len(c.kernel), c.kernel, sorted((k, v) for k, v in c.attrs.items() if k != "kernel_shape"),
                    c.types, c.per_channel, c.bias, c.group))
        if key not in seen:
            seen.add(key)
            chosen.append(c)
    return [replace(c, what=f"config_{i:03d}_random") for i, c in enumerate(chosen)]


# ---------------------------------------------------------------------------------------------
# witnesses of the fault models (generator/reference/qlinear_conv_faults.py)
# ---------------------------------------------------------------------------------------------
def witness_conv(what: str, params: dict) -> Conv:
    """The configuration of a witness class from its catalogue params (Conv.params() of it)."""
    attrs = {k: params[k] for k in ("auto_pad", "pads", "strides", "dilations", "group", "kernel_shape") if k in params}
    w_shape = tuple(params["w_shape"])
    return Conv(what, tuple(params["x_shape"]), w_shape[2:], w_shape[0], attrs,
                (params["x_type"], params["w_type"], params["y_type"]),
                per_channel=None if params["per_channel"] == "no" else params["per_channel"],
                bias=None if params["bias"] == "absent" else params["bias"], scales=params["scales"])


def witness_inputs(conv: Conv, wit: dict) -> list[np.ndarray]:
    """The inputs (NAMES order) of one catalogued witness (generator/witness/qlinear_conv.py): every tensor a
    string of space-separated values in C order, "v*n" a run of n integers v; B all zeros where left out."""
    xt, wt, yt = (_type(t) for t in conv.types)
    per = (conv.m,) if conv.per_channel else ()

    def ints(text: str, t: dtypes.DType, shape: tuple) -> np.ndarray:
        values = []
        for token in text.split():
            v, _, n = token.partition("*")
            values += [int(v)] * (int(n) if n else 1)
        return np.array(values, dtype=np.int64).reshape(shape).astype(t.np_dtype)

    def scales(text: str, shape: tuple) -> np.ndarray:  # decimals that read back as the float32 values
        return np.array([float(v) for v in text.split()], dtype=np.float64).astype(np.float32).reshape(shape)

    inputs = [ints(wit["x"], xt, conv.x_shape), scales(wit["x_scale"], ()), ints(wit["x_zero_point"], xt, ()),
              ints(wit["w"], wt, conv.w_shape), scales(wit["w_scale"], per), ints(wit["w_zero_point"], wt, per),
              scales(wit["y_scale"], ()), ints(wit["y_zero_point"], yt, ())]
    if conv.bias:
        inputs.append(ints(wit.get("B", f"0*{conv.m}"), _type("int32"), (conv.m,)))
    return inputs


def witness_cases() -> Iterator[Case]:
    """One node case per class of the committed witness catalogue (generator/witness/catalogue/
    qlinear_conv.json): test_qlinearconv_witness_<class>, one data set per distinct witness, expected outputs
    from the reference; case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        conv = witness_conv("witness_" + key.replace(" ", "_"), group["params"])
        sets: list[list[np.ndarray]] = []
        made_for, seen = [], {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                inputs = witness_inputs(conv, wit)
                digest = b"".join(np.ascontiguousarray(v).tobytes() for v in inputs)
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(conv, inputs).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(inputs)
                made_for.append([name])
        if sets:
            yield from dataset_cases(conv, sets, 0, ["witness"], witnesses=made_for)


# ---------------------------------------------------------------------------------------------
# the opset-boundary axis: QLinearConv has one version (10); a model of opset 11 and one of the newest opset
# still run it (a runtime that keys its kernels by opset may miss them)
# ---------------------------------------------------------------------------------------------
def boundary_opsets(max_opset: int) -> list[int]:
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int, n_datasets: int) -> Iterator[Case]:
    """pads_symmetric at each boundary opset: test_qlinearconv_pads_symmetric_opset<n> (the same data sets)."""
    base = replace(CATALOGUE["pads_symmetric"](), what="pads_symmetric")
    for opset in boundary_opsets(max_opset):
        conv = replace(base, opset=opset)
        s = sampling.case_seed(0, base.name)
        stream = sampling.Stream(s)
        sets = [draw_dataset(conv, stream, i) for i in range(n_datasets)]
        yield from dataset_cases(replace(conv, what=f"pads_symmetric_opset{opset}"), sets, s,
                                 ["edge", "opset_boundary"])


# ---------------------------------------------------------------------------------------------
# the vector-tail axis (generator/axes.py): 1-D convolutions of symbolic width and output channels, the decisive
# accumulation at the last output position of every channel
# ---------------------------------------------------------------------------------------------
# output widths around the 4-, 8- and 16-lane loops (every remainder of 8 up to 17, past 32 and 64), channel counts
# around 8 and 16
TAIL_WIDTHS = tuple(range(1, 18)) + (31, 32, 33, 63, 64, 65)
TAIL_CHANNELS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17)
TAIL_SATURATE_WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17)
TAIL_C, TAIL_XS, TAIL_WS = 2, 2.0**-7, 2.0**-8


def tail_inputs(width: int, m: int, saturate: bool) -> list[np.ndarray]:
    """uint8 x (1, 2, width), w (m, 2, 3), zero points 0, y_scale 2 x_scale w_scale (c = 1/2): every accumulator 0
    but the last output position's, acc = 5 (the tie 2.5: even 2, away 3) or 255 * 255 * 2 (saturates: 65025
    unsaturated wraps to 1); only w's centre tap of input channel 0 is nonzero, so no other position reads it."""
    x = np.zeros((1, TAIL_C, width), dtype=np.uint8)
    w = np.zeros((m, TAIL_C, 3), dtype=np.uint8)
    x[0, 0, -1] = 255 if saturate else 5
    w[:, 0, 1] = 255 if saturate else 1
    if saturate:
        x[0, 1, -1], w[:, 1, 1] = 255, 255
    f32 = np.float32
    return [x, f32(TAIL_XS).reshape(()), np.array(0, np.uint8), w, f32(TAIL_WS).reshape(()), np.array(0, np.uint8),
            f32(TAIL_XS * TAIL_WS * 2).reshape(()), np.array(0, np.uint8)]


def tail_datasets() -> list[list[np.ndarray]]:
    return ([tail_inputs(n, 3, False) for n in TAIL_WIDTHS] + [tail_inputs(9, m, False) for m in TAIL_CHANNELS]
            + [tail_inputs(n, 3, True) for n in TAIL_SATURATE_WIDTHS])


def tail_cases() -> Iterator[Case]:
    """test_qlinearconv_vector_tail: one model, x (1, 2, w), w (m, 2, 3), y (1, m, w), pads [1, 1]; a data set per
    width in TAIL_WIDTHS (m 3) and per channel count in TAIL_CHANNELS (width 9) with a tie last, and per width in
    TAIL_SATURATE_WIDTHS with a saturating accumulation last."""
    attrs = {"pads": [1, 1]}
    u8, f32 = dtypes.get("uint8"), dtypes.get("float")
    ins = [("x", u8, (1, TAIL_C, "w")), ("x_scale", f32, ()), ("x_zero_point", u8, ()), ("w", u8, ("m", TAIL_C, 3)),
           ("w_scale", f32, ()), ("w_zero_point", u8, ()), ("y_scale", f32, ()), ("y_zero_point", u8, ())]
    mdl = node_model(FAMILY.op, ins, [("y", u8, (1, "m", "w"))], attrs, OPSET)
    sets = tail_datasets()
    params = {"x_shape": [1, TAIL_C, "w"], "w_shape": ["m", TAIL_C, 3], "x_type": U8, "w_type": U8, "y_type": U8,
              "bias": "absent", "per_channel": "no", "scales": "tail", "pads": [1, 1],
              "widths": list(TAIL_WIDTHS), "channels": list(TAIL_CHANNELS),
              "saturate_widths": list(TAIL_SATURATE_WIDTHS)}
    meta = FAMILY.meta(opset=OPSET, clause=CLAUSE, compare=COMPARE, flags=["edge", "vector_tail"], seed=0,
                       params=params, reading=conv_reading(attrs))
    outcomes = [ref.qlinear_conv(*inputs, pads=[1, 1]) for inputs in sets]
    yield from split(f"{FAMILY.prefix}_vector_tail", sets, outcomes, lambda _: mdl, meta)


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the probes and negatives, the random configurations."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    # the catalogue's data are drawn once (base seed 0): --seed changes only the random configurations
    def fixed() -> Iterator[Case]:
        for conv in catalogue():
            yield from conv_cases(conv, max(n, 5) if conv.zero_points == "ends" else n, 0, ["edge"])

    def others() -> Iterator[Case]:
        for conv in catalogue(PROBES):
            yield from conv_cases(conv, len(axes.nan_values("float")[0]) if conv.scales == "nan" else 5, 0, ["probe"])
        yield from negative_cases(0)

    def randoms() -> Iterator[Case]:
        for conv in random_configurations(opts["random"], seed):
            yield from conv_cases(conv, n, seed, ["random"])

    return [fixed, others, witness_cases, tail_cases, lambda: boundary_cases(max_opset, n)] + \
        ([randoms] if opts["random"] else [])


# ---------------------------------------------------------------------------------------------
# live hunting (generator/hunting.py, `opconform hunt`): hypothesis draws, biased to the boundaries of the
# fault models (generator/reference/qlinear_conv_faults.py)
# ---------------------------------------------------------------------------------------------
HUNT_WHAT = "hunt"
# choices of hunt(), the simplest first (hypothesis shrinks a sampled_from toward its first element); a value
# listed n times is n times as likely
HUNT_SCALES = ("pow2",) * 4 + ("tie",) * 8 + ("random",) * 4 + ("saturate",) * 3 + ("bad",)
HUNT_BIAS = (None,) * 7 + ("random",) * 6 + ("negative",) * 3 + ("saturate",) * 3 + ("int32_overflow",)
_BAD_SCALES = (("y_scale", 0.0), ("y_scale", -1.0), ("x_scale", np.inf), ("w_scale", np.nan), ("x_scale", -0.0))
_NEGATIVES = BAD_LENGTHS + ("negative_pads_with_auto_pad", "negative_group_channels")


def hunt(max_opset: int):
    """The hunt strategy (generator.hunting): hypothesis Examples of one data set each, on tiny
    configurations (batch 1-2, channels 1-4, spatial 1-6 (3-D: 1-3)), biased toward where the fault models
    (generator/reference/qlinear_conv_faults.py) part from the reference:
      scales      powers of two (exact multipliers 2**-k: ties wherever acc = 2**(k-1) mod 2**k); an exact
                  tie h + 1/2 built on one accumulator with a multiplier (2h + 1) / odd that is no float, h
                  where float32 / float64 requantization rounds off the tie (_tie_targets); random float32;
                  outputs saturating at both ends; a bad scale (undefined: the probe)
      zero points 0 and both ends of their types first; x_zero_point != 0 with padding
      values      each tensor over its whole type, within 3 of its zero point (small accumulators, many
                  ties), or at the ends of its type (raw products whose pairs leave int16)
      geometry    1-D, 2-D, some 3-D; pads absent / drawn, VALID, SAME_UPPER / SAME_LOWER (odd and even total
                  padding), strides and dilations 1 and 2, kernels from 1 to the padded input, group 1 to 4
                  (depthwise, with a channel multiplier), M == C / group half the time
      w, B        w_scale / w_zero_point per tensor or per output channel; B absent, small, negative,
                  saturating, or overflowing int32 (undefined: the probe)
    One example in 20 is a negative case (a model the spec rules out, on a drawn configuration).
    None below opset 10, where the operator does not exist."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    @st.composite
    def example(draw):
        if draw(_ints(0, 19)) == 19:
            what = draw(_pick(_NEGATIVES))
            valid, inputs = _hunt_inputs(draw, _negative_base(what, _hunt_conv(draw)))
            return _negative_example(what, valid, inputs)
        conv, inputs = _hunt_inputs(draw, _hunt_conv(draw))
        return _node_example(conv, inputs)

    return example()


def rebuild(args: dict):
    """The hunt example `args` describes (_hunt_args): the same configuration and inputs, expected outputs
    from the reference."""
    conv = witness_conv(HUNT_WHAT, args["params"])
    inputs = witness_inputs(conv, args["inputs"])
    if args.get("negative"):
        return _negative_example(args["negative"], conv, inputs)
    return _node_example(conv, inputs)


def _hunt_args(conv: Conv, inputs: list[np.ndarray], negative: str | None = None) -> dict:
    """Plain JSON for rebuild: the opset, the configuration's params, the inputs in the witness catalogue's
    text format (witness_inputs reads it), and for a negative case its kind and the valid configuration
    it breaks."""
    from generator.witness.qlinear_conv import _floats, _ints

    enc = {name: (_floats if name.endswith("_scale") else _ints)(np.asarray(v).reshape(-1))
           for name, v in zip(NAMES, inputs)}
    args = {"opset": OPSET, "params": conv.params(), "inputs": enc}
    if negative:
        args["negative"] = negative
    return args


def _node_example(conv: Conv, inputs: list[np.ndarray]):
    """The Example of one data set: a node case if the spec defines every output, else a probe case."""
    from generator.hunting import Example

    cases = {c.kind: c for c in dataset_cases(conv, [inputs], 0, [HUNT_WHAT])}
    return Example(cases.get("node"), cases.get("probe"), _hunt_args(conv, inputs))


@functools.lru_cache(maxsize=None)
def _pick(values: tuple):
    from hypothesis import strategies as st

    return st.sampled_from(values)


@functools.lru_cache(maxsize=None)
def _ints(lo: int, hi: int):
    from hypothesis import strategies as st

    return st.integers(lo, hi)


@functools.lru_cache(maxsize=None)
def _zero_point(t: dtypes.DType):
    """0 and the ends of the type first, then any value."""
    from hypothesis import strategies as st

    return st.one_of(_pick(tuple(dict.fromkeys([0, t.int_min, t.int_max]))), _ints(t.int_min, t.int_max))


@functools.lru_cache(maxsize=None)
def _elements(t: dtypes.DType, zp: int, mode: str, n: int):
    from hypothesis import strategies as st

    if mode == "full":
        elem = _ints(t.int_min, t.int_max)
    elif mode == "near":
        elem = _ints(max(t.int_min, zp - 3), min(t.int_max, zp + 3))
    else:
        elem = _pick(tuple(dict.fromkeys([zp, t.int_max, t.int_min])))
    return st.lists(elem, min_size=n, max_size=n)


def _hunt_conv(draw) -> Conv:
    """A tiny valid configuration, the simplest choices first (1-D, group 1, size 1, kernel 1, stride and
    dilation 1, pads absent, uint8, per tensor, no bias, power-of-two scales)."""
    nd = draw(_pick((1, 2, 2, 3)))
    g = draw(_pick((1, 1, 1, 2, 2, 3, 4)))
    cg = draw(_ints(1, 4 // g))
    # M == C / group half the time: where w_scale taken along w's input-channel axis has the right length
    mg = cg if draw(_pick((False, True))) else draw(_ints(1, 4 // g))
    batch = draw(_ints(1, 2))
    top, kcap = {1: (6, 8), 2: (6, 4), 3: (3, 3)}[nd]
    spatial = [draw(_ints(1, top)) for _ in range(nd)]
    strides = [draw(_ints(1, 2)) for _ in range(nd)]
    dilations = [draw(_ints(1, 2)) for _ in range(nd)]
    auto_pad = draw(_pick(("NOTSET",) * 3 + ("SAME_UPPER",) * 2 + ("SAME_LOWER",) * 2 + ("VALID",)))
    attrs: dict = {}
    pads = [0] * (2 * nd)
    if auto_pad == "NOTSET":
        if draw(_pick((False, True))):
            pads = [draw(_ints(0, 2)) for _ in range(2 * nd)]
            attrs["pads"] = pads
    else:
        attrs["auto_pad"] = auto_pad
    kernel = []
    for a in range(nd):  # up to the padded input (SAME pads whatever the kernel needs: up to the input + 1)
        room = spatial[a] + (1 if auto_pad.startswith("SAME") else pads[a] + pads[a + nd])
        kernel.append(draw(_ints(1, max(1, min(kcap, (room - 1) // dilations[a] + 1)))))
    if max(strides) > 1:
        attrs["strides"] = strides
    if max(dilations) > 1:
        attrs["dilations"] = dilations
    if g > 1:
        attrs["group"] = g
    if draw(_pick((False, True))):
        attrs["kernel_shape"] = list(kernel)
    types = tuple(draw(_pick(("uint8", "int8"))) for _ in range(3))
    per_channel = draw(_pick((None, "scale", "zero_point")))
    return Conv(HUNT_WHAT, (batch, cg * g) + tuple(spatial), tuple(kernel), mg * g, attrs, types,
                per_channel=per_channel, bias=draw(_pick(HUNT_BIAS)), scales=draw(_pick(HUNT_SCALES)))


def _hunt_tensor(draw, t: dtypes.DType, shape: tuple, zps: list[int]) -> np.ndarray:
    """Elements (integers) over the whole type, within 3 of the zero point, or at the ends of the type and
    the zero point; zps: the zero point of each slice along axis 0 (one for all)."""
    mode = draw(_pick(("full", "near", "ends")))
    n = int(np.prod(shape)) // len(zps)
    values = [v for zp in zps for v in draw(_elements(t, zp, mode, n))]
    return np.array(values, dtype=np.int64).reshape(shape).astype(t.np_dtype)


def _float32(draw, lo: int, hi: int) -> float:
    """A positive float32 2**e * (1 + k / 2**23), e in [lo, hi]: a power of two first."""
    e, k = draw(_ints(lo, hi)), draw(_ints(0, 2**23 - 1)) if draw(_pick((False, True))) else 0
    return float(np.ldexp(1.0 + k / 2.0**23, e))


def _hunt_inputs(draw, conv: Conv) -> tuple[Conv, list[np.ndarray]]:
    """The inputs (NAMES order) of one data set of conv, and conv with the scale mode actually used."""
    xt, wt, yt = (_type(t) for t in conv.types)
    m = conv.m
    xz, yz = draw(_zero_point(xt)), draw(_zero_point(yt))
    if conv.per_channel == "zero_point":
        wzs = [draw(_zero_point(wt)) for _ in range(m)]
    else:
        wzs = [draw(_zero_point(wt))] * (m if conv.per_channel else 1)
    x = _hunt_tensor(draw, xt, conv.x_shape, [xz])
    w = _hunt_tensor(draw, wt, conv.w_shape, wzs if conv.per_channel else wzs[:1])
    begin, end, out, strides, dilations = geometry(conv)
    acc, _ = ref.accumulate(x, xz, w, np.array(wzs), conv.group, begin, end, out, strides, dilations)
    acc = acc.astype(np.int64)
    spread = max(1.0, float(np.percentile(np.abs(acc), 95)))  # the accumulator's typical size
    q = int(spread)
    bias = None
    if conv.bias == "random":
        bias = [draw(_ints(-2 * q, 2 * q)) for _ in range(m)]
    elif conv.bias == "negative":
        bias = [-draw(_ints(1, 2 * q)) for _ in range(m)]
    elif conv.bias == "saturate":  # far beyond the output range, both signs, acc + B within int32
        bias = [draw(_ints(1 << 20, (1 << 28) - 1)) * (1 - 2 * (j % 2)) for j in range(m)]
    elif conv.bias == "int32_overflow":  # acc + B beyond int32 wherever acc pushes on (undefined)
        bias = [ref.INT32_MAX - draw(_ints(0, q // 4)) if j % 2 == 0 else ref.INT32_MIN + draw(_ints(0, q // 4))
                for j in range(m)]
    total = acc + (np.array(bias, dtype=np.int64).reshape((1, m) + (1,) * len(out)) if bias else 0)
    n_ws = m if conv.per_channel else 1
    scales = conv.scales
    tie = _tie(draw, total, yt, yz) if scales == "tie" else None
    if scales == "tie" and tie is None:
        scales = "pow2"  # no accumulator to tie (all 0, or an odd part beyond float32)
    if tie is not None:  # the other output channels' w_scale within a factor 4 of the tied one's
        ch, xs, w_tie, ys = tie
        ws = [w_tie * 2.0 ** draw(_ints(-2, 2)) if j != ch else w_tie for j in range(n_ws)] if n_ws > 1 else [w_tie]
    elif scales == "pow2":  # c = 2**-k, k >= 1: ties at acc = 2**(k-1) mod 2**k
        xs = 2.0 ** draw(_ints(-10, -2))
        ws = [2.0 ** draw(_ints(-10, -3)) for _ in range(n_ws)]
        k = max(1, int(np.ceil(np.log2(spread / 60)))) + draw(_ints(0, 2))
        ys = xs * max(ws) * 2.0**k
    else:  # random, saturate, bad: outputs spread over the range (saturate: far beyond it)
        xs = _float32(draw, -10, -2)
        ws = [_float32(draw, -10, -3) for _ in range(n_ws)]
        target = draw(_ints(60, 250) if scales != "saturate" else _ints(2000, 20000))
        ys = xs * max(ws) * spread / target
    inputs = [x, _f32(xs).reshape(()), np.array(xz, xt.np_dtype), w,
              _f32(ws).reshape((m,) if conv.per_channel else ()),
              np.array(wzs if conv.per_channel else wzs[0], dtype=wt.np_dtype), _f32(ys).reshape(()),
              np.array(yz, yt.np_dtype)]
    if scales == "bad":  # one scale 0, negative, Inf, NaN or -0
        name, v = draw(_pick(_BAD_SCALES))
        j = NAMES.index(name)
        inputs[j] = _f32(np.full(np.shape(inputs[j]), v if v != -1.0 else -float(ys)))
    if bias is not None:
        inputs.append(np.array(bias, dtype=np.int64).astype(np.int32))
    return replace(conv, scales=scales), inputs


def _tie(draw, total: np.ndarray, yt: dtypes.DType, yz: int):
    """Scales that put one nonzero accumulator a = 2**t * o (o odd) exactly on the tie h + 1/2:
    x_scale = (2h + 1) 2**px, w_scale = 2**pw, y_scale = o 2**(px + pw + t + 1), so that
    a * x_scale * w_scale / y_scale = h + 1/2, a multiplier (2h + 1) / (2**(t+1) o) that is no float when
    o > 1; both neighbours of the tie inside the output type where y_zero_point leaves room. Returns
    (output channel, x_scale, w_scale, y_scale), or None if no accumulator can be tied."""
    flat = total.reshape(-1)
    up, down = yt.int_max - yz - 1, yz - yt.int_min - 1  # room for the tie of a positive / negative acc
    # the accumulators of the sign whose ties y_zero_point leaves the most room for (the other sign if none)
    nonzero = np.flatnonzero(flat > 0 if up >= down else flat < 0)
    if not nonzero.size:
        nonzero = np.flatnonzero(flat)
    if not nonzero.size:
        return None
    i = int(nonzero[draw(_ints(0, nonzero.size - 1))])
    a = int(flat[i])
    t = (abs(a) & -abs(a)).bit_length() - 1
    o = abs(a) >> t
    if o >= 2**24:
        return None
    room = up if a > 0 else down
    h = 0 if room < 0 else draw(_pick(_tie_targets(o, room)) if draw(_pick((True, False))) else _ints(0, room))
    px, pw = draw(_ints(-14, -4)), draw(_ints(-10, -3))
    ch = (i // int(np.prod(total.shape[2:]))) % total.shape[1]
    return ch, (2 * h + 1) * 2.0**px, 2.0**pw, o * 2.0 ** (px + pw + t + 1)


@functools.lru_cache(maxsize=4096)
def _tie_targets(o: int, room: int, n: int = 4) -> tuple[int, ...]:
    """The n ties h + 1/2 (0 <= h <= room) of an accumulator of odd part o that a float requantization
    is likeliest to get wrong: the multiplier (2h + 1) / o rounded to float32 (float64) is off by a relative
    error d, and the float product leaves the tie toward h + 1 (d > 0) or h (d < 0) when |d| (h + 1/2)
    exceeds half the float's spacing there; wrong when that neighbour is the odd one. Ranked by that
    ratio, the larger of the two types' (the tie at the top of a binade, the multiplier far from a float)."""
    if o == 1:
        return (0,)

    def miss(h: int) -> float:
        odd = 2 * h + 1
        position = (h + 0.5) / 2.0 ** (math.frexp(h + 0.5)[1] - 1)  # in [1, 2)
        out = 0.0
        for f, bits in ((np.float32, 24), (np.float64, 53)):
            num, den = float(f(f(odd) / f(o))).as_integer_ratio()
            err = num * o - odd * den  # d = err / (odd * den), exactly
            if err and (err > 0) == (h % 2 == 0):  # toward the odd neighbour
                out = max(out, abs(err) / (odd * den) * position * 2.0**bits)
        return out

    return tuple(sorted(range(room + 1), key=lambda h: (-miss(h), h))[:n])


def _negative_base(what: str, conv: Conv) -> Conv:
    """The valid configuration (near conv) that negative case `what` breaks: per channel with a bias (the
    lengths), SAME padding (pads with auto_pad), group >= 2 (one x channel too many)."""
    conv = replace(conv, what=what, scales="pow2")
    if what in BAD_LENGTHS:
        return replace(conv, per_channel=conv.per_channel or "scale", bias="random")
    if what == "negative_pads_with_auto_pad":
        mode = conv.attrs.get("auto_pad", "SAME_UPPER")
        attrs = {k: v for k, v in conv.attrs.items() if k != "pads"}
        return replace(conv, attrs=dict(attrs, auto_pad=mode if mode.startswith("SAME") else "SAME_UPPER"))
    g = max(2, conv.group)
    cg, mg = conv.x_shape[1] // conv.group, conv.m // conv.group
    return replace(conv, x_shape=(conv.x_shape[0], cg * g) + conv.x_shape[2:], m=mg * g,
                   attrs=dict(conv.attrs, group=g))


def _negative_example(what: str, valid: Conv, inputs: list[np.ndarray]):
    """The Example of negative case `what` (negative_cases' kinds) made from a valid configuration and
    a data set of it."""
    from generator.hunting import Example

    args = _hunt_args(valid, inputs, what)
    valid = replace(valid, what=what)
    if what in BAD_LENGTHS:
        return Example(bad_length_case(valid, inputs, 0), None, args)
    if what == "negative_pads_with_auto_pad":
        return Example(pads_with_auto_pad_case(valid, inputs, 0, what), None, args)
    # one x channel more than group * (C / group): w keeps C / group channels per group
    bad = replace(valid, x_shape=(valid.x_shape[0], valid.x_shape[1] + 1) + valid.x_shape[2:])
    inputs = list(inputs)
    inputs[0] = np.resize(inputs[0], bad.x_shape)
    return Example(group_channels_case(bad, inputs, 0), None, args)
