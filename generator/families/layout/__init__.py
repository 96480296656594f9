"""The layout family: graph cases, each a pattern where NHWC <-> NCHW converters and NHWC backends go wrong
(layout-semantic-conversion.txt). Every case is written twice in its directory: the ONNX graph (NCHW), and
its NHWC twin as a TFLite model with its own data sets.

Each pattern is authored as a TFLite-form graph (generator.reference.layout); the propagation-based
converter of generator.reference.layout gives the ONNX form (with the explicit layout map where the pattern
needs one). Expected outputs are computed once, on the TFLite form with the kernels of
generator.reference.layout_kernels; the ONNX inputs and expected outputs are the same arrays with the
converter's layout map applied. Sizes are distinct primes (a wrong permutation changes the shape or the
values), plus deliberately ambiguous shapes (C == H == W; [1, 256, 256]) where converters guess. Data:
seeded uniform float32 in [-1, 2) (asymmetric, so that a sign or reversed order cannot pass).

Axes of generation (generator/axes.py; axis_variants below): each pattern that reshapes, transposes or convolves
also with equal sizes (C == H == W, H == W: onnx2tf #960), the TFLite RESHAPE with its new shape in the
options only (tflite2onnx #23), explicit and omitted default attributes, channel counts around vector widths
with the decisive last channel, NaN payloads through the ops that move data without arithmetic.

opconform hunt draws the same patterns with other sizes, windows and attribute values (`hunt`; each pattern
asks a Dims for them, which gives the suite's values to gen-cases), one data set each; case.json params
"pattern" / "sizes" rebuild such a case for the fault models.

The package, by concern: pattern.py (Pattern, the comparison), onnx_form.py (the ONNX form of a graph), dims.py
(sizes and attribute values), cases.py (a pattern made into its case), builder.py and patterns.py (the
catalogue of patterns), variants.py (the axes over the patterns; source_pattern), hunt_strategy.py (opconform
hunt). This module is the family (generator/family.py): its profiles and units.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
from generator.families.layout.cases import build, build_case
from generator.families.layout.hunt_strategy import hunt, rebuild
from generator.families.layout.pattern import FAMILY, OPSET
from generator.families.layout.patterns import CATALOGUE
from generator.families.layout.variants import axis_variants, build_variant, source_pattern

PROFILES = {"quick": dict(datasets=1), "default": dict(datasets=2), "exhaustive": dict(datasets=4)}


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """One unit per pattern, and one per variant of the axes (axis_variants). No case is written below opset
    OPSET."""
    if max_opset is not None and max_opset < OPSET:
        return []
    datasets = PROFILES[profile]["datasets"]
    units = [lambda n=n, m=m: iter(build(m, n, seed, datasets)) for n, m in sorted(CATALOGUE.items())]
    return units + [lambda v=v: iter(build_variant(v, seed, datasets)) for v in axis_variants()]


# build_case: imported from here by tests/test_backend_options.py
__all__ = ["FAMILY", "OPSET", "PROFILES", "CATALOGUE", "build_case", "hunt", "rebuild", "source_pattern", "work"]
