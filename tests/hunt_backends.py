"""Broken backends for the opconform hunt tests: the opconform backend with one deliberate bug each, none of
which is a fault model (the fault models are hunted as `fault:<name>` mutants). Used as
`hunt_backends:<Class>` with tests/ on sys.path.
"""

from __future__ import annotations

import ctypes

import numpy as np

from runners.backends.opconform import OpconformBackend

NATIVE_FLOATS = (np.float16, np.float32, np.float64)


class _CastOnly(OpconformBackend):
    def prepare(self, model, case):
        return (super().prepare(model, case), model.graph.node[0].op_type)

    def run(self, prepared, inputs):
        prepared, op = prepared
        outputs = super().run(prepared, inputs)
        if op == "Cast" and inputs and np.asarray(inputs[0]).dtype in NATIVE_FLOATS:
            return self.cast(np.asarray(inputs[0]), outputs)
        return outputs

    def cast(self, x: np.ndarray, outputs: list) -> list:
        return outputs


class CastTopOffByOne(_CastOnly):
    """float16 / float32 / float64 -> an integer type: a result at the type's maximum comes out one less
    (255 -> 254, 32767 -> 32766)."""

    name = "cast-top-off-by-one"

    def cast(self, x, outputs):
        y = np.array(outputs[0])
        if y.dtype.kind in "iu":
            top = np.iinfo(y.dtype).max
            y[y == top] = top - 1
        return [y]


class SegfaultsOnNegative(_CastOnly):
    """Cast of a float16 / float32 / float64 tensor holding a negative value (-0.0 too) dies with SIGSEGV, as a
    native backend would."""

    name = "segfaults-on-negative"

    def cast(self, x, outputs):
        if np.any(np.signbit(x) & ~np.isnan(x)):
            ctypes.string_at(0)
        return outputs


class GarbageWhereUndefined(_CastOnly):
    """float16 / float32 / float64 -> integer: 90 wherever the spec leaves the result undefined (NaN, +-Inf,
    out of range), exactly right everywhere else. Never a finding."""

    name = "garbage-where-undefined"

    def cast(self, x, outputs):
        y = np.array(outputs[0])
        if y.dtype.kind not in "iu" or y.dtype.itemsize < 1 or y.shape != x.shape:
            return outputs
        info = np.iinfo(y.dtype)
        with np.errstate(invalid="ignore"):
            t = np.trunc(x.astype(np.float64))
            bad = ~np.isfinite(t) | (t < info.min) | (t > info.max)
        y[bad] = 90
        return [y]
