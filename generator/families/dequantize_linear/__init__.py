"""The DequantizeLinear family (ONNX DequantizeLinear-10 .. 28): y = (x - x_zero_point) * x_scale.

Each entry of CATALOGUE is a short function named for what it checks; it yields (variant, Spec) pairs, and each
pair is one model (test_dequantizelinear_<function>_<variant>) with its data sets: x, x_scale and x_zero_point
are graph inputs (the zero point left out where the spec is about its absence). The versions whose text
changed are each checked at an opset where it holds (generator/reference/dequantize_linear.py lists what each
version says; case.json "opset" and spec.file name the version):
  each_version            int8 / uint8, every bit pattern, at every opset of the installed onnx
  every_pattern           every bit pattern of every type of <= 8 bits (float8 NaN / Inf, int4 / int2, float4,
                          float6) at the first version that lists it, with a float32 / float16 / bfloat16 scale
  no_zero_point           the same without the x_zero_point input ("Zero point is 0 when it's not specified")
  wide_integers           int16 / uint16 (strided patterns and extremes), int32 within and beyond 2**24
  per_axis / blocked      granularities (axis default, positive, negative; short last blocks)
  rank1_opset19           [DQL-19] "When the rank of the input is 1, per-tensor quantization is applied"
  output_dtype            [DQL-23] output_dtype against the scale's type
  e8m0_scale              [DQL-24] float8e8m0 scales (powers of two, NaN), MX-style float4 blocks
  scale_specials          zero, negative, subnormal, huge, Inf and NaN scales (IEEE 754 arithmetic)
  float8_zero_point       float8 zero points, NaN / Inf among them
  <granularity>_<type>_random  seeded random values per granularity (generator.sampling)
  negative/ (kind)        models the version rules out; the backend must refuse them at prepare
  witness_*               the fault models' witnesses (generator/witness/catalogue/dequantize_linear.json)
`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py), one slice per x type: a small model and one
data set per example, drawn toward the fault models' boundaries, built by cases_of as every case here;
rebuild(args) gives it again from the drawn bit patterns.

Expected values come from generator.reference.dequantize_linear only. Where plausible intermediate precisions
give other finite values (the reference's `spread`), the case compares in ulps (mode ulp) and says why; where
one overflows and another does not, or for an int32 input with a nonzero zero point, the data set goes to
<name>_probe.

The family is a package, one module per concern: spec (Spec, the constants, the values data sets are made of),
entries, axes_entries and negatives (the catalogue, registered in that order), cases (a Spec's cases, the random
Specs, the witnesses' cases; the catalogue's JSON form is generator/catalogue/dequantize_linear.py) and hunt (hunt,
rebuild). This module is the family's face (generator/family.py): work() and the names the rest of the project
reads.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator import sampling
from generator.case import Case
# the catalogue's entries register in this order: the order of its units
from generator.families.dequantize_linear import entries, axes_entries, negatives  # noqa: F401
from generator.families.dequantize_linear.cases import cases_of, random_specs, spec_of, witness_cases
from generator.families.dequantize_linear.hunt import hunt, rebuild
from generator.families.dequantize_linear.spec import (CATALOGUE, FAMILY, MIN_OPSET, PROFILES, READING_IEEE,
                                                       READING_SCALAR_SCALE_10, Spec)
from generator.reference import dequantize_linear as ref

__all__ = ["CATALOGUE", "FAMILY", "MIN_OPSET", "PROFILES", "READING_IEEE", "READING_SCALAR_SCALE_10", "Spec",
           "cases_of", "hunt", "random_specs", "rebuild", "spec_of", "witness_cases", "work"]


def work(profile: str = "default", seed: int = 0,
         max_opset: int = ref.OPSETS[-1]) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: each catalogue entry, the random cases, the witnesses."""
    if max_opset < MIN_OPSET:
        return []
    opts = PROFILES[profile]

    def entry(fn_name: str) -> Iterator[Case]:
        for variant, spec in CATALOGUE[fn_name]():
            if spec.opset <= max_opset:
                yield from cases_of(f"{FAMILY.prefix}_{fn_name}_{variant}", spec)

    def random() -> Iterator[Case]:
        for variant, spec in random_specs(opts["random"], seed):
            if spec.opset <= max_opset:
                yield from cases_of(f"{FAMILY.prefix}_{variant}_random",
                                    spec, sampling.case_seed(seed, f"test_dequantizelinear_random_{variant}"))

    units = [lambda n=n: entry(n) for n in CATALOGUE]
    if opts["random"]:
        units.append(random)
    units.append(lambda: witness_cases(max_opset))
    return units
