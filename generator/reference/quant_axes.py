"""Quantization granularity, shared by QuantizeLinear and DequantizeLinear: which shape a scale / zero point
may have, and the per-element scale it stands for.

From the schema texts of the installed onnx (QuantizeLinear-21+ / DequantizeLinear-21+, "There are three
supported quantization granularities, determined by the shape of `y_scale`"; the `axis` and `block_size`
attributes; earlier opsets have per-tensor, and from 13 per-axis, only):
  - per-tensor: the scale is a scalar;
  - per-axis: a 1-D tensor of length D_axis;
  - blocked (block_size > 0): the input's shape except along axis, where it is S with
    ceil(D/S) <= block_size <= ceil(D/(S-1)) - 1; every scale is replicated block_size times along axis.
"""

from __future__ import annotations

import math

import numpy as np


class QuantShapeError(ValueError):
    """The scale / zero point do not fit the input under the operator's rules: the model is invalid."""


def normalize_axis(axis: int, rank: int) -> int:
    """axis in [-rank, rank - 1] -> [0, rank - 1] ("Negative value means counting dimensions from the back")."""
    if not -rank <= axis < max(rank, 1):
        raise QuantShapeError(f"axis {axis} is outside [-{rank}, {rank - 1}]")
    return axis % max(rank, 1)


def granularity(scale_shape: tuple, x_shape: tuple, axis: int = 1, block_size: int = 0) -> str:
    """"per-tensor", "per-axis" or "blocked", or QuantShapeError naming what does not fit."""
    scale_shape, x_shape = tuple(scale_shape), tuple(x_shape)
    if block_size < 0:
        raise QuantShapeError(f"block_size {block_size} is negative")
    if block_size == 0:
        if scale_shape == ():
            return "per-tensor"
        if len(scale_shape) != 1:
            raise QuantShapeError(f"a scale of shape {scale_shape} is neither a scalar nor 1-D (block_size is 0)")
        i = normalize_axis(axis, len(x_shape))
        if scale_shape[0] != x_shape[i]:
            raise QuantShapeError(f"a per-axis scale of length {scale_shape[0]} on axis {axis} of length {x_shape[i]}")
        return "per-axis"
    if len(scale_shape) != len(x_shape):
        raise QuantShapeError(f"a blocked scale of rank {len(scale_shape)} for an input of rank {len(x_shape)}")
    i = normalize_axis(axis, len(x_shape))
    others = [j for j in range(len(x_shape)) if j != i and scale_shape[j] != x_shape[j]]
    if others:
        raise QuantShapeError(f"a blocked scale of shape {scale_shape} differs from the input {x_shape} off axis {i}")
    d, s = x_shape[i], scale_shape[i]
    lo = math.ceil(d / s) if s else math.inf
    hi = math.ceil(d / (s - 1)) - 1 if s > 1 else math.inf
    if not lo <= block_size <= hi:
        raise QuantShapeError(f"block_size {block_size} does not fit {s} block(s) over a dimension of {d}")
    return "blocked"


def expand(param: np.ndarray, x_shape: tuple, axis: int = 1, block_size: int = 0) -> np.ndarray:
    """The scale (or zero point) of every element of an input of x_shape: param broadcast to x_shape."""
    param = np.asarray(param)
    kind = granularity(param.shape, x_shape, axis, block_size)
    if kind == "per-tensor":
        return np.broadcast_to(param, x_shape)
    i = normalize_axis(axis, len(x_shape))
    if kind == "per-axis":
        shape = [1] * len(x_shape)
        shape[i] = x_shape[i]
        return np.broadcast_to(param.reshape(shape), x_shape)
    return np.repeat(param, block_size, axis=i).take(range(x_shape[i]), axis=i)
