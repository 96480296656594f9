"""Live hunting over MatMulInteger (generator/hunting.py): one small configuration and one data set per example,
drawn toward the fault models' boundaries (generator/reference/matmul_integer_faults.py): every type pair and
zero-point form, square shapes (a zero point on the wrong axis still runs), K around the tail widths, elements at the
ends of their types and next to their zero points (products of 255 * 255, int16 pairs and sums), and now and then a
long K whose sum passes 2**24 (float32 accumulation)."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.matmul_integer import decode, encode
from generator.families.matmul_integer.spec import MM, OPSET, dataset_cases, feed

HUNT_WHAT = "hunt"


def _shapes(draw) -> tuple[tuple, tuple]:
    from hypothesis import strategies as st

    m, k, n = draw(st.integers(1, 5)), draw(st.sampled_from((3, 1, 2, 4, 5, 7, 8, 9, 16, 17, 300))), \
        draw(st.integers(1, 5))
    if draw(st.booleans()):
        m = n = k if k <= 9 else m
    kind = draw(st.sampled_from(("2d", "2d", "batch", "a1d", "b1d")))
    if kind == "a1d":
        return (k,), (k, n)
    if kind == "b1d":
        return (m, k), (k,)
    if kind == "batch":
        return (2, m, k), (draw(st.sampled_from((1, 2))), k, n)
    return (m, k), (k, n)


def _values(draw, t: dtypes.DType, shape: tuple, zp: int) -> np.ndarray:
    from hypothesis import strategies as st

    n = int(np.prod(shape, dtype=np.int64))
    pool = sorted({t.int_min, t.int_max, max(t.int_min, zp - 1), min(t.int_max, zp + 1), zp})
    if draw(st.booleans()):  # one value repeated: the largest sums of one sign
        v = [draw(st.sampled_from(pool))] * n
    else:
        v = draw(st.lists(st.sampled_from(pool) | st.integers(t.int_min, t.int_max), min_size=n, max_size=n))
    return np.array(v, dtype=np.int64).reshape(shape).astype(t.np_dtype)


# the slices of the hunt (generator/hunting.py): by a_zero_point's form, so that a backend that refuses per-row
# zero points (onnxruntime) does not spend the whole budget on that one finding
SLICES = {"a_zp_per_tensor": ("tensor", "one"), "a_zp_absent": ("absent",), "a_zp_per_row": ("row", "row_nd")}


def hunt_args(draw, a_kinds: tuple = ("tensor", "absent", "one", "row", "row_nd")) -> dict:
    from hypothesis import strategies as st

    types = (draw(st.sampled_from(("uint8", "int8"))), draw(st.sampled_from(("uint8", "int8"))))
    a_shape, b_shape = _shapes(draw)
    if "row" in a_kinds and len(a_kinds) == 2 and len(a_shape) < 2:  # per row needs A of rank 2 or more
        a_shape, b_shape = (1,) + a_shape, b_shape
    a_forms = ("tensor", "absent", "one") + (("row", "row_nd") if len(a_shape) == 2 else
                                             ("row_nd",) if len(a_shape) > 2 else ())
    a_forms = tuple(f for f in a_forms if f in a_kinds)
    b_forms = ("tensor", "absent", "one") + (("column", "column_nd") if len(b_shape) == 2 else
                                             ("column_nd",) if len(b_shape) > 2 else ())
    mm = MM(HUNT_WHAT, a_shape, b_shape, types, draw(st.sampled_from(a_forms)), draw(st.sampled_from(b_forms)))
    at, bt = (dtypes.get(t) for t in types)
    s_az, s_bz = mm.zp_shapes()
    zps = []
    for t, shape in ((at, s_az), (bt, s_bz)):
        if shape is None:
            zps.append(None)
            continue
        pool = (t.int_min, t.int_max, 0, 1, t.int_min + 1)
        vals = [draw(st.sampled_from(pool) | st.integers(t.int_min, t.int_max))
                for _ in range(int(np.prod(shape, dtype=np.int64)))]
        zps.append(np.array(vals, np.int64).reshape(shape).astype(t.np_dtype))
    za = 0 if zps[0] is None else int(np.asarray(zps[0]).reshape(-1)[0])
    zb = 0 if zps[1] is None else int(np.asarray(zps[1]).reshape(-1)[0])
    a, b = _values(draw, at, a_shape, za), _values(draw, bt, b_shape, zb)
    return {"params": mm.params(), "inputs": encode([a, b, zps[0], zps[1]])}


def rebuild(args: dict):
    """The hunt example `args` describes: the same configuration and inputs, expected outputs from the reference."""
    from generator.hunting import Example

    p = args["params"]
    mm = MM(HUNT_WHAT, tuple(p["a_shape"]), tuple(p["b_shape"]), (p["a_type"], p["b_type"]), p["a_zp"], p["b_zp"])
    inputs = decode(args["inputs"], tuple(dtypes.get(t).np_dtype for t in mm.types))
    made = {c.kind: c for c in dataset_cases(mm, [feed(mm, *inputs)], 0, ["hunt"])}
    return Example(made.get("node"), made.get("probe"), args)


def hunt(max_opset: int):
    """The hunt strategy (generator.hunting): slices by a_zero_point's form (SLICES), one Example per draw; None
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

