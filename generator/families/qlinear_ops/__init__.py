"""The QLinear operators family: the com.microsoft operators that are "dequantize -> float operator -> quantize"
(onnxruntime docs/ContribOperators.md: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat, QLinearWhere; com.microsoft version 1).

One node per case (test_<op>_<what>: case.json "op" names the operator): the catalogue (entries.py: per operator
uint8 / int8, zero points given / omitted, broadcasting, T's every value through the unary functions, each
attribute's meaning; probes where y_scale is 0 or a pooling window covers nothing), the negatives (negatives.py),
the axes (axes.py: explicit defaults, vector tail), random configurations (hunt.py; the only cases --seed changes).
Expected values come from generator.reference.qlinear_ops only (one table of rows over
generator/reference/float_ops.py's float functions, requantized by generator/reference/requantize.float_range),
compared under mode "range" (generator/reference/dq_op_q.py): the rounding of the exact value, or its neighbour
where a float32 evaluation in any order can reach the rounding boundary; +-1 in the tolerant tier.

The package: config (Config, the model, the data sets by kind, the case), entries (the catalogue), negatives, axes,
hunt (hunt, rebuild, random configurations). A new operator of this shape is a row in qlinear_ops.QOPS, its float
function in float_ops.ROWS and its configurations in entries.py.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
from generator.families.qlinear_ops.axes import default_cases, tail_cases
from generator.families.qlinear_ops.config import FAMILY, OPSET, Config, cases, datasets, model
from generator.families.qlinear_ops.entries import CATALOGUE, configs
from generator.families.qlinear_ops.hunt import hunt, random_configs, rebuild
from generator.families.qlinear_ops.negatives import negative_cases

MIN_OPSET = OPSET
PROFILES = {"quick": {"random": 0}, "default": {"random": 9}, "exhaustive": {"random": 45}}
GRID = ("op", "t", ())  # the report's grid: operator x T, one table

__all__ = ["CATALOGUE", "Config", "FAMILY", "GRID", "MIN_OPSET", "OPSET", "PROFILES", "cases", "configs", "datasets",
           "hunt", "model", "negative_cases", "rebuild", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue (data drawn with base seed 0) per operator, the negatives, the axes, the
    random configurations (the only cases --seed changes)."""
    if max_opset < OPSET:
        return []
    by_op: dict[str, list[Config]] = {}
    for cfg in configs():
        by_op.setdefault(cfg.op, []).append(cfg)

    def fixed(rows: list[Config]) -> Callable[[], Iterator[Case]]:
        def unit() -> Iterator[Case]:
            for cfg in rows:
                yield from cases(cfg, 0, ("edge",))
        return unit

    def randoms() -> Iterator[Case]:
        for cfg in random_configs(PROFILES[profile]["random"], seed):
            yield from cases(cfg, seed, ("random",))

    return [fixed(rows) for rows in by_op.values()] + [lambda: negative_cases(0), lambda: default_cases(0),
                                                       lambda: tail_cases(0), randoms]
