"""MatMulNBits models the schema rules out (negative/): the backend must refuse them. Each is a valid
configuration's model with one attribute or one input shape made invalid; the one data set has those shapes,
for backends that only look at run time."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator.case import Case
from generator.families.matmul_nbits.config import CLAUSE, FAMILY, OPSET, Config, datasets, model
from generator.reference import matmul_nbits as ref

BASE = Config("negative", K=32, N=4, zero_points="packed", bias=True, kinds=("random",))

# what -> (attribute overrides, the error the text gives)
BAD_ATTRIBUTES = {
    "block_size_8": ({"block_size": 8}, "block_size 8: 'Must be a power of two and >= 16'"),
    "block_size_24": ({"block_size": 24}, "block_size 24: 'Must be a power of two and >= 16'"),
    "bits_1": ({"bits": 1}, "bits 1: 'which can take values from 2 to 8'"),
    "bits_16": ({"bits": 16}, "bits 16: 'which can take values from 2 to 8'"),
    "accuracy_level_5": ({"accuracy_level": 5}, "accuracy_level 5: 'can be: 0(unset), 1(fp32), 2(fp16), 3(bf16), "
                                                "or 4(int8)'"),
}
# the negatives that rest on a reading, not on a sentence alone: case.json "reading"
READINGS = {"accuracy_level_5": ref.READING_LEVELS}
# what -> (input, a wrong shape from the valid one, the error the text gives)
BAD_SHAPES = {
    "a_last_dim": ("A", lambda s: s[:-1] + (s[-1] + 16,), "A's last dimension is not K"),
    "b_blob_size": ("B", lambda s: s[:-1] + (s[-1] * 2,), "B is not (N, k_blocks, blob_size = block_size * bits / 8)"),
    "b_k_blocks": ("B", lambda s: (s[0], s[1] + 1, s[2]), "B's k_blocks is not ceil(K / block_size)"),
    "scales_shape": ("scales", lambda s: (s[0] + 1,) + s[1:], "scales is not (N, k_blocks)"),
    "scales_1d": ("scales", lambda s: (s[0] * s[1],), "scales is not (N, k_blocks): the older 1-D layout [N * "
                                                      "k_blocks], which onnxruntime's own tests still feed"),
    "zero_points_shape": ("zero_points", lambda s: (s[0], s[1] + 3), "zero_points is neither (N, ceil(k_blocks * "
                                                                     "bits / 8)) nor (N, k_blocks)"),
    "bias_length": ("bias", lambda s: (s[0] + 1,), "bias is not [N]"),
}


def negative_cases(seed: int = 0) -> Iterator[Case]:
    inputs = datasets(BASE, seed)[0]
    shapes = [np.shape(x) for x in inputs]
    for what, (attrs, why) in BAD_ATTRIBUTES.items():
        cfg = replace(BASE, what=f"negative_{what}", extra_attrs=attrs)
        yield _negative(cfg, model(cfg, shapes), [inputs], why, seed, "prepare", READINGS.get(what))
    for what, (name, reshape, why) in BAD_SHAPES.items():
        j = BASE.slots.index(name)
        bad = list(inputs)
        bad[j] = np.resize(inputs[j], reshape(tuple(shapes[j])))
        cfg = replace(BASE, what=f"negative_{what}")
        yield _negative(cfg, model(cfg, [np.shape(x) for x in bad]), [bad], why, seed, "run")


def _negative(cfg: Config, m, data: list, why: str, seed: int, phase: str, reading: str | None = None) -> Case:
    """phase: "prepare" for an attribute the schema rules out; "run" for an input shape (the text gives the
    shapes, not when they are checked: onnxruntime's kernel checks them when it runs)."""
    return FAMILY.negative(f"{FAMILY.prefix}_{cfg.what}", m, data, phase=phase, opset=OPSET, clause=CLAUSE,
                           flags=["negative"], seed=seed, params={**cfg.params, **cfg.extra_attrs}, error=why,
                           reading=reading)


__all__ = ["BAD_ATTRIBUTES", "BAD_SHAPES", "negative_cases", "ref"]
