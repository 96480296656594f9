"""The DynamicQuantizeLinear family (ONNX DynamicQuantizeLinear-11): float32 x -> (y, y_scale, y_zero_point).

Cases (test_dynamicquantizelinear_<what>), each one model with several data sets of one shape; every
data set checks all three outputs. The edge cases and probes are CATALOGUE's functions, one per case:
  mixed / all_positive / all_negative        signs of x: zero point inside, at 0, at 255
  single_element / scalar / 4d               shapes (1,), 0-d, (2, 3, 4, 5)
  zero_point_ties / zero_point_near_ties     min chosen so that -min / y_scale is exactly k + 0.5 in
                                             float32, or one float32 ulp to either side of it
  y_ties / y_near_ties                       elements with x / y_scale exactly j + 0.5, or one ulp off
  range_near_flt_max / range_overflow        ranges up to FLT_MAX; max - min overflowing to inf (y_scale
                                             inf: every step still defined)
  range_smallest_normal / scale_subnormal    ranges near the smallest normal float32; y_scale subnormal
  large_random                               65536 elements (2**20 in the exhaustive profile)
  witness_opset11                            the fault models' witnesses (reference/dynamic_quantize_linear_faults),
                                             from the committed catalogue (generator/witness/catalogue/)
  length<n>_random                           seeded PCG64 draws (generator.sampling) of n float32 values
  vector_tail_min_last / _max_last / _y_tie_last   the vector-tail axis (generator/axes.py): one model of
                                             symbolic length n, a data set per n, the decisive element last: the
                                             min (axes.VECTOR_LENGTHS: 1..65 and a few large), the max or an element
                                             with x / y_scale an exact tie (axes.VECTOR_LENGTHS_SHORT)
  mixed_opset<n>                             the opset-boundary axis: `mixed` at opset 12 (just above
                                             DynamicQuantizeLinear-11, its one version) and at the newest opset,
                                             which still resolve to version 11 (a runtime that keys kernels by
                                             opset may miss them)
  nonfinite_tail_probe                       (probe/) the NaN-payload axis: every float32 NaN encoding kind
                                             (axes.nan_values, signalling ones included) and +-Inf, last in x of
                                             a few lengths: the body's result has no value there
  probe / empty_probe / length<n>_random_probe  (probe/) inputs whose result the spec leaves undefined: all
                                             zeros, ranges that underflow to y_scale 0, NaN, infinities, empty

`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py): one x per example, its min / max and
elements drawn toward the fault models' boundaries (HUNT_RANGES below), built by cases_of as every case here;
one form in four is 1-D of a vector-tail length (axes.VECTOR_LENGTHS_SHORT up to 65) with an extreme last.

The operator has no attributes: the explicit-defaults axis has nothing to write. The body's element-wise
quantization cannot saturate a defined x (x / y_scale + zero point stays within [0, 255] up to rounding), so
the tail's decisive element of the quantization loop is a tie, not a saturating value.
Cases whose expected values rest on reading the body's float32 steps as IEEE arithmetic (an overflowing range,
a subnormal y_scale) carry case.json "reading" (reference READING_*).

Expected values come from generator.reference.dynamic_quantize_linear only.

The family is a package, one module per concern: values (the constants, the float32 constructions of ties),
entries (CATALOGUE, the vector-tail and NaN-payload axes), cases (a case's node and probe, the random inputs, the
witnesses' cases, whose JSON form is generator/catalogue/dynamic_quantize_linear.py, the opset boundaries) and
hunt (hunt, rebuild). This module is the family's face (generator/family.py): work() and the names the rest of the
project reads.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator import sampling
from generator.case import Case
from generator.families.dynamic_quantize_linear.cases import (boundary_cases, boundary_opsets, cases_of, large_input,
                                                              random_inputs, witness_cases)
from generator.families.dynamic_quantize_linear.entries import CATALOGUE, TAIL_MAX, TAIL_MIN, tail_tie
from generator.families.dynamic_quantize_linear.hunt import hunt, rebuild
from generator.families.dynamic_quantize_linear.values import COMPARE, FAMILY, OPSET, PROFILES

__all__ = ["CATALOGUE", "COMPARE", "FAMILY", "OPSET", "PROFILES", "TAIL_MAX", "TAIL_MIN", "boundary_cases",
           "boundary_opsets", "cases_of", "hunt", "large_input", "random_inputs", "rebuild", "tail_tie",
           "witness_cases", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the large case, each random case."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]

    def catalogue() -> Iterator[Case]:
        for name, build in CATALOGUE.items():
            flags, sets = build()
            yield from cases_of(name, sets, flags, 0)

    def large() -> Iterator[Case]:
        s = sampling.case_seed(seed, f"{FAMILY.prefix}_large_random")
        yield from cases_of("large_random", [large_input(opts["large"], s), -large_input(opts["large"], s + 1)],
                            ["large", "random"], s)

    def random(n: int) -> Iterator[Case]:
        what = f"length{n}_random"
        s = sampling.case_seed(seed, f"{FAMILY.prefix}_{what}")
        yield from cases_of(what, random_inputs(n, opts["random"], s), ["random"], s)

    units = [catalogue, witness_cases, lambda: boundary_cases(max_opset)]
    if opts["large"]:
        units.append(large)
    if opts["random"]:
        units += [lambda n=n: random(n) for n in (2, 7, 64)]
    return units
