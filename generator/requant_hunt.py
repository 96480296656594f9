"""Hunting the requantization of an int32 accumulator (acc * x_scale * w_scale / y_scale, rounded half to even,
plus y_zero_point, saturated): hypothesis draws of scales that put an accumulator exactly on a tie, where float
requantization is likeliest to round off it. Shared by the hunts of the requantizing families (QLinearConv's,
generator/families/qlinear_conv/hunt.py), with the cached strategies they draw from.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from generator import dtypes


@functools.lru_cache(maxsize=None)
def pick(values: tuple):
    """sampled_from(values), cached: hypothesis shrinks it toward the first value."""
    from hypothesis import strategies as st

    return st.sampled_from(values)


@functools.lru_cache(maxsize=None)
def ints(lo: int, hi: int):
    """integers(lo, hi), cached."""
    from hypothesis import strategies as st

    return st.integers(lo, hi)


def tie_scales(draw, total: np.ndarray, yt: dtypes.DType, yz: int):
    """Scales that put one nonzero accumulator a = 2**t * o (o odd) exactly on the tie h + 1/2:
    x_scale = (2h + 1) 2**px, w_scale = 2**pw, y_scale = o 2**(px + pw + t + 1), so that
    a * x_scale * w_scale / y_scale = h + 1/2, a multiplier (2h + 1) / (2**(t+1) o) that is no float when
    o > 1; both neighbours of the tie inside the output type where y_zero_point leaves room. Returns
    (output channel, x_scale, w_scale, y_scale), or None if no accumulator can be tied. total: the accumulators
    (B added), output channels on axis 1."""
    flat = total.reshape(-1)
    up, down = yt.int_max - yz - 1, yz - yt.int_min - 1  # room for the tie of a positive / negative acc
    # the accumulators of the sign whose ties y_zero_point leaves the most room for (the other sign if none)
    nonzero = np.flatnonzero(flat > 0 if up >= down else flat < 0)
    if not nonzero.size:
        nonzero = np.flatnonzero(flat)
    if not nonzero.size:
        return None
    i = int(nonzero[draw(ints(0, nonzero.size - 1))])
    a = int(flat[i])
    t = (abs(a) & -abs(a)).bit_length() - 1
    o = abs(a) >> t
    if o >= 2**24:
        return None
    room = up if a > 0 else down
    h = 0 if room < 0 else draw(pick(tie_targets(o, room)) if draw(pick((True, False))) else ints(0, room))
    px, pw = draw(ints(-14, -4)), draw(ints(-10, -3))
    ch = (i // int(np.prod(total.shape[2:]))) % total.shape[1]
    return ch, (2 * h + 1) * 2.0**px, 2.0**pw, o * 2.0 ** (px + pw + t + 1)


@functools.lru_cache(maxsize=4096)
def tie_targets(o: int, room: int, n: int = 4) -> tuple[int, ...]:
    """The n ties h + 1/2 (0 <= h <= room) of an accumulator of odd part o that a float requantization
    is likeliest to get wrong: the multiplier (2h + 1) / o rounded to float32 (float64) is off by a relative
    error d, and the float product leaves the tie toward h + 1 (d > 0) or h (d < 0) when |d| (h + 1/2)
    exceeds half the float's spacing there; wrong when that neighbour is the odd one. Ranked by that
    ratio, the larger of the two types' (the tie at the top of a binade, the multiplier far from a float)."""
    if o == 1:
        return (0,)

    def miss(h: int) -> float:
        odd = 2 * h + 1
        position = (h + 0.5) / 2.0 ** (math.frexp(h + 0.5)[1] - 1)  # in [1, 2)
        out = 0.0
        for f, bits in ((np.float32, 24), (np.float64, 53)):
            num, den = float(f(f(odd) / f(o))).as_integer_ratio()
            err = num * o - odd * den  # d = err / (odd * den), exactly
            if err and (err > 0) == (h % 2 == 0):  # toward the odd neighbour
                out = max(out, abs(err) / (odd * den) * position * 2.0**bits)
        return out

    return tuple(sorted(range(room + 1), key=lambda h: (-miss(h), h))[:n])
