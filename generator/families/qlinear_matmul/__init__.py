"""The QLinearMatMul family (ONNX QLinearMatMul-10 and -21): quantized numpy.matmul.

One node per case (test_qlinearmatmul_<what>; the fixed ones are CATALOGUE's functions, the probes PROBES'): a model
and data sets drawn for it (inputs uniform over their types unless the entry says otherwise; scales log-uniform,
y_scale set from the accumulators so outputs spread over the output range):
  types        every int8 / uint8 (a, b, y) triple at opset 10 and 21, zero points at both ends of their types
  shapes       2-D; K = 1 and K = 67; M = N = 1; 1-D a, 1-D b, both 1-D, a 1-D a against a batched b; 3-D and 4-D
               batches; b without batch dimensions, leading and trailing batch broadcast; a 2-D operand against a
               batched one with a broadcast 1, both orders; K = 0 (y = y_zero_point), M = 0, N = 0
  quantization per row of a ([M] and [..., M, 1]), per column of b ([N] and [..., 1, N]), both; float16 / bfloat16
               scales (QLinearMatMul-21's TS), a float16 subnormal in each scale slot in turn where a float16
               multiplier changes y (scales_float16_slots)
  rounding     power-of-two scales (exact ties) and a multiplier 1/6 that is no float; outputs saturating at both ends
  opset<n>     the opset-boundary axis: the opsets just below, at and above 21
  vector_tail  the vector-tail axis (generator/axes.py): one model of symbolic N, a tie in the last column, N over
               the tail lengths
  config_<i>_random   configurations from seeded PCG64 draws (the only cases --seed changes)
  witness_<class>  one case per configuration class of qlinear_matmul_faults.group_key, from the committed
               witness catalogue (generator/witness/catalogue/qlinear_matmul.json)
  negative_*   (negative/) models the text rules out (types, zero point types, scale types, ranks, shapes)
  float8_*     QLinearMatMul-21's float8 types (each as a, b and y, in range and saturating; a float8 b with
               integer a and y; float8 zero points), judged on reference READING_FLOAT8
  *_probe      (probe/) data the text leaves undefined: bad scales, NaN / Inf float8 operands, acc beyond int32
The explicit-defaults axis does not apply (the operator has no attribute); the opset-boundary axis is the
types_*_opset10 / _opset21 pairs (QLinearMatMul-21 adds types only).

Every judged case carries case.json "reading" (reference READING_*). Expected values come from
generator.reference.qlinear_matmul only. Modules: mm (MatMul, the model, drawn data, the cases of data sets),
entries (CATALOGUE, PROBES), negatives, witnesses, hunt, axes_cases (vector tail, int32 overflow probe, random
configurations).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

import onnx

from generator.case import Case
from generator.families.qlinear_matmul.axes_cases import (boundary_cases, float16_slot_cases, overflow_probe,
                                                           random_configurations, tail_cases)
from generator.families.qlinear_matmul.entries import CATALOGUE, PROBES
from generator.families.qlinear_matmul.hunt import hunt, rebuild
from generator.families.qlinear_matmul.mm import (CLAUSE, COMPARE, FAMILY, NAMES, NEWEST, OPSET, PROFILES, MatMul,
                                                  dataset_cases, draw_dataset, matmul_cases, model)
from generator.families.qlinear_matmul.negatives import negative_cases
from generator.families.qlinear_matmul.witnesses import witness_cases

__all__ = ["CATALOGUE", "CLAUSE", "COMPARE", "FAMILY", "NAMES", "NEWEST", "OPSET", "PROBES", "PROFILES", "MatMul",
           "dataset_cases", "draw_dataset", "hunt", "matmul_cases", "model", "negative_cases", "rebuild",
           "witness_cases", "work"]

GRID = ("a_type", "b_type", ("y_type",))


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the probes and negatives, the axes, the witnesses, the random
    configurations; max_opset: the newest opset a model may have (default: the installed onnx's)."""
    max_opset = onnx.defs.onnx_opset_version() if max_opset is None else max_opset
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    def fixed() -> Iterator[Case]:
        for name, fn in CATALOGUE.items():
            mm = fn()
            if mm.opset <= max_opset:
                yield from matmul_cases(replace(mm, what=name), max(n, 2) if mm.zero_points == "ends" else n, 0,
                                        ["edge"])

    def others() -> Iterator[Case]:
        for name, fn in PROBES.items():
            mm = fn()
            if mm.opset <= max_opset:
                yield from matmul_cases(replace(mm, what=name), 5 if mm.scales == "bad" else 2, 0, ["probe"])
        yield from overflow_probe(min(max_opset, NEWEST))
        yield from (c for c in negative_cases(0) if c.meta["opset"] <= max_opset)

    def randoms() -> Iterator[Case]:
        for mm in random_configurations(opts["random"], seed, max_opset):
            yield from matmul_cases(mm, n, seed, ["random"])

    newest = (lambda: float16_slot_cases(NEWEST)) if max_opset >= NEWEST else (lambda: iter(()))
    return [fixed, others, witness_cases if max_opset >= NEWEST else (lambda: iter(())), newest,
            lambda: tail_cases(min(max_opset, NEWEST)),
            lambda: boundary_cases(max_opset, n)] + \
        ([randoms] if opts["random"] else [])
