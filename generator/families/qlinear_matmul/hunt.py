"""Live hunting over QLinearMatMul (generator/hunting.py, `opconform hunt`): hypothesis draws, biased to the
boundaries of the fault models (generator/reference/qlinear_matmul_faults.py), built into cases by the functions
that build the suite's (dataset_cases, negative_case); the requantization ties are generator/requant_hunt.py's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from generator import dtypes
from generator.catalogue import qlinear_matmul as codec
from generator.families.qlinear_matmul.mm import NAMES, NEWEST, OPSET, MatMul, dataset_cases, from_params, scale_array
from generator.families.qlinear_matmul.negatives import NEGATIVES, negative_case
from generator.reference import qlinear_matmul as ref
from generator.requant_hunt import ints, pick, tie_scales

HUNT_WHAT = "hunt"
# the simplest first (hypothesis shrinks a sampled_from toward its first element); a value listed n times is n times
# as likely
HUNT_SCALES = ("pow2",) * 4 + ("tie",) * 8 + ("random",) * 4 + ("saturate",) * 3 + ("bad",)
_SHAPES = ("2d",) * 3 + ("a1d", "b1d", "both1d") + ("batched",) * 2 + ("broadcast",) * 2
_BAD_SCALES = ((6, 0.0), (6, -1.0), (1, np.inf), (4, np.nan), (1, -0.0))


def hunt(max_opset: int):
    """The hunt strategy: Examples of one data set each on tiny configurations (M, N 1-4, K 0-33 (0: the empty sum), batch up to 2 x 3,
    1-D operands), the types of the version drawn (opset 10 or 21; float16 / bfloat16 scales at 21), per-tensor,
    per-row and per-column quantization, values over the whole type, near the zero point or at the type's ends
    (pair sums that leave int16), scales that are powers of two, exact ties (requant_hunt.tie_scales), random,
    saturating or bad (the probe). One example in 20 is a negative case."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    @st.composite
    def example(draw):
        mm = _hunt_matmul(draw, max_opset)
        inputs = _hunt_inputs(draw, mm)
        if draw(ints(0, 19)) == 19:
            what = draw(pick(tuple(NEGATIVES)))
            return _negative_example(what, mm, inputs)
        return _node_example(mm, inputs)

    return example()


def rebuild(args: dict):
    """The hunt example `args` describes: the same configuration and inputs, expected outputs from the reference."""
    mm = from_params(HUNT_WHAT, args["params"], args["opset"])
    inputs = codec.decode(args["inputs"], args["params"])
    if args.get("negative"):
        return _negative_example(args["negative"], mm, inputs)
    return _node_example(mm, inputs)


def _args(mm: MatMul, inputs: list[np.ndarray], negative: str | None = None) -> dict:
    args = {"opset": mm.opset, "params": mm.params(), "inputs": codec.encode(dict(zip(NAMES, inputs)))}
    if negative:
        args["negative"] = negative
    return args


def _node_example(mm: MatMul, inputs: list[np.ndarray]):
    from generator.hunting import Example

    cases = {c.kind: c for c in dataset_cases(mm, [inputs], 0, [HUNT_WHAT])}
    return Example(cases.get("node"), cases.get("probe"), _args(mm, inputs))


def _negative_example(what: str, mm: MatMul, inputs: list[np.ndarray]):
    from generator.hunting import Example

    base = replace(mm, what=HUNT_WHAT, a_shape=(3, 4), b_shape=(4, 5), a_quant="per_tensor", b_quant="per_tensor",
                   types=("uint8", "int8", "uint8"), scale_type="float")
    a = np.resize(inputs[0].astype(np.int64), (3, 4)).astype(np.uint8)
    b = np.resize(inputs[3].astype(np.int64), (4, 5)).astype(np.int8)
    f = np.float32
    valid = [a, f(inputs[1].reshape(-1)[0]), np.uint8(0), b, f(inputs[4].reshape(-1)[0]), np.int8(0),
             f(inputs[6]), np.uint8(0)]
    valid = [np.asarray(v) for v in valid]
    case = negative_case(what, base, valid, 0)
    return Example(case, None, _args(base, valid, what))


def _hunt_matmul(draw, max_opset: int) -> MatMul:
    opset = draw(pick((NEWEST, OPSET))) if max_opset >= NEWEST else OPSET
    m, k, n = draw(ints(1, 4)), draw(pick((2, 1, 3, 4, 8, 16, 17, 33))), draw(ints(1, 4))
    if draw(ints(0, 7)) == 7:  # the empty sum: y is y_zero_point
        k = 0
    shape = draw(pick(_SHAPES))
    a_shape, b_shape = (m, k), (k, n)
    if shape == "a1d":
        a_shape = (k,)
    elif shape == "b1d":
        b_shape = (k,)
    elif shape == "both1d":
        a_shape, b_shape = (k,), (k,)
    elif shape == "batched":
        d = draw(ints(1, 3))
        a_shape, b_shape = (d, m, k), draw(pick(((d, k, n), (k, n), (1, k, n))))
    elif shape == "broadcast":
        a_shape, b_shape = (3, m, k), (2, 1, k, n)
    types = tuple(draw(pick(ref.INT_TYPES)) for _ in range(3))
    scale_type = draw(pick(ref.SCALE_TYPES[21])) if opset >= 21 else "float"
    a_quant = draw(pick(("per_tensor", "per_row", "per_row_nd"))) if len(a_shape) >= 2 else "per_tensor"
    if a_quant == "per_row" and len(a_shape) != 2:
        a_quant = "per_row_nd"
    b_quant = draw(pick(("per_tensor", "per_column", "per_column_nd"))) if len(b_shape) >= 2 else "per_tensor"
    if b_quant == "per_column" and len(b_shape) != 2:
        b_quant = "per_column_nd"
    return MatMul(HUNT_WHAT, a_shape, b_shape, types, scale_type, a_quant, b_quant, draw(pick(HUNT_SCALES)),
                  opset=opset)


def _values(draw, t: dtypes.DType, shape: tuple, zp: np.ndarray) -> np.ndarray:
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


def _hunt_inputs(draw, mm: MatMul) -> list[np.ndarray]:
    from hypothesis import strategies as st

    at, bt, yt = (dtypes.get(t) for t in mm.types)

    def zps(t, shape):
        n = int(np.prod(shape))
        vals = draw(st.lists(st.one_of(pick((0, t.int_min, t.int_max)), ints(t.int_min, t.int_max)), min_size=n,
                             max_size=n))
        return np.array(vals, np.int64).reshape(shape).astype(t.np_dtype)

    az, bz, yz = zps(at, mm.a_scale_shape), zps(bt, mm.b_scale_shape), zps(yt, ())
    a = _values(draw, at, mm.a_shape, np.asarray(az).reshape(-1, 1) if mm.a_quant == "per_row" else az)
    b = _values(draw, bt, mm.b_shape, bz)
    na, nb = int(np.prod(mm.a_scale_shape)), int(np.prod(mm.b_scale_shape))
    xs, ws, ys = [2.0 ** -draw(ints(4, 9))] * na, [2.0 ** -draw(ints(4, 9))] * nb, 2.0 ** -draw(ints(8, 18))
    if mm.scales == "random":
        xs = [draw(st.floats(2.0**-10, 2.0**-3, width=32)) for _ in range(na)]
        ws = [draw(st.floats(2.0**-10, 2.0**-3, width=32)) for _ in range(nb)]
        ys = draw(st.floats(2.0**-14, 2.0**-4, width=32))
    elif mm.scales == "saturate":
        ys = 2.0**-22
    elif mm.scales == "tie":
        ones = np.ones(mm.a_scale_shape, np.float32), np.ones(mm.b_scale_shape, np.float32)
        acc, _ = ref.accumulate(ref.operands(a, ones[0], az, b, ones[1], bz, np.float32(1), yz))
        tie = tie_scales(draw, acc.reshape(1, -1), yt, int(yz))
        if tie is not None:
            _, x, w, ys = tie
            xs, ws = [x] * na, [w] * nb
    out = [a, scale_array(xs, mm.scale_type, mm.a_scale_shape), az, b, scale_array(ws, mm.scale_type,
                                                                                    mm.b_scale_shape), bz,
           scale_array([ys], mm.scale_type, ()), yz]
    if mm.scales == "bad":
        j, v = draw(pick(_BAD_SCALES))
        out[j] = np.full(out[j].shape, v, dtype=out[j].dtype)
    return out
