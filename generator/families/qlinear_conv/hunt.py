"""Live hunting over QLinearConv (generator/hunting.py, `opconform hunt`): hypothesis draws, biased to the
boundaries of the fault models (generator/reference/qlinear_conv_faults.py), built into cases by the functions
that build the suite's (dataset_cases, the negative builders)."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from generator import dtypes
from generator.catalogue import qlinear_conv as codec
from generator.families.qlinear_conv.conv import NAMES, OPSET, Conv, _type, dataset_cases, geometry
from generator.families.qlinear_conv.data import _f32
from generator.families.qlinear_conv.negatives import (BAD_LENGTHS, bad_length_case, group_channels_case,
                                                       pads_with_auto_pad_case)
from generator.families.qlinear_conv.witnesses import witness_conv, witness_inputs
from generator.reference import qlinear_conv as ref
from generator.requant_hunt import ints, pick, tie_scales

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
                  where float32 / float64 requantization rounds off the tie (generator/requant_hunt.py);
                  random float32;
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
        if draw(ints(0, 19)) == 19:
            what = draw(pick(_NEGATIVES))
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
    text format (generator/catalogue/qlinear_conv.py; witness_inputs reads it), and for a negative case its
    kind and the valid configuration it breaks."""
    args = {"opset": OPSET, "params": conv.params(), "inputs": codec.encode(dict(zip(NAMES, inputs)))}
    if negative:
        args["negative"] = negative
    return args


def _node_example(conv: Conv, inputs: list[np.ndarray]):
    """The Example of one data set: a node case if the spec defines every output, else a probe case."""
    from generator.hunting import Example

    cases = {c.kind: c for c in dataset_cases(conv, [inputs], 0, [HUNT_WHAT])}
    return Example(cases.get("node"), cases.get("probe"), _hunt_args(conv, inputs))


@functools.lru_cache(maxsize=None)
def _zero_point(t: dtypes.DType):
    """0 and the ends of the type first, then any value."""
    from hypothesis import strategies as st

    return st.one_of(pick(tuple(dict.fromkeys([0, t.int_min, t.int_max]))), ints(t.int_min, t.int_max))


@functools.lru_cache(maxsize=None)
def _elements(t: dtypes.DType, zp: int, mode: str, n: int):
    from hypothesis import strategies as st

    if mode == "full":
        elem = ints(t.int_min, t.int_max)
    elif mode == "near":
        elem = ints(max(t.int_min, zp - 3), min(t.int_max, zp + 3))
    else:
        elem = pick(tuple(dict.fromkeys([zp, t.int_max, t.int_min])))
    return st.lists(elem, min_size=n, max_size=n)


def _hunt_conv(draw) -> Conv:
    """A tiny valid configuration, the simplest choices first (1-D, group 1, size 1, kernel 1, stride and
    dilation 1, pads absent, uint8, per tensor, no bias, power-of-two scales)."""
    nd = draw(pick((1, 2, 2, 3)))
    g = draw(pick((1, 1, 1, 2, 2, 3, 4)))
    cg = draw(ints(1, 4 // g))
    # M == C / group half the time: where w_scale taken along w's input-channel axis has the right length
    mg = cg if draw(pick((False, True))) else draw(ints(1, 4 // g))
    batch = draw(ints(1, 2))
    top, kcap = {1: (6, 8), 2: (6, 4), 3: (3, 3)}[nd]
    spatial = [draw(ints(1, top)) for _ in range(nd)]
    strides = [draw(ints(1, 2)) for _ in range(nd)]
    dilations = [draw(ints(1, 2)) for _ in range(nd)]
    auto_pad = draw(pick(("NOTSET",) * 3 + ("SAME_UPPER",) * 2 + ("SAME_LOWER",) * 2 + ("VALID",)))
    attrs: dict = {}
    pads = [0] * (2 * nd)
    if auto_pad == "NOTSET":
        if draw(pick((False, True))):
            pads = [draw(ints(0, 2)) for _ in range(2 * nd)]
            attrs["pads"] = pads
    else:
        attrs["auto_pad"] = auto_pad
    kernel = []
    for a in range(nd):  # up to the padded input (SAME pads whatever the kernel needs: up to the input + 1)
        room = spatial[a] + (1 if auto_pad.startswith("SAME") else pads[a] + pads[a + nd])
        kernel.append(draw(ints(1, max(1, min(kcap, (room - 1) // dilations[a] + 1)))))
    if max(strides) > 1:
        attrs["strides"] = strides
    if max(dilations) > 1:
        attrs["dilations"] = dilations
    if g > 1:
        attrs["group"] = g
    if draw(pick((False, True))):
        attrs["kernel_shape"] = list(kernel)
    types = tuple(draw(pick(("uint8", "int8"))) for _ in range(3))
    per_channel = draw(pick((None, "scale", "zero_point")))
    return Conv(HUNT_WHAT, (batch, cg * g) + tuple(spatial), tuple(kernel), mg * g, attrs, types,
                per_channel=per_channel, bias=draw(pick(HUNT_BIAS)), scales=draw(pick(HUNT_SCALES)))


def _hunt_tensor(draw, t: dtypes.DType, shape: tuple, zps: list[int]) -> np.ndarray:
    """Elements (integers) over the whole type, within 3 of the zero point, or at the ends of the type and
    the zero point; zps: the zero point of each slice along axis 0 (one for all)."""
    mode = draw(pick(("full", "near", "ends")))
    n = int(np.prod(shape)) // len(zps)
    values = [v for zp in zps for v in draw(_elements(t, zp, mode, n))]
    return np.array(values, dtype=np.int64).reshape(shape).astype(t.np_dtype)


def _float32(draw, lo: int, hi: int) -> float:
    """A positive float32 2**e * (1 + k / 2**23), e in [lo, hi]: a power of two first."""
    e, k = draw(ints(lo, hi)), draw(ints(0, 2**23 - 1)) if draw(pick((False, True))) else 0
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
        bias = [draw(ints(-2 * q, 2 * q)) for _ in range(m)]
    elif conv.bias == "negative":
        bias = [-draw(ints(1, 2 * q)) for _ in range(m)]
    elif conv.bias == "saturate":  # far beyond the output range, both signs, acc + B within int32
        bias = [draw(ints(1 << 20, (1 << 28) - 1)) * (1 - 2 * (j % 2)) for j in range(m)]
    elif conv.bias == "int32_overflow":  # acc + B beyond int32 wherever acc pushes on (undefined)
        bias = [ref.INT32_MAX - draw(ints(0, q // 4)) if j % 2 == 0 else ref.INT32_MIN + draw(ints(0, q // 4))
                for j in range(m)]
    total = acc + (np.array(bias, dtype=np.int64).reshape((1, m) + (1,) * len(out)) if bias else 0)
    n_ws = m if conv.per_channel else 1
    scales = conv.scales
    tie = tie_scales(draw, total, yt, yz) if scales == "tie" else None
    if scales == "tie" and tie is None:
        scales = "pow2"  # no accumulator to tie (all 0, or an odd part beyond float32)
    if tie is not None:  # the other output channels' w_scale within a factor 4 of the tied one's
        ch, xs, w_tie, ys = tie
        ws = [w_tie * 2.0 ** draw(ints(-2, 2)) if j != ch else w_tie for j in range(n_ws)] if n_ws > 1 else [w_tie]
    elif scales == "pow2":  # c = 2**-k, k >= 1: ties at acc = 2**(k-1) mod 2**k
        xs = 2.0 ** draw(ints(-10, -2))
        ws = [2.0 ** draw(ints(-10, -3)) for _ in range(n_ws)]
        k = max(1, int(np.ceil(np.log2(spread / 60)))) + draw(ints(0, 2))
        ys = xs * max(ws) * 2.0**k
    else:  # random, saturate, bad: outputs spread over the range (saturate: far beyond it)
        xs = _float32(draw, -10, -2)
        ws = [_float32(draw, -10, -3) for _ in range(n_ws)]
        target = draw(ints(60, 250) if scales != "saturate" else ints(2000, 20000))
        ys = xs * max(ws) * spread / target
    inputs = [x, _f32(xs).reshape(()), np.array(xz, xt.np_dtype), w,
              _f32(ws).reshape((m,) if conv.per_channel else ()),
              np.array(wzs if conv.per_channel else wzs[0], dtype=wt.np_dtype), _f32(ys).reshape(()),
              np.array(yz, yt.np_dtype)]
    if scales == "bad":  # one scale 0, negative, Inf, NaN or -0
        name, v = draw(pick(_BAD_SCALES))
        j = NAMES.index(name)
        inputs[j] = _f32(np.full(np.shape(inputs[j]), v if v != -1.0 else -float(ys)))
    if bias is not None:
        inputs.append(np.array(bias, dtype=np.int64).astype(np.int32))
    return replace(conv, scales=scales), inputs


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
