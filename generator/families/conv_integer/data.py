"""Data sets of a ConvInteger configuration (CI.data says how they are made), and the random configurations (seeded
PCG64 draws, generator.sampling; the only cases --seed changes).

  random    zero points drawn (distinct per output channel), x and w uniform over their types
  ends      zero points at the ends of their types (data set i > 0: the four corners in turn), x and w uniform:
            differences up to 255 of both signs, padding that adds nothing only if read as x_zero_point
  far       zero points at one end, every element at the far end from its zero point: the largest products, of one
            sign, so the sum leaves int16 and each product does where both differences reach 255
  pairs     raw extremes for a u8 x s8 kernel (x at the top of its type, w's channels -128, -128, 127, 127 in turn
            along NHWC's K: input channels innermost): VPMADDUBSW's pairs 2 * 255 * 127 and -2 * 255 * 128 leave
            int16; zero points drawn
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.conv_integer.spec import CI, FAMILY, I8, U8, dataset_cases, feed
from generator.families.qlinear_conv.data import draw_geometry


def _zero_points(ci: CI, s: sampling.Stream, i: int) -> tuple:
    """(x_zero_point, w_zero_point) arrays of the model's shapes (None where absent)."""
    xt, wt = (dtypes.get(t) for t in ci.types)
    s_xz, s_wz = ci.zp_shapes()
    corner = [(0, 0), (1, 1), (0, 1), (1, 0)][i % 4]
    out = []
    for t, shape, c in ((xt, s_xz, corner[0]), (wt, s_wz, corner[1])):
        if shape is None:
            out.append(None)
            continue
        n = int(np.prod(shape, dtype=np.int64))
        if ci.data == "far" or (ci.data == "ends" and i > 0):
            v = np.full(n, (t.int_min, t.int_max)[c], np.int64)
        elif n > 1:
            v = np.array(s.sample(range(t.int_min, t.int_max + 1), n), np.int64)
        else:
            v = np.array([s.integers(t.int_min, t.int_max)], np.int64)
        out.append(v.reshape(shape).astype(t.np_dtype))
    return out[0], out[1]


def _far(t: dtypes.DType, z: np.ndarray) -> np.ndarray:
    return np.where(t.int_max - z >= z - t.int_min, t.int_max, t.int_min).astype(t.np_dtype)


def draw_dataset(ci: CI, s: sampling.Stream, i: int) -> list[np.ndarray]:
    """The inputs of data set i in graph-input order."""
    xt, wt = (dtypes.get(t) for t in ci.types)
    xz, wz = _zero_points(ci, s, i)
    if ci.data == "far":
        zx = np.full(ci.x_shape, 0 if xz is None else int(np.asarray(xz).reshape(-1)[0]), np.int64)
        wzs = np.zeros(ci.m, np.int64) if wz is None else np.broadcast_to(np.asarray(wz, np.int64).reshape(-1), (ci.m,))
        x = _far(xt, zx)
        w = _far(wt, np.broadcast_to(wzs.reshape((-1,) + (1,) * (len(ci.w_shape) - 1)), ci.w_shape))
    elif ci.data == "pairs":
        x = np.full(ci.x_shape, xt.int_max, xt.np_dtype)
        pattern = np.resize([wt.int_min, wt.int_min, wt.int_max, wt.int_max], ci.w_shape[1])
        w = np.broadcast_to(pattern.reshape((1, -1) + (1,) * len(ci.kernel)), ci.w_shape).astype(wt.np_dtype)
    else:
        x = s.integers(xt.int_min, xt.int_max, ci.x_shape, dtype=xt.np_dtype)
        w = s.integers(wt.int_min, wt.int_max, ci.w_shape, dtype=wt.np_dtype)
    return feed(ci, x, w, xz, wz)


def ci_cases(ci: CI, n_datasets: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """The node case of the data sets the text defines, and the probe case of those it does not."""
    s = sampling.case_seed(seed, ci.name)
    stream = sampling.Stream(s)
    yield from dataset_cases(ci, [draw_dataset(ci, stream, i) for i in range(n_datasets)], s, flags)


def configuration(s: sampling.Stream) -> CI:
    """A valid configuration: QLinearConv's geometry (qlinear_conv.data.draw_geometry), then types and zero points."""
    group, cg, mg, kernel, attrs, spatial = draw_geometry(s)
    types = (s.choice([U8, I8]), s.choice([U8, I8]))
    return CI("random", (s.integers(1, 2), cg * group) + spatial, kernel, mg * group, attrs, types,
              x_zp=s.choice(["absent", "tensor", "tensor", "one"]),
              w_zp=s.choice(["absent", "tensor", "channel", "channel", "one"]),
              data=s.choice(["random", "random", "ends"]))


def random_configurations(n: int, seed: int) -> list[CI]:
    """The first n distinct configurations (by everything but the shapes' sizes) of one seeded stream."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    chosen, seen = [], set()
    for _ in range(64 * n):
        if len(chosen) == n:
            break
        c = configuration(s)
        key = repr((len(c.kernel), c.kernel, sorted((k, v) for k, v in c.attrs.items() if k != "kernel_shape"),
                    c.types, c.x_zp, c.w_zp))
        if key not in seen:
            seen.add(key)
            chosen.append(c)
    return [replace(c, what=f"config_{i:03d}_random") for i, c in enumerate(chosen)]
