"""Drawn data sets of a QLinearConv configuration (inputs uniform over their types unless the configuration says
otherwise; scales log-uniform, y_scale set from the accumulator so that outputs spread over the output range), and
the random configurations (seeded PCG64 draws, generator.sampling; the only cases --seed changes)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import axes, dtypes, sampling
from generator.case import Case
from generator.families.qlinear_conv.conv import FAMILY, Conv, _type, dataset_cases, geometry
from generator.reference import qlinear_conv as ref


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


def conv_cases(conv: Conv, n_datasets: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """The node case of the data sets the spec defines, and the probe case of those it does not."""
    s = sampling.case_seed(seed, conv.name)
    stream = sampling.Stream(s)
    yield from dataset_cases(conv, [draw_dataset(conv, stream, i) for i in range(n_datasets)], s, flags)


def draw_geometry(s: sampling.Stream) -> tuple[int, int, int, tuple, dict, tuple]:
    """A valid convolution's geometry (QLinearConv's, and ConvInteger's: generator/families/conv_integer/data.py):
    1 to 3 spatial axes, groups, kernel, strides, dilations, padding, the spatial sizes. (group, input channels per
    group, output channels per group, kernel, attrs, spatial). Each choice is uniform over what is listed (a value
    listed twice is twice as likely); the caller draws the types and the rest after it, from the same stream."""
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
    return group, cg, mg, kernel, attrs, spatial


def configuration(s: sampling.Stream) -> Conv:
    """A valid configuration: draw_geometry's, then the types, batch, per-channel form and bias."""
    group, cg, mg, kernel, attrs, spatial = draw_geometry(s)
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
