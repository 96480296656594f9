"""Witnesses of the QLinearConv fault models (generator/reference/qlinear_conv_faults.py), per class.

For each of the 24 configuration classes (qlinear_conv_faults.group_key) one small 2-D configuration of that
class (N = 1, C = M = 2, group 1, 3x3 kernel; the type triples onnxruntime implements in turn, and for the
SAME + dilations classes, which it cannot run, the five others in turn), and for each fault that can differ in the class, data sets on which it does, built by
construction and checked against the reference (`how: "construction"`); a hypothesis search over the
class's configuration stands behind any construction that fails (`how: "search"`).

The constructions start from neutral data (x = x_zero_point, w = w_zero_point, B = 0: every accumulator 0;
zero points at the bottom of their types, -127 for int8) with x_scale = 2**-7, w_scale = 2**-8, and set
what the fault needs:
  requant_float32 / requant_float64   y_scale = 2b * 2**-15, so c = 1 / (2b) exactly (b odd), and two taps
        of one output give acc = b * 509 (or b * 507): acc * c = 254.5 (253.5), an exact tie. The float
        multiplier fl(1 / (2b)) is off by a relative d; for the b where |254.5 * d| exceeds half an ulp of
        254.5 (float32: 2**-17; float64: 2**-46), the float product rounds off the tie and the result is
        one off the reference's even choice. b runs over the odd numbers to 127 until both directions are
        found (d > 0 with the tie at 254.5, d < 0 at 253.5).
  requant_fixed_point / round_half_away   c = 1/2 (y_scale = 2**-14), acc = 5: the tie 2.5, which half away
        from zero (and the Q31 multiplier's rounding shift) takes to 3, the reference to 2
  zero_point_before_rounding   the same tie with an odd y_zero_point (type min + 1): round(2.5 + zp) is one more
  saturate_before_zero_point   c = 1, acc = 255, y_zero_point = type min + 1: 255 + zp wraps after clipping
  same_split_swapped / dilation_ignored / same_pads_from_undilated_kernel   x a ramp of distinct values, w one tap of weight 1 (the first tap;
        the last for dilations): every output reads one x, the fault reads its neighbour (odd SAME padding:
        the configuration's total padding per axis is 1 or 3; from the undilated kernel 1 where the dilated one
        needs 3, so the output shape changes)
  same_pads_from_undilated_kernel, undilated SAME classes   a configuration of its own ("stride_over_kernel":
        strides 6 on 6 x 6, the 3x3 kernel): its unclamped total -3 crops the input (-2 / -1 at the two ends for
        SAME_UPPER, -1 / -2 for SAME_LOWER), the spec pads 0; the ramp and last tap as above
  one_d_refused   a configuration of its own ("1d": the class's configuration on its first spatial axis), any data
  per_channel_as_4d   a configuration of its own ("3d": the class's configuration behind a depth axis of 2, kernel
        depth 1, so that the output's depth is M = C = 2 and w_scale / w_zero_point broadcast on the wrong axes;
        in the SAME + dilations classes the dilation on the depth axis, where it moves no tap, so that tinygrad's
        same_pads_from_undilated_kernel does not show in the same data): w neutral, x a ramp on input channel 0;
        every acc is 0, the fault's w[1, 0] - w_zero_point[0] is 1, so output channel 1 reads the ramp, w_scale
        [2**-8, 2**-7] by depth, y_scale x_scale * 2**-3 (c = 1/32 or 1/16: no saturation, and depth 1 tells it
        from per_channel_input_axis, which scales both depths by w_scale[0])
  bias_ignored   B = [7, 11] on zero accumulators
  int16_pair_saturation   x = x_zero_point = 255 everywhere and w = -128 on output channel 0: every exact term
        is 0, every pair of products (-65280) saturates (C = 2: in channels-innermost order each tap's two
        channels pair up); in the classes whose witness configuration is not x uint8, w int8, a configuration of
        its own ("u8_s8": the class's configuration with types (uint8, int8, uint8), which onnxruntime runs)
  per_channel_first_scale   w_scale = [2**-8, 2**-7], acc = 10 on output channel 1
  per_channel_input_axis    the same scales, distinct w_zero_points, C / group == M == 2, acc on output
        channel 0 through input channel 1
  width_tail<W> / channel_tail8 (half away)   the tie 2.5 of requant_fixed_point in the last output column (every
        class's output is 5 or 3 wide and has 2 channels: the column is in the partial last vector of each width)
  width_tail8_unsaturated   saturate_before_zero_point's data: 255 + zp leaves uint8 / int8, and wraps unsaturated
  auto_pad_present_as_same_upper   the explicit classes write auto_pad="NOTSET" (the explicit-defaults axis) with
        pads that are no SAME padding (undilated: [0, 1, 0, 1], a 3 x 5 output): read as SAME_UPPER the shape
        changes; the SAME_LOWER classes: same_split_swapped's ramp

Witness data (JSON): generator/catalogue/qlinear_conv.py's form ("B" left out where it is all zeros; "what" says
how the data set was built; "configuration" and "params", Conv.params(), where a fault needs a configuration of
the class other than its witness configuration: own_configuration). The family
(generator/families/qlinear_conv/witnesses.py, witness_inputs) turns them back into inputs.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from generator import dtypes
from generator.catalogue.qlinear_conv import encode_floats, encode_ints
from generator.faults import Refusal
from generator.families import qlinear_conv as fam
from generator.reference import qlinear_conv as ref
from generator.reference import qlinear_conv_faults as F
from generator.witness import group_faults

OPSET = 10
# onnxruntime implements (u8, u8, u8), (u8, s8, u8), (s8, s8, s8): first, so most classes run there
TRIPLES = [("uint8", "uint8", "uint8"), ("uint8", "int8", "uint8"), ("int8", "int8", "int8"),
           ("uint8", "uint8", "int8"), ("int8", "uint8", "uint8"), ("uint8", "int8", "int8"),
           ("int8", "int8", "uint8"), ("int8", "uint8", "int8")]
XS, WS, WS1 = 2.0**-7, 2.0**-8, 2.0**-7  # x_scale; w_scale (channel 1's second value when per channel)


def configuration(padding: str, dilated: bool, per_channel: bool, bias: bool, index: int) -> fam.Conv:
    """The witness configuration of a class (module docstring)."""
    attrs: dict = {}
    if padding == "explicit":  # auto_pad="NOTSET" written (explicit-defaults axis), an output width of 5
        x_shape = (1, 2, 7, 7) if dilated else (1, 2, 5, 5)
        attrs["auto_pad"] = "NOTSET"
        attrs["pads"] = [1, 1, 1, 1] if dilated else [0, 1, 0, 1]
        if dilated:
            attrs["dilations"] = [2, 2]
    else:  # stride 2 on 6: total padding 1 (3 dilated) per axis, odd
        x_shape = (1, 2, 6, 6)
        attrs.update(auto_pad=padding.upper(), strides=[2, 2])
        if dilated:
            attrs["dilations"] = [2, 2]
    what = "witness_" + F.key_of(padding, dilated, per_channel, bias).replace(" ", "_")
    # onnxruntime runs no SAME with dilations: those classes take the triples it lacks, the others its three
    triples = TRIPLES[3:] if padding != "explicit" and dilated else TRIPLES[:3]
    return fam.Conv(what, x_shape, (3, 3), 2, attrs, triples[index % len(triples)],
                    per_channel="zero_point" if per_channel else None, bias="witness" if bias else None,
                    scales="witness", zero_points="witness")


_UNDILATED_SAME = (("same_upper", False), ("same_lower", False))
_U8_S8 = ("uint8", "int8")
_DILATED_SAME = (("same_upper", True), ("same_lower", True))


def own_configuration(fault, conv: fam.Conv) -> tuple[str, fam.Conv] | None:
    """(label, configuration) where a fault needs another configuration of the class than `conv` to differ
    (module docstring), else None."""
    name, a = fault.name.split(".", 1)[1], conv.attrs
    if name == "one_d_refused":  # the class's configuration on its first spatial axis
        attrs = {k: (v[0::2] if k == "pads" else v[:1]) if isinstance(v, list) else v for k, v in a.items()}
        return "1d", replace(conv, what=conv.what + "_1d", x_shape=conv.x_shape[:3], kernel=conv.kernel[:1],
                             attrs=attrs)
    if name == "int16_pair_saturation" and conv.types[:2] != _U8_S8:  # the one pair VPMADDUBSW takes
        return "u8_s8", replace(conv, what=conv.what + "_u8_s8", types=_U8_S8 + ("uint8",))
    if name == "per_channel_as_4d":  # a depth axis in front: depth 2 (kernel 1, stride 1, no padding), M = C = 2
        nd = len(conv.kernel)
        attrs = {k: ([0] + v[:nd] + [0] + v[nd:] if k == "pads" else [1] + v) if isinstance(v, list) else v
                 for k, v in a.items()}
        if F._parts(conv.params())[:2] in _DILATED_SAME:  # the dilation on the depth axis, where it moves no tap
            attrs["dilations"] = [2] + [1] * nd
        return "3d", replace(conv, what=conv.what + "_3d", x_shape=conv.x_shape[:2] + (2,) + conv.x_shape[2:],
                             kernel=(1,) + conv.kernel, attrs=attrs)
    if name == "same_pads_from_undilated_kernel" and F._parts(conv.params())[:2] in _UNDILATED_SAME:
        # stride 6 on 6 with a 3x3 kernel: the unclamped total -3, split -2 / -1 (UPPER) or -1 / -2 (LOWER)
        return "stride_over_kernel", replace(conv, what=conv.what + "_stride_over_kernel",
                                             attrs=dict(a, strides=[6, 6]))
    return None


# ---------------------------------------------------------------------------------------
# data sets
# ---------------------------------------------------------------------------------------
class Data:
    """Mutable inputs of one data set of a configuration, neutral at first (every accumulator 0)."""

    def __init__(self, conv: fam.Conv):
        self.conv = conv
        xt, wt, yt = (dtypes.get(t) for t in conv.types)
        self.xt, self.wt, self.yt = xt, wt, yt
        # zero points at the bottom of the range (x - x_zero_point up to 254 or 255), but -127 for int8, so that
        # no pair of raw products reaches int16's ends unless a witness means it to (int16_pair_saturation)
        self.xz = max(xt.int_min, -127)
        wz = max(wt.int_min, -127)
        self.wz = [wz + i for i in range(conv.m)] if conv.per_channel else [wz] * conv.m
        self.yz = yt.int_min
        self.x = np.full(conv.x_shape, self.xz, dtype=np.int64)
        self.w = np.array(self.wz, dtype=np.int64).reshape((-1,) + (1,) * (len(conv.w_shape) - 1)) + \
            np.zeros(conv.w_shape, dtype=np.int64)
        self.xs, self.ys = XS, XS * WS
        self.ws = [WS] * conv.m
        self.b = [0] * conv.m if conv.bias else None
        self.what = ""

    def inputs(self) -> list[np.ndarray]:
        c = self.conv
        per = (c.m,) if c.per_channel else ()
        ws = np.array(self.ws if c.per_channel else self.ws[0], dtype=np.float32).reshape(per)
        wz = np.array(self.wz if c.per_channel else self.wz[0], dtype=self.wt.np_dtype).reshape(per)
        out = [self.x.astype(self.xt.np_dtype), np.array(self.xs, np.float32), np.array(self.xz, self.xt.np_dtype),
               self.w.astype(self.wt.np_dtype), ws, wz, np.array(self.ys, np.float32), np.array(self.yz, self.yt.np_dtype)]
        return out + ([np.array(self.b, dtype=np.int32)] if self.b is not None else [])

    def encode(self) -> dict:
        """JSON of the data set (module docstring): every tensor a string of space-separated values."""
        d = {"what": self.what, "x": encode_ints(self.x), "x_scale": encode_floats([self.xs]),
             "x_zero_point": encode_ints([self.xz]), "w": encode_ints(self.w),
             "w_scale": encode_floats(self.ws if self.conv.per_channel else self.ws[:1]),
             "w_zero_point": encode_ints(self.wz if self.conv.per_channel else self.wz[:1]),
             "y_scale": encode_floats([self.ys]), "y_zero_point": encode_ints([self.yz])}
        if self.b is not None and any(self.b):
            d["B"] = encode_ints(np.array(self.b))
        return d


def field(conv: fam.Conv, m: int, p: tuple) -> list[tuple[tuple, tuple]]:
    """The taps of output [0, m, *p] that read x inside the input: (x index, w index) pairs."""
    begin, _, _, strides, dilations = fam.geometry(conv)
    cg = conv.x_shape[1] // conv.group
    g = m // (conv.m // conv.group)
    taps = []
    for ci in range(cg):
        for k in np.ndindex(*conv.kernel):
            pos = tuple(pi * s - b + ki * d for pi, s, b, ki, d in zip(p, strides, begin, k, dilations))
            if all(0 <= q < n for q, n in zip(pos, conv.x_shape[2:])):
                taps.append(((0, g * cg + ci) + pos, (m, ci) + k))
    return taps


def _centre(conv: fam.Conv, m: int, channel: int | None = None, last: bool = False) -> tuple[tuple, list]:
    """An output position of channel m with the most inside taps (of input channel `channel` if given; in the
    last output column if `last`)."""
    _, _, out, _, _ = fam.geometry(conv)
    best = None
    for p in np.ndindex(*out):
        if last and p[-1] != out[-1] - 1:
            continue
        taps = [t for t in field(conv, m, p) if channel is None or t[1][1] == channel]
        if best is None or len(taps) > len(best[1]):
            best = (p, taps)
    return best


def set_acc(d: Data, m: int, target: int, channel: int | None = None, last: bool = False) -> tuple:
    """Make acc = target (0 <= target) at one output of channel m with two taps (in the last output column if
    `last`); the other taps of w stay at the zero point. Returns the output index."""
    p, taps = _centre(d.conv, m, channel, last)
    big = d.wt.int_max - d.wz[m]  # w - w_zero_point at the first tap
    hi, lo = divmod(target, big)
    if hi > d.xt.int_max - d.xz or len(taps) < 2:
        raise ValueError(f"acc {target} out of reach")
    (x1, w1), (x2, w2) = taps[0], taps[1]
    d.w[w1], d.x[x1] = d.wz[m] + big, d.xz + hi
    d.w[w2], d.x[x2] = d.wz[m] + 1, d.xz + lo
    return (0, m) + tuple(p)


def _ramp(d: Data, channel: int = 0) -> None:
    n = int(np.prod(d.conv.x_shape[2:]))
    d.x[0, channel] = (d.xz + 1 + (np.arange(n) * 37) % 250).reshape(d.conv.x_shape[2:])


# ---------------------------------------------------------------------------------------
# constructions
# ---------------------------------------------------------------------------------------
def _ties(conv: fam.Conv, zp_offset: int, what: str, last: bool = False) -> list[Data]:
    out = []
    for target in (5,):  # acc * 1/2 = 2.5
        d = Data(conv)
        d.ys = XS * WS * 2  # c = 1/2
        d.yz = d.yt.int_min + zp_offset
        set_acc(d, 0, target, last=last)
        d.what = f"{what}: acc {target} * 1/2, zp {d.yz}"
        out.append(d)
    return out


def _float_tie(conv: fam.Conv, fault) -> list[Data]:
    found: dict[float, Data] = {}
    how = fault.name.rsplit("_", 1)[1]  # float32 / float64
    yt = dtypes.get(conv.types[2])
    for b in range(3, 129, 2):
        for tie in (254.5, 253.5):
            acc = np.array([[int(2 * tie) * b]], dtype=np.float64)
            args = (acc, 2**31, XS, [WS], XS * WS * 2 * b, yt.int_min, yt)
            if tie in found or np.array_equal(F._requantize(*args, "exact"), F._requantize(*args, how)):
                continue  # the scalar arithmetic alone says this tie is no witness
            d = Data(conv)
            d.ys = XS * WS * 2 * b  # c = 1 / (2b)
            set_acc(d, 0, int(2 * tie) * b)
            d.what = f"acc {int(2 * tie) * b} * 1/{2 * b} = {tie}"
            if _differs(fault, d):
                found[tie] = d
        if len(found) == 2:
            break
    return list(found.values())


def _saturate_first(conv: fam.Conv) -> list[Data]:
    d = Data(conv)
    d.yz = d.yt.int_min + 1
    set_acc(d, 0, 255)
    d.what = f"acc 255 * 1, zp {d.yz}"
    return [d]


def _geometry_ramp(conv: fam.Conv, last_tap: bool, what: str) -> list[Data]:
    d = Data(conv)
    _ramp(d)
    k = tuple(n - 1 for n in conv.kernel) if last_tap else (0,) * len(conv.kernel)
    d.w[(0, 0) + k] = d.wz[0] + 1
    d.what = what
    return [d]


def _bias(conv: fam.Conv) -> list[Data]:
    d = Data(conv)
    d.b = [7, 11]
    d.what = "B [7, 11], conv 0"
    return [d]


def _first_scale(conv: fam.Conv) -> list[Data]:
    d = Data(conv)
    d.ws = [WS, WS1]
    set_acc(d, 1, 10)
    d.what = "acc 10 on output 1"
    return [d]


def _as_4d(conv: fam.Conv) -> list[Data]:
    d = Data(conv)
    d.ws, d.ys = [WS, WS1], XS * WS * 32
    _ramp(d)
    d.what = "x ramp on input 0, w neutral: w[1, 0] - w_zero_point[0] = 1"
    return [d]


def _input_axis(conv: fam.Conv) -> list[Data]:
    d = Data(conv)
    d.ws = [WS, WS1]
    set_acc(d, 0, 10, channel=1)
    d.what = "acc 10 on output 0 from input 1"
    return [d]


def _pairs16(conv: fam.Conv) -> list[Data]:
    """x = x_zero_point = X everywhere, w of output channel 0 = V at every tap of both input channels, X and V
    extremes of their types whose pair of products X * V + X * V leaves int16: every exact term is 0, every
    pair saturates."""
    d = Data(conv)
    xs = (d.xt.int_min, d.xt.int_max)
    x, v = max(((a, b) for a in xs for b in (d.wt.int_min, d.wt.int_max) if not -(2**15) <= 2 * a * b < 2**15),
               key=lambda ab: abs(ab[0] * ab[1]))
    d.xz, d.yz = x, d.yt.int_min + 128
    d.x[...] = x
    d.w[0] = v
    d.what = f"x {x}, w {v}: pairs of products {2 * x * v}"
    return [d]


def construct(fault, conv: fam.Conv) -> list[Data]:
    """The constructed witnesses of a fault in the class of `conv` (unchecked)."""
    name = fault.name.split(".", 1)[1]
    if name in ("requant_float32", "requant_float64"):
        return _float_tie(conv, fault)
    if name in ("requant_fixed_point", "round_half_away"):
        return _ties(conv, 0, "tie")
    if name == "zero_point_before_rounding":
        return _ties(conv, 1, "tie, odd zp")
    if name == "saturate_before_zero_point" or name == "width_tail8_unsaturated":
        return _saturate_first(conv)
    if name.startswith("width_tail") or name == "channel_tail8_round_half_away":
        return _ties(conv, 0, "tie in the last output column", last=True)
    if name == "auto_pad_present_as_same_upper":
        return _geometry_ramp(conv, False, "x ramp, w first tap")
    if name == "per_channel_input_axis_zero_point_before_rounding":
        return _ties(conv, 1, "tie, odd zp")
    if name == "same_split_swapped":
        return _geometry_ramp(conv, False, "x ramp, w first tap")
    if name == "dilation_ignored":
        return _geometry_ramp(conv, True, "x ramp, w last tap")
    if name == "same_pads_from_undilated_kernel":  # the output shape changes, or the input is cropped
        return _geometry_ramp(conv, True, "x ramp, w last tap")
    if name == "one_d_refused":  # refused whatever the data
        return _geometry_ramp(conv, False, "x ramp, w first tap")
    if name == "bias_ignored":
        return _bias(conv)
    if name == "int16_pair_saturation":
        return _pairs16(conv)
    if name == "per_channel_first_scale":
        return _first_scale(conv)
    if name == "per_channel_as_4d":
        return _as_4d(conv)
    if name == "per_channel_input_axis":
        return _input_axis(conv)
    return []


# ---------------------------------------------------------------------------------------
# checking, and the search behind the constructions
# ---------------------------------------------------------------------------------------
def node_attrs(conv: fam.Conv) -> dict:
    return dict(conv.attrs)


def outputs(fn, conv: fam.Conv, inputs: list[np.ndarray]) -> np.ndarray:
    return fn(inputs, node_attrs(conv), OPSET, [])[0]


def defined(conv: fam.Conv, inputs: list[np.ndarray]) -> bool:
    return fam.expected(conv, inputs).defined


def differs(fault, conv: fam.Conv, inputs: list[np.ndarray]) -> bool:
    """Does the fault's output differ from the reference's (every element defined) on these inputs?"""
    if not defined(conv, inputs):
        return False
    try:
        got = outputs(fault.fn, conv, inputs)
    except Refusal:  # raised where the spec requires a result
        return True
    return not np.array_equal(outputs(ref.qlinear_conv_node, conv, inputs), got)


def _differs(fault, d: Data) -> bool:
    return differs(fault, d.conv, d.inputs())


def search(fault, conv: fam.Conv, examples: int, seed: int) -> list[Data]:
    """A hypothesis search for one witness (random data of the configuration, scales mostly powers of two so
    that ties occur), aiming at many differing elements; [] if none among `examples` examples (a count, never a
    time: the same seed and count give the same witness however loaded the machine)."""
    if examples < 1:
        return []
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    found: list[Data] = []
    xt, wt, yt = (dtypes.get(t) for t in conv.types)

    def ints(t, n):
        return st.lists(st.integers(t.int_min, t.int_max), min_size=n, max_size=n)

    pow2 = st.integers(-12, -2).map(lambda e: 2.0**e)
    scale = st.one_of(pow2, st.floats(2.0**-12, 0.25, width=32))

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate, Phase.target], suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet)
    @hypothesis_seed(seed)
    @given(x=ints(xt, int(np.prod(conv.x_shape))), w=ints(wt, int(np.prod(conv.w_shape))),
           xz=st.integers(xt.int_min, xt.int_max), yz=st.integers(yt.int_min, yt.int_max),
           xs=scale, ws=st.lists(scale, min_size=conv.m, max_size=conv.m), ys=scale,
           b=st.lists(st.integers(-5000, 5000), min_size=conv.m, max_size=conv.m))
    def probe(x, w, xz, yz, xs, ws, ys, b):
        if found:  # the first witness is enough: the remaining examples return at once
            return
        d = Data(conv)
        d.x, d.w = np.array(x).reshape(conv.x_shape), np.array(w).reshape(conv.w_shape)
        d.xz, d.yz, d.xs, d.ys = xz, yz, xs, ys
        d.ws = ws if conv.per_channel else [ws[0]] * conv.m
        d.b = b if conv.bias else None
        inputs = d.inputs()
        if not defined(conv, inputs):
            return
        n = int(np.sum(outputs(ref.qlinear_conv_node, conv, inputs) != outputs(fault.fn, conv, inputs)))
        target(float(n))
        if n:
            d.what = f"search: {n} differ"
            found.append(d)

    try:
        probe()
    except Exception:  # noqa: BLE001 - a failed search is no witness
        return []
    return found[:1]


def find(max_opset: int, budget: int) -> dict:
    """The catalogue's groups: every class, each fault's witnesses or its equivalence proof. budget: hypothesis
    examples for each search (a fault that construction leaves open)."""
    if max_opset < OPSET:
        return {}
    classes = F.all_groups()
    groups = {}
    turn: dict[bool, int] = {}
    for parts in classes:
        same_dilated = parts[0] != "explicit" and parts[1]
        index = turn[same_dilated] = turn.get(same_dilated, -1) + 1
        conv = configuration(*parts, index)
        params = conv.params()

        def witnesses_of(fault, conv=conv) -> tuple[str, list]:
            label, c = own_configuration(fault, conv) or ("", conv)
            built = [d for d in construct(fault, c) if _differs(fault, d)]
            how, found = ("construction", built) if built else \
                ("search", search(fault, c, budget, len(groups)))
            own = {"configuration": label, "params": c.params()} if label else {}
            return how, [dict(d.encode(), **own) for d in found]

        groups[F.key_of(*parts)] = {"params": params,
                                    "faults": group_faults(F.FAULTS, dict(params, opset=OPSET), witnesses_of)}
    return groups
