"""The QuantizeLinear family (ONNX QuantizeLinear-10..28): y = saturate(round(x / y_scale) + y_zero_point).

Each case is one function of the catalogue below, named for what it checks (test_quantizelinear_<name>): one
model (x, y_scale and y_zero_point as graph inputs, the zero point left out where the name says so), its
data sets, expected outputs from generator.reference.quantize_linear only. generator.family.split sends the
elements the texts leave open to <name>_probe. Semantics that changed between versions are checked at an
opset where each holds, and case.json names it (opset, params.version):
  opset 10      per-tensor int8 / uint8, float32 or int32 x, the schema's example
  opset 13      per-axis (axis 1, 0, negative); negative and subnormal scales; a 0-d x
  opset 19      float16 / bfloat16 x (y_scale of x's type), float8 outputs with saturate on / off
  opset 21      int16 / uint16 / int4 / uint4, blocked quantization, output_dtype with and without a zero point
  opset 23      y_scale of its own type: the division in float16 / bfloat16, the precision attribute, float4e2m1
                (output_dtype too)
  opset 24      float8e8m0 y_scale, and the MX layout (float4e2m1 in blocks of 32 over float8e8m0 scales);
                Inf -> FNUZ types with saturate=1 is +-FLT_MAX (Cast-24), NaN before
  opset 25      int2 / uint2 (output_dtype too); every output type again at the newest opset onnxruntime runs, and
                the float8 types with saturate=0
  opset 28      float6e2m3 / float6e3m2 (saturate has no effect)
  negative/     models the schema rules out (mismatched scale / zero point shapes, ranks or types, an axis out of
                range, output_dtype against the zero point, a block_size that does not fit, types and attributes
                a version lacks), each citing the rule's sentence
  witness_*     the fault models' witnesses (reference/quantize_linear_faults.py) from the committed catalogue

The family is a package, one module per concern: spec (Spec, the constants, the values data sets are made of),
entries, axes_entries and negatives (the catalogue, registered in that order), cases (a Spec's cases, the
catalogue's, the witnesses', the random ones; the catalogue's JSON form is generator/catalogue/quantize_linear.py)
and hunt (hunt, rebuild). This module is the family's face (generator/family.py): work() and the names the rest of
the project reads.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
# the catalogue's entries register in this order: the order of its cases
from generator.families.quantize_linear import entries, axes_entries, negatives  # noqa: F401
from generator.families.quantize_linear.cases import catalogue_cases, random_cases, spec_cases, witness_cases
from generator.families.quantize_linear.hunt import hunt, rebuild
from generator.families.quantize_linear.spec import (CATALOGUE, FAMILY, GRID, MIN_OPSET, NEWEST_RUNNABLE, PROFILES,
                                                     READING_SCALAR_SCALE_10, Spec, float_values)

__all__ = ["CATALOGUE", "FAMILY", "GRID", "MIN_OPSET", "NEWEST_RUNNABLE", "PROFILES", "READING_SCALAR_SCALE_10", "Spec",
           "catalogue_cases", "float_values", "hunt", "random_cases", "rebuild", "spec_cases", "witness_cases", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = 28) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the witnesses, the random cases."""
    if max_opset < MIN_OPSET:
        return []
    opts = PROFILES[profile]
    units = [lambda: catalogue_cases(max_opset), lambda: witness_cases(max_opset)]
    if opts["random"]:
        units.append(lambda: random_cases(opts["random"], seed, max_opset))
    return units
