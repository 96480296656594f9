"""The QGemm family (com.microsoft QGemm-1, onnxruntime's contrib schema): quantized Gemm, alpha * A' B' with an
int32 C at the product's scale, a float32 output or one requantized to y_zero_point's type.

One node per case (test_qgemm_<what>; the fixed ones are CATALOGUE's functions, the probes PROBES'): a model and
data sets drawn for it (inputs uniform over their types unless the entry says otherwise; scales log-uniform, y_scale
set from |acc + C| so that outputs spread over the output range):
  types         every (A, B, Y) triple of uint8 / int8 A and B and a uint8, int8 or float32 output, zero points
                at both ends of their types
  transposes    transA / transB all four ways, quantized and float, M, K, N distinct and square
  alpha         1 (written), 1/2, 3, -1.5, 0, 0.1, with and without C, quantized and float
  C             [M, N], [N], [1, N], [M, 1], [1, 1], [1], a scalar; acc + C at int32's ends (C = INT32_MAX - acc)
  per column    b_scale / b_zero_point [N] each alone and both, transB 0 and 1, one-element [1] forms
  rounding      power-of-two scales (exact ties), with alpha 1/2 and -1/4; saturation at both ends
  sizes         K = 0 (y from C alone), K = 1, K = 67 (int16 pairs), M = N = 1, odd sizes
  axes          explicit_defaults_<output> (alpha = 1.0, transA = 0, transB = 0 written), vector_tail (one model of
                symbolic N, a tie in the last column, N over the tail lengths); the opset-boundary axis does not
                apply (QGemm has one version)
  config_<i>_random   seeded configurations (the only cases --seed changes)
  witness_<class>_<config>   from the committed witness catalogue (generator/witness/catalogue/qgemm.json)
  negative_*    (negative/) models the text rules out (types, ranks, shapes, input count, y_scale alone)
  *_probe       (probe/) bad scales, acc + C beyond int32
A quantized output is compared exactly (a +-1 tolerant tier); a float output within a dot-product bound (compare
mode "dot", DOT_OPERANDS of generator/reference/qgemm.py). Expected values come from generator.reference.qgemm only.
Modules: config (Gemm, the model, drawn data, the cases of data sets), entries (CATALOGUE, PROBES), negatives,
axes_cases, witnesses, hunt.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

from generator.case import Case
from generator.families.qgemm.axes_cases import explicit_default_cases, random_cases, tail_cases
from generator.families.qgemm.config import CLAUSE, FAMILY, OPSET, Gemm, dataset_cases, draw_dataset, gemm_cases, \
    model
from generator.families.qgemm.entries import CATALOGUE, PROBES
from generator.families.qgemm.hunt import hunt, rebuild
from generator.families.qgemm.negatives import negative_cases
from generator.families.qgemm.witnesses import witness_cases

MIN_OPSET = OPSET
PROFILES = {
    "quick": dict(datasets=1, random=0),
    "default": dict(datasets=2, random=4),
    "exhaustive": dict(datasets=8, random=64),
}
GRID = ("a_type", "b_type", ("y_type",))

__all__ = ["CATALOGUE", "CLAUSE", "FAMILY", "GRID", "Gemm", "MIN_OPSET", "OPSET", "PROBES", "PROFILES",
           "dataset_cases", "draw_dataset", "hunt", "model", "negative_cases", "rebuild", "witness_cases", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the probes and negatives, the axes, the witnesses, the random
    configurations (the only cases --seed changes)."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    def fixed() -> Iterator[Case]:
        for name, fn in CATALOGUE.items():
            g = fn()
            yield from gemm_cases(replace(g, what=name), max(n, 2) if g.zero_points == "ends" else n, 0, ["edge"])

    def others() -> Iterator[Case]:
        for name, fn in PROBES.items():
            g = fn()
            yield from gemm_cases(replace(g, what=name), 5 if g.scales == "bad" else 1, 0, ["probe"])
        yield from negative_cases(0)

    units = [fixed, others, witness_cases, tail_cases, lambda: explicit_default_cases(n)]
    if opts["random"]:
        units.append(lambda: random_cases(opts["random"], seed, n))
    return units
