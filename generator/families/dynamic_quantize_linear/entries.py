"""The DynamicQuantizeLinear catalogue: one function per edge case or probe (test_dynamicquantizelinear_<name>),
returning its flags and data sets; then the vector-tail and NaN-payload axes (generator/axes.py)."""

from __future__ import annotations

import numpy as np

from generator import axes
from generator.family import Catalogue
from generator.families.dynamic_quantize_linear.values import (DENORM, F32, FLT_MAX, TINY, _f32, _near, _pad,
                                                               quotient_inputs, _tie_dataset, zero_point_input)
from generator.reference import dynamic_quantize_linear as ref

CATALOGUE = Catalogue()
EDGE, SHAPE, PROBE = ["edge"], ["edge", "shape"], ["probe"]
_SINGLES = [1.0, -1.0, 3.5, -1e-3, 255.0, -255.0, FLT_MAX, -FLT_MAX, TINY, -TINY, 1e-40]
_TIE_KS = [0, 1, 2, 3, 64, 127, 128, 200, 253, 254]  # zero point ties k + 0.5: even and odd k, both ends
_TIE_RANGES = [(-1.0, 1.0), (0.0, 3.0), (-2.0, 0.0), (-0.3, 7.9), (-100.0, 27.0), (-1e-3, 5e-3)]


@CATALOGUE
def mixed():
    """min < 0 < max: the zero point inside (0, 255)."""
    return EDGE, [_f32(v) for v in (
        [0, 2, -3, -2.5, 1.34, 0.5],  # ONNX's own example: zero point 153
        [-1, 1, 0.1, -0.1, 0.5, -0.5],
        [-0.0, 1e-3, -7.25, 100.0, 3.0, -3.0],
        [1e-30, -1e-30, 1.0, -0.001, 0.0, 255.0],
        [-1e20, 1e20, 1.0, -1.0, 0.0, 3e19],
        [-128.0, 127.0, -64.5, 0.25, 63.75, 1.5],
    )]


@CATALOGUE
def all_positive():
    """min widened to 0: the zero point 0."""
    return EDGE, [_f32(v) for v in (
        [1, 2.1, 1.3, 2.5, 3.34, 4.0], [0.0, 0.5, 1.0, 1.5, 2.0, 255.0], [3e-5, 1e-5, 2e-5, 7e-6, 9e-6, 1e-6],
        [7.0, 7.0, 7.0, 7.0, 7.0, 7.0], [1e30, 2e30, 5e29, 3e30, 1.5e30, 1e29],
    )]


@CATALOGUE
def all_negative():
    """max widened to 0: the zero point 255."""
    return EDGE, [_f32(v) for v in (
        [-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], [-0.0, -0.5, -1.0, -1.5, -2.0, -255.0],
        [-7.0, -7.0, -7.0, -7.0, -7.0, -7.0], [-1e30, -2e30, -5e29, -3e30, -1.5e30, -1e29],
    )]


@CATALOGUE
def single_element():
    return SHAPE, [_f32([v]) for v in _SINGLES]


@CATALOGUE
def scalar():
    return SHAPE, [_f32(v).reshape(()) for v in _SINGLES]


@CATALOGUE.named("4d")
def four_d():
    grid = np.linspace(-3.0, 5.0, 120).reshape(2, 3, 4, 5)
    return SHAPE, [_f32(grid), _f32(-grid[::-1] * 7.5), _f32(np.abs(grid))]


@CATALOGUE
def zero_point_ties():
    """-min / y_scale exactly k + 0.5 in float32: Round ties to even."""
    return EDGE, _pad([zero_point_input(k + 0.5, mx) for k, mx in zip(_TIE_KS, [1.0, 3.0, 0.75, 10.0] * 3)])


@CATALOGUE
def zero_point_near_ties():
    """-min / y_scale one float32 ulp to either side of k + 0.5."""
    near = [(t, mx) for k, mx in zip(_TIE_KS, [1.0, 5.0, 0.3] * 4) for t in _near(k + 0.5)]
    return EDGE, _pad([zero_point_input(t, mx) for t, mx in near])


@CATALOGUE
def y_ties():
    """Elements with x / y_scale exactly j + 0.5: QuantizeLinear's ties to even."""
    return EDGE, _pad([_tie_dataset(lo, hi, 48, False) for lo, hi in _TIE_RANGES])


@CATALOGUE
def y_near_ties():
    """Elements with x / y_scale one float32 ulp off j + 0.5."""
    return EDGE, _pad([_tie_dataset(lo, hi, 24, True) for lo, hi in _TIE_RANGES])


@CATALOGUE
def range_near_flt_max():
    return EDGE, [_f32(v) for v in (
        [FLT_MAX, -(2.0**102), 0.5, 1e38, -1e30, 3e38],  # FLT_MAX + 2**102 rounds back to FLT_MAX
        [FLT_MAX / 2, -FLT_MAX / 2, 0.0, 1e38, -1e38, 1.0],
        [-FLT_MAX, 1.0, -1e38, -3e38, 0.0, -1.0],
        [FLT_MAX, FLT_MAX, 0.9 * FLT_MAX, 0.5 * FLT_MAX, 1.0, 0.0],
        [-FLT_MAX, -FLT_MAX, -0.9 * FLT_MAX, -0.5 * FLT_MAX, -1.0, -0.0],
    )]


@CATALOGUE
def range_overflow():
    """X_Range overflows to +inf: y_scale = inf, zero point 0 - (min / inf) = 0, y = x / inf = 0."""
    return EDGE, [_f32(v) for v in (
        [FLT_MAX, -FLT_MAX, 0.0, 1.0, -1.0, 1e38],
        [FLT_MAX, -FLT_MAX / 1024, 3e38, -1e35, 2.0, -2.0],
        [2e38, -2e38, 1e38, -1e38, 0.5, -0.5],
        [FLT_MAX, -(2.0**103), 1.0, -1.0, 0.0, 2.0],  # FLT_MAX + 2**103: the halfway point, to even: inf
    )]


@CATALOGUE
def range_smallest_normal():
    return EDGE, [_f32(v) for v in (
        [255 * TINY, 0.0, TINY, 100 * TINY, 254.5 * TINY, 0.5 * TINY],  # y_scale = the smallest normal
        [-255 * TINY, -TINY, -0.5 * TINY, -128 * TINY, -127.5 * TINY, 0.0],
        [256 * TINY, -TINY, TINY, 2 * TINY, -3 * TINY, 17 * TINY],
        [510 * TINY, -255 * TINY, 3 * TINY, -2.5 * TINY, 0.0, 1.5 * TINY],
    )]


@CATALOGUE
def scale_subnormal():
    return EDGE, [_f32(v) for v in (
        [TINY, 0.0, 0.5 * TINY, 0.25 * TINY, 0.75 * TINY, DENORM],  # y_scale = TINY / 255 (subnormal)
        [-TINY, TINY, 0.0, -0.5 * TINY, DENORM, -DENORM],
        [255 * DENORM, DENORM, 2 * DENORM, 127 * DENORM, 128 * DENORM, 0.0],  # y_scale = 2**-149
        [300 * DENORM, -DENORM, 0.0, 5 * DENORM, 150 * DENORM, 299 * DENORM],  # y_scale rounds a lot
    )]


@CATALOGUE
def probe():
    """Inputs the spec leaves undefined (the reference says why): y_scale 0, NaN, infinities."""
    return PROBE, [_f32(v) for v in (
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
        [DENORM, 0.0, DENORM, DENORM, 0.0, 0.0], [-DENORM, 0.0, -DENORM, 0.0, 0.0, 0.0],  # y_scale 0
        [np.nan, 1.0, -1.0, 0.0, 2.0, 3.0], [1.0, 2.0, 3.0, -np.nan, 0.0, 0.5],
        [np.inf, 1.0, -1.0, 0.0, 2.0, 3.0], [-np.inf, 1.0, -1.0, 0.0, 2.0, 3.0],
        [np.inf, -np.inf, 0.0, 1.0, -1.0, 0.5],
    )]


@CATALOGUE
def empty_probe():
    return PROBE, [np.zeros((0,), dtype=F32)]


# ---------------------------------------------------------------------------------------------
# the vector-tail axis (generator/axes.py): the decisive element last, a data set per length
# ---------------------------------------------------------------------------------------------
TAIL_MIN, TAIL_MAX = -1.5, 4.25  # y_scale 5.75 / 255, zero point 66.5...: no tie of its own
TAIL_INNER = [0.5, -0.25, 1.0, 2.0, 0.0, 3.0, -1.0, 1.75]  # strictly inside (min, max), no tie


def tail_tie() -> float:
    """An element of (0, TAIL_MAX) whose x / y_scale is exactly an even j + 0.5 (y_scale of [TAIL_MIN, TAIL_MAX]):
    the reference rounds it down, half away from zero up."""
    scale, _ = ref.quantization_parameters(_f32([TAIL_MIN, TAIL_MAX]))
    hit = quotient_inputs(scale, [j + 0.5 for j in range(100, 180, 2)], 0.0, TAIL_MAX)
    return float(hit[0])


def _tail(filler: list[float], decisive: list[float], short: bool) -> tuple[list[str], list[np.ndarray]]:
    return ["edge", "vector_tail"], axes.tail_datasets(_f32(filler), _f32(decisive), axes.tail_lengths(short))


# every data set costs a directory (4 KiB on disk): the minimum, which the fault misses, gets every length
# 1..65 and the large ones; the maximum and the tie the short list (every remainder of 8 and 16, past 32 and 64)
@CATALOGUE
def vector_tail_min_last():
    """The minimum last (the maximum first): a min reduction without its remainder loop misses it."""
    return _tail([TAIL_MAX] + TAIL_INNER, [TAIL_MIN], short=False)


@CATALOGUE
def vector_tail_max_last():
    return _tail([TAIL_MIN] + TAIL_INNER, [TAIL_MAX], short=True)


@CATALOGUE
def vector_tail_y_tie_last():
    """min and max first, an exact tie x / y_scale = j + 0.5 (j even) last: the quantization loop's remainder."""
    return _tail([TAIL_MIN, TAIL_MAX] + TAIL_INNER, [tail_tie()], short=True)


NONFINITE_LENGTHS = (9,)  # the value in the partial last vector of every width


@CATALOGUE
def nonfinite_tail_probe():
    """Every float32 NaN encoding kind (quiet, signalling, low / high payloads, both signs) and +-Inf, last in x:
    the body's ReduceMin / ReduceMax give NaN, or x / y_scale is inf / inf: no value (probe)."""
    _, nans = axes.nan_values("float")
    decisive = list(nans) + [F32(np.inf), F32(-np.inf)]
    filler = np.array([TAIL_MIN, TAIL_MAX] + TAIL_INNER, dtype=F32)
    return PROBE, [axes.with_tail(filler, np.array([v], dtype=F32), n) for v in decisive for n in NONFINITE_LENGTHS]
