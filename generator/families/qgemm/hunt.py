"""Live hunting over QGemm (generator/hunting.py, `opconform hunt`): hypothesis draws, biased to the boundaries of
the fault models (generator/reference/qgemm_faults.py), built into cases by the functions that build the suite's
(dataset_cases, negative_case); the requantization ties are generator/requant_hunt.py's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from generator import dtypes
from generator.catalogue import qgemm as codec
from generator.families.qgemm.config import Gemm, dataset_cases, from_params
from generator.families.qgemm.negatives import NEGATIVES, _BASE, negative_case
from generator.reference import qgemm as ref
from generator.requant_hunt import ints, pick, tie_scales

HUNT_WHAT = "hunt"
HUNT_SCALES = ("pow2",) * 4 + ("tie",) * 6 + ("random",) * 4 + ("saturate",) * 2 + ("bad",)
_ALPHAS = (None, 1.0, 0.5, -1.0, 2.0, 0.25, -0.5, 3.0, 0.1, 0.0)
_TIE_ALPHAS = (None, 1.0, 0.5, 2.0, 0.25)
_C = (None, "mn", "n", "m1", "1n", "scalar")


def hunt(max_opset: int):
    """The hunt strategy: Examples of one data set each on tiny configurations (M, N 1-4, K 0-33), every transA /
    transB, alpha among simple and awkward values, uint8 / int8 A and B, a quantized or float output, per-tensor or
    per-column b, C of every form or none, values over the whole type, near the zero point or at its ends, scales
    powers of two, exact ties (requant_hunt.tie_scales), random, saturating or bad (the probe). One example in 20 is
    a negative case."""
    from hypothesis import strategies as st

    @st.composite
    def example(draw):
        g = _hunt_gemm(draw)
        data = _hunt_inputs(draw, g)
        if draw(ints(0, 19)) == 19:
            return _negative_example(draw(pick(tuple(NEGATIVES))), data, g)
        return _node_example(g, data)

    return example()


def rebuild(args: dict):
    """The hunt example `args` describes: the same configuration and inputs, expected outputs from the reference."""
    g = from_params(HUNT_WHAT, args["params"])
    data = codec.decode(args["inputs"], g.slots, g.shapes(), g.input_types())
    if args.get("negative"):
        return _negative_example(args["negative"], data, g)
    return _node_example(g, data)


def _args(g: Gemm, data: list[np.ndarray], negative: str | None = None) -> dict:
    args = {"opset": 1, "params": g.params(), "inputs": codec.named(g.slots, data)}
    if negative:
        args["negative"] = negative
    return args


def _node_example(g: Gemm, data: list[np.ndarray]):
    from generator.hunting import Example

    cases = {c.kind: c for c in dataset_cases(g, [data], 0, [HUNT_WHAT])}
    return Example(cases.get("node"), cases.get("probe"), _args(g, data))


def _negative_example(what: str, data: list[np.ndarray], g: Gemm):
    """The negative `what` on the negatives' base configuration, its data resized from the drawn one."""
    from generator.hunting import Example
    from generator.families.qgemm.config import draw_dataset
    from generator import sampling

    base = replace(_BASE, what=HUNT_WHAT)
    valid = draw_dataset(base, sampling.Stream(int(np.asarray(data[0]).astype(np.int64).sum()) % 2**31), 0)
    return Example(negative_case(what, base, valid, 0), None, _args(g, data, what))


def _hunt_gemm(draw) -> Gemm:
    m, n = draw(ints(1, 4)), draw(ints(1, 4))
    k = 0 if draw(ints(0, 7)) == 7 else draw(pick((2, 1, 3, 4, 8, 16, 17, 33)))
    y = draw(pick(("uint8", "int8", "float")))
    c = draw(pick(_C[1:])) if draw(pick((False, True))) else None
    form = draw(pick(("tensor", "column"))) if draw(ints(0, 5)) else "one"
    scales = draw(pick(HUNT_SCALES))
    # a tie's scales (requant_hunt.tie_scales) put alpha * a_scale * b_scale / y_scale on it only for an alpha of a
    # power of two (y_scale takes it, exactly)
    alpha = draw(pick(_TIE_ALPHAS if scales == "tie" and y != "float" else _ALPHAS))
    return Gemm(HUNT_WHAT, m, k, n, draw(pick((None, 0, 1))), draw(pick((None, 0, 1))), alpha,
                (draw(pick(ref.INT_TYPES)), draw(pick(ref.INT_TYPES)), y), form, draw(pick(("tensor", form))),
                {None: None, "mn": (m, n), "n": (n,), "m1": (m, 1), "1n": (1, n), "scalar": ()}[c], scales)


def _values(draw, t: dtypes.DType, shape: tuple, zp) -> np.ndarray:
    from hypothesis import strategies as st

    size = int(np.prod(shape))
    mode = draw(pick(("full", "near", "ends")))
    if mode == "full":
        v = draw(st.lists(ints(t.int_min, t.int_max), min_size=size, max_size=size))
    elif mode == "near":
        v = (np.broadcast_to(zp, shape).reshape(-1) + np.array(draw(st.lists(ints(-3, 3), min_size=size,
                                                                              max_size=size)), np.int64)).tolist()
    else:
        v = draw(st.lists(pick((t.int_max, t.int_min)), min_size=size, max_size=size))
    return np.clip(np.array(v, np.int64), t.int_min, t.int_max).reshape(shape).astype(t.np_dtype)


def _hunt_inputs(draw, g: Gemm) -> list[np.ndarray]:
    from hypothesis import strategies as st

    at, bt = dtypes.get(g.types[0]), dtypes.get(g.types[1])
    sh = g.shapes()

    def zps(t, shape):
        count = int(np.prod(shape))
        vals = draw(st.lists(st.one_of(pick((0, t.int_min, t.int_max)), ints(t.int_min, t.int_max)), min_size=count,
                             max_size=count))
        return np.array(vals, np.int64).reshape(shape).astype(t.np_dtype)

    az, bz = zps(at, ()), zps(bt, sh["b_zero_point"])
    a = _values(draw, at, g.a_shape, az)
    b = _values(draw, bt, g.b_shape, bz.reshape(-1, 1) if g.trans_b and bz.size > 1 else bz)
    nb = int(np.prod(sh["b_scale"]))
    xs, ws, ys = 2.0 ** -draw(ints(4, 9)), [2.0 ** -draw(ints(4, 9))] * nb, 2.0 ** -draw(ints(8, 18))
    if g.scales == "random":
        xs = draw(st.floats(2.0**-10, 2.0**-3, width=32))
        ws = [draw(st.floats(2.0**-10, 2.0**-3, width=32)) for _ in range(nb)]
        ys = draw(st.floats(2.0**-14, 2.0**-4, width=32))
    elif g.scales == "saturate":
        ys = 2.0**-22
    data = {"A": a, "a_scale": np.float32(xs), "a_zero_point": az, "B": b,
            "b_scale": np.asarray(ws, np.float32).reshape(sh["b_scale"]), "b_zero_point": bz}
    if g.c_shape is not None:
        data["C"] = np.array(draw(st.lists(st.one_of(pick((0, 1, -1, ref.INT32_MAX, ref.INT32_MIN)),
                                                     ints(-70000, 70000)), min_size=int(np.prod(g.c_shape)),
                                           max_size=int(np.prod(g.c_shape)))), np.int64).reshape(g.c_shape) \
            .astype(np.int32)
    if g.quantized:
        yt = dtypes.get(g.types[2])
        yz = zps(yt, ())
        if g.scales == "tie":
            probe = [data.get(n) for n in ref.INPUTS[:6]] + [data.get("C")]
            op = ref.operands(probe, g.attrs)
            total = ref.accumulate(op) + op.c
            tie = tie_scales(draw, total.reshape(1, -1), yt, int(yz))
            if tie is not None:
                _, x, w, ys = tie
                ys *= abs(g.alpha or 1.0)  # a power of two (_TIE_ALPHAS): the tie stays exact
                data["a_scale"], data["b_scale"] = np.float32(x), np.full(sh["b_scale"], w, np.float32)
        data["y_scale"], data["y_zero_point"] = np.float32(ys), yz
    if g.scales == "bad":
        slot = draw(pick(("a_scale", "b_scale") + (("y_scale",) if g.quantized else ())))
        data[slot] = np.full(np.shape(data[slot]), draw(pick((0.0, -1.0, np.inf, np.nan, -0.0))), np.float32)
    return [np.asarray(data[n]) for n in g.slots]
