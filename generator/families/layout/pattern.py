"""What a layout case is made of: a Pattern (a TFLite-form graph, its explicit layouts, its data), the family's
opset and the tolerance of its comparison."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from generator.family import Family
from generator.reference import layout as L


# op "Layout" names the cases (test_layout_...); each case.json "op" is its pattern's operator (Pattern.op)
FAMILY = Family("layout", "Layout", "layout-semantic-conversion.txt")
OPSET = 18  # ReduceMean / ReduceMax / Split / Pad / Slice take their parameters as inputs

RTOL = 1e-4
ATOL_PER_SCALE = 1e-4
COMPARE_REASON = (
    "float32 sums of up to a few hundred products, exp and tanh: backends accumulate in their own order (tiling, "
    "FMA, Winograd) and approximate exp, the reference rounds a float64 result once. rtol 1e-4; atol 1e-4 times "
    "the output's largest magnitude (rounded up to a power of two), since an element that cancels to near 0 "
    "keeps the rounding error of its large terms. A layout error changes values by O(1) of that scale")


def compare_spec(names: list[str], outputs: list[list[np.ndarray]]) -> dict:
    """The case's tolerance: allclose with a per-output atol from the largest expected magnitude."""
    per = {}
    for j, name in enumerate(names):  # NaN payloads pass through some patterns: the scale ignores them
        scale = max([1.0] + [float(np.nanmax(np.abs(ds[j]))) for ds in outputs if np.isfinite(ds[j]).any()])
        per[name] = {"atol": ATOL_PER_SCALE * 2.0 ** int(np.ceil(np.log2(scale)))}
    return {"mode": "allclose", "rtol": RTOL, "atol": ATOL_PER_SCALE, "reason": COMPARE_REASON, "outputs": per}


PROPAGATION = "Propagation based Approach"
EXPLICIT = "Explicit Layout"
BROADCAST = "Broadcast of Propagation"


@dataclass
class Pattern:
    op: str  # the operator the case is about (case.json "op")
    clause: str
    graph: L.Graph
    explicit: dict = field(default_factory=dict)
    what: str = ""
    fill: dict = field(default_factory=dict)  # graph input -> fn(rng, shape): its data (else seeded uniform)
    defaults: str = ""  # the ONNX model's default-valued attributes: "" as written, "explicit", "omitted"
