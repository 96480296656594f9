"""The declared dims of a model input that takes data sets of several shapes (the vector-tail axis' lengths, a
data set split element by element): one model for them all, symbolic where the shapes differ. Shared by the
QuantizeLinear and DequantizeLinear families' case builders."""

from __future__ import annotations

import numpy as np


def varying_dims(arrays: list, name: str) -> tuple | None:
    """The dims of an input whose data sets (arrays) differ in shape: a symbolic dim (name + index) where they
    differ, the common size elsewhere; None where every shape agrees (the declared shape is then the data's)."""
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) < 2:
        return None
    first = np.shape(arrays[0])
    return tuple(f"{name}{i}" if len({sh[i] for sh in shapes}) > 1 else d for i, d in enumerate(first))
