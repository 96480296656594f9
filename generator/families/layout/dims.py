"""The sizes and attribute values a pattern is built with (Dims): the suite's, a hunt's draws, or a hunted case's
replayed."""

from __future__ import annotations

from typing import Callable


class Dims:
    """The sizes and attribute values a pattern is built with, each asked for by name with the suite's value
    and the range a hunt draws it from:

      Dims()             the suite's values (what gen-cases writes; no range is consulted)
      Dims(draw=draw)    a hunt: hypothesis draws every value (`draw` of a composite strategy); `values`
                         records them, for case.json params["sizes"]
      Dims(values)       a hunted case rebuilt from its params["sizes"] (the fault models convert it)
      Dims(fixed=...)    the suite's values with some replaced (the variants of axis_variants); `values` records
                         every value, for case.json params["sizes"]

    Ranges start at their simplest value (size 1, kernel 1, stride 1, no pad), where hypothesis shrinks. A size
    is drawn from its range (one in four), from its range without 1 (half: a size-1 axis hides a wrong
    permutation), or equal to an earlier size above 1 (one in four), so that C == H == W, where converters
    that guess a layout from the shape go wrong, comes up often."""

    def __init__(self, values: dict | None = None, draw: Callable | None = None, fixed: dict | None = None):
        self.values: dict = {} if values is None else dict(values)
        self.replay = values is not None
        self._draw = draw
        self._fixed = dict(fixed or {})  # the suite's values, these replaced (an axis: equal sizes, tails)
        self._sizes: list[int] = []

    def _get(self, name: str, default, strategy: Callable):
        if self.replay:
            return self.values[name]
        if self._draw is None:
            self.values[name] = value = self._fixed.get(name, default)
            return value
        if name in self.values:
            raise ValueError(f"{name!r} drawn twice")
        self.values[name] = value = self._draw(strategy())
        return value

    def int(self, name: str, default: int, lo: int, hi: int) -> int:
        return self._get(name, default, lambda: _hypothesis_strategies().integers(lo, hi))

    def pick(self, name: str, default, choices: list):
        """One of choices (JSON values: a hunted case's params hold it), the first the simplest."""
        return self._get(name, default, lambda: _hypothesis_strategies().sampled_from(choices))

    def size(self, name: str, default: int, lo: int, hi: int) -> int:
        """A tensor size in [lo, hi] (see the class)."""
        def strategy():
            st = _hypothesis_strategies()
            above = max(lo, 2)
            ties = sorted({s for s in self._sizes if above <= s <= hi})
            if above > hi:
                return st.integers(lo, hi)
            return st.integers(0, 3).flatmap(lambda k: st.integers(lo, hi) if k == 0 else
                                             st.sampled_from(ties) if k == 3 and ties else st.integers(above, hi))

        tied = [s for s in self._sizes if max(lo, 2) <= s <= hi]
        value = self._get(name, default, strategy)  # drawn even where tied: a shrink that unties keeps its draws
        if tied and name not in self._fixed and not self.replay and self.equal_sizes():
            value = self.values[name] = tied[0]
        self._sizes.append(value)
        return value

    def equal_sizes(self) -> bool:
        """The equal-sizes axis: every size after the first that its range allows takes the first size above 1
        (C == H == W, where a converter that guesses layouts from shapes cannot tell NHWC from NCHW; onnx2tf
        #960). Drawn once by a hunt (half the draws), fixed["equal_sizes"] in the suite's variants."""
        if "equal_sizes" not in self.values:
            if self.replay:
                return False  # a case hunted before the axis existed
            self._get("equal_sizes", False, lambda: _hypothesis_strategies().booleans())
        return bool(self.values["equal_sizes"])

    def window(self, prefix: str, spatial, kernel, padding: str, strides, vary_padding: bool = True,
               vary_strides: bool = True, kernel_min: int = 1):
        """A conv / pool window: padding (VALID first), kernel sizes kernel_min to 3 (under VALID, smaller than
        the input unless it is 1: an axis the window collapses to 1 hides a wrong permutation), strides 1 or 2;
        one in four the identity window (kernel 1, stride 1), a shortcut backends take. The pattern's padding
        where vary_padding is False, its strides where vary_strides is False (SAME and stride 1 keep the
        shape)."""
        unit = self.int(f"{prefix}_unit", 0, 0, 3) == 3
        if vary_padding:
            padding = self.pick(f"{prefix}_padding", padding, ["VALID", "SAME"])
        if unit:
            kernel = (1,) * len(kernel)
        else:
            kernel = tuple(self.int(f"{prefix}_k{i}", k, kernel_min,
                                    max(kernel_min, min(3, s - 1)) if padding == "VALID" else 3)
                           for i, (k, s) in enumerate(zip(kernel, spatial)))
        if vary_strides:
            strides = (1,) * len(strides) if unit else tuple(self.int(f"{prefix}_s{i}", s, 1, 2)
                                                              for i, s in enumerate(strides))
        return kernel, padding, tuple(strides)


def _hypothesis_strategies():
    from hypothesis import strategies

    return strategies
