"""Live hunting over ConvInteger (generator/hunting.py): one small configuration and one data set per example, drawn
toward the fault models' boundaries (generator/reference/conv_integer_faults.py): every type pair and zero-point
form, 1-D to 3-D, padding of every kind (odd SAME totals, explicit pads), strides, dilations and groups, channel
counts around the K-tail widths, elements at the ends of their types and next to their zero points (products of
255 * 255, int16 pairs, padding that shows its value)."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.conv_integer import decode, encode
from generator.families.conv_integer.spec import CI, OPSET, ci_of, dataset_cases, feed

HUNT_WHAT = "hunt"
# the slices of the hunt (generator/hunting.py): by w_zero_point's form, so that a backend that refuses per-channel
# zero points (onnxruntime) does not spend the whole budget on that one finding
SLICES = {"w_zp_per_tensor": ("tensor", "one", "absent"), "w_zp_per_channel": ("channel",)}


def _configuration(draw, w_kinds: tuple) -> CI:
    from hypothesis import strategies as st

    nd = draw(st.sampled_from((2, 1, 3)))
    group = draw(st.sampled_from((1, 2)))
    cg = draw(st.sampled_from((1, 2, 3, 5, 9)))
    mg = draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    strides = [draw(st.integers(1, 2)) for _ in range(nd)]
    dilations = [draw(st.integers(1, 2)) for _ in range(nd)]
    auto_pad = draw(st.sampled_from(("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")))
    attrs: dict = {"strides": strides, "dilations": dilations}
    if group > 1:
        attrs["group"] = group
    pads = [0] * (2 * nd)
    if auto_pad == "NOTSET":
        pads = [draw(st.integers(0, 2)) for _ in range(2 * nd)]
        attrs["pads"] = pads
    else:
        attrs["auto_pad"] = auto_pad
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    spatial = tuple(max(1, e - pads[a] - pads[a + nd]) + draw(st.integers(0, 3)) for a, e in enumerate(extent))
    types = (draw(st.sampled_from(("uint8", "int8"))), draw(st.sampled_from(("uint8", "int8"))))
    return CI(HUNT_WHAT, (1, cg * group) + spatial, kernel, mg * group, attrs, types,
              x_zp=draw(st.sampled_from(("tensor", "absent", "one"))), w_zp=draw(st.sampled_from(w_kinds)))


def _values(draw, t: dtypes.DType, shape: tuple, zp: int) -> np.ndarray:
    from hypothesis import strategies as st

    n = int(np.prod(shape, dtype=np.int64))
    pool = sorted({t.int_min, t.int_max, max(t.int_min, zp - 1), min(t.int_max, zp + 1), zp})
    if draw(st.booleans()):  # one value repeated: the largest sums of one sign
        v = [draw(st.sampled_from(pool))] * n
    else:
        v = draw(st.lists(st.sampled_from(pool) | st.integers(t.int_min, t.int_max), min_size=n, max_size=n))
    return np.array(v, dtype=np.int64).reshape(shape).astype(t.np_dtype)


def hunt_args(draw, w_kinds: tuple = ("tensor", "one", "absent", "channel")) -> dict:
    from hypothesis import strategies as st

    ci = _configuration(draw, w_kinds)
    xt, wt = (dtypes.get(t) for t in ci.types)
    zps = []
    for t, shape in zip((xt, wt), ci.zp_shapes()):
        if shape is None:
            zps.append(None)
            continue
        pool = (t.int_min, t.int_max, 0, 1, t.int_min + 1)
        vals = [draw(st.sampled_from(pool) | st.integers(t.int_min, t.int_max))
                for _ in range(int(np.prod(shape, dtype=np.int64)))]
        zps.append(np.array(vals, np.int64).reshape(shape).astype(t.np_dtype))
    zx = 0 if zps[0] is None else int(zps[0].reshape(-1)[0])
    zw = 0 if zps[1] is None else int(zps[1].reshape(-1)[0])
    x, w = _values(draw, xt, ci.x_shape, zx), _values(draw, wt, ci.w_shape, zw)
    return {"params": ci.params(), "inputs": encode([x, w, zps[0], zps[1]])}


def rebuild(args: dict):
    """The hunt example `args` describes: the same configuration and inputs, expected outputs from the reference."""
    from generator.hunting import Example

    ci = ci_of(HUNT_WHAT, args["params"])
    inputs = decode(args["inputs"], tuple(dtypes.get(t).np_dtype for t in ci.types))
    made = {c.kind: c for c in dataset_cases(ci, [feed(ci, *inputs)], 0, ["hunt"])}
    return Example(made.get("node"), made.get("probe"), args)


def hunt(max_opset: int):
    """The hunt strategy (generator.hunting): slices by w_zero_point's form (SLICES), one Example per draw; None
    below opset 10."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    def slice_of(kinds: tuple):
        @st.composite
        def examples(draw):
            return rebuild(hunt_args(draw, kinds))
        return examples()

    return {label: slice_of(kinds) for label, kinds in SLICES.items()}
