"""The DynamicQuantizeMatMul hunt (generator/hunting.py) and the random configurations of work().

A hunt example is a configuration (B's type, its zero point's and scale's forms, bias, shapes: batched or not, K
around vector widths) and one data set of one kind (config.py) drawn from a seed; rebuild draws it again.
"""

from __future__ import annotations

from dataclasses import replace

from generator import sampling
from generator.families.dynamic_quantize_matmul.config import (FAMILY, I8, OPSET, U8, Config, dataset_cases,
                                                               draw)

HUNT_WHAT = "hunt"
KINDS = ("grid", "positive", "negative", "truncated", "pairs", "wide", "random")
KS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65)
FIELDS = ("b_type", "b_zp", "b_scale", "bias", "m", "k", "n", "batch")


def _config(what: str, b_type: str, b_zp: str, b_scale: str, bias: bool, m: int, k: int, n: int,
            batch: int) -> Config:
    a_shape, b_shape = (m, k), (k, n)
    if batch:
        a_shape, b_shape = (batch,) + a_shape, ((batch,) + b_shape if batch % 2 else b_shape)
    return Config(what, a_shape, b_shape, b_type, b_zp, b_scale, bias)


def random_configs(n: int, seed: int) -> list[Config]:
    """n configurations from seeded PCG64 draws (their data sets: kinds_for's); K >= 2, rows >= 2: a group a random
    configuration founds alone must tell a per-row quantization of A (one element a row quantizes exactly)."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.name}_random"))
    return [_config(f"config_{i:03d}_random", s.choice([U8, I8]), s.choice(["absent", "tensor", "one", "column"]),
                    s.choice(["tensor", "column"]), s.choice([False, True]), s.integers(2, 4), s.choice(KS[1:13]),
                    s.integers(2, 6), s.choice([0, 0, 2, 3])) for i in range(n)]


def rebuild(args: dict):
    """The hunt example `args` describes: the configuration, and its one data set drawn from args["seed"]."""
    from generator.hunting import Example

    cfg = _config(HUNT_WHAT, *(args[f] for f in FIELDS))
    kind = args["kind"] if args["kind"] != "pairs" or cfg.b_type == I8 else "grid"
    s = sampling.Stream(int(args["seed"]))
    found = {c.kind: c for c in dataset_cases(replace(cfg, kinds=(kind,)), [draw(cfg, s, kind)],
                                              int(args["seed"]), ["hunt"])}
    return Example(found.get("node"), found.get("probe"), dict(args))


def hunt(max_opset: int):
    """Slices by B's type, each drawing small configurations first."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    def sliced(b_type: str):
        @st.composite
        def example(draw_):
            args = {"b_type": b_type, "b_zp": draw_(st.sampled_from(("tensor", "absent", "one", "column"))),
                    "b_scale": draw_(st.sampled_from(("tensor", "column"))), "bias": draw_(st.booleans()),
                    "m": draw_(st.integers(1, 5)), "k": draw_(st.sampled_from(KS)), "n": draw_(st.integers(1, 6)),
                    "batch": draw_(st.sampled_from((0, 2, 3))), "kind": draw_(st.sampled_from(KINDS)),
                    "seed": draw_(st.integers(0, 2**32 - 1))}
            return rebuild(args)
        return example()

    return {b_type: sliced(b_type) for b_type in (I8, U8)}
