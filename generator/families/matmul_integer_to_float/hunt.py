"""The MatMulIntegerToFloat hunt (generator/hunting.py) and the random configurations of work().

A hunt example is a configuration (types, T3, the A side's and B side's forms, bias, shapes: batched or not, K
around vector widths) and one data set of one kind (config.py: random, ends, far, pairs) drawn from a seed: the
args are plain JSON, and rebuild draws the same data again with generator.sampling.
"""

from __future__ import annotations

from dataclasses import replace

from generator import sampling
from generator.families.matmul_integer_to_float.config import FAMILY, I8, OPSET, U8, Config, dataset_cases, draw

HUNT_WHAT = "hunt"
KINDS = ("random", "ends", "far", "pairs")
A_FORMS = ("tensor", "absent", "one", "k")
B_FORMS = ("tensor", "column", "absent", "one")
KS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65)


def _config(what: str, a_type: str, b_type: str, t3: str, a_zp: str, a_scale: str, b_zp: str, b_scale: str,
            bias: bool, m: int, k: int, n: int, batch: int) -> Config:
    a_shape, b_shape = (m, k), (k, n)
    if batch:
        a_shape, b_shape = (batch,) + a_shape, ((batch,) + b_shape if batch % 2 else b_shape)
    return Config(what, a_shape, b_shape, a_type, b_type, t3, a_zp, a_scale, b_zp, b_scale, bias)


def config_of(s: sampling.Stream, what: str) -> Config:
    return _config(what, s.choice([U8, I8]), s.choice([U8, I8]), s.choice(["float", "float", "float16"]),
                   s.choice(A_FORMS), s.choice(["tensor", "tensor", "k"]), s.choice(B_FORMS),
                   s.choice(["tensor", "column"]), s.choice([False, True]), s.integers(1, 4), s.choice(KS[1:13]),
                   s.integers(2, 6), s.choice([0, 0, 2, 3]))


def random_configs(n: int, seed: int) -> list[Config]:
    """n configurations from seeded PCG64 draws (their data sets: kinds_for's); K >= 2: a group a random
    configuration founds alone must tell apart what one product cannot (int16 pairs, float16 sums, per-k scales)."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.name}_random"))
    return [config_of(s, f"config_{i:03d}_random") for i in range(n)]


FIELDS = ("a_type", "b_type", "t3", "a_zp", "a_scale", "b_zp", "b_scale", "bias", "m", "k", "n", "batch")


def rebuild(args: dict):
    """The hunt example `args` describes: the configuration, and its one data set drawn from args["seed"]."""
    from generator.hunting import Example

    cfg = _config(HUNT_WHAT, *(args[f] for f in FIELDS))
    kind = args["kind"] if args["kind"] != "pairs" or (cfg.a_type, cfg.b_type) == (U8, I8) else "far"
    s = sampling.Stream(int(args["seed"]))
    found = {c.kind: c for c in dataset_cases(replace(cfg, kinds=(kind,)), [draw(cfg, s, kind)],
                                              int(args["seed"]), ["hunt"])}
    return Example(found.get("node"), found.get("probe"), dict(args))


def hunt(max_opset: int):
    """Slices by T3 (float16 is its own kernel), each drawing small configurations first."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    def sliced(t3: str):
        @st.composite
        def example(draw_):
            args = {"a_type": draw_(st.sampled_from((U8, I8))), "b_type": draw_(st.sampled_from((I8, U8))),
                    "t3": t3, "a_zp": draw_(st.sampled_from(A_FORMS)),
                    "a_scale": draw_(st.sampled_from(("tensor", "one", "k"))),
                    "b_zp": draw_(st.sampled_from(B_FORMS)), "b_scale": draw_(st.sampled_from(("tensor", "column"))),
                    "bias": draw_(st.booleans()), "m": draw_(st.integers(1, 5)), "k": draw_(st.sampled_from(KS)),
                    "n": draw_(st.integers(1, 6)), "batch": draw_(st.sampled_from((0, 3, 2))),
                    "kind": draw_(st.sampled_from(KINDS)), "seed": draw_(st.integers(0, 2**32 - 1))}
            return rebuild(args)
        return example()

    return {t3: sliced(t3) for t3 in ("float", "float16")}
