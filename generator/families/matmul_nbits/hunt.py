"""The MatMulNBits hunt (generator/hunting.py) and the random configurations of work().

A hunt example is a configuration (A's type, bits, block_size 16..1024, K around multiples of block_size, N,
A's rows, zero-point form, g_idx, bias, accuracy_level) and one data set of one kind (config.py: random, int8,
overflow, zero, typed_zp, bias_only, g_idx, int8_rows, int8_round, swamp) drawn from a seed: the args are plain
JSON (the configuration's fields, the seed, the kind), and rebuild draws the same data again with
generator.sampling.
"""

from __future__ import annotations

from dataclasses import replace

from generator import sampling
from generator.families.matmul_nbits.config import OPSET, Config, cases
from generator.reference import matmul_nbits as ref

HUNT_WHAT = "hunt"
BLOCK_SIZES = (16, 32, 64, 128, 256, 512, 1024)
ZERO_POINTS = ("none", "packed", "typed")
KINDS = ("random", "int8", "overflow", "zero", "typed_zp", "bias_only", "g_idx", "int8_rows", "int8_round", "swamp")
LEVELS = (None, 0, 1, 4)
FIELDS = ("t1", "bits", "block_size", "K", "N", "a_shape", "zero_points", "g_idx", "bias", "accuracy_level")


def _config(what: str, t1: str, bits: int, bs: int, K: int, N: int, rows: int, zp: str, g_idx: bool, bias: bool,
            level, kind: str) -> Config:
    g_idx = g_idx and ref.k_blocks(K, bs) > 1
    needs = {"overflow": t1 == "float16", "typed_zp": zp == "typed", "bias_only": bias, "g_idx": g_idx,
             "int8_rows": level == 4, "int8_round": level == 4, "swamp": t1 == "float16" and level == 1}
    # a kind the configuration cannot use gives way to the one its level asks for (else random): at level 4,
    # blocks apart where there are several (per-row int8 shows), else the rounding (one block: a row is a block)
    int8 = "int8_rows" if ref.k_blocks(K, bs) > 1 else "int8_round"
    fallback = int8 if level == 4 else "swamp" if needs["swamp"] else "random"
    kind = kind if needs.get(kind, True) else fallback
    return Config(what, t1, bits, bs, K, N, (rows,), zp, g_idx, bias, level, (kind,))


def random_configs(n: int, seed: int) -> list[Config]:
    """n configurations from seeded PCG64 draws (their data sets: two random ones)."""
    s = sampling.Stream(sampling.case_seed(seed, "matmul_nbits_random"))
    out = []
    for i in range(n):
        bs = BLOCK_SIZES[s.integers(0, 3)]
        K = max(16, bs * s.integers(1, 3) - s.integers(0, bs - 1) * s.integers(0, 1))
        cfg = _config(f"config_{i}_random", ("float32", "float16")[s.integers(0, 1)], ref.BITS[s.integers(0, 2)],
                      bs, K, s.integers(1, 6), s.integers(1, 3), ZERO_POINTS[s.integers(0, 2)],
                      bool(s.integers(0, 1)), bool(s.integers(0, 1)), LEVELS[s.integers(0, 3)], "random")
        out.append(replace(cfg, kinds=()))
    return out


T1S = ("float32", "float16")


def hunt(max_opset: int):
    """Slices "<A's type>" and "<A's type>_g_idx" (the deprecated g_idx path is a kernel of its own), each drawing
    configurations small first (hypothesis shrinks toward the first choice of each), one data set each."""
    if max_opset < OPSET:
        return None
    from hypothesis import strategies as st

    def sliced(t1: str, g_idx: bool):
        @st.composite
        def example(draw):
            bs = draw(st.sampled_from(BLOCK_SIZES))
            K = draw(st.integers(16, 3 * bs if bs <= 128 else bs + 8))
            args = {"t1": t1, "bits": draw(st.sampled_from((4, 2, 8))), "block_size": bs, "K": K,
                    "N": draw(st.integers(1, 8)), "rows": draw(st.integers(1, 4)),
                    "zero_points": draw(st.sampled_from(ZERO_POINTS)), "g_idx": g_idx,
                    "bias": draw(st.booleans()), "accuracy_level": draw(st.sampled_from(LEVELS)),
                    "kind": draw(st.sampled_from(KINDS)), "seed": draw(st.integers(0, 2**32 - 1))}
            return rebuild(args)
        return example()

    return {f"{t1}{'_g_idx' if g else ''}": sliced(t1, g) for t1 in T1S for g in (False, True)}


def rebuild(args: dict):
    """The hunt example `args` describes: the configuration, and its data set drawn from args["seed"]."""
    from generator.hunting import Example

    cfg = _config(HUNT_WHAT, args["t1"], args["bits"], args["block_size"], args["K"], args["N"], args["rows"],
                  args["zero_points"], args["g_idx"], args["bias"], args["accuracy_level"], args["kind"])
    found = {c.kind: c for c in cases(cfg, int(args["seed"]), ("hunt",))}
    return Example(found.get("node"), found.get("probe"), dict(args))
