"""The QLinear operators' hunt (generator/hunting.py) and the random configurations of work().

A hunt example is an operator, T, its tensors' shapes, the operator's attributes and one data set of one kind
(config.py: random, pow2, saturate, ends) drawn from a seed: the args are plain JSON, and rebuild draws the same
data again with generator.sampling. One slice per operator (each is a kernel of its own).
"""

from __future__ import annotations

from generator import sampling
from generator.families.qlinear_ops.config import Config, cases
from generator.reference import qlinear_ops as ref

HUNT_WHAT = "hunt"
KINDS = ("random", "pow2", "saturate", "ends")
TYPES = ("uint8", "int8")


def _shape(draw_int, rank: int) -> tuple:
    return tuple(draw_int(1, 5) for _ in range(rank))


def _broadcast_of(shape: tuple, keep) -> tuple:
    """A shape that broadcasts to `shape`: each dimension kept or 1 (keep(i) says which), leading ones dropped."""
    out = tuple(d if keep(i) else 1 for i, d in enumerate(shape))
    while out and out[0] == 1 and keep(-1):
        out = out[1:]
    return out


def configuration(op: str, t: str, draw_int, draw_bool, what: str) -> Config:
    """A configuration of op from integer / boolean draws (a sampling.Stream's or hypothesis's)."""
    rank = draw_int(1, 4)
    shape = _shape(draw_int, rank)
    attrs: dict = {}
    if op in ("QLinearAdd", "QLinearMul"):
        shapes = (shape, _broadcast_of(shape, lambda i: draw_bool()))
    elif op == "QLinearWhere":
        shapes = (_broadcast_of(shape, lambda i: draw_bool()), shape, _broadcast_of(shape, lambda i: draw_bool()))
    elif op == "QLinearConcat":
        axis = draw_int(0, rank - 1)
        shapes = tuple(shape[:axis] + (draw_int(0, 4),) + shape[axis + 1:] for _ in range(draw_int(1, 4)))
        attrs = {"axis": axis - rank if draw_bool() else axis}
    elif op == "QLinearSoftmax":
        opset = (11, 12, 13)[draw_int(0, 2)]
        attrs = {"opset": opset, "axis": draw_int(-rank, rank - 1)}
        shapes = (shape,)
    elif op in ("QLinearAveragePool", "QLinearGlobalAveragePool"):
        spatial = draw_int(1, 3)
        shape = (draw_int(1, 2), draw_int(1, 3)) + tuple(draw_int(1, 7) for _ in range(spatial))
        last = draw_bool()
        if last:
            attrs["channels_last"] = 1
        if op == "QLinearAveragePool":
            k = [draw_int(1, min(3, d)) for d in shape[2:]]
            attrs.update(kernel_shape=k, strides=[draw_int(1, 3) for _ in k])
            mode = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")[draw_int(0, 3)]
            if mode == "NOTSET":
                attrs["pads"] = [draw_int(0, kk - 1) for kk in k + k]
                attrs["ceil_mode"] = int(draw_bool())
            else:
                attrs["auto_pad"] = mode
            attrs["count_include_pad"] = int(draw_bool())
        if last:
            shape = (shape[0],) + shape[2:] + (shape[1],)
        shapes = (shape,)
    else:  # unary element-wise
        shapes = (shape,)
        if op == "QLinearLeakyRelu":
            attrs = {"alpha": (0.01, 0.25, 0.1, -0.5, 2.0)[draw_int(0, 4)]}
    return Config(what, op, t, shapes, attrs)


def random_configs(n: int, seed: int) -> list[Config]:
    """n configurations from seeded PCG64 draws, the operators in turn (their data sets: random, pow2 twice, saturate)."""
    s = sampling.Stream(sampling.case_seed(seed, "qlinear_ops_random"))
    ops = list(ref.QOPS)
    out = []
    for i in range(n):
        op = ops[i % len(ops)]
        cfg = configuration(op, TYPES[s.integers(0, 1)], s.integers, lambda: bool(s.integers(0, 1)),
                            f"config_{i}_random")
        extra = ("frac_reciprocal", "frac_reciprocal") if op == "QLinearSoftmax" else ()  # as the catalogue's (entries.py)
        out.append(Config(cfg.what, cfg.op, cfg.t, cfg.shapes, cfg.attrs,
                          kinds=("random", "pow2", "pow2", "saturate") + extra))
    return out


def hunt(max_opset: int):
    """One slice per operator, configurations drawn small first, one data set each."""
    from hypothesis import strategies as st

    def sliced(op: str):
        @st.composite
        def example(draw):
            ints, bools = [], []
            cfg = configuration(op, "uint8", lambda lo, hi: ints.append(draw(st.integers(lo, hi))) or ints[-1],
                                lambda: bools.append(draw(st.booleans())) or bools[-1], HUNT_WHAT)
            args = {"op": op, "t": draw(st.sampled_from(TYPES)), "shapes": [list(x) for x in cfg.shapes],
                    "attrs": cfg.attrs, "kind": draw(st.sampled_from(KINDS)), "seed": draw(st.integers(0, 2**32 - 1))}
            return rebuild(args)
        return example()

    return {op: sliced(op) for op in ref.QOPS}


def rebuild(args: dict):
    """The hunt example `args` describes: the configuration, and its data set drawn from args["seed"]."""
    from generator.hunting import Example

    cfg = Config(HUNT_WHAT, args["op"], args["t"], tuple(tuple(x) for x in args["shapes"]), dict(args["attrs"]),
                 kinds=(args["kind"],))
    found = {c.kind: c for c in cases(cfg, int(args["seed"]), ("hunt",))}
    return Example(found.get("node"), found.get("probe"), dict(args))
