"""What every reference returns: the outputs, and the elements the spec leaves undefined, by reason.

One contract for all operators (docs/design.md, "Families"), so that one helper (generator.family.split) turns
any reference's results into node and probe cases:

    Outcome(outputs=(y, ...), undefined={reason: mask, ...})

A mask is a bool array shaped like the first output (True: the element is undefined for that reason), or a
bool scalar for a data set whose result is undefined as a whole (DynamicQuantizeLinear's zero range, an input
pair with no common type). Outputs hold placeholders where they are undefined; no case ever expects them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class Outcome:
    outputs: tuple[np.ndarray, ...]
    undefined: Mapping[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def of(cls, outputs, why: str | None = None) -> Outcome:
        """Outputs with nothing undefined, or (why: a reason) undefined as a whole."""
        return cls(tuple(outputs), {why: np.bool_(True)} if why else {})

    @classmethod
    def by_element(cls, outputs, why: np.ndarray) -> Outcome:
        """Outputs with a reason per element of the first output ("" where it is defined)."""
        return cls(tuple(outputs), {r: why == r for r in sorted(set(why.ravel().tolist())) if r})

    @property
    def reasons(self) -> list[str]:
        """The reasons that leave at least one element undefined, sorted."""
        return sorted(r for r, mask in self.undefined.items() if np.any(mask))

    @property
    def defined(self) -> bool:
        """Every element of every output is defined."""
        return not self.reasons

    def mask(self) -> np.ndarray:
        """Where the first output is undefined, for any reason (shaped like it)."""
        shape = np.shape(self.outputs[0]) if self.outputs else ()
        out = np.zeros(shape, dtype=bool)
        for m in self.undefined.values():
            out |= np.broadcast_to(np.asarray(m, dtype=bool), shape)
        return out
